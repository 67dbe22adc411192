"""``nccl-course doctor``: check that this machine can run the labs, and say what it has."""

from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="report Python, torch, CUDA, GPUs, NCCL, gloo and the GPU topology",
        description=(
            "Print what the labs need to know about this machine. Exits 1 when torch is "
            "missing, with the command that installs it."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run)


def run(args) -> int:
    from nccl_course.environment import collect, report

    env = collect()
    print(json.dumps(env.as_dict(), indent=2) if args.json else report(env))
    if env.torch is None:
        print(
            "\nerror: torch is not installed in this environment, so the labs cannot run.\n"
            "Install it with 'make setup' (or: python scripts/install_torch.py), then run "
            "'nccl-course doctor' again.",
            file=sys.stderr,
        )
        return 1
    if not env.gloo_available and not env.nccl_available:
        print("\nerror: this torch has neither gloo nor NCCL: no lab can run.", file=sys.stderr)
        return 1
    return 0
