"""``nccl-course model``: predicted time, algbw and busbw of a collective on a hardware preset."""

from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "model",
        help="predict a collective's time, algbw and busbw on a hardware preset",
        description=(
            "Price a collective with the alpha-beta-gamma cost model on a hardware preset "
            "(nominal link speeds, see --list-presets). Without --algo the fastest algorithm "
            "the model knows is chosen. Bandwidths are GB/s = 1e9 bytes/s, as nccl-tests prints."
        ),
    )
    _add_prediction_arguments(parser)
    _add_measurement_arguments(parser)
    parser.set_defaults(func=run)


def _add_prediction_arguments(parser) -> None:
    """What to predict and on which system, with which model."""
    parser.add_argument("collective", nargs="?", help="e.g. all_reduce, all_gather, broadcast")
    parser.add_argument("--size", help="size in nccl-tests convention, e.g. 64MiB, 1GiB, 8")
    parser.add_argument(
        "--preset", default=None, help="hardware preset name (default: h100-nvlink)"
    )
    parser.add_argument(
        "--ranks", "-p", type=int, default=None, help="rank count (default: the preset's)"
    )
    parser.add_argument(
        "--algo",
        "--algorithm",
        dest="algorithm",
        default=None,
        help="algorithm (default: the fastest); with --nccl an NCCL_ALGO string, "
        "e.g. ring, allreduce:tree, ^NVLS",
    )
    parser.add_argument(
        "--nccl",
        action="store_true",
        help="NCCL 2.30.7's own model (its tuner) instead of the textbook closed forms",
    )
    parser.add_argument(
        "--proto", default=None, help="with --nccl: an NCCL_PROTO string, e.g. LL128 or ^LL"
    )
    parser.add_argument(
        "--nccl-version",
        default=None,
        metavar="X.Y.Z",
        help="with --nccl: price with an older NCCL's tuner rules (2.22.3, 2.21.5, 2.20.5, "
        "2.20.3; default 2.30.7); the topology search stays 2.30.7's",
    )
    parser.add_argument(
        "--harness",
        default=None,
        help="with --nccl: who times the call, for its cost: nccl-tests (one process per GPU, "
        "the default), 'nccl-tests -g' (one process driving several GPUs) or "
        "torch.distributed (a Python loop)",
    )
    parser.add_argument(
        "--preset-file",
        metavar="FILE",
        default=None,
        help="with --nccl or --compare: price on the personal preset FILE that --calibrate "
        "wrote, instead of --preset",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--list-presets", action="store_true", help="list the presets with their sources and exit"
    )


def _add_measurement_arguments(parser) -> None:
    """A learner's own files: NCCL's log, nccl-tests output, a calibration."""
    parser.add_argument(
        "--check-log",
        metavar="FILE",
        default=None,
        help="compare NCCL's own tuner output in FILE (a log of NCCL_DEBUG=INFO "
        "NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING, rank 0) with the model on the system the log "
        "describes; needs --preset or --sm; exit 1 if anything differs",
    )
    parser.add_argument(
        "--compare",
        metavar="FILE",
        default=None,
        help="compare your own measurements in FILE (the output of an nccl-tests binary, "
        "its -J FILE.json, or nccl-course bench --json) with the model, size by size; the preset comes from "
        "the GPU names unless --preset is given, ranks from the file",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        default=None,
        help="with --compare: draw busbw against size, measured and modelled, into FILE (PNG)",
    )
    parser.add_argument(
        "--calibrate",
        metavar="FILE",
        default=None,
        help="fit the call-cost model's free constants (fixed cost per call, achievable "
        "bandwidth of the links the run used) to your measurement in FILE (as for --compare) "
        "and write a personal preset (see --write-preset) for --preset-file",
    )
    parser.add_argument(
        "--write-preset",
        metavar="OUT",
        default="my-preset.yml",
        help="with --calibrate: the preset file to write (default: my-preset.yml)",
    )
    parser.add_argument(
        "--sm",
        type=int,
        default=None,
        metavar="N",
        help="with --check-log: the GPUs' compute capability (90 for H100/H200, 100 for B200) "
        "when no preset describes the machine",
    )


def run(args) -> int:
    problem = _load_preset_file(args)
    if problem is not None:
        return problem
    if args.calibrate:
        from nccl_course.commands._model_calibrate import run_calibrate

        return run_calibrate(args)
    if args.harness and not args.nccl:
        return _usage("--harness goes with --nccl (a compared file names its own)")
    if args.compare:
        from nccl_course.commands._model_compare import run_compare

        return run_compare(args)
    if args.check_log:
        from nccl_course.commands._model_check_log import run_check_log

        return run_check_log(args)
    if args.plot is not None:
        return _usage("--plot only goes with --compare FILE")
    if args.sm is not None:
        return _usage("--sm only goes with --check-log")
    args.preset = args.preset or "h100-nvlink"
    if args.list_presets:
        return _list_presets(args.json)
    if not args.collective or args.size is None:
        return _usage(
            "give a collective and --size (e.g. 'nccl-course model all_reduce "
            "--size 1GiB --preset h100-nvlink'), or --list-presets"
        )
    if args.nccl_version and not args.nccl:
        return _usage("--nccl-version chooses the release of NCCL's own model: add --nccl")
    return _run_nccl(args) if args.nccl else _run_textbook(args)


def _usage(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _load_preset_file(args) -> int | None:
    """Read --preset-file into args.preset; an exit code on a clash or a bad file."""
    if not args.preset_file:
        return None
    from nccl_course.cost.preset_file import PresetFileError, load_preset_file

    if args.preset:
        return _usage("give --preset or --preset-file, not both")
    if not (args.nccl or args.compare) or args.calibrate:
        return _usage(
            "--preset-file goes with --nccl or --compare (a calibration starts from a course "
            "preset: --preset)"
        )
    try:
        args.preset = load_preset_file(args.preset_file)
    except PresetFileError as exc:
        return _usage(str(exc))
    return None


def _list_presets(as_json: bool) -> int:
    from nccl_course.cost import PRESETS

    if as_json:
        print(json.dumps({name: p.as_dict() for name, p in PRESETS.items()}, indent=2))
        return 0
    for name, p in PRESETS.items():
        print(f"{name}: {p.description}")
        if p.nccl is not None:
            print(
                f"    {p.nccl.gpu} (sm_{p.nccl.compute_capability}), "
                f"{p.nccl.gpus_per_node} GPUs per node x {p.nodes} node(s)"
            )
        line = (
            f"    {p.ranks} ranks, {p.bandwidth_Bps / 1e9:g} GB/s per direction per GPU, "
            f"alpha {p.alpha_s * 1e6:g} us"
        )
        if p.inter_bandwidth_Bps:
            line += (
                f"; network {p.inter_bandwidth_Bps / 1e9:g} GB/s per NIC, "
                f"alpha {p.inter_alpha_s * 1e6:g} us"
            )
        if p.network:
            line += f" ({p.network})"
        print(line)
        for source in p.source:
            print(f"    source: {source}")
    return 0


def _run_textbook(args) -> int:
    from nccl_course.cost import algorithms_for, predict
    from nccl_course.units import format_size, parse_size

    try:
        size = parse_size(args.size)
        pred = predict(
            args.collective, size, args.preset, ranks=args.ranks, algorithm=args.algorithm
        )
    except ValueError as exc:
        return _usage(str(exc))
    if args.json:
        print(json.dumps(pred.as_dict(), indent=2))
        return 0
    print(
        f"textbook model: {pred.collective} of {format_size(size)} on {pred.preset} "
        f"({pred.ranks} ranks), algorithm {pred.algorithm}"
        + (f", {pred.chunks} pipeline chunks" if pred.chunks > 1 else "")
    )
    print(f"  time   {pred.time_s * 1e6:12.2f} us")
    print(f"  algbw  {pred.algbw_GBps:12.2f} GB/s")
    print(f"  busbw  {pred.busbw_GBps:12.2f} GB/s")
    if args.algorithm is None:
        others = [a for a in algorithms_for(args.collective, args.preset) if a != pred.algorithm]
        if others:
            print(f"  (fastest of: {pred.algorithm}, {', '.join(others)})")
    return 0


def _network_share(pred) -> str | None:
    """What the network's achievable share did to the call (call_cost.NETWORKS)."""
    from nccl_course.cost.nccl.call_cost import NETWORKS
    from nccl_course.cost.presets import get_preset

    try:
        name = get_preset(pred.preset).network
    except ValueError:  # a personal preset (--preset-file): its calibration says it
        return None
    net = NETWORKS.get(name)
    if net is None:
        return "no network class: the tuner's figure is taken as it is"
    if not pred.network_bound:
        return (
            f"NVLink SHARP inside the node, not the network, sets {pred.algorithm}'s bandwidth "
            f"here: {name}'s share ({net.efficiency:g}) does not slow the call"
        )
    return f"{name} achieves {net.efficiency:.0%} of the tuner's network bandwidth"


NCCL_JSON_KEYS = (
    "algorithm",
    "protocol",
    "channels",
    "time_s",
    "algbw_GBps",
    "busbw_GBps",
    "harness",
    "call_time_s",
    "call_algbw_GBps",
    "call_busbw_GBps",
    "call_terms_us",
)


def _run_nccl(args) -> int:
    from nccl_course.cost.nccl import candidates_table, function_name, predict
    from nccl_course.cost.nccl.releases import release
    from nccl_course.units import format_size, parse_size

    if args.proto is not None and not args.proto:
        args.proto = None
    try:
        size = parse_size(args.size)
        pred = predict(
            args.collective,
            size,
            args.preset,
            ranks=args.ranks,
            algo=args.algorithm,
            proto=args.proto,
            nccl_version=args.nccl_version,
            harness=args.harness,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({key: getattr(pred, key) for key in NCCL_JSON_KEYS}, indent=2))
        return 0
    print(
        f"NCCL {pred.nccl_version} model: {pred.collective} of {format_size(size)} on "
        f"{pred.preset} ({pred.ranks} ranks, {pred.nodes} node(s))"
    )
    if args.nccl_version and args.nccl_version != pred.nccl_version:
        print(f"  (NCCL {args.nccl_version} has the same tuner as {pred.nccl_version})")
    print(f"  algorithm  {pred.algorithm}")
    print(f"  protocol   {pred.protocol}")
    print(f"  channels   {pred.channels}")
    terms = pred.call_terms_us
    print(f"a call, as {pred.harness} times it (NCCL's estimate plus what it leaves out):")
    print(f"  time       {pred.call_time_s * 1e6:12.2f} us")
    print(f"  algbw      {pred.call_algbw_GBps:12.2f} GB/s")
    print(f"  busbw      {pred.call_busbw_GBps:12.2f} GB/s")
    print(
        "  terms      "
        + ", ".join(f"{key.removesuffix('_us')} {value:.2f}" for key, value in terms.items())
        + " us"
    )
    if pred.nodes > 1 and (share := _network_share(pred)):
        print(f"  network    {share}")
    print("NCCL's own estimate (what it chooses by, not what a call costs):")
    print(f"  time       {pred.time_s * 1e6:12.2f} us")
    print(f"  algbw      {pred.algbw_GBps:12.2f} GB/s")
    print(f"  busbw      {pred.busbw_GBps:12.2f} GB/s")
    if pred.algorithm == "P2P":
        # grouped sends and receives: NCCL's tuner has no table to choose from
        print(f"NCCL runs {pred.collective} as grouped sends and receives, without its tuner")
        return 0
    print("candidates (us, -1: disabled), laid out as NCCL_DEBUG_SUBSYS=TUNING prints:")
    algorithms = release(pred.nccl_version).algorithms
    print(candidates_table(function_name(args.collective), pred.candidates, algorithms))
    return 0
