"""``nccl-course model --compare FILE``: a learner's own numbers against the course's NCCL model.

FILE is what an nccl-tests binary printed (``all_reduce_perf ... > out.txt``), the JSON file
it writes with ``-J FILE.json``, or the record ``nccl-course bench ... --json FILE`` wrote (:mod:`nccl_course.cost.measured`). The preset is
``--preset``, else the one the GPUs' names pick the way a results bundle's are matched
(:func:`nccl_course.results.gpus.family_of`): the family's one-node preset (with NVLink SHARP
where the family has it, unless the run set NCCL_NVLS_ENABLE=0) when the ranks ran on one
host, its several-node preset when they ran on several. NCCL_ALGO and NCCL_PROTO come from
``--algo``/``--proto``, else from the settings the file shows. ``--plot`` draws busbw against
size, measured and modelled. Exit 0 after a comparison, 2 on a file or option it cannot use.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_GEFORCE = re.compile(r"\bGeForce\b", re.IGNORECASE)


def choose_preset(requested: str | None, m) -> tuple[str, list[str]]:
    """(preset name, notes) for measurement ``m``; ValueError saying what to give instead."""
    from nccl_course.cost.presets import get_preset
    from nccl_course.results.gpus import describe_families, family_of

    if requested:
        get_preset(requested)  # ValueError naming the presets
        return requested, []
    family = family_of(list(m.gpu_names))
    if family is None:
        shown = ", ".join(sorted(set(m.gpu_names))) or "no GPU names"
        hint = ""
        if any(_GEFORCE.search(name) for name in m.gpu_names):
            hint = (
                "; for GeForce cards the nearest are l40s-pcie (Ada, PCIe Gen4) and pcie-gen5, "
                "which assume PCIe peer-to-peer: GeForce drivers usually leave it off, and NCCL "
                "then copies through host memory (SHM), slower than either; --calibrate on "
                "your run fits the model to it"
            )
        raise ValueError(
            f"{m.path} shows {shown}, which matches no preset family (presets cover "
            f"{describe_families()}): give --preset NAME (see --list-presets){hint}"
        )
    nodes = m.nodes or 1
    if nodes > 1:
        name = family.multi_node
        if name is None:
            raise ValueError(
                f"{m.path} ran on {nodes} nodes of {family.name} GPUs and no preset describes "
                "such nodes with their network: give --preset NAME (see --list-presets)"
            )
        notes = [f"preset {name} chosen for {family.name} GPUs on {nodes} nodes"]
    else:
        nvls_off = m.env.get("NCCL_NVLS_ENABLE") == "0"
        name = family.one_node[0 if nvls_off else -1]
        notes = [f"preset {name} chosen for {family.name} GPUs on one node"]
        if len(family.one_node) > 1:
            notes.append(
                "NVLS disabled by NCCL_NVLS_ENABLE=0"
                if nvls_off
                else "NVLS (NVLink SHARP) assumed available, as on NVSwitch nodes with the "
                f"fabric manager running; --preset {family.one_node[0]} prices without it"
            )
    per_node, rest = divmod(m.ranks, nodes)
    gpus = get_preset(name).nccl.gpus_per_node
    if rest or per_node > gpus or (nodes > 1 and per_node != gpus):
        raise ValueError(
            f"{m.path} shows {m.ranks} ranks on {nodes} host(s); preset {name} has {gpus} GPUs "
            "per node: give --preset NAME for this layout"
        )
    return name, notes


def _overrides(args, m) -> tuple[str | None, str | None, list[str]]:
    """NCCL_ALGO and NCCL_PROTO: the options', else the run's own, with a note."""
    chosen, notes = {}, []
    for key, given in (("NCCL_ALGO", args.algorithm), ("NCCL_PROTO", args.proto)):
        chosen[key] = given or m.env.get(key)
        if not given and m.env.get(key):
            notes.append(f"the run set {key}={m.env[key]}, which the model applies")
    return chosen["NCCL_ALGO"], chosen["NCCL_PROTO"], notes


def draw(comparison, path: str | Path) -> Path:
    """Measured and modelled busbw against size, on nccl-tests' axes; the PNG's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from nccl_course.bench.report import busbw_axes, save_figure

    m = comparison.measurement
    sizes = [r.size for r in comparison.rows]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    measured = [r.measured_busbw_GBps for r in comparison.rows]
    ax.plot(sizes, measured, "o-", label=f"measured ({m.source}, {m.ranks} ranks)")
    model = [r.model_busbw_GBps for r in comparison.rows]
    label = f"NCCL {comparison.nccl_version} model, preset {comparison.preset}"
    ax.plot(sizes, model, "s--", label=label)
    busbw_axes(ax, sizes, f"{m.collective}: measured and the course's NCCL model")
    return save_figure(fig, path)


def _usage_error(args) -> str | None:
    if args.check_log:
        return "--compare and --check-log read different files: give one of them"
    if args.sm is not None:
        return "--sm only goes with --check-log"
    if args.ranks is not None and args.ranks < 1:
        return f"-p/--ranks must be at least 1, got {args.ranks}"
    return None


def read_for_model(args, path):
    """(measurement, preset, notes, NCCL_ALGO, NCCL_PROTO) for the file at ``path``: read, the
    preset chosen (--preset or the GPU names) and the overrides (options, else the run's own);
    ValueError saying what to give instead."""
    from nccl_course.cost.measured import read_measurement

    m = read_measurement(path, collective=args.collective, ranks=args.ranks)
    preset, notes = choose_preset(args.preset, m)
    algo, proto, env_notes = _overrides(args, m)
    return m, preset, (*notes, *env_notes), algo, proto


def run_compare(args) -> int:
    from nccl_course.cost.measured.comparison import compare

    problem = _usage_error(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        m, preset, notes, algo, proto = read_for_model(args, args.compare)
        result = compare(
            m,
            preset,
            nccl_version=args.nccl_version,
            algo=algo,
            proto=proto,
            notes=notes,
        )
    except ValueError as exc:  # MeasurementError and the model's refusals alike
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        print(result.report())
    if args.plot:
        try:
            path = draw(result, args.plot)
        except OSError as exc:
            print(
                f"error: cannot write the plot {args.plot}: {exc.strerror or exc}", file=sys.stderr
            )
            return 2
        print(f"plot: {path}", file=sys.stderr)
    return 0
