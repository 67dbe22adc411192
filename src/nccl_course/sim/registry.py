"""Which algorithms exist for which collective, and ``build_schedule`` to make one."""

from __future__ import annotations

from nccl_course.sim import algorithms as alg
from nccl_course.sim import layout
from nccl_course.sim.schedule import Schedule

BUILDERS = {
    ("broadcast", "ring"): alg.chain_broadcast,
    ("broadcast", "binary_tree"): alg.binary_tree_broadcast,
    ("broadcast", "binomial_tree"): alg.binomial_broadcast,
    ("reduce", "ring"): alg.chain_reduce,
    ("reduce", "binary_tree"): alg.binary_tree_reduce,
    ("reduce", "binomial_tree"): alg.binomial_reduce,
    ("all_reduce", "ring"): alg.ring_allreduce,
    ("all_reduce", "double_binary_tree"): alg.double_binary_tree_allreduce,
    ("all_reduce", "recursive_doubling"): alg.recursive_doubling_allreduce,
    ("all_reduce", "rabenseifner"): alg.rabenseifner_allreduce,
    ("all_reduce", "reduce_broadcast"): alg.reduce_broadcast_allreduce,
    ("all_gather", "ring"): alg.ring_allgather,
    ("all_gather", "recursive_doubling"): alg.recursive_doubling_allgather,
    ("all_gather", "bruck"): alg.bruck_allgather,
    ("reduce_scatter", "ring"): alg.ring_reduce_scatter,
    ("reduce_scatter", "recursive_halving"): alg.recursive_halving_reduce_scatter,
    ("all_to_all", "pairwise"): alg.pairwise_alltoall,
    ("all_to_all", "bruck"): alg.bruck_alltoall,
    ("gather", "direct"): alg.direct_gather,
    ("gather", "binomial_tree"): alg.binomial_gather,
    ("scatter", "direct"): alg.direct_scatter,
    ("scatter", "binomial_tree"): alg.binomial_scatter,
    ("send_recv", "direct"): alg.direct_send_recv,
    ("barrier", "dissemination"): alg.dissemination_barrier,
}

ALGORITHMS: dict[str, tuple[str, ...]] = {
    c: tuple(a for (cc, a) in BUILDERS if cc == c) for c in layout.COLLECTIVES
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
    if collective == "barrier":
        chunks = 1
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
    of the data (see :func:`nccl_course.sim.algorithms.node_rotated_ring_orders`). For
    all_reduce, all_gather and reduce_scatter; ``algorithm`` is "ring"."""
    layout.check_collective(collective)
    orders = alg.node_rotated_ring_orders(p, ranks_per_node)
    num_chunks, pieces, steps = alg.multi_ring(collective, orders, chunks)
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
