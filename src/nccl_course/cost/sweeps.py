"""Published benchmark sweeps (nccl-tests or equivalent), and a model's error against each.

A *sweep* is one published run over many sizes: the system, the versions, what was forced, the
command, and per size the time, algbw and busbw exactly as the source prints them. The data live
in ``cost/published_sweeps/*.yml`` (one file per sweep, format in its README.txt); this module
reads them and compares them with any predictor that has the signature of the NCCL model,
``predictor(collective, size_bytes, preset, *, ranks, algo, proto)``, returning an object with
``time_s`` and ``busbw_GBps`` (and optionally ``algorithm`` / ``protocol``).

A column the source does not print is ``None``, never filled in. Where a comparison needs a
measured time the source does not print, it is *derived* (size / algbw, or size x factor /
busbw, the definitions of nccl-tests) and flagged as such.

Units: bytes, seconds (the files hold microseconds, as nccl-tests prints them), GB/s = 1e9 B/s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from statistics import median
from typing import Any

from nccl_course import yaml_text
from nccl_course.cost.busbw import busbw_factor

MiB = 1024**2

#: Sizes from which the headline error is taken: below this, latency (which an alpha-beta
#: model knows least about) dominates and one bad point would swamp the median.
MEDIAN_FROM_BYTES = 1 * MiB

#: The metadata every sweep file must have (``None`` allowed where noted in README.txt).
METADATA_KEYS = (
    "id",
    "title",
    "source_url",
    "source_note",
    "collective",
    "gpu",
    "gpus_per_node",
    "nodes",
    "ranks",
    "interconnect",
    "nics_per_node",
    "nic_speed",
    "nvls",
    "nccl_version",
    "nccl_tests_version",
    "cuda",
    "driver",
    "other_versions",
    "benchmark",
    "harness",
    "command",
    "env",
    "columns",
    "preset",
    "algo",
    "proto",
    "switch_points",
    "switch_source",
    "notes",
)


@dataclass(frozen=True)
class SweepRow:
    """One size of a sweep, as printed: ``size_bytes``; ``time_us`` (microseconds),
    ``algbw_GBps`` and ``busbw_GBps`` (GB/s = 1e9 B/s), each ``None`` when not printed."""

    size_bytes: int
    time_us: float | None
    algbw_GBps: float | None
    busbw_GBps: float | None


@dataclass(frozen=True)
class SwitchPoint:
    """Where the algorithm/protocol changes: ``last_bytes`` is the last size run with
    ``before``, ``first_bytes`` the first run with ``after`` (strings like "RING/LL")."""

    last_bytes: int
    first_bytes: int
    before: str
    after: str


@dataclass(frozen=True)
class PublishedSweep:
    """A published sweep: its metadata (the keys of :data:`METADATA_KEYS`) and its rows, in
    increasing size. ``preset``, ``ranks``, ``algo`` and ``proto`` (NCCL_ALGO / NCCL_PROTO
    strings, ``None`` when NCCL chose) are what a predictor is asked about."""

    id: str
    title: str
    source_url: str
    collective: str
    preset: str
    ranks: int
    algo: str | None
    proto: str | None
    nccl_version: str
    rows: tuple[SweepRow, ...]
    switch_points: tuple[SwitchPoint, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def model_preset(self):
        """The preset to price on: ``preset`` (its name), or one GPU per node of it (a Preset)
        when the sweep ran one GPU on each of several nodes (the preset describes whole
        nodes)."""
        from nccl_course.cost.presets import one_gpu_per_node

        nodes, per_node = self.metadata.get("nodes"), self.metadata.get("gpus_per_node")
        if nodes and nodes > 1 and per_node == 1:
            return one_gpu_per_node(self.preset, int(nodes))
        return self.preset

    @property
    def harness(self) -> str:
        """What timed the calls (a name of :data:`~nccl_course.cost.nccl.call_cost.HARNESSES`)."""
        return str(self.metadata.get("harness") or "nccl-tests")

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(r.size_bytes for r in self.rows)

    def row(self, size_bytes: int) -> SweepRow:
        """The row printed for ``size_bytes``; KeyError if the sweep has none."""
        for r in self.rows:
            if r.size_bytes == size_bytes:
                return r
        raise KeyError(f"{self.id} has no row for {size_bytes} bytes")

    def measured_time_s(self, row: SweepRow) -> tuple[float | None, bool]:
        """(seconds, derived) for ``row``: the printed time, else size / algbw, else
        size x busbw factor / busbw; ``None`` when nothing printed allows it (0.00 GB/s)."""
        if row.time_us is not None:
            return row.time_us * 1e-6, False
        if row.algbw_GBps:
            return row.size_bytes / (row.algbw_GBps * 1e9), True
        if row.busbw_GBps:
            factor = busbw_factor(self.collective, self.ranks)
            return row.size_bytes * factor / (row.busbw_GBps * 1e9), True
        return None, True


def _parse(text: str, name: str) -> PublishedSweep:
    data = yaml_text.safe_load(text)
    missing = [k for k in METADATA_KEYS if k not in data]
    if missing:
        raise ValueError(f"{name}: metadata keys missing: {', '.join(missing)}")
    if "rows" not in data or not data["rows"]:
        raise ValueError(f"{name}: no rows")
    rows = []
    for raw in data["rows"]:
        if len(raw) != 4:
            raise ValueError(f"{name}: a row needs 4 cells (size, time, algbw, busbw): {raw}")
        size, time_us, algbw, bus = raw
        rows.append(
            SweepRow(
                int(size),
                None if time_us is None else float(time_us),
                None if algbw is None else float(algbw),
                None if bus is None else float(bus),
            )
        )
    switches = tuple(
        SwitchPoint(int(s["last_bytes"]), int(s["first_bytes"]), str(s["before"]), str(s["after"]))
        for s in data["switch_points"] or ()
    )
    return PublishedSweep(
        id=str(data["id"]),
        title=str(data["title"]),
        source_url=str(data["source_url"]),
        collective=str(data["collective"]),
        preset=str(data["preset"]),
        ranks=int(data["ranks"]),
        algo=data["algo"],
        proto=data["proto"],
        nccl_version=str(data["nccl_version"]),
        rows=tuple(rows),
        switch_points=switches,
        metadata=data,
    )


@lru_cache(maxsize=1)
def load_sweeps() -> tuple[PublishedSweep, ...]:
    """Every published sweep shipped with the package, sorted by id."""
    folder = resources.files("nccl_course.cost").joinpath("published_sweeps")
    sweeps = [
        _parse(entry.read_text(encoding="utf-8"), entry.name)
        for entry in folder.iterdir()
        if entry.name.endswith(".yml")
    ]
    return tuple(sorted(sweeps, key=lambda s: s.id))


def get_sweep(sweep_id: str) -> PublishedSweep:
    """The sweep with ``sweep_id``; ValueError listing the known ids otherwise."""
    for sweep in load_sweeps():
        if sweep.id == sweep_id:
            return sweep
    known = ", ".join(s.id for s in load_sweeps())
    raise ValueError(f"unknown sweep {sweep_id!r}; known: {known}")


# --- comparison -----------------------------------------------------------------------------

Predictor = Callable[..., Any]


@dataclass(frozen=True)
class ComparedRow:
    """One size: measured and predicted time (seconds) and busbw (GB/s), relative errors
    (predicted - measured) / measured (``None`` when the measured value is missing or 0),
    ``time_derived`` (the measured time is computed from a printed bandwidth), and what the
    predictor says it would run (``None`` if it does not say)."""

    size_bytes: int
    measured_time_s: float | None
    time_derived: bool
    predicted_time_s: float
    time_rel_error: float | None
    measured_busbw_GBps: float | None
    predicted_busbw_GBps: float
    busbw_rel_error: float | None
    algorithm: str | None
    protocol: str | None


@dataclass(frozen=True)
class SweepComparison:
    """A sweep against a predictor: the rows, the median absolute relative busbw error over
    sizes >= :data:`MEDIAN_FROM_BYTES` (``None`` if no such size has a busbw), the switch
    points the predictor implies between consecutive sizes, and those the source reports."""

    sweep: PublishedSweep
    rows: tuple[ComparedRow, ...]
    median_abs_busbw_error: float | None
    predicted_switch_points: tuple[SwitchPoint, ...]
    reported_switch_points: tuple[SwitchPoint, ...]

    @property
    def band_medians(self) -> dict[str, float | None]:
        """{range label: median |busbw error|} over the size ranges of
        :data:`nccl_course.cost.measured.comparison.SIZE_RANGES` (all sizes, <= 64 KiB,
        1-64 MiB, >= 256 MiB); the error from the measured time (measured / predicted time
        - 1, which is the busbw error without the rounding of a printed 0.01 GB/s)."""
        from nccl_course.cost.measured.comparison import SIZE_RANGES

        out = {}
        for label, low, high in SIZE_RANGES:
            errors = [
                abs(r.measured_time_s / r.predicted_time_s - 1)
                for r in self.rows
                if r.measured_time_s
                and r.predicted_time_s > 0
                and (low is None or r.size_bytes >= low)
                and (high is None or r.size_bytes <= high)
            ]
            out[label] = median(errors) if errors else None
        return out


def _rel(predicted: float, measured: float | None) -> float | None:
    if not measured:
        return None
    return (predicted - measured) / measured


def choice_label(pred: Any) -> str | None:
    algo = getattr(pred, "algorithm", None)
    if algo is None:
        return None
    proto = getattr(pred, "protocol", None)
    return f"{algo}/{proto}".upper() if proto else str(algo).upper()


def _switches(sizes, choices) -> tuple[SwitchPoint, ...]:
    points = []
    for i in range(1, len(sizes)):
        a, b = choices[i - 1], choices[i]
        if a is not None and b is not None and a != b:
            points.append(SwitchPoint(sizes[i - 1], sizes[i], a, b))
    return tuple(points)


def compare_sweep(sweep: PublishedSweep, predictor: Predictor) -> SweepComparison:
    """Run ``predictor`` at every size of ``sweep`` (same collective, preset, ranks and forced
    algo/proto) and state the error of each prediction; see :class:`SweepComparison`."""
    rows, choices = [], []
    # a predictor of the call's cost prices the call as the sweep's harness timed it
    extra = {"harness": sweep.harness} if getattr(predictor, "uses_harness", False) else {}
    for r in sweep.rows:
        pred = predictor(
            sweep.collective,
            r.size_bytes,
            sweep.model_preset,
            ranks=sweep.ranks,
            algo=sweep.algo,
            proto=sweep.proto,
            **extra,
        )
        measured_t, derived = sweep.measured_time_s(r)
        rows.append(
            ComparedRow(
                size_bytes=r.size_bytes,
                measured_time_s=measured_t,
                time_derived=derived,
                predicted_time_s=float(pred.time_s),
                time_rel_error=_rel(float(pred.time_s), measured_t),
                measured_busbw_GBps=r.busbw_GBps,
                predicted_busbw_GBps=float(pred.busbw_GBps),
                busbw_rel_error=_rel(float(pred.busbw_GBps), r.busbw_GBps),
                algorithm=getattr(pred, "algorithm", None),
                protocol=getattr(pred, "protocol", None),
            )
        )
        choices.append(choice_label(pred))
    errors = [
        abs(row.busbw_rel_error)
        for row in rows
        if row.size_bytes >= MEDIAN_FROM_BYTES and row.busbw_rel_error is not None
    ]
    return SweepComparison(
        sweep=sweep,
        rows=tuple(rows),
        median_abs_busbw_error=median(errors) if errors else None,
        predicted_switch_points=_switches(sweep.sizes, choices),
        reported_switch_points=sweep.switch_points,
    )


def compare_sweeps(
    predictor: Predictor, sweeps: tuple[PublishedSweep, ...] | None = None
) -> tuple[tuple[SweepComparison, ...], tuple[tuple[str, str], ...]]:
    """(comparisons, skipped): every sweep the predictor can price; ``skipped`` pairs a
    sweep id with the reason (the ValueError or KeyError the predictor raised, e.g. an
    unknown preset)."""
    done, skipped = [], []
    for sweep in load_sweeps() if sweeps is None else sweeps:
        try:
            done.append(compare_sweep(sweep, predictor))
        except (ValueError, KeyError) as exc:
            skipped.append((sweep.id, str(exc)))
    return tuple(done), tuple(skipped)


@dataclass(frozen=True)
class CallPrediction:
    """What :func:`call_cost_predictor` returns: the call's time (s) and busbw (GB/s) with
    NCCL's choice."""

    time_s: float
    busbw_GBps: float
    algorithm: str
    protocol: str


def call_cost_predictor(collective, size_bytes, preset, *, ranks, algo=None, proto=None, harness):
    """NCCL's model as a predictor of what a call costs
    (:mod:`nccl_course.cost.nccl.call_cost`), timed as ``harness``: the sweep's own when
    :func:`compare_sweep` calls it."""
    from nccl_course.cost.nccl import predict

    p = predict(
        collective, size_bytes, preset, ranks=ranks, algo=algo, proto=proto, harness=harness
    )
    return CallPrediction(p.call_time_s, p.call_busbw_GBps, p.algorithm, p.protocol)


call_cost_predictor.uses_harness = True


#: NCCL_ALGO names (lower case) -> the textbook model's algorithm names.
TEXTBOOK_ALGORITHMS = {"ring": "ring", "tree": "double_binary_tree", "nvls": "nvls"}


def textbook_predictor(collective, size_bytes, preset, *, ranks, algo=None, proto=None):
    """An adapter with the NCCL model's signature around the textbook
    :func:`nccl_course.cost.predict`: a forced NCCL_ALGO maps through
    :data:`TEXTBOOK_ALGORITHMS` (``None``: the model's fastest), ``proto`` is ignored (the
    textbook model has no protocols). Presets it does not know raise ValueError."""
    from nccl_course.cost.model import predict

    algorithm = None
    if algo is not None:
        try:
            algorithm = TEXTBOOK_ALGORITHMS[algo.lower()]
        except KeyError:
            raise ValueError(f"the textbook model has no NCCL_ALGO={algo}") from None
    return predict(collective, size_bytes, preset, ranks=ranks, algorithm=algorithm)
