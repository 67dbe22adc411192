"""Schedule builders of the recursive family, where partners are 2^i apart: recursive doubling
and halving, Rabenseifner's all-reduce, Bruck's all-gather and all-to-all, and the dissemination
barrier.

Builders follow the convention of :mod:`nccl_course.sim.registry`: ``fn(p, k, root)`` returns
(num_chunks, steps); ``k`` is the number of pieces each block is cut into (these algorithms send
all pieces of a block in the same message, so k changes granularity but not the cost). Chunk ids
follow :mod:`nccl_course.sim.layout`. Rings and trees are in :mod:`nccl_course.sim.rings_trees`.

Sources: Thakur, Rabenseifner & Gropp (2005), IJHPCA 19(1) (recursive doubling/halving,
Rabenseifner with its non-power-of-two fold, Bruck); Hensgen, Finkel & Manber (1988)
(dissemination barrier). The code is written from the descriptions.
"""

from __future__ import annotations

import numpy as np

from nccl_course.intmath import ceil_log2, floor_pow2
from nccl_course.sim.layout import block_chunks, pair_chunks
from nccl_course.sim.schedule import StepBuilder

# --------------------------------------------------------------------------------- all-reduce


def _fold_participants(p: int):
    """Non-power-of-two fold (Thakur et al. 2005): with p2 = floor_pow2(p) and r = p - p2,
    ranks 0..2r-1 pair up (even v with v + 1) and the odd rank of each pair carries on.
    Returns (p2, r, real): real[nv] is the rank playing participant nv."""
    p2 = floor_pow2(p)
    r = p - p2
    real = np.array([2 * nv + 1 if nv < r else nv + r for nv in range(p2)], dtype=np.int64)
    return p2, r, real


def recursive_doubling_allreduce(p: int, k: int, root: int = 0):
    """Exchange-and-add the whole buffer with partner nv XOR 2^i for lg p2 rounds; for p not a
    power of two, pairs first fold into one rank and get the result back at the end."""
    sb = StepBuilder()
    p2, r, real = _fold_participants(p)
    all_chunks = np.arange(k)
    s = 0
    if r:
        for v in range(0, 2 * r, 2):
            sb.add_message(s, v, v + 1, all_chunks, True)
        s += 1
    for i in range(p2.bit_length() - 1):
        d = 1 << i
        for nv in range(p2):
            sb.add_message(s, int(real[nv]), int(real[nv ^ d]), all_chunks, True)
        s += 1
    if r:
        for v in range(1, 2 * r, 2):
            sb.add_message(s, v, v - 1, all_chunks)
    return k, sb.build()


def rabenseifner_allreduce(p: int, k: int, root: int = 0):
    """Reduce-scatter by recursive halving, then all-gather by recursive doubling, over p2
    segments. For p not a power of two, Thakur et al.'s fold first: in each pair (v even, v+1)
    v adds its second half into v + 1 while v + 1 adds its first half into v, then v sends its
    summed first half to v + 1; at the end v + 1 sends v the result."""
    if p == 1:
        return k, []
    sb = StepBuilder()
    p2, r, real = _fold_participants(p)
    num_chunks = p2 * k
    half = num_chunks // 2
    first, second = np.arange(half), np.arange(half, num_chunks)
    s = 0
    if r:
        for v in range(0, 2 * r, 2):
            sb.add_message(s, v, v + 1, second, True)
            sb.add_message(s, v + 1, v, first, True)
            sb.add_message(s + 1, v, v + 1, first)
        s += 2
    lg = p2.bit_length() - 1
    for i in range(lg):  # reduce-scatter: distance p2/2, p2/4, ..., 1
        d = p2 >> (i + 1)
        for nv in range(p2):
            base = nv & ~(2 * d - 1)
            give = base if nv & d else base + d  # the partner's half
            sb.add_message(
                s, int(real[nv]), int(real[nv ^ d]), block_chunks(range(give, give + d), k), True
            )
        s += 1
    for i in range(lg):  # all-gather: distance 1, 2, ..., p2/2
        d = 1 << i
        for nv in range(p2):
            base = nv & ~(d - 1)
            sb.add_message(
                s, int(real[nv]), int(real[nv ^ d]), block_chunks(range(base, base + d), k)
            )
        s += 1
    if r:
        for v in range(1, 2 * r, 2):
            sb.add_message(s, v, v - 1, np.arange(num_chunks))
    return num_chunks, sb.build()


# ------------------------------------------------------------------ all-gather / reduce-scatter


def recursive_doubling_allgather(p: int, k: int, root: int = 0):
    """Exchange everything held with partner nv XOR 2^i; for p not a power of two the pairs of
    Thakur et al.'s fold first merge their blocks into the odd rank, which hands the full result
    to its even partner at the end."""
    sb = StepBuilder()
    p2, r, real = _fold_participants(p)
    owned = [[2 * nv, 2 * nv + 1] if nv < r else [nv + r] for nv in range(p2)]
    s = 0
    if r:
        for v in range(0, 2 * r, 2):
            sb.add_message(s, v, v + 1, block_chunks([v], k))
        s += 1
    for i in range(p2.bit_length() - 1):
        d = 1 << i
        for nv in range(p2):
            base = nv & ~(d - 1)
            blocks = [b for g in range(base, base + d) for b in owned[g]]
            sb.add_message(s, int(real[nv]), int(real[nv ^ d]), block_chunks(blocks, k))
        s += 1
    if r:
        for v in range(1, 2 * r, 2):
            blocks = [b for b in range(p) if b != v - 1]
            sb.add_message(s, v, v - 1, block_chunks(blocks, k))
    return p * k, sb.build()


def bruck_allgather(p: int, k: int, root: int = 0):
    """Round i (distance d = 2^i): rank r sends the blocks r .. r + min(d, p - d) - 1 it holds
    to rank r - d. Chunk ids are global, so Bruck's final local rotation is not needed."""
    sb = StepBuilder()
    r = np.arange(p)
    for i in range(ceil_log2(p)):
        d = 1 << i
        cnt = min(d, p - d)
        blocks = (r[:, None] + np.arange(cnt)) % p  # [rank, q]
        chunks = (blocks[:, :, None] * k + np.arange(k)).reshape(p, -1)
        sb.add(i, r[:, None], ((r - d) % p)[:, None], chunks)
    return p * k, sb.build()


def recursive_halving_reduce_scatter(p: int, k: int, root: int = 0):
    """Halve the set of blocks with partner nv XOR d for d = p2/2 .. 1, adding the partner's half
    into it; for p not a power of two the even rank of each fold pair first adds its whole input
    into the odd one, which at the end sends it its block."""
    sb = StepBuilder()
    p2, r, real = _fold_participants(p)
    start = [2 * nv if nv < r else nv + r for nv in range(p2)] + [p]
    s = 0
    if r:
        for v in range(0, 2 * r, 2):
            sb.add_message(s, v, v + 1, np.arange(p * k), True)
        s += 1
    for i in range(p2.bit_length() - 1):
        d = p2 >> (i + 1)
        for nv in range(p2):
            base = nv & ~(2 * d - 1)
            give = base if nv & d else base + d
            blocks = range(start[give], start[give + d])
            sb.add_message(s, int(real[nv]), int(real[nv ^ d]), block_chunks(blocks, k), True)
        s += 1
    if r:
        for v in range(1, 2 * r, 2):
            sb.add_message(s, v, v - 1, block_chunks([v - 1], k))
    return p * k, sb.build()


# --------------------------------------------------------------------------------- all-to-all


def bruck_alltoall(p: int, k: int, root: int = 0):
    """Every block (s -> t) travels the distance (t - s) mod p in hops of 2^i, one hop for each
    set bit, all blocks of a round in one message per rank. Chunk ids are global, so Bruck's
    local rotations before and after are not needed."""
    sb = StepBuilder()
    src, dst = np.meshgrid(np.arange(p), np.arange(p), indexing="ij")
    delta = (dst - src) % p
    for i in range(ceil_log2(p)):
        d = 1 << i
        moving = (delta & d) != 0
        holder = (src + (delta & (d - 1))) % p
        chunks = pair_chunks(src[moving], dst[moving], p, k)
        sb.add(i, holder[moving][:, None], ((holder[moving] + d) % p)[:, None], chunks)
    return p * p * k, sb.build()


# --------------------------------------------------------------------------------- barrier


def dissemination_barrier(p: int, k: int = 1, root: int = 0):
    """Round i (distance d = 2^i): rank r tells rank r + d about the min(d, p - d) ranks it has
    heard from most recently (tokens r, r-1, ...); after ceil(lg p) rounds everyone has heard
    from everyone. Tokens carry no bytes."""
    sb = StepBuilder()
    r = np.arange(p)
    for i in range(ceil_log2(p)):
        d = 1 << i
        cnt = min(d, p - d)
        tokens = (r[:, None] - np.arange(cnt)) % p
        sb.add(i, r[:, None], ((r + d) % p)[:, None], tokens)
    return p, sb.build()
