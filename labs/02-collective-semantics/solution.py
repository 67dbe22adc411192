"""Lab 02, reference solution: collectives built from point-to-point messages.

Every function runs on every rank (the process group is initialised) and works on 1-D tensors.
A "block" is the slice of n elements that belongs to one rank: block j of a p*n tensor is
elements j*n .. (j+1)*n-1.

Run: ``nccl-course lab run 02 --solution --nproc 4``.
"""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.launcher import device, script_main


def exchange(send: torch.Tensor, dst: int, recv: torch.Tensor, src: int) -> None:
    """Send ``send`` to rank ``dst`` and receive into ``recv`` from rank ``src``, at once.

    Posting both before waiting on either is what avoids a deadlock: if every rank first did a
    blocking send, each would wait for a receive no one had posted yet (NCCL blocks; gloo may or
    may not, depending on the size). ``batch_isend_irecv`` posts the pair as one group.
    """
    ops = [dist.P2POp(dist.isend, send, dst), dist.P2POp(dist.irecv, recv, src)]
    for request in dist.batch_isend_irecv(ops):
        request.wait()


def block(tensor: torch.Tensor, index: int, p: int) -> torch.Tensor:
    """Block ``index`` of ``tensor`` split into ``p`` equal blocks (a view, not a copy)."""
    n = tensor.numel() // p
    return tensor[index * n : (index + 1) * n]


# Step 1 ----------------------------------------------------------------------------------------
def broadcast_p2p(tensor: torch.Tensor, src: int) -> torch.Tensor:
    """After the call every rank's ``tensor`` equals rank ``src``'s. Linear: the root sends to
    each other rank in turn (p-1 messages from one rank; a tree or a pipeline does better)."""
    rank, p = dist.get_rank(), dist.get_world_size()
    if rank == src:
        for other in range(p):
            if other != src:
                dist.send(tensor, other)
    else:
        dist.recv(tensor, src)
    return tensor


# Step 2 ----------------------------------------------------------------------------------------
def all_gather_p2p(mine: torch.Tensor) -> torch.Tensor:
    """Return the p*n tensor whose block j is rank j's ``mine`` (n elements), on every rank.

    Ring: in step s (0..p-2) rank r passes block (r - s) mod p to rank r+1 and receives block
    (r - s - 1) mod p from rank r-1, straight into its place in the output.
    """
    rank, p = dist.get_rank(), dist.get_world_size()
    out = torch.empty(p * mine.numel(), dtype=mine.dtype, device=mine.device)
    block(out, rank, p).copy_(mine)
    nxt, prv = (rank + 1) % p, (rank - 1) % p
    for step in range(p - 1):
        exchange(block(out, (rank - step) % p, p), nxt, block(out, (rank - step - 1) % p, p), prv)
    return out


# Step 3 ----------------------------------------------------------------------------------------
def reduce_scatter_p2p(data: torch.Tensor) -> torch.Tensor:
    """``data`` has p blocks of n elements on every rank. Return, on rank r, the sum over all
    ranks of their block r.

    Ring: in step s rank r sends its running sum of block (r - s - 1) mod p to rank r+1, receives
    the running sum of block (r - s - 2) mod p from rank r-1 and adds its own contribution. Block
    b starts at rank b+1 and has visited every rank when it arrives at rank b.
    """
    rank, p = dist.get_rank(), dist.get_world_size()
    partial = data.clone()  # running sums; the caller's data stays untouched
    incoming = torch.empty_like(block(data, 0, p))
    nxt, prv = (rank + 1) % p, (rank - 1) % p
    for step in range(p - 1):
        exchange(block(partial, (rank - step - 1) % p, p), nxt, incoming, prv)
        block(partial, (rank - step - 2) % p, p).add_(incoming)
    return block(partial, rank, p).clone()


# Step 4 ----------------------------------------------------------------------------------------
def all_to_all_p2p(data: torch.Tensor) -> torch.Tensor:
    """``data`` has p blocks; block j is addressed to rank j. Return the p-block tensor whose
    block j is what rank j addressed to this rank (a transpose of blocks across ranks).

    Pairwise: in step k (1..p-1) rank r sends to r+k and receives from r-k, so every pair of
    ranks exchanges exactly once and no rank receives two messages in one step.
    """
    rank, p = dist.get_rank(), dist.get_world_size()
    out = torch.empty_like(data)
    block(out, rank, p).copy_(block(data, rank, p))
    for k in range(1, p):
        dst, src = (rank + k) % p, (rank - k) % p
        exchange(block(data, dst, p), dst, block(out, src, p), src)
    return out


def main() -> None:
    """Run each collective on small integer data and print what rank 0 holds."""
    rank, p = dist.get_rank(), dist.get_world_size()
    dev = device()
    n = 2
    mine = torch.arange(n, dtype=torch.float32, device=dev) + 10 * rank
    data = torch.arange(p * n, dtype=torch.float32, device=dev) + 100 * rank
    results = {
        "broadcast from the last rank": broadcast_p2p(mine.clone(), p - 1),
        "all-gather": all_gather_p2p(mine),
        "reduce-scatter": reduce_scatter_p2p(data),
        "all-to-all": all_to_all_p2p(data),
    }
    if rank == 0:
        print(f"{p} ranks; rank r holds mine = [10r, 10r+1] and data = 100r + [0..{p * n - 1}]")
        for name, value in results.items():
            print(f"  {name:30s} rank 0 gets {value.tolist()}")


if __name__ == "__main__":
    script_main(main)
