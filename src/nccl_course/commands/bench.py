"""``nccl-course bench``: an nccl-tests-like benchmark of one collective over a size sweep."""

from __future__ import annotations


def register(subparsers) -> None:
    from nccl_course.bench.cli import add_arguments

    parser = subparsers.add_parser(
        "bench",
        help="measure a collective like nccl-tests: table, JSON record, busbw plot",
        description=(
            "Sweep sizes (-b, -e, -f), time warm calls (CUDA events on GPUs), check every "
            "result, print nccl-tests' columns, write a JSON record with the environment and "
            "a plot of busbw vs size with an alpha-beta fit (and --predict) overlaid. "
            "Example: nccl-course bench all_reduce --nproc 4 -b 8 -e 64MiB"
        ),
    )
    add_arguments(parser, launcher=True)
    parser.set_defaults(func=run)


def run(args) -> int:
    from nccl_course.bench.cli import run_launched

    return run_launched(args)
