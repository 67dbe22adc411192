"""Schedule builders of the ring and tree family: chains and rings, binary, double binary and
binomial trees, direct and pairwise exchanges, and NCCL-style rings across nodes.

Builders follow the convention of :mod:`nccl_course.sim.registry`: ``fn(p, k, root)`` returns
(num_chunks, steps); rooted algorithms are written for root 0 on *virtual* ranks v and mapped to
real ranks by ``(v + root) % p``; ``k`` is the number of pieces each block is cut into. Chunk ids
follow :mod:`nccl_course.sim.layout`. The recursive doubling/halving family is in
:mod:`nccl_course.sim.doubling`.

Sources: Thakur, Rabenseifner & Gropp (2005), IJHPCA 19(1) (ring, binomial trees, pairwise
exchange); Sanders, Speck & Traeff (2009), Parallel Computing 35(12) (double binary tree). The
code is written from the descriptions.
"""

from __future__ import annotations

import numpy as np

from nccl_course import collectives
from nccl_course.intmath import ceil_log2
from nccl_course.sim.layout import block_chunks, pair_chunks
from nccl_course.sim.schedule import Step, StepBuilder

#: The collectives whose ring algorithm is made of ring reduce-scatter / all-gather passes, so
#: that NCCL can run it as several rings at once, one per channel (see ``multi_ring``).
MULTI_RING_COLLECTIVES = collectives.names(lambda c: c.ring_phases)


def heap_depth(v) -> np.ndarray:
    """Depth of node v in a heap-ordered binary tree (root 0, children 2v+1 and 2v+2)."""
    return np.floor(np.log2(np.asarray(v, dtype=np.float64) + 1)).astype(np.int64)


def _real(v, root: int, p: int):
    return (np.asarray(v) + root) % p


# --------------------------------------------------------------------------- broadcast / reduce


def chain_broadcast(p: int, k: int, root: int):
    """Pipelined chain (NCCL calls it a ring): piece j leaves virtual rank v at step v + j."""
    sb = StepBuilder()
    v = np.arange(p - 1)
    for s in range(p + k - 2):
        j = s - v
        ok = (j >= 0) & (j < k)
        sb.add(s, _real(v[ok], root, p), _real(v[ok] + 1, root, p), j[ok])
    return k, sb.build()


def chain_reduce(p: int, k: int, root: int):
    """Pipelined chain towards the root: virtual rank v adds its partial sum of piece j into
    rank v - 1 at step (p - 1 - v) + j."""
    sb = StepBuilder()
    v = np.arange(1, p)
    for s in range(p + k - 2):
        j = s - (p - 1 - v)
        ok = (j >= 0) & (j < k)
        sb.add(s, _real(v[ok], root, p), _real(v[ok] - 1, root, p), j[ok], True)
    return k, sb.build()


def _binary_tree_down(sb: StepBuilder, p, k, node_to_rank, chunk0, first_step):
    """Pipelined broadcast down a heap-ordered binary tree: a node at depth d forwards piece j
    to its children at step first_step + d + j."""
    child = np.arange(1, p)[:, None]
    parent = (child - 1) // 2
    j = np.arange(k)[None, :]
    sb.add(
        first_step + heap_depth(parent) + j, node_to_rank(parent), node_to_rank(child), chunk0 + j
    )


def _binary_tree_up(sb: StepBuilder, p, k, node_to_rank, chunk0, first_step):
    """Pipelined reduction up a heap-ordered binary tree of depth D: a node at depth d adds
    piece j into its parent at step first_step + (D - d) + j, after its own children did."""
    node = np.arange(1, p)[:, None]
    D = int(heap_depth(p - 1))
    j = np.arange(k)[None, :]
    sb.add(
        first_step + D - heap_depth(node) + j,
        node_to_rank(node),
        node_to_rank((node - 1) // 2),
        chunk0 + j,
        True,
    )


def binary_tree_broadcast(p: int, k: int, root: int):
    sb = StepBuilder()
    _binary_tree_down(sb, p, k, lambda v: _real(v, root, p), 0, 0)
    return k, sb.build()


def binary_tree_reduce(p: int, k: int, root: int):
    sb = StepBuilder()
    _binary_tree_up(sb, p, k, lambda v: _real(v, root, p), 0, 0)
    return k, sb.build()


def _binomial_down(sb, p, root, step0, payload):
    """Binomial tree from virtual rank 0, largest distance first (as MPICH does):
    ``payload(v_from, v_to, mask)`` gives the chunk ids of each message."""
    rounds = ceil_log2(p)
    for i in range(rounds):
        mask = 1 << (rounds - 1 - i)
        for v in range(0, p, 2 * mask):
            if v + mask < p:
                sb.add_message(
                    step0 + i,
                    int(_real(v, root, p)),
                    int(_real(v + mask, root, p)),
                    payload(v, v + mask, mask),
                )


def _binomial_up(sb, p, root, step0, payload, reduce):
    """Binomial tree into virtual rank 0, smallest distance first."""
    for i in range(ceil_log2(p)):
        mask = 1 << i
        for v in range(mask, p, 2 * mask):
            sb.add_message(
                step0 + i,
                int(_real(v, root, p)),
                int(_real(v - mask, root, p)),
                payload(v, v - mask, mask),
                reduce,
            )


def binomial_broadcast(p: int, k: int, root: int):
    sb = StepBuilder()
    _binomial_down(sb, p, root, 0, lambda a, b, m: np.arange(k))
    return k, sb.build()


def binomial_reduce(p: int, k: int, root: int):
    sb = StepBuilder()
    _binomial_up(sb, p, root, 0, lambda a, b, m: np.arange(k), True)
    return k, sb.build()


# --------------------------------------------------------------------------------- all-reduce


def ring_allreduce(p: int, k: int, root: int = 0):
    """Ring reduce-scatter then ring all-gather over p segments (k pieces each): at reduce-
    scatter step t rank r adds segment (r - t) mod p into rank r + 1; at all-gather step t it
    copies segment (r + 1 - t) mod p, which it already holds complete."""
    if p == 1:
        return k, []
    r = np.arange(p)
    t = np.arange(p - 1)[:, None]
    pieces = np.arange(k)
    # All 2(p-1) steps at once, [step, rank * piece]; each Step is a row (a view, no copy).
    seg = np.concatenate([(r - t) % p, (r + 1 - t) % p])
    chunks = (seg[:, :, None] * k + pieces).reshape(2 * (p - 1), p * k)
    src = np.repeat(r, k)
    dst = (src + 1) % p
    reduce = np.concatenate([np.ones(p * k, dtype=bool), np.zeros(p * k, dtype=bool)])
    red_rows = (reduce[: p * k], reduce[p * k :])
    return p * k, [
        Step(src, dst, chunks[i], red_rows[0 if i < p - 1 else 1]) for i in range(2 * (p - 1))
    ]


def double_binary_tree_allreduce(p: int, k: int, root: int = 0):
    """Two binary trees, each reducing then broadcasting half of the buffer in k pipelined
    pieces. Tree A is heap-ordered on ranks (node v is rank v); tree B mirrors it (node v is rank
    p - 1 - v). A heap's interior nodes are v < p // 2 and its leaves v >= p // 2, so a rank
    interior in A is a leaf in B: as in Sanders, Speck & Traeff (2009) and NCCL 2.4's trees, no
    rank is interior in both, and each rank's links carry at most two pieces per step."""
    sb = StepBuilder()
    D = int(heap_depth(p - 1)) if p > 1 else 0
    up_steps = D + k - 1 if p > 1 else 0
    trees = ((lambda v: np.asarray(v), 0), (lambda v: p - 1 - np.asarray(v), k))
    for node_to_rank, chunk0 in trees:
        _binary_tree_up(sb, p, k, node_to_rank, chunk0, 0)
    for node_to_rank, chunk0 in trees:
        _binary_tree_down(sb, p, k, node_to_rank, chunk0, up_steps)
    return 2 * k, sb.build()


def reduce_broadcast_allreduce(p: int, k: int, root: int = 0):
    """Binomial-tree reduce to rank 0, then binomial-tree broadcast from rank 0."""
    sb = StepBuilder()
    whole = np.arange(k)
    _binomial_up(sb, p, 0, 0, lambda a, b, m: whole, True)
    _binomial_down(sb, p, 0, ceil_log2(p), lambda a, b, m: whole)
    return k, sb.build()


# ------------------------------------------------------------------ all-gather / reduce-scatter


def ring_allgather(p: int, k: int, root: int = 0):
    r = np.arange(p)
    steps = []
    for t in range(p - 1):
        chunks = block_chunks((r - t) % p, k)
        src = np.repeat(r, k)
        steps.append(Step(src, (src + 1) % p, chunks, np.zeros(src.size, dtype=bool)))
    return p * k, steps


def ring_reduce_scatter(p: int, k: int, root: int = 0):
    r = np.arange(p)
    steps = []
    for t in range(p - 1):
        chunks = block_chunks((r - t - 1) % p, k)
        src = np.repeat(r, k)
        steps.append(Step(src, (src + 1) % p, chunks, np.ones(src.size, dtype=bool)))
    return p * k, steps


# --------------------------------------------------------------------------------- all-to-all


def pairwise_alltoall(p: int, k: int, root: int = 0):
    """Step t = 1 .. p-1: rank r sends its block for rank (r + t) mod p straight to it."""
    r = np.arange(p)
    steps = []
    for t in range(1, p):
        dst = (r + t) % p
        chunks = pair_chunks(r, dst, p, k).reshape(-1)
        steps.append(Step(np.repeat(r, k), np.repeat(dst, k), chunks, np.zeros(p * k, dtype=bool)))
    return p * p * k, steps


# ------------------------------------------------------------------------ gather / scatter


def direct_gather(p: int, k: int, root: int):
    """Every rank sends its block to the root in the same step."""
    sb = StepBuilder()
    for rank in range(p):
        if rank != root:
            sb.add_message(0, rank, root, block_chunks([rank], k))
    return p * k, sb.build()


def direct_scatter(p: int, k: int, root: int):
    sb = StepBuilder()
    for rank in range(p):
        if rank != root:
            sb.add_message(0, root, rank, block_chunks([rank], k))
    return p * k, sb.build()


def _subtree_chunks(lo: int, hi: int, p: int, k: int, root: int) -> np.ndarray:
    """Chunks of the blocks of virtual ranks lo..hi-1."""
    return block_chunks(_real(np.arange(lo, min(hi, p)), root, p), k)


def binomial_gather(p: int, k: int, root: int):
    sb = StepBuilder()
    _binomial_up(sb, p, root, 0, lambda v, to, m: _subtree_chunks(v, v + m, p, k, root), False)
    return p * k, sb.build()


def binomial_scatter(p: int, k: int, root: int):
    sb = StepBuilder()
    _binomial_down(sb, p, root, 0, lambda v, to, m: _subtree_chunks(to, to + m, p, k, root))
    return p * k, sb.build()


# --------------------------------------------------------------------- send/recv and barrier


def direct_send_recv(p: int, k: int, root: int = 0):
    """Rank r sends its buffer to rank (r + 1) mod p, all in one step (nccl-tests' sendrecv)."""
    sb = StepBuilder()
    if p > 1:
        r = np.arange(p)
        sb.add(0, r[:, None], ((r + 1) % p)[:, None], block_chunks(r, k).reshape(p, k))
    return p * k, sb.build()


# ------------------------------------------------------------ NCCL-style rings across nodes


def node_rotated_ring_orders(p: int, ranks_per_node: int) -> list[np.ndarray]:
    """One ring order per GPU of a node, as NCCL builds one ring per channel: ring c visits the
    GPUs of every node starting from local GPU c, so it leaves node n through the NIC of local
    GPU c - 1 and enters node n + 1 through the NIC of local GPU c. Every NIC carries exactly
    one ring in each direction."""
    if p % ranks_per_node:
        raise ValueError(f"{p} ranks is not a whole number of nodes of {ranks_per_node}")
    nodes = p // ranks_per_node
    orders = []
    for c in range(ranks_per_node):
        local = (c + np.arange(ranks_per_node)) % ranks_per_node
        orders.append((np.arange(nodes)[:, None] * ranks_per_node + local[None, :]).reshape(-1))
    return orders


def multi_ring(collective: str, orders: list[np.ndarray], k: int):
    """Several rings at once, ring c on its share of the data and its own rank order.

    all_reduce: ring c all-reduces chunks [c p k, (c+1) p k) (p segments of k pieces).
    all_gather / reduce_scatter: each block is cut into R k pieces and ring c moves pieces
    [c k, (c+1) k) of every block. Returns (num_chunks, pieces per block, steps)."""
    if collective not in MULTI_RING_COLLECTIVES:
        raise ValueError(
            f"multi-ring schedules exist for {', '.join(MULTI_RING_COLLECTIVES)}, not {collective}"
        )
    rings = len(orders)
    p = orders[0].size
    pieces = np.arange(k)
    sb = StepBuilder()
    for c, order in enumerate(orders):
        pos = np.arange(p)
        src, dst = order, order[(pos + 1) % p]
        if collective == "all_reduce":
            phases = [((pos - t) % p, True, t) for t in range(p - 1)]
            phases += [((pos + 1 - t) % p, False, p - 1 + t) for t in range(p - 1)]
            for seg, reduce, step in phases:
                chunks = ((c * p + seg)[:, None] * k + pieces).reshape(-1)
                sb.add(step, np.repeat(src, k), np.repeat(dst, k), chunks, reduce)
        else:  # all_gather or reduce_scatter: one pass
            for t in range(p - 1):
                if collective == "all_gather":
                    block, reduce = order[(pos - t) % p], False
                else:
                    block, reduce = order[(pos - t - 1) % p], True
                chunks = ((block * rings + c)[:, None] * k + pieces).reshape(-1)
                sb.add(t, np.repeat(src, k), np.repeat(dst, k), chunks, reduce)
    if collective == "all_reduce":
        return rings * p * k, 1, sb.build()
    return p * rings * k, rings * k, sb.build()
