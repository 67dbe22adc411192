"""``nccl-course doctor``: what this machine has, then a pre-flight check of everything NCCL needs
on a rented GPU node (shared memory, locked memory, network interface, RDMA and its plugin, GPU
peer access, torch's view of the GPUs and the driver, NCCL's version and config files, the
rendezvous address), each with what to fix."""

from __future__ import annotations

import argparse
import json
import sys


def _epilog() -> str:
    from nccl_course.preflight import CATALOG

    width = max(len(info.id) for info in CATALOG)
    lines = ["checks (each prints ok, warn, fail or n/a, and a fix under warn and fail):"]
    lines += [f"  {info.id:<{width}}  {info.help}" for info in CATALOG]
    lines.append("")
    lines.append(
        "Exit status: 0 when no check fails, 1 when one fails (or torch is missing), 2 on a usage error."
    )
    return "\n".join(lines)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="report this machine and run the pre-flight checks for NCCL",
        description=(
            "Print what the labs need to know about this machine, then check what NCCL needs on "
            "a (rented) GPU node. Run it on every node before a multi-node job."
        ),
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--nccl-log",
        metavar="FILE",
        help="an NCCL_DEBUG=INFO log of a run here: check which transports NCCL used",
    )
    parser.add_argument(
        "--master",
        metavar="HOST:PORT",
        help="the rendezvous address to test (default: MASTER_ADDR and MASTER_PORT)",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        metavar="N",
        help="nodes the job will use (default: NNODES, SKYPILOT_NUM_NODES or "
        "WORLD_SIZE/LOCAL_WORLD_SIZE from the environment, else 1)",
    )
    parser.set_defaults(func=run)


def _options(args):
    """The pre-flight options from the command line, or a one-line usage error (ValueError)."""
    from nccl_course.preflight import Options, parse_master

    if args.nodes is not None and args.nodes < 1:
        raise ValueError(f"--nodes {args.nodes}: give the number of nodes, 1 or more")
    master = parse_master(args.master) if args.master else None
    log = None
    if args.nccl_log:
        try:
            with open(args.nccl_log, encoding="utf-8", errors="replace") as handle:
                log = handle.read()
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise ValueError(
                f"--nccl-log {args.nccl_log}: {reason}; give an NCCL log file"
            ) from None
    return Options(nodes=args.nodes, nccl_log=log, master=master)


def run(args) -> int:
    from nccl_course.environment import collect, report
    from nccl_course.preflight import any_failed, format_checks, run_checks

    try:
        options = _options(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    env = collect()
    checks = run_checks(options=options)
    if args.json:
        document = {"environment": env.as_dict(), "checks": [c.as_dict() for c in checks]}
        print(json.dumps(document, indent=2))
    else:
        print(report(env))
        print("\nPre-flight checks:")
        print(format_checks(checks))
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
    if any_failed(checks):
        failed = ", ".join(c.id for c in checks if c.status == "fail")
        print(f"\nerror: pre-flight checks failed: {failed} (see 'fix:' above)", file=sys.stderr)
        return 1
    return 0
