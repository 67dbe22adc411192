"""``nccl-course report RESULTS_DIR``: the GPU check's results folder as one HTML page."""

from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "report",
        help="turn the results folder of labs/gpu_check.sh into one self-contained HTML page",
        description=(
            "Read the folder labs/gpu_check.sh wrote (steps, the doctor's environment and "
            "findings, the benchmark's JSON record, NCCL's logs) and write one HTML page that "
            "works offline: the steps with links to their logs, the doctor's findings, and the "
            "measured busbw against NCCL's tuner model for the system rank 0's NCCL log "
            "describes (else a preset matching the GPUs). Missing files are named, not fatal."
        ),
    )
    parser.add_argument("results_dir", metavar="RESULTS_DIR", help="the GPU check's folder")
    parser.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE",
        help="where to write the page (default: RESULTS_DIR/report.html)",
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    from nccl_course.results import BundleError, read_bundle, render_report

    folder = Path(args.results_dir)
    output = Path(args.output) if args.output else folder / "report.html"
    try:
        bundle = read_bundle(folder)
    except BundleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        output.write_text(render_report(bundle, output), encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"report: {output}")
    return 0
