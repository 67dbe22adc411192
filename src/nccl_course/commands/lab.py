"""``nccl-course lab list | run NN | check NN``: the hands-on labs."""

from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "lab",
        help="list, run and check the labs",
        description="Labs live in labs/NN-name/. Edit starter.py, run it, check it.",
    )
    sub = parser.add_subparsers(dest="lab_command", metavar="ACTION")

    listing = sub.add_parser("list", help="the labs, their world sizes and backends")
    listing.set_defaults(func=run_list)

    def common(p):
        p.add_argument("lab", help="lab number (3, 03) or folder name (03-ring-allreduce)")
        which = p.add_mutually_exclusive_group()
        which.add_argument("--file", type=Path, help="the file to use (default: starter.py)")
        which.add_argument("--solution", action="store_true", help="use the reference solution")

    run = sub.add_parser("run", help="run the lab file's main() on N local ranks")
    common(run)
    run.add_argument("--nproc", type=int, default=None, help="ranks (default: GPUs, or 4)")
    run.add_argument("--backend", choices=("nccl", "gloo"), default=None)
    run.add_argument("--timeout", type=float, default=None, help="seconds before stopping")
    run.set_defaults(func=run_run)

    check = sub.add_parser("check", help="run the lab's tests against your file")
    common(check)
    check.add_argument("--nproc", type=int, default=None, help="check this world size only")
    check.add_argument("--verbose", "-v", action="store_true", help="show every failed case")
    check.set_defaults(func=run_check)

    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def _lab_and_file(args):
    from nccl_course.labs import find_lab

    try:
        lab = find_lab(args.lab)
    except (LookupError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None, None
    file = lab.solution if args.solution else (args.file or lab.starter)
    if not Path(file).is_file():
        print(f"error: no such file: {file}", file=sys.stderr)
        return lab, None
    return lab, Path(file)


def run_list(args) -> int:
    from nccl_course.labs import discover_labs

    labs = discover_labs()
    if not labs:
        print("error: no labs found (looked for labs/NN-name/lab.yaml)", file=sys.stderr)
        return 1
    for lab in labs:
        sizes = ",".join(str(n) for n in lab.config["world_sizes"])
        backends = "/".join(lab.config["backends"])
        print(f"{lab.number}  {lab.title}")
        print(f"    {lab.config['summary']}")
        print(f"    ranks {sizes}; {backends}; folder {lab.path}")
        for part in lab.config["gpu_only"]:
            print(f"    GPU only: {part}")
    return 0


def run_run(args) -> int:
    lab, file = _lab_and_file(args)
    if file is None:
        return 2
    from nccl_course.labs.runner import run_lab

    nproc = args.nproc
    if nproc is None:
        import torch

        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
        nproc = gpus if gpus >= 2 else 4
    return run_lab(lab, file, nproc, backend=args.backend, timeout_s=args.timeout)


def run_check(args) -> int:
    lab, file = _lab_and_file(args)
    if file is None:
        return 2
    from nccl_course.labs.checker import format_result, run_tests

    sizes = [args.nproc] if args.nproc else None
    print(f"running lab {lab.number}'s tests against {file} ...", file=sys.stderr)
    result = run_tests(lab, file, sizes)
    print(format_result(result, verbose=args.verbose))
    return 0 if result.ok else 1
