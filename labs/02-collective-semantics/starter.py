"""Lab 02, starter: collectives built from point-to-point messages. Fill in the TODOs.

Every function runs on every rank (the process group is initialised) and works on 1-D tensors.
A "block" is the slice of n elements that belongs to one rank: block j of a p*n tensor is
elements j*n .. (j+1)*n-1.

Run: ``nccl-course lab run 02 --nproc 4``; check: ``nccl-course lab check 02``.
Use only ``exchange``, ``dist.send`` and ``dist.recv``: the checks disable the built-in collectives.
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
    # TODO(step 1): the root sends the whole tensor to every other rank (dist.send); every
    # other rank receives it from the root into ``tensor`` (dist.recv). Return ``tensor``.
    raise NotImplementedError("TODO(step 1): broadcast with send/recv")


# Step 2 ----------------------------------------------------------------------------------------
def all_gather_p2p(mine: torch.Tensor) -> torch.Tensor:
    """Return the p*n tensor whose block j is rank j's ``mine`` (n elements), on every rank.

    Ring: in step s (0..p-2) rank r passes block (r - s) mod p to rank r+1 and receives block
    (r - s - 1) mod p from rank r-1, straight into its place in the output.
    """
    # TODO(step 2): make the output, copy ``mine`` into block ``rank``, then p-1 ring steps with
    # exchange(...): send the block you got last (you start with your own) to the next rank,
    # receive the next one from the previous rank directly into its block.
    raise NotImplementedError("TODO(step 2): ring all-gather")


# Step 3 ----------------------------------------------------------------------------------------
def reduce_scatter_p2p(data: torch.Tensor) -> torch.Tensor:
    """``data`` has p blocks of n elements on every rank. Return, on rank r, the sum over all
    ranks of their block r.

    Ring: in step s rank r sends its running sum of block (r - s - 1) mod p to rank r+1, receives
    the running sum of block (r - s - 2) mod p from rank r-1 and adds its own contribution. Block
    b starts at rank b+1 and has visited every rank when it arrives at rank b.
    """
    # TODO(step 3): copy ``data`` (do not modify the caller's tensor), then p-1 ring steps: send
    # your running sum of block (rank - step - 1) % p to the next rank, receive one block from
    # the previous rank and add it to your block (rank - step - 2) % p. Return block ``rank``.
    raise NotImplementedError("TODO(step 3): ring reduce-scatter")


# Step 4 ----------------------------------------------------------------------------------------
def all_to_all_p2p(data: torch.Tensor) -> torch.Tensor:
    """``data`` has p blocks; block j is addressed to rank j. Return the p-block tensor whose
    block j is what rank j addressed to this rank (a transpose of blocks across ranks).

    Pairwise: in step k (1..p-1) rank r sends to r+k and receives from r-k, so every pair of
    ranks exchanges exactly once and no rank receives two messages in one step.
    """
    # TODO(step 4): keep your own block, then for k in 1..p-1 send block (rank + k) % p to rank
    # (rank + k) % p and receive from rank (rank - k) % p into its block of the output.
    raise NotImplementedError("TODO(step 4): pairwise all-to-all")


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
