"""Lab 08 (starter): turning distributed hangs into clear errors.

Fill in the TODO(step N) parts, in order.

A collective that one rank skips, or calls with another shape or in another order, waits forever
(NCCL 2.x: undefined behaviour, usually a hang). Four tools turn that into a message:
a short group timeout; monitored_barrier (gloo only), which names the ranks that did not arrive;
TORCH_DISTRIBUTED_DEBUG=DETAIL, which checks every collective's op and shapes across ranks before
running it; and the flight recorder, a per-rank log of recent collectives that shows who stopped
where. Then two classic bugs are fixed, and async work is read only after wait().

Run it:  torchrun --nproc-per-node 4 labs/08-debugging/starter.py
    or:  python labs/08-debugging/starter.py --nproc 4      (gloo on CPU without GPUs)
"""

from __future__ import annotations

import datetime
import os
import pickle
import re
import time

import torch
import torch.distributed as dist

from nccl_course.launcher import device, script_main

#: Seconds a new gloo group may take to connect all its ranks (a slow, busy machine needs a few).
SETUP_TIMEOUT_S = 60.0
#: The flight recorder keeps this many entries per process once enabled (read when the first
#: collective is recorded, so set it before any collective).
os.environ.setdefault("TORCH_FR_BUFFER_SIZE", "2000")


def debug_group(timeout_s: float, detail: bool = False):
    """A new gloo group whose collectives give up after ``timeout_s`` seconds.

    Creating a group is itself collective: every rank must call this, in the same order.
    ``detail=True`` creates it under debug level DETAIL, i.e. wrapped so that every collective
    first compares its fingerprint (op, shapes, dtypes) across ranks, as
    TORCH_DISTRIBUTED_DEBUG=DETAIL does for every group.
    """
    previous = dist.get_debug_level()
    if detail:
        dist.set_debug_level(dist.DebugLevel.DETAIL)
    try:
        group = dist.new_group(backend="gloo", timeout=datetime.timedelta(seconds=SETUP_TIMEOUT_S))
    finally:
        dist.set_debug_level(previous)
    if not detail:
        # Connect with a generous timeout, then shorten it for the collectives. _set_pg_timeout
        # is private (PyTorch 2.x); without it the group keeps the set-up timeout.
        set_timeout = getattr(dist.distributed_c10d, "_set_pg_timeout", None)
        if set_timeout is not None:
            set_timeout(datetime.timedelta(seconds=timeout_s), group)
    return group


# --- step 1: who did not arrive? ----------------------------------------------------------------


def find_missing_ranks(group, timeout_s: float) -> list[int] | None:
    """Call on every rank that reaches this point. Rank 0 returns the sorted ranks that did not
    reach the barrier within ``timeout_s`` ([] when all did); another rank returns [] when the
    barrier passed and None when rank 0 reported a failure (it cannot tell who is missing)."""
    raise NotImplementedError(
        "TODO(step 1): name the missing ranks with dist.monitored_barrier and "
        "wait_all_ranks=True, timeout=timedelta(seconds=timeout_s); on RuntimeError, read the "
        "rank numbers out of rank 0's message ('Ranks 2, 3 failed to pass monitoredBarrier "
        "...'), or return None on the other ranks"
    )


# --- step 2: same op, same shapes? ---------------------------------------------------------------

_FINGERPRINT = re.compile(
    r"Rank (\d+) is running collective: CollectiveFingerPrint\(SequenceNumber=(\d+), "
    r"OpType=(\w+), TensorShape=\[([^\]]*)\], TensorDtypes=(\w+)"
)


def detect_collective_mismatch(fn, timeout_s: float = 5.0) -> str | None:
    """Run ``fn(group)`` on a DETAIL-checked group; return None when every rank issued the same
    collectives, else one line: "collective mismatch: rank a ran OP on [shape] (dtype), rank b
    ran ...". Every rank must call it."""
    raise NotImplementedError(
        "TODO(step 2): run fn on a DETAIL-checked group from debug_group with detail=True, "
        "and turn the 'Detected mismatch between collectives' RuntimeError into one line "
        "(use _FINGERPRINT.findall on the message); destroy the group at the end"
    )


# --- step 3: read the flight recorder ------------------------------------------------------------


def flight_records(group) -> list[tuple[int, str, list]] | None:
    """This rank's flight-recorder entries for ``group``: (sequence number, op, input sizes).

    Uses ``torch._C._distributed_c10d._dump_fr_trace`` (private; PyTorch 2.x). Returns None when
    this torch has no flight recorder. On NCCL, TORCH_NCCL_DUMP_ON_TIMEOUT=1 makes the watchdog
    write the same dump to files when a collective times out; `torchfrtrace` reads them.
    """
    dump = getattr(torch._C._distributed_c10d, "_dump_fr_trace", None)
    if dump is None:
        return None
    trace = pickle.loads(dump())
    name = group.group_name
    return [
        (int(e["collective_seq_id"]), str(e["profiling_name"]), e["input_sizes"])
        for e in trace.get("entries", [])
        if e["process_group"][0] == name and not e.get("is_p2p", False)
    ]


def diagnose_flight_records(records: dict[int, list]) -> dict | None:
    """Compare the ranks' records of one group. ``records[rank]`` lists (seq, op, sizes).

    Returns None when every rank recorded the same calls; otherwise, for the first sequence number
    where they disagree: {"seq": n, "missing": ranks with no record of call n (sorted),
    "calls": {rank: (op, sizes)} for the ranks that have it}.
    """
    raise NotImplementedError(
        "TODO(step 3): walk the sequence numbers in order; report the first one that some rank "
        "lacks or that ranks recorded with different ops or sizes"
    )


# --- steps 4 and 5: two classic bugs, fixed -----------------------------------------------------


def global_mean_loss(loss: float, group=None) -> float:
    """The mean of every rank's loss, on every rank. (The bug: calling the all-reduce only on
    the rank that logs; the others never join it.)"""
    # TODO(step 4): this is the bug. Only rank 0 joins the all-reduce: it waits for partners that
    # never come (a hang; with a short group timeout, an error after that many seconds), while
    # the other ranks return their own loss as if it were the mean. Fix it.
    value = torch.tensor([loss], dtype=torch.float64)
    if dist.get_rank() == 0:  # only the rank that prints joins the all-reduce
        dist.all_reduce(value, group=group)
    return float(value.item()) / dist.get_world_size(group)


def gather_variable_length(values: torch.Tensor, group=None) -> list[list[float]]:
    """Every rank's 1-D tensor, whatever its length (the last batch is often shorter).
    all_gather needs equal shapes: exchange the lengths, pad to the longest, gather, trim."""
    # TODO(step 5): this is the bug. all_gather needs the same shape on every rank, and the
    # ranks' lengths differ. Exchange the lengths first, pad to the longest, gather, trim.
    world = dist.get_world_size(group)
    gathered = [torch.empty_like(values) for _ in range(world)]
    dist.all_gather(gathered, values, group=group)
    return [g.tolist() for g in gathered]


# --- step 6: async work ---------------------------------------------------------------------------


def average_async(tensors: list[torch.Tensor], group=None) -> list[torch.Tensor]:
    """Average each tensor over the ranks: start every all-reduce at once (async_op=True), and
    read a tensor only after its Work's wait(). Returns new tensors; the inputs are summed in
    place by the collectives."""
    raise NotImplementedError(
        "TODO(step 6): start an async all-reduce of every tensor with async_op=True, "
        "then for each: wait() on its Work, and only then divide it by the world size"
    )


# --- demonstrations ------------------------------------------------------------------------------


def buggy_global_mean_loss(loss: float, group=None) -> float:
    """The bug of step 4, kept to show what a short timeout turns it into."""
    value = torch.tensor([loss], dtype=torch.float64)
    if dist.get_rank() == 0:  # only the rank that prints joins the all-reduce
        dist.all_reduce(value, group=group)
    return float(value.item()) / dist.get_world_size(group)


def _timed(fn, *args):
    start = time.monotonic()
    try:
        return fn(*args), None, time.monotonic() - start
    except Exception as exc:  # the point is to show the error
        return (
            None,
            f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}",
            time.monotonic() - start,
        )


def main() -> None:
    """Show each tool on a real hang, then the fixes."""
    rank, world = dist.get_rank(), dist.get_world_size()
    say = print if rank == 0 else (lambda *a, **k: None)
    say(f"{world} ranks, default backend {dist.get_backend()}, torch {torch.__version__}")

    # A rank that never arrives: the last rank skips the barrier.
    group = debug_group(3.0)
    if rank != world - 1:
        missing, error, took = _timed(find_missing_ranks, group, 2.0)
        say(f"monitored_barrier: missing ranks {missing} (after {took:.1f} s)")
    else:
        time.sleep(2.5)

    # The same collective with different shapes.
    def shapes_differ(g):
        dist.all_reduce(torch.ones(5 if dist.get_rank() == 1 else 4), group=g)

    say("DETAIL check:", detect_collective_mismatch(shapes_differ))

    # The flight recorder after a skipped collective.
    group = debug_group(3.0)
    dist.all_reduce(torch.ones(2), group=group)
    if rank != world - 1:
        _timed(dist.all_reduce, torch.ones(3), dist.ReduceOp.SUM, group)
    records = flight_records(group)
    everyone = [None] * world
    dist.all_gather_object(everyone, records)
    if everyone[0] is not None:
        say("flight recorder:", diagnose_flight_records(dict(enumerate(everyone))))

    # Bug 1 with a 2-second timeout: an error instead of a hang.
    group = debug_group(2.0)
    _value, error, took = _timed(buggy_global_mean_loss, float(rank), group)
    say(f"buggy mean loss on rank 0: {error} after {took:.1f} s")
    group = debug_group(5.0)
    say("fixed mean loss:", global_mean_loss(float(rank), group))
    lengths = gather_variable_length(torch.arange(float(3 + rank)), group)
    say("variable-length gather:", [len(x) for x in lengths])

    # Work.wait(): on NCCL it orders the current CUDA stream and returns at once (GPU only).
    dev = device()
    x = torch.ones(1 << 20, device=dev)
    work = dist.all_reduce(x, async_op=True)
    start = time.perf_counter()
    work.wait()
    waited = time.perf_counter() - start
    done_right_after = work.is_completed()
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    say(
        f"Work.wait() on {dev.type} returned after {waited * 1e3:.2f} ms; is_completed() right "
        f"after wait: {done_right_after}; value read after wait: {x[0].item()} (want {world})"
    )


if __name__ == "__main__":
    script_main(main)
