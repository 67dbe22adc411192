"""Runs on every rank: the learner's collectives with torch's own disabled, then torch's."""

import contextlib

import torch
import torch.distributed as dist

from nccl_course.labs.parts import run_parts
from nccl_course.launcher import device
from nccl_course.launcher.launch import load_file_module

BUILT_IN = (
    "broadcast",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "reduce_scatter_single",
    "all_to_all",
    "all_to_all_single",
    "all_reduce",
    "reduce",
    "gather",
    "scatter",
    "all_gather_object",
    "broadcast_object_list",
)


@contextlib.contextmanager
def built_in_collectives_disabled():
    """The lab is to build collectives from send/recv: calling torch's is an error here."""
    saved = {name: getattr(dist, name) for name in BUILT_IN if hasattr(dist, name)}

    def refuse(name):
        def refused(*args, **kwargs):
            raise RuntimeError(
                f"dist.{name} called: build the collective from send/recv (exchange) only"
            )

        return refused

    for name in saved:
        setattr(dist, name, refuse(name))
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(dist, name, fn)


def inputs(n):
    rank, p = dist.get_rank(), dist.get_world_size()
    mine = torch.arange(n, dtype=torch.float32, device=device()) + 10 * rank
    data = torch.arange(p * n, dtype=torch.float32, device=device()) + 100 * rank
    return mine, data


def check_all(lab_file, n):
    lab = load_file_module(lab_file)
    p = dist.get_world_size()
    src = p - 1

    def untouched(fn, data):
        before = data.clone()
        out = fn(data)
        return {"out": out.tolist(), "input_untouched": bool(torch.equal(before, data))}

    mine, data = inputs(n)
    with built_in_collectives_disabled():
        results = run_parts(
            {
                "broadcast": lambda: lab.broadcast_p2p(mine.clone(), src).tolist(),
                "all_gather": lambda: lab.all_gather_p2p(mine).tolist(),
                "reduce_scatter": lambda: untouched(lab.reduce_scatter_p2p, data),
                "all_to_all": lambda: untouched(lab.all_to_all_p2p, data),
            },
            lab_file,
        )
    # torch.distributed's own results on the same inputs (list forms exist in every 2.x).
    mine, data = inputs(n)
    reference = {}
    t = mine.clone()
    dist.broadcast(t, src)
    reference["broadcast"] = t.tolist()
    gathered = [torch.empty_like(mine) for _ in range(p)]
    dist.all_gather(gathered, mine)
    reference["all_gather"] = torch.cat(gathered).tolist()
    out = torch.empty(n, dtype=data.dtype, device=data.device)
    dist.reduce_scatter(out, list(data.chunk(p)))
    reference["reduce_scatter"] = out.tolist()
    out = torch.empty_like(data)
    dist.all_to_all_single(out, data)
    reference["all_to_all"] = out.tolist()
    results["torch"] = {"value": reference}
    return results
