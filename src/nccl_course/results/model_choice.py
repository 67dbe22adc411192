"""Which system NCCL's tuner model prices a bundle's benchmark on, and the model at each size.

The model is the package's (:mod:`nccl_course.cost.nccl`): a cost table for a system, and
NCCL's choice of algorithm, protocol and channels from it (``select.choose``). The system is,
in order of preference:

1. the communicator rank 0's NCCL log describes (ranks, nodes, GPUs per node, CPU vendor,
   NVLS and the graphs NCCL's search found: ``log_check.system_from_log``, as ``nccl-course
   model --check-log`` does), on the GPU generation, links and NICs of the preset that matches
   the GPU names (:mod:`nccl_course.results.gpus`), when the log's communicator has the
   benchmark's rank count;
2. else the preset that matches the GPU names and their count (one node), NVLS assumed
   available where the preset family has it unless ``NCCL_NVLS_ENABLE=0``.

The release is the log's ``NCCL version``, else torch's NCCL in the recorded environment;
one the course has no tuner for is priced with 2.30.7's, and the page says so. NCCL_ALGO and
NCCL_PROTO from the benchmark's environment apply. A gloo run, a collective NCCL's tuner does
not price, or GPUs no preset describes get no model, with the reason.

Units: bytes, microseconds, GB/s (1e9 bytes/s).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nccl_course.results.bundle import BenchRecord, Bundle
from nccl_course.results.gpus import describe_families, family_of


@dataclass(frozen=True)
class ModelPoint:
    """The model at one size: NCCL's choice, its estimated ``time_us`` and the busbw (GB/s)
    that time gives with nccl-tests' factor (None where the time is 0: one rank)."""

    algorithm: str
    protocol: str
    channels: int
    time_us: float
    busbw_GBps: float | None


@dataclass(frozen=True)
class PricedModel:
    """NCCL's tuner on one system: ``source`` says which (a sentence for the page), ``label``
    is the plot's legend, ``logged``: {bytes: "Algorithm/Protocol"} NCCL logged for calls of
    the benchmark's function (empty without a usable log)."""

    collective: str
    function: str
    ranks: int
    version: str
    source: str
    label: str
    table: object
    algo: str | None = None
    proto: str | None = None
    logged: dict = field(default_factory=dict)

    def at(self, size_bytes: int) -> ModelPoint:
        from nccl_course.cost.busbw import busbw
        from nccl_course.cost.nccl.select import choose

        c = choose(self.table, self.function, int(size_bytes), algo=self.algo, proto=self.proto)
        seconds = c.time_us * 1e-6
        bus = busbw(self.collective, size_bytes, seconds, self.ranks) if seconds > 0 else None
        return ModelPoint(c.algorithm, c.protocol, c.channels, c.time_us, bus)


@dataclass(frozen=True)
class ModelOutcome:
    """``model`` (None: no model, ``reason`` says why) and ``notes``: what was assumed."""

    model: PricedModel | None
    reason: str | None = None
    notes: tuple[str, ...] = ()


def gpu_names(bundle: Bundle, bench: BenchRecord) -> list[str]:
    """The benchmark's GPUs as rank 0 recorded them, else the doctor's."""
    for env in (bench.environment, bundle.environment or {}):
        names = env.get("gpu_names")
        if isinstance(names, list) and names:
            return [str(n) for n in names]
    return []


def _nccl_version(bundle: Bundle, bench: BenchRecord) -> str | None:
    for env in (bench.environment, bundle.environment or {}):
        version = env.get("nccl_version")
        if isinstance(version, str) and version:
            return version
    return None


def _release(version: str | None, where: str, notes: list[str]):
    """The TunerRelease for ``version`` or, noted, 2.30.7's."""
    from nccl_course.cost.nccl.releases import CURRENT, release

    if version is None:
        notes.append(f"no NCCL version recorded: priced with NCCL {CURRENT.version}'s tuner")
        return CURRENT
    try:
        return release(version)
    except ValueError as exc:
        notes.append(f"{where} NCCL {version}: {exc}; priced with {CURRENT.version}'s tuner")
        return CURRENT


def choose_model(bundle: Bundle, bench: BenchRecord) -> ModelOutcome:
    """The model for ``bench`` (see the module's docstring), or why there is none."""
    from nccl_course.cost.nccl import function_name

    if bench.backend != "nccl":
        return ModelOutcome(
            None,
            f"the benchmark ran on {bench.backend} (CPU processes), not NCCL: NCCL's tuner "
            "model describes NCCL on GPUs, so the measurement is shown alone",
        )
    try:
        function = function_name(bench.collective)
    except ValueError as exc:
        return ModelOutcome(None, str(exc))
    if bench.nranks == 1:
        return ModelOutcome(
            None,
            "the benchmark ran on one rank: NCCL moves no data between GPUs and its tuner "
            "prices the call at 0, so the measurement is shown alone",
        )
    names = gpu_names(bundle, bench)
    family = family_of(names)
    if family is None:
        shown = ", ".join(sorted(set(names))) or "no GPU names"
        return ModelOutcome(
            None,
            f"no preset describes these GPUs ({shown}); presets cover {describe_families()}: "
            "the measurement is shown without a model",
        )
    notes: list[str] = []
    env = bench.nccl_env
    algo, proto = env.get("NCCL_ALGO") or None, env.get("NCCL_PROTO") or None
    if algo or proto:
        notes.append(
            "the benchmark ran with "
            + ", ".join(f"{k}={v}" for k, v in (("NCCL_ALGO", algo), ("NCCL_PROTO", proto)) if v)
            + ", which the model applies"
        )
    try:
        outcome = None
        if bundle.rank0_log:
            outcome = _from_log(bundle, bench, family, function, algo, proto, notes)
        if outcome is None:
            outcome = _from_preset(bundle, bench, family, names, function, algo, proto, notes)
        if outcome.model is not None:  # a choice NCCL would refuse shows at the first call
            outcome.model.at(bench.rows[0].size if bench.rows else 1)
        return outcome
    except ValueError as exc:  # NCCL_ALGO/NCCL_PROTO NCCL would refuse, a layout it cannot run
        return ModelOutcome(None, f"the model cannot price this run: {exc}", tuple(notes))


def _from_log(bundle, bench, family, function, algo, proto, notes) -> ModelOutcome | None:
    """The model on the system of rank 0's log; None (with a note) when the log cannot say."""
    from nccl_course.cost.nccl.log_check import compare_calls, system_from_log
    from nccl_course.cost.nccl.overrides import Enablement
    from nccl_course.cost.nccl.tuner import cost_table
    from nccl_course.cost.presets import get_preset

    name = bundle.rank0_log
    log = _rank0_log(bundle, bench, notes)
    if log is None:
        return None
    if log.nodes > 1:
        preset_name = family.multi_node
        if preset_name is None:
            return ModelOutcome(
                None,
                f"the log shows {log.nodes} nodes of {family.name} GPUs and no preset describes "
                "such nodes with a network (NICs and their speed): the measurement is shown "
                "without a model",
                tuple(notes),
            )
    else:
        preset_name = family.one_node[-1 if log.nvls_multicast else 0]
    hardware = get_preset(preset_name).nccl
    system = system_from_log(log, hardware)
    _note_what_the_log_leaves_out(log, hardware, preset_name, notes)
    version = log.version or _nccl_version(bundle, bench)
    release = _release(version, "the log's" if log.version else "torch's", notes)
    table = cost_table(system, Enablement.parse(algo, proto), release)
    logged = {
        c.n_bytes: f"{c.nccl_algorithm}/{c.nccl_protocol}"
        for c in compare_calls(log, table, function)
        if c.function == function
    }
    graphs = "; ".join(system.describe().splitlines())
    source = (
        f"NCCL {release.version}'s tuner on the system rank 0's log {name} describes: "
        f"{system.nodes} node(s) x {system.gpus_per_node} GPU(s), sm_{system.cc}, "
        f"{system.hardware.cpu_vendor} CPUs, NVLS {'on' if system.nvls_support else 'off'} "
        f"(graphs: {graphs}); GPU generation, links and NICs of preset {preset_name}, which "
        f"matches the GPU names ({family.name})"
    )
    label = f"NCCL {release.version} model, system from rank 0's log ({system.ranks} ranks)"
    return ModelOutcome(
        PricedModel(
            bench.collective,
            function,
            system.ranks,
            release.version,
            source,
            label,
            table,
            algo,
            proto,
            logged,
        ),
        notes=tuple(notes),
    )


def _rank0_log(bundle, bench, notes):
    """Rank 0's NCCL log of ``bundle`` if it describes the benchmark's communicator; None with
    a note saying why not."""
    from nccl_course.cost.nccl.log_reader import read_log

    name = bundle.rank0_log
    try:
        log = read_log(bundle.read_log(name))
    except ValueError as exc:  # a name NCCL never printed: not a log the reader knows
        notes.append(f"rank 0's log {name} cannot be read ({exc}): the system is a preset")
        return None
    except OSError as exc:
        notes.append(f"rank 0's log {name} cannot be read ({exc.strerror}): the system is a preset")
        return None
    if log.ranks is None or log.nodes is None or log.local_ranks is None:
        notes.append(f"rank 0's log {name} has no communicator line: the system is a preset")
        return None
    if log.ranks != bench.nranks:
        notes.append(
            f"rank 0's log {name} describes a communicator of {log.ranks} ranks, the benchmark "
            f"ran on {bench.nranks}: the log is not used"
        )
        return None
    return log


def _note_what_the_log_leaves_out(log, hardware, preset_name: str, notes: list) -> None:
    """What the log leaves out comes from the preset: say so, it can change NCCL's pick."""
    if log.cpu_vendor is None:
        notes.append(f"the log prints no CPU line: {hardware.cpu_vendor} CPUs assumed")
    if log.nvls_multicast is None:
        notes.append(
            "the log does not say whether NVLS multicast is available: "
            f"{'available' if hardware.nvls else 'not available'} assumed, as preset "
            f"{preset_name} has it"
        )
    if not log.graphs:
        notes.append(
            "the log has no 'Pattern' lines (NCCL_DEBUG_SUBSYS GRAPH): the graphs are the "
            "model's own topology search"
        )


def _from_preset(bundle, bench, family, names, function, algo, proto, notes) -> ModelOutcome:
    """The model on the preset that matches the GPU names and their count."""
    from nccl_course.cost.nccl import table_for
    from nccl_course.cost.presets import get_preset

    if not bundle.rank0_log:
        notes.append("no rank-0 NCCL log in the bundle: the system is a preset")
    count = len(names)
    if bench.nranks > count:
        return ModelOutcome(
            None,
            f"the benchmark ran {bench.nranks} ranks and the node has {count} GPUs: several "
            "nodes, whose network only rank 0's NCCL log could describe",
            tuple(notes),
        )
    nvls_off = bench.nccl_env.get("NCCL_NVLS_ENABLE") == "0"
    preset = get_preset(family.one_node[0 if nvls_off else -1])
    if preset.nccl.gpus_per_node != count:
        return ModelOutcome(
            None,
            f"no preset describes a node of {count} {family.name} GPUs (the presets have "
            f"{preset.nccl.gpus_per_node}): the measurement is shown without a model",
            tuple(notes),
        )
    if len(family.one_node) > 1:
        notes.append(
            "NVLS disabled by NCCL_NVLS_ENABLE=0"
            if nvls_off
            else "NVLS (NVLink SHARP) assumed available, as on NVSwitch nodes with the fabric "
            "manager running; no NCCL log says otherwise"
        )
    version = _nccl_version(bundle, bench)
    release = _release(version, "torch's", notes)
    table = table_for(preset, bench.nranks, algo=algo, proto=proto, nccl_version=release.version)
    source = (
        f"NCCL {release.version}'s tuner on preset {preset.name} ({preset.description}), "
        f"chosen from the GPU names and count ({count} x {family.name}), {bench.nranks} ranks"
    )
    label = f"NCCL {release.version} model, preset {preset.name} ({bench.nranks} ranks)"
    model = PricedModel(
        bench.collective,
        function,
        bench.nranks,
        release.version,
        source,
        label,
        table,
        algo,
        proto,
    )
    return ModelOutcome(model, notes=tuple(notes))
