"""Which algorithms exist for which collective, and ``build_schedule`` to make one.

A builder is ``fn(p, k, root) -> (num_chunks, steps)``: rooted algorithms are written for root 0
on *virtual* ranks v and mapped to real ranks by ``(v + root) % p``. ``k`` is the number of pieces
each block is cut into: pipelined algorithms (``PIPELINED``: ring/chain broadcast and reduce,
binary trees, the double binary tree) move the pieces one step apart; the others send all pieces
of a block in the same message, so k changes granularity but not the cost. The builders live in
:mod:`nccl_course.sim.rings_trees` (rings, chains, trees, direct exchanges) and
:mod:`nccl_course.sim.doubling` (recursive doubling/halving, Rabenseifner, Bruck, dissemination).
"""

from __future__ import annotations

from nccl_course import collectives
from nccl_course.sim import doubling as rd
from nccl_course.sim import layout
from nccl_course.sim import rings_trees as rt
from nccl_course.sim.schedule import Schedule

BUILDERS = {
    ("broadcast", "ring"): rt.chain_broadcast,
    ("broadcast", "binary_tree"): rt.binary_tree_broadcast,
    ("broadcast", "binomial_tree"): rt.binomial_broadcast,
    ("reduce", "ring"): rt.chain_reduce,
    ("reduce", "binary_tree"): rt.binary_tree_reduce,
    ("reduce", "binomial_tree"): rt.binomial_reduce,
    ("all_reduce", "ring"): rt.ring_allreduce,
    ("all_reduce", "double_binary_tree"): rt.double_binary_tree_allreduce,
    ("all_reduce", "recursive_doubling"): rd.recursive_doubling_allreduce,
    ("all_reduce", "rabenseifner"): rd.rabenseifner_allreduce,
    ("all_reduce", "reduce_broadcast"): rt.reduce_broadcast_allreduce,
    ("all_gather", "ring"): rt.ring_allgather,
    ("all_gather", "recursive_doubling"): rd.recursive_doubling_allgather,
    ("all_gather", "bruck"): rd.bruck_allgather,
    ("reduce_scatter", "ring"): rt.ring_reduce_scatter,
    ("reduce_scatter", "recursive_halving"): rd.recursive_halving_reduce_scatter,
    ("all_to_all", "pairwise"): rt.pairwise_alltoall,
    ("all_to_all", "bruck"): rd.bruck_alltoall,
    ("gather", "direct"): rt.direct_gather,
    ("gather", "binomial_tree"): rt.binomial_gather,
    ("scatter", "direct"): rt.direct_scatter,
    ("scatter", "binomial_tree"): rt.binomial_scatter,
    ("send_recv", "direct"): rt.direct_send_recv,
    ("barrier", "dissemination"): rd.dissemination_barrier,
}

ALGORITHMS: dict[str, tuple[str, ...]] = {
    c: tuple(a for (cc, a) in BUILDERS if cc == c) for c in layout.SIMULATED_COLLECTIVES
}

#: Algorithms whose k pieces are pipelined (k changes the step count and the cost).
PIPELINED = {
    ("broadcast", "ring"),
    ("broadcast", "binary_tree"),
    ("reduce", "ring"),
    ("reduce", "binary_tree"),
    ("all_reduce", "double_binary_tree"),
}


def build_schedule(
    collective: str, algorithm: str, p: int, *, chunks: int = 1, root: int = 0
) -> Schedule:
    """The schedule of ``algorithm`` for ``collective`` on ``p`` ranks.

    ``chunks`` (k >= 1): pieces per block; pipelined algorithms (see ``PIPELINED``) send them
    one step apart. ``root``: for broadcast, reduce, gather and scatter (ignored otherwise).
    """
    layout.check_collective(collective)
    if algorithm not in ALGORITHMS[collective]:
        raise ValueError(
            f"no algorithm {algorithm!r} for {collective}; choose one of: "
            f"{', '.join(ALGORITHMS[collective])}"
        )
    if not isinstance(p, int) or p < 1:
        raise ValueError(f"rank count must be a whole number >= 1, got {p!r}")
    if not isinstance(chunks, int) or chunks < 1:
        raise ValueError(f"chunks must be a whole number >= 1, got {chunks!r}")
    if not 0 <= root < p:
        raise ValueError(f"root must be a rank 0..{p - 1}, got {root}")
    if collectives.get(collective).layout == "tokens":
        chunks = 1  # a token cannot be split
    if collective not in layout.ROOTED_COLLECTIVES:
        root = 0
    num_chunks, steps = BUILDERS[(collective, algorithm)](p, chunks, root)
    return Schedule(
        collective=collective,
        algorithm=algorithm,
        p=p,
        num_chunks=num_chunks,
        size_chunks=layout.size_chunks(collective, p, chunks, num_chunks),
        step_arrays=steps,
        chunks=chunks,
        root=root,
    )


def build_node_ring_schedule(
    collective: str, p: int, ranks_per_node: int, *, chunks: int = 1
) -> Schedule:
    """NCCL-style rings across nodes: one ring per GPU of a node (NCCL's channels), each
    entering and leaving every node through a different GPU's NIC, each carrying 1/ranks_per_node
    of the data (see :func:`nccl_course.sim.rings_trees.node_rotated_ring_orders`). For the
    collectives in :data:`nccl_course.sim.rings_trees.MULTI_RING_COLLECTIVES`; ``algorithm`` is
    "ring"."""
    layout.check_collective(collective)
    orders = rt.node_rotated_ring_orders(p, ranks_per_node)
    num_chunks, pieces, steps = rt.multi_ring(collective, orders, chunks)
    return Schedule(
        collective=collective,
        algorithm="ring",
        p=p,
        num_chunks=num_chunks,
        size_chunks=layout.size_chunks(collective, p, pieces, num_chunks),
        step_arrays=steps,
        chunks=pieces,
        root=0,
    )
