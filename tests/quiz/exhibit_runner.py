"""Run the program exhibits of the banks on gloo, many programs in one launch.

Each rank of one :func:`nccl_course.launcher.launch` call runs every program in turn, each in a
fresh default process group (a file store per program) whose timeout is short, so that a
program that hangs makes its waiting ranks raise gloo's timeout error instead of blocking the
launch; the next program starts in a new group. Starting the ranks (importing torch) is what
costs seconds, so one launch for all programs keeps the tests fast.
"""

from __future__ import annotations

import datetime
import traceback


def run_programs(programs: list[tuple[str, str]], store_dir: str, hang_s: float) -> list:
    """For each ``(name, source)``: ``("ok", value)`` where ``main()`` returned ``value``, else
    ``("failed", message)``. ``hang_s``: seconds a collective may wait before it raises."""
    import torch.distributed as dist

    rank, world = dist.get_rank(), dist.get_world_size()
    dist.destroy_process_group()
    results = []
    for index, (name, source) in enumerate(programs):
        store = dist.FileStore(f"{store_dir}/program-{index}", world)
        dist.init_process_group(
            "gloo",
            store=store,
            rank=rank,
            world_size=world,
            timeout=datetime.timedelta(seconds=hang_s),
        )
        namespace = {"__name__": f"exhibit_{index}"}
        try:
            exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102 - a bank's program
            results.append(("ok", namespace["main"]()))
        except Exception as exc:  # a hang surfaces as gloo's timeout error
            results.append(("failed", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        # A rank that finished must not tear the group down under a rank still waiting in a
        # collective (that rank would see "connection closed", not the hang): wait, through
        # the store, until every rank is done or has timed out.
        store.set(f"done-{rank}", "1")
        store.wait([f"done-{r}" for r in range(world)], datetime.timedelta(seconds=4 * hang_s))
        dist.destroy_process_group()
    return results
