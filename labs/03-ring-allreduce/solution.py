"""Lab 03, reference solution: ring all-reduce from point-to-point messages.

All-reduce = reduce-scatter + all-gather. With p ranks the buffer is cut into p segments. In
p-1 reduce-scatter steps each segment travels once around the ring, picking up every rank's
contribution, so each rank ends owning one fully reduced segment; in p-1 all-gather steps the
reduced segments travel around again and every rank gets all of them. Each rank sends and
receives 2(p-1)/p of the buffer in all, which is why nccl-tests' busbw for all-reduce is
algbw * 2(p-1)/p.

Run: ``nccl-course lab run 03 --solution --nproc 4`` (prints busbw of this ring and of
dist.all_reduce side by side).
"""

from __future__ import annotations

import statistics
import time

import torch
import torch.distributed as dist

from nccl_course.launcher import device, script_main


# Step 1 ----------------------------------------------------------------------------------------
def split_bounds(numel: int, parts: int) -> list[tuple[int, int]]:
    """Cut ``numel`` elements into ``parts`` consecutive pieces as (start, length) pairs whose
    lengths differ by at most one, the longer ones first. Pieces may be empty when numel < parts."""
    base, extra = divmod(numel, parts)
    bounds, start = [], 0
    for i in range(parts):
        length = base + (1 if i < extra else 0)
        bounds.append((start, length))
        start += length
    return bounds


# Step 2 ----------------------------------------------------------------------------------------
def exchange(send: torch.Tensor, dst: int, recv: torch.Tensor, src: int) -> None:
    """Send to ``dst`` and receive from ``src`` as one batch, then wait for both."""
    ops = [dist.P2POp(dist.isend, send, dst), dist.P2POp(dist.irecv, recv, src)]
    for request in dist.batch_isend_irecv(ops):
        request.wait()


def ring_all_reduce_simple(tensor: torch.Tensor) -> torch.Tensor:
    """Sum ``tensor`` (1-D, contiguous) over all ranks, in place, with a ring; return it.
    One message per step, no pipelining: 2(p-1) steps of one segment each."""
    rank, p = dist.get_rank(), dist.get_world_size()
    if p == 1:
        return tensor
    segments = split_bounds(tensor.numel(), p)
    nxt, prv = (rank + 1) % p, (rank - 1) % p

    def segment(index):
        start, length = segments[index % p]
        return tensor.narrow(0, start, length)

    incoming = torch.empty(segments[0][1], dtype=tensor.dtype, device=tensor.device)
    # Reduce-scatter: in step s, send the running sum of segment (rank - s), receive the running
    # sum of segment (rank - s - 1) and add this rank's part to it. Segment b starts at rank b
    # and, p-1 steps later, arrives complete at rank b - 1.
    for step in range(p - 1):
        target = segment(rank - step - 1)
        received = incoming[: target.numel()]
        exchange(segment(rank - step), nxt, received, prv)
        target.add_(received)
    # All-gather: rank r now owns the complete segment r + 1. In step s it forwards segment
    # (r + 1 - s) and receives segment (r - s) straight into place.
    for step in range(p - 1):
        exchange(segment(rank + 1 - step), nxt, segment(rank - step), prv)
    return tensor


# Step 3 ----------------------------------------------------------------------------------------
def ring_all_reduce(tensor: torch.Tensor, chunks: int = 2) -> torch.Tensor:
    """The same ring, pipelined: every segment is cut into ``chunks`` pieces, and piece c of
    every step travels on its own *lane*. As soon as piece c of step t has arrived (and, in the
    reduce-scatter half, been added), piece c of step t+1 is posted, while the other pieces of
    step t are still on the wire. Transfers of one lane overlap with additions of another, and
    no rank waits for a whole segment before passing data on.

    Step t < p-1 is reduce-scatter step t; step t >= p-1 is all-gather step t-(p-1). What a rank
    sends in step t+1 is exactly what it finished receiving in step t, so each lane is a chain.
    """
    rank, p = dist.get_rank(), dist.get_world_size()
    if p == 1:
        return tensor
    segments = split_bounds(tensor.numel(), p)
    pieces = [split_bounds(length, chunks) for _, length in segments]
    nxt, prv = (rank + 1) % p, (rank - 1) % p
    incoming = torch.empty(segments[0][1], dtype=tensor.dtype, device=tensor.device)
    lane_offsets = [offset for offset, _ in split_bounds(segments[0][1], chunks)]
    steps = 2 * (p - 1)

    def piece(index, c):
        start = segments[index % p][0]
        offset, length = pieces[index % p][c]
        return tensor.narrow(0, start + offset, length)

    def send_and_recv_segments(t):
        if t < p - 1:
            return rank - t, rank - t - 1
        s = t - (p - 1)
        return rank + 1 - s, rank - s

    def post(t, c):
        send_index, recv_index = send_and_recv_segments(t)
        outgoing, target = piece(send_index, c), piece(recv_index, c)
        # Reduce-scatter receives into this lane's slice of the scratch buffer, to add it
        # afterwards; all-gather receives straight into place.
        into = incoming.narrow(0, lane_offsets[c], target.numel()) if t < p - 1 else target
        ops = []
        if outgoing.numel():
            ops.append(dist.P2POp(dist.isend, outgoing, nxt))
        if into.numel():
            ops.append(dist.P2POp(dist.irecv, into, prv))
        return dist.batch_isend_irecv(ops) if ops else []

    pending = [post(0, c) for c in range(chunks)]
    for t in range(steps):
        for c in range(chunks):
            for request in pending[c]:
                request.wait()
            if t < p - 1:
                _, recv_index = send_and_recv_segments(t)
                target = piece(recv_index, c)
                target.add_(incoming.narrow(0, lane_offsets[c], target.numel()))
            pending[c] = post(t + 1, c) if t + 1 < steps else []
    return tensor


# Step 4 ----------------------------------------------------------------------------------------
def busbw_all_reduce(nbytes: int, seconds: float, p: int) -> float:
    """nccl-tests' bus bandwidth of an all-reduce of ``nbytes`` taking ``seconds`` on ``p``
    ranks, in GB/s (1e9 bytes/s): algbw = nbytes / seconds, busbw = algbw * 2(p-1)/p."""
    return nbytes / seconds / 1e9 * 2 * (p - 1) / p


def _synchronize(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def time_all_reduce(fn, tensor: torch.Tensor, iters: int) -> float:
    """Seconds per call of ``fn(tensor)``, as the slowest rank saw it (everyone starts together
    after a barrier; the collective is done when the last rank is done)."""
    dist.barrier()
    _synchronize(tensor.device)
    start = time.perf_counter()
    for _ in range(iters):
        fn(tensor)
    _synchronize(tensor.device)
    seconds = (time.perf_counter() - start) / iters
    # On the buffer's device: NCCL reduces only GPU tensors.
    elapsed = torch.tensor([seconds], dtype=torch.float64, device=tensor.device)
    dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
    return float(elapsed.item())


def compare_busbw(nbytes: int, iters: int = 5, repeats: int = 5, chunks: int = 2) -> dict:
    """Median busbw (GB/s) of ``ring_all_reduce`` and ``dist.all_reduce`` on float32 buffers of
    ``nbytes``, measured alternately in one run so both see the same machine load."""
    p = dist.get_world_size()
    buffer = torch.zeros(nbytes // 4, dtype=torch.float32, device=device())
    ring_fn = lambda t: ring_all_reduce(t, chunks)  # noqa: E731
    ring_fn(buffer)
    dist.all_reduce(buffer)  # warm-up: connections, allocations
    ring, builtin = [], []
    for _ in range(repeats):
        ring.append(busbw_all_reduce(nbytes, time_all_reduce(ring_fn, buffer, iters), p))
        builtin.append(busbw_all_reduce(nbytes, time_all_reduce(dist.all_reduce, buffer, iters), p))
    return {
        "nbytes": nbytes,
        "ring_busbw": statistics.median(ring),
        "all_reduce_busbw": statistics.median(builtin),
        "ring_runs": ring,
        "all_reduce_runs": builtin,
    }


def main() -> None:
    """Check the ring on a small buffer, then print busbw of the ring and dist.all_reduce."""
    rank, p = dist.get_rank(), dist.get_world_size()
    x = torch.arange(10, dtype=torch.float32, device=device()) + rank
    ring_all_reduce(x)
    if rank == 0:
        want = [p * i + p * (p - 1) // 2 for i in range(10)]
        print(f"ring all-reduce of arange(10) + rank on {p} ranks: {x.tolist()}")
        print("correct" if x.tolist() == want else f"WRONG, expected {want}")
        print(f"{'size':>10} {'ring busbw':>12} {'all_reduce busbw':>18}   (GB/s, median of 5)")
    for nbytes in (64 * 1024, 1024**2, 16 * 1024**2, 64 * 1024**2):
        result = compare_busbw(nbytes)
        if rank == 0:
            print(
                f"{nbytes // 1024:>8} KiB {result['ring_busbw']:>12.3f} "
                f"{result['all_reduce_busbw']:>18.3f}"
            )


if __name__ == "__main__":
    script_main(main)
