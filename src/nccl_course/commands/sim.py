"""``nccl-course sim``: run a collective's schedule on the simulator and check it against numpy."""

from __future__ import annotations

import sys

# How the steps below read; printed above them.
NOTATION = (
    "  (S->D[c]: rank S sends chunk ids c to rank D, which stores them; "
    "S->D+[c]: D adds them into its own, a reduction)"
)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sim",
        help="execute a collective algorithm on simulated ranks and verify the data",
        description=(
            "Build the schedule of ALGO for COLLECTIVE on P simulated ranks, execute it on "
            "random data, compare every rank's result with the collective's numpy definition, "
            "and print the steps, the transfers and the bytes each rank sends. Exits 1 if the "
            "data are wrong."
        ),
    )
    parser.add_argument("collective", help="e.g. all_reduce, broadcast, all_to_all, barrier")
    parser.add_argument(
        "--algo",
        "--algorithm",
        dest="algorithm",
        default=None,
        help="algorithm (default: the first listed for the collective)",
    )
    parser.add_argument("--ranks", "-p", type=int, default=4, help="number of ranks (default 4)")
    parser.add_argument(
        "--chunks",
        "-k",
        type=int,
        default=1,
        help="pieces per block; pipelined algorithms send them a step apart",
    )
    parser.add_argument("--root", type=int, default=0, help="root rank for rooted collectives")
    parser.add_argument(
        "--size", default="1MiB", help="collective size for the byte counts (nccl-tests convention)"
    )
    parser.add_argument("--dtype", default="float32", help="numpy dtype for the data check")
    parser.add_argument(
        "--max-steps", type=int, default=40, help="print at most this many steps (default 40)"
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    import numpy as np

    from nccl_course.sim import ALGORITHMS, ScheduleError, build_schedule, check_schedule
    from nccl_course.units import format_size, parse_size

    if args.collective not in ALGORITHMS:
        print(
            f"error: unknown collective {args.collective!r}; choose one of: "
            f"{', '.join(ALGORITHMS)}",
            file=sys.stderr,
        )
        return 2
    algorithm = args.algorithm or ALGORITHMS[args.collective][0]
    try:
        size = parse_size(args.size)
        dtype = np.dtype(args.dtype)
        schedule = build_schedule(
            args.collective, algorithm, args.ranks, chunks=args.chunks, root=args.root
        )
    except (ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    print(
        f"{schedule.collective} / {schedule.algorithm} on {schedule.p} ranks, "
        f"chunks={schedule.chunks}, root={schedule.root}: {schedule.num_steps} steps, "
        f"{schedule.num_transfers} transfers of {schedule.num_chunks} chunk ids"
    )
    print(NOTATION)
    for index, step in enumerate(schedule.step_arrays[: args.max_steps]):
        parts = []
        for src, dst, _count, reduced in step.messages():
            chunks = sorted(int(c) for c in step.chunk[(step.src == src) & (step.dst == dst)])
            shown = ",".join(map(str, chunks[:6])) + ("..." if len(chunks) > 6 else "")
            op = "+" if reduced else ""
            parts.append(f"{src}->{dst}{op}[{shown}]")
        print(f"  step {index + 1:3d}: " + "  ".join(parts))
    if schedule.num_steps > args.max_steps:
        print(f"  ... {schedule.num_steps - args.max_steps} more steps (--max-steps)")
    if schedule.collective != "barrier":
        sent = schedule.bytes_sent_per_rank(size)
        print(f"bytes sent per rank for a {format_size(size)} {schedule.collective}:")
        for rank, nbytes in enumerate(sent):
            print(f"  rank {rank:3d}: {nbytes:>14,d} B ({format_size(nbytes)})")
    try:
        problem = check_schedule(schedule, dtype=dtype)
    except ScheduleError as exc:
        print(f"error: invalid schedule: {exc}", file=sys.stderr)
        return 1
    if problem:
        print(f"error: wrong data: {problem}", file=sys.stderr)
        return 1
    print(f"data check: every rank's output equals the numpy definition ({dtype.name})")
    return 0
