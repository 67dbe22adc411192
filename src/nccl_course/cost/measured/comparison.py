"""A measurement against the course's NCCL model, size by size.

For every row the model is :func:`nccl_course.cost.nccl.predict` on one preset with the
measurement's ranks: NCCL's choice (algorithm, protocol, channels) and what the call costs
as the measurement's harness timed it (:mod:`nccl_course.cost.nccl.call_cost`: NCCL's
estimate plus the fixed cost per call, the pipeline fill and the network's efficiency), and
the busbw that time gives. The error is ``(model busbw - measured busbw) / measured busbw``, with the
measured busbw taken from the printed time (size x bus factor / time, the definition the
printed busbw rounds): a time keeps three or four significant digits where a printed 0.01
GB/s keeps one. Its median over all sizes and over three ranges (latency-bound up to 64 KiB,
1 to 64 MiB, bandwidth-bound from 256 MiB) says how well the model predicts this system.

The release is ``nccl_version`` if given, else the measurement's own when the course models
it, else 2.30.7's (with a note): releases between 2.23 and 2.29 are not modelled.

Units: bytes, microseconds, GB/s = 1e9 bytes/s; errors as fractions (0.1 = +10 %).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from nccl_course.cost.busbw import busbw
from nccl_course.cost.measured.measurement import Inconsistency, Measurement, inconsistencies
from nccl_course.units import format_size

KiB, MiB = 1024, 1024**2

#: (label, smallest size, largest size) in bytes, None where unbounded; "all sizes" first.
SIZE_RANGES = (
    ("all sizes", None, None),
    ("<= 64 KiB", None, 64 * KiB),
    ("1-64 MiB", MiB, 64 * MiB),
    (">= 256 MiB", 256 * MiB, None),
)


@dataclass(frozen=True)
class ComparedRow:
    """One size: measured time (us) and printed busbw (GB/s), the model's time and busbw,
    ``error`` (None where the measured time is 0), NCCL's choice, and ``consistent``: the
    row's numbers agree with nccl-tests' definitions."""

    line: int
    size: int
    measured_time_us: float
    measured_busbw_GBps: float
    model_time_us: float
    model_busbw_GBps: float
    error: float | None
    algorithm: str
    protocol: str
    channels: int
    consistent: bool

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Comparison:
    """A measurement against NCCL ``nccl_version``'s model on ``preset``: the rows, the
    median |error| per :data:`SIZE_RANGES` label (None: no size in the range), the rows
    that disagree with nccl-tests' definitions, and what was assumed (``notes``)."""

    measurement: Measurement
    preset: str
    nccl_version: str
    rows: tuple[ComparedRow, ...]
    medians: dict
    inconsistencies: tuple[Inconsistency, ...]
    notes: tuple[str, ...]
    algo: str | None = None
    proto: str | None = None

    def as_dict(self) -> dict:
        m = self.measurement
        return {
            "file": m.path,
            "source": m.source,
            "collective": m.collective,
            "ranks": m.ranks,
            "nodes": m.nodes,
            "gpu_names": sorted(set(m.gpu_names)),
            "measured_nccl_version": m.nccl_version,
            "model": {
                "preset": self.preset,
                "nccl_version": self.nccl_version,
                "algo": self.algo,
                "proto": self.proto,
                "harness": m.harness,
            },
            "rows": [row.as_dict() for row in self.rows],
            "median_abs_error": dict(self.medians),
            "inconsistencies": [i.as_dict() for i in self.inconsistencies],
            "notes": list(m.notes) + list(self.notes),
        }

    def report(self) -> str:
        """The comparison as text: what was compared, a table, the medians, the warnings."""
        m = self.measurement
        gpus = ", ".join(sorted(set(m.gpu_names))) or "GPUs not named"
        nodes = f"{m.nodes} node(s), " if m.nodes else ""
        lines = [
            f"{m.collective} on {m.ranks} ranks ({nodes}{gpus}), {m.source} output {m.path}",
            f"model: NCCL {self.nccl_version}'s choice and the call's cost on preset "
            f"{self.preset}, timed as {m.harness}" + _overrides_text(self.algo, self.proto),
            f"{'size':>10} {'time us':>10} {'busbw':>8} | {'model us':>10} {'busbw':>8} | "
            f"{'error':>8} | NCCL's choice",
        ]
        for r in self.rows:
            error = "-" if r.error is None else f"{r.error:+.1%}"
            lines.append(
                f"{format_size(r.size):>10} {r.measured_time_us:>10.2f} "
                f"{r.measured_busbw_GBps:>8.2f} | {r.model_time_us:>10.2f} "
                f"{r.model_busbw_GBps:>8.2f} | {error:>8} | {r.algorithm}/{r.protocol} "
                f"x{r.channels}" + ("" if r.consistent else "  *")
            )
        lines.append(
            "error = (model - measured) / measured busbw, GB/s = 1e9 B/s; the measured busbw "
            "for it is size x bus factor / printed time"
        )
        lines.append("median |error|: " + "; ".join(_median_text(self, k) for k in self.medians))
        if self.inconsistencies:
            lines.append("rows marked * disagree with nccl-tests' definitions:")
            lines += [f"  {i.message()}" for i in self.inconsistencies]
        lines += [f"note: {note}" for note in (*m.notes, *self.notes)]
        return "\n".join(lines)


def _overrides_text(algo: str | None, proto: str | None) -> str:
    """ ", NCCL_ALGO=ring" and the like, for what is set."""
    return "".join(f", {k}={v}" for k, v in (("NCCL_ALGO", algo), ("NCCL_PROTO", proto)) if v)


def _median_text(comparison: Comparison, label: str) -> str:
    value = comparison.medians[label]
    count = sum(1 for r in comparison.rows if r.error is not None and _in_range(r.size, label))
    return f"{label} {'-' if value is None else f'{value:.1%}'} ({count} sizes)"


def _in_range(size: int, label: str) -> bool:
    _, low, high = next(r for r in SIZE_RANGES if r[0] == label)
    return (low is None or size >= low) and (high is None or size <= high)


def median_errors(rows) -> dict:
    """{range label: median |error| of the rows in it, None if none}."""
    out = {}
    for label, _, _ in SIZE_RANGES:
        errors = [abs(r.error) for r in rows if r.error is not None and _in_range(r.size, label)]
        out[label] = median(errors) if errors else None
    return out


def model_release(requested: str | None, measured: str | None, notes: list[str]) -> str:
    """The release to price with (see the module's docstring); ValueError for a requested
    release the course does not model."""
    from nccl_course.cost.nccl.releases import CURRENT, release

    if requested:
        return release(requested).version
    if measured is None:
        notes.append(f"the file names no NCCL version: priced with {CURRENT.version}'s tuner")
        return CURRENT.version
    try:
        version = release(measured).version
    except ValueError as exc:
        notes.append(
            f"the run used NCCL {measured}; {exc}: priced with {CURRENT.version}'s tuner "
            "(--nccl-version X.Y.Z picks one of those)"
        )
        return CURRENT.version
    if version != measured:
        notes.append(f"the run used NCCL {measured}, whose tuner is {version}'s")
    return version


def compare(
    m: Measurement,
    preset,
    *,
    nccl_version: str | None = None,
    algo: str | None = None,
    proto: str | None = None,
    notes: tuple[str, ...] = (),
) -> Comparison:
    """``m`` against NCCL's model on ``preset`` (a name or a Preset, such as a personal one
    from a preset file; NCCL_ALGO ``algo``, NCCL_PROTO ``proto``).
    ValueError (with the model's message) for what the model cannot price."""
    from nccl_course.cost.presets import get_preset

    _check_priceable(m)
    name = get_preset(preset).name
    notes = list(notes)
    version = model_release(nccl_version, m.nccl_version, notes)
    if m.time_is_cpu:
        notes.append("the times are CPU times (nccl-tests -C 1), not the GPU times NCCL models")
    bad = inconsistencies(m)
    bad_lines = {i.line for i in bad}
    rows = []
    for row in m.rows:
        if row.timing is None:
            notes.append(f"line {row.line}: no timing printed for size {row.size}; skipped")
            continue
        p = _priced(m, row.size, preset, name, algo, proto, version)
        rows.append(_compared_row(m, row, p, consistent=row.line not in bad_lines))
    if any(r.out_of_place is None and r.in_place is not None for r in m.rows):
        notes.append("rows without an out-of-place time are compared by their in-place time")
    return Comparison(
        m, name, version, tuple(rows), median_errors(rows), bad, tuple(notes), algo, proto
    )


def _check_priceable(m: Measurement) -> None:
    """ValueError for a measurement NCCL's model cannot price: a collective its tuner never
    sees, or one rank."""
    from nccl_course.cost.nccl.estimate import PRICED_COLLECTIVES

    if m.collective not in PRICED_COLLECTIVES:
        raise ValueError(
            f"{m.path} measured {m.collective}, which NCCL's model does not price (NCCL runs "
            "send_recv, gather and scatter as grouped sends and receives, chosen without the "
            f"tuner); --compare covers {', '.join(PRICED_COLLECTIVES)}"
        ) from None
    if m.ranks < 2:
        raise ValueError(
            f"{m.path} ran on one rank: NCCL moves no data between GPUs and its model prices "
            "the call at 0, so there is nothing to compare"
        )


def _priced(m: Measurement, size: int, preset, name: str, algo, proto, version):
    """The model's prediction for one size, timed as the measurement's harness."""
    from nccl_course.cost.nccl import predict

    try:
        return predict(
            m.collective,
            size,
            preset,
            ranks=m.ranks,
            algo=algo,
            proto=proto,
            nccl_version=version,
            harness=m.harness,
        )
    except ValueError as exc:  # a layout the preset cannot hold, a bad NCCL_ALGO string
        raise ValueError(
            f"the model cannot price {m.collective} on {m.ranks} ranks of preset {name}"
            f"{_overrides_text(algo, proto)}: {exc}"
        ) from None


def _compared_row(m: Measurement, row, p, *, consistent: bool) -> ComparedRow:
    """One size: measured beside the call's modelled cost, and the busbw error."""
    timing = row.timing
    seconds = timing.time_us * 1e-6
    measured = busbw(m.collective, row.size, seconds, m.ranks) if seconds > 0 else None
    return ComparedRow(
        line=row.line,
        size=row.size,
        measured_time_us=timing.time_us,
        measured_busbw_GBps=timing.busbw,
        model_time_us=p.call_time_s * 1e6,
        model_busbw_GBps=p.call_busbw_GBps,
        error=None if not measured else (p.call_busbw_GBps - measured) / measured,
        algorithm=p.algorithm,
        protocol=p.protocol,
        channels=p.channels,
        consistent=consistent,
    )
