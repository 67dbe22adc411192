"""Options shared by ``nccl-course bench`` and ``python -m nccl_course.bench`` (for torchrun)."""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

# The collectives nccl-tests defines a bus bandwidth for, from nccl_course.collectives.
from nccl_course.cost.busbw import BUSBW_COLLECTIVES as COLLECTIVE_NAMES


def add_arguments(parser: argparse.ArgumentParser, *, launcher: bool) -> None:
    parser.add_argument("collective", choices=COLLECTIVE_NAMES, help="the collective to measure")
    parser.add_argument(
        "-b",
        "--minbytes",
        default="8",
        help="smallest size (default 8); sizes are read as nccl-tests reads them: K, M, G are "
        "powers of 1024 (-b 1K -e 1M is 1024 .. 1048576 bytes)",
    )
    parser.add_argument(
        "-e",
        "--maxbytes",
        default=None,
        help="largest size (default 1GiB with GPUs, 64MiB on CPU)",
    )
    parser.add_argument("-f", "--stepfactor", type=float, default=2.0, help="size factor (2)")
    parser.add_argument("-i", "--stepbytes", default="0", help="add this instead of -f")
    parser.add_argument("-n", "--iters", type=int, default=20, help="timed calls per size (20)")
    parser.add_argument("-w", "--warmup_iters", type=int, default=5, help="untimed calls (5)")
    parser.add_argument("-c", "--check", type=int, default=1, help="check results: 1 or 0")
    parser.add_argument("-d", "--datatype", default="float", help="float, half, bfloat16, ...")
    parser.add_argument("-o", "--op", default="sum", help="sum, max, min or avg")
    parser.add_argument("-r", "--root", type=int, default=0, help="root rank (rooted ops)")
    parser.add_argument(
        "--time-budget",
        type=float,
        default=None,
        help="seconds per size; slow sizes get fewer timed calls (default: 2 on CPU, none on GPU)",
    )
    parser.add_argument("--json", default=None, help="where to write the JSON record")
    parser.add_argument("--plot", default=None, help="where to write the busbw plot (PNG)")
    parser.add_argument("--no-plot", action="store_true", help="do not draw the plot")
    parser.add_argument(
        "--predict",
        default=None,
        metavar="ALPHA_US,GBPS",
        help="overlay a cost-model prediction: per-step latency in us and link GB/s",
    )
    parser.add_argument(
        "--preset",
        default=None,
        help="overlay NCCL's model (nccl_course.cost.nccl, with the algorithm/protocol it chooses "
        "marked) and the textbook model on this hardware preset (see 'nccl-course model'); "
        "on NCCL the default is guessed from the GPU name (H100, H200), on gloo none",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    if launcher:
        parser.add_argument("--nproc", type=int, default=None, help="ranks (default: GPUs or 4)")
        parser.add_argument("--backend", choices=("nccl", "gloo"), default=None)
        parser.add_argument("--timeout", type=float, default=1800.0, help="seconds (1800)")


def build_config(args, gpu: bool) -> dict:
    from nccl_course.bench.harness import BenchConfig, sweep_sizes
    from nccl_course.units import parse_nccl_tests_size as parse_size

    max_default = "1GiB" if gpu else "64MiB"
    sizes = sweep_sizes(
        parse_size(args.minbytes),
        parse_size(args.maxbytes or max_default),
        args.stepfactor,
        parse_size(args.stepbytes),
    )
    budget = args.time_budget if args.time_budget is not None else (None if gpu else 2.0)
    config = BenchConfig(
        collective=args.collective,
        sizes=tuple(sizes),
        dtype=args.datatype,
        redop=args.op,
        root=args.root,
        warmup=args.warmup_iters,
        iters=args.iters,
        check=bool(args.check),
        time_budget_s=budget,
        progress=not args.no_progress,
    )
    config.validate()
    return config.__dict__ | {"sizes": tuple(sizes)}


def parse_prediction(text: str | None) -> dict | None:
    if not text:
        return None
    try:
        alpha_us, gbps = (float(x) for x in text.split(","))
    except ValueError:
        raise ValueError(
            f"--predict {text!r}: write ALPHA_US,GBPS, e.g. 5,100 for 5 us and 100 GB/s"
        ) from None
    if alpha_us < 0 or gbps <= 0:
        raise ValueError("--predict needs alpha >= 0 us and bandwidth > 0 GB/s")
    return {
        "label": f"alpha={alpha_us:g} us, {gbps:g} GB/s",
        "alpha_s": alpha_us * 1e-6,
        "beta_s_per_byte": 1 / (gbps * 1e9),
    }


def guess_preset(result: dict) -> str | None:
    """A hardware preset matching the GPUs that ran the benchmark, on one node, or None."""
    if result["backend"] != "nccl" or result["nranks"] > 8:
        return None
    names = " ".join((result.get("environment") or {}).get("gpu_names") or [])
    for marker, preset in (("H200", "h200-nvlink"), ("H100", "h100-nvlink")):
        if marker in names:
            return preset
    return None


def report(result: dict, args) -> None:
    """Print the table; write the JSON and the plot; say where they are (stderr)."""
    from nccl_course.bench.report import (
        fit_result,
        format_table,
        nccl_overlay,
        plot,
        preset_overlay,
        write_json,
    )

    prediction = parse_prediction(args.predict)
    overlays = []
    preset = getattr(args, "preset", None) or guess_preset(result)
    if preset:
        guessed = "" if getattr(args, "preset", None) else ", guessed from the GPU name"
        for key, make in (("nccl_prediction", nccl_overlay), ("preset_prediction", preset_overlay)):
            try:
                overlay = make(result["collective"], result["nranks"], preset)
            except (ValueError, KeyError) as exc:
                print(
                    f"note: no {key.replace('_', ' ')} for preset {preset!r}: {exc}",
                    file=sys.stderr,
                )
                continue
            overlays.append((overlay[0] + guessed, *overlay[1:]))
            record = {
                "preset": preset,
                "busbw_GBps": {str(r["size"]): overlay[1](r["size"]) for r in result["rows"]},
            }
            if len(overlay) > 2:
                record["choice"] = {str(r["size"]): overlay[2](r["size"]) for r in result["rows"]}
            result[key] = record
    one_rank = result["nranks"] < 2
    if one_rank:
        print(
            "warning: one rank moves no data between ranks: algbw measures a call that copies "
            "nothing, busbw is 0 by definition, and no alpha-beta fit is made. Run with "
            "--nproc 2 or more (on one GPU: --backend gloo with several CPU ranks).",
            file=sys.stderr,
        )
        result["warning"] = "one rank: no data moves between ranks; bandwidths are not meaningful"
    if len(result["rows"]) >= 2 and not one_rank:
        fit = fit_result(result)
        result["fit"] = fit.as_dict()
        result["fit"]["note"] = "fitted to these measurements: a description, not a prediction"
    if prediction is not None:
        result["prediction"] = prediction
    print(format_table(result))
    if "fit" in result:
        f = result["fit"]
        bandwidth = f["bandwidth_GBps"]
        shown = f"{bandwidth:.3g} GB/s" if math.isfinite(bandwidth) else "n/a (no per-byte cost)"
        print(
            f"# alpha-beta fit ({f['model']}): alpha = {f['alpha_s'] * 1e6:.3g} us, "
            f"1/beta = {shown}, rms relative error {f['rms_rel_error']:.1%}"
        )
        if not math.isfinite(bandwidth):
            f["bandwidth_GBps"] = None  # JSON has no infinity
    stem = f"{result['collective']}-{result['nranks']}ranks-{result['backend']}"
    json_path = Path(args.json or Path("bench-results") / f"{stem}.json")
    write_json(result, json_path)
    print(f"JSON record: {json_path}", file=sys.stderr)
    if not args.no_plot and len(result["rows"]) >= 2:
        plot_path = Path(args.plot or json_path.with_suffix(".png"))
        plot(result, plot_path, prediction, overlays)
        print(f"plot: {plot_path}", file=sys.stderr)


def run_launched(args) -> int:
    """``nccl-course bench``: launch the ranks here, then report."""
    import torch

    from nccl_course.launcher import LaunchTimeout, WorkerError, launch

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    nproc = args.nproc or (gpus if gpus >= 2 else 4)
    backend = args.backend or ("nccl" if gpus >= nproc else "gloo")
    try:
        config = build_config(args, gpu=backend == "nccl")
        parse_prediction(args.predict)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        results = launch(
            "nccl_course.bench.harness:run_benchmark",
            nproc,
            args=(config,),
            backend=backend,
            timeout_s=args.timeout,
        )
    except (WorkerError, LaunchTimeout) as exc:
        print(f"error: the benchmark failed: {exc}", file=sys.stderr)
        return 1
    result = results[0]
    report(result, args)
    return 1 if any(r["wrong"] for r in result["rows"]) else 0


def run_in_process_group(args) -> int:
    """``torchrun ... -m nccl_course.bench``: this process is one rank."""
    import torch.distributed as dist

    from nccl_course.bench.harness import run_benchmark
    from nccl_course.launcher import process_group

    with process_group() as backend:
        config = build_config(args, gpu=backend == "nccl")
        if dist.get_rank() != 0:
            config["progress"] = False
        result = run_benchmark(config)
        wrong = 0
        if result is not None:
            report(result, args)
            wrong = sum(r["wrong"] for r in result["rows"])
    return 1 if wrong else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nccl_course.bench",
        description="nccl-tests-like benchmark. Under torchrun each process is one rank; "
        "run alone, it launches --nproc local ranks.",
    )
    under_torchrun = "RANK" in os.environ and "WORLD_SIZE" in os.environ
    add_arguments(parser, launcher=not under_torchrun)
    args = parser.parse_args(argv)
    return run_in_process_group(args) if under_torchrun else run_launched(args)
