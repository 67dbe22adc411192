"""Communication of the newer sharding and sequence schemes: HSDP, ZeRO++, context parallelism
(ring attention) and asynchronous (micro-pipelined) tensor parallelism.

Each plan is a :class:`Plan`: the calls on groups inside one node (``intra``: NVLink) and the
calls on groups that span nodes (``inter``: the network), as lists of
:class:`~nccl_course.cost.training.CollectiveCall`, so each side can be priced on its own preset
with :mod:`nccl_course.cost.training`'s functions. What each plan sends, and where it was read:

* HSDP (PyTorch 2.13 ``fully_shard`` with a 2-D mesh, placement ``(Replicate(), Shard(0))``):
  parameters are all-gathered inside the shard group before forward and again before backward;
  gradients are reduce-scattered inside the shard group in ``MixedPrecisionPolicy.reduce_dtype``,
  then the shard is all-reduced across the replicate group
  (``torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py``, ``foreach_reduce``).
* ZeRO++ (Wang et al. 2023, arXiv:2306.10209; DeepSpeed): qwZ all-gathers int8 weights in forward
  (half of fp16/bf16); hpZ keeps a secondary weight shard inside each node so the backward
  all-gather stays in the node (modelled at the parameter dtype); qgZ replaces the gradient
  reduce-scatter by int4 all-to-alls, first inside the node, then, on the node-reduced 1/L of
  the data, across nodes between GPUs of the same local index (DeepSpeed
  ``all_to_all_quant_reduce``). Quantization scales (a few bytes per block) are left out.
* Context parallelism (PyTorch 2.13 ``context_parallel``; ring attention, Liu et al. 2023): each
  rank keeps 1/cp of the sequence; K and V shards go round the cp ranks, by one all-gather per
  attention call (torch's default rotate method, "allgather") or by cp - 1 ring shifts
  ("alltoall"); backward gathers K and V again and passes the K/V gradients round the ring cp
  times in float32 (``_templated_ring_attention_backward``, ``convert_to_f32=True``).
* Asynchronous tensor parallelism (PyTorch 2.13, ``torch._inductor.config._micro_pipeline_tp``
  and ``torch.ops.symm_mem.fused_all_gather_matmul``): the sequence-parallel all-gather is cut
  into its p shards; while shard i is multiplied, shard i + 1 is copied from its peer. The bytes
  are those of :func:`~nccl_course.cost.training.tensor_parallel_calls` with sequence
  parallelism; :func:`micro_pipeline_time` gives the time of such a pipeline.

Units: bytes, seconds, FLOP/s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nccl_course.cost.training import CollectiveCall, TransformerShape, bytes_sent_per_rank

#: H100 SXM dense BF16 tensor-core peak: 1,979 TFLOPS with 2:4 sparsity, half without
#: (NVIDIA H100 datasheet, https://www.nvidia.com/en-us/data-center/h100/).
H100_SXM_BF16_DENSE_FLOPS = 1979e12 / 2

INT8_BYTES = 1
INT4_BYTES = 0.5


@dataclass(frozen=True)
class Plan:
    """A plan's calls on groups inside a node (``intra``) and on groups spanning nodes
    (``inter``)."""

    name: str
    intra: list[CollectiveCall] = field(default_factory=list)
    inter: list[CollectiveCall] = field(default_factory=list)

    def calls(self) -> list[CollectiveCall]:
        return self.intra + self.inter

    def bytes_sent_per_rank(self) -> tuple[float, float]:
        """(bytes sent on intra-node groups, bytes sent on node-spanning groups) per GPU."""
        return bytes_sent_per_rank(self.intra), bytes_sent_per_rank(self.inter)


def _positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")


def hsdp_calls(
    parameters: int,
    shard: int,
    replicate: int,
    units: int,
    param_bytes: int = 2,
    reduce_bytes: int = 4,
) -> Plan:
    """HSDP on ``shard`` x ``replicate`` GPUs: shard inside a node, replicate across nodes.

    Per unit: all-gather of its parameters (``param_bytes`` each) before forward and before
    backward on the shard group; reduce-scatter of its gradients in ``reduce_bytes`` (4 for
    ``MixedPrecisionPolicy(reduce_dtype=torch.float32)``) on the shard group; all-reduce of the
    1/shard gradient shard on the replicate group.
    """
    _positive(parameters=parameters, shard=shard, replicate=replicate, units=units)
    unit = parameters // units
    intra = [
        CollectiveCall("all_gather", unit * param_bytes, shard, units, "forward", "parameters"),
        CollectiveCall("all_gather", unit * param_bytes, shard, units, "backward", "parameters"),
        CollectiveCall("reduce_scatter", unit * reduce_bytes, shard, units, "backward", "grads"),
    ]
    inter = []
    if replicate > 1:
        inter.append(
            CollectiveCall(
                "all_reduce",
                unit * reduce_bytes // shard,
                replicate,
                units,
                "backward",
                "gradient shard",
            )
        )
    return Plan(f"HSDP {shard}x{replicate}", intra, inter)


def zeropp_calls(
    parameters: int,
    dp: int,
    ranks_per_node: int,
    units: int,
    *,
    qwz: bool = True,
    hpz: bool = True,
    qgz: bool = True,
    param_bytes: int = 2,
    grad_bytes: int = 2,
) -> Plan:
    """ZeRO-3 on ``dp`` GPUs (``ranks_per_node`` per node) with the ZeRO++ options turned on.

    With all three off this is :func:`~nccl_course.cost.training.zero3_calls` (every call on the
    node-spanning group of ``dp`` ranks).
    """
    _positive(parameters=parameters, dp=dp, ranks_per_node=ranks_per_node, units=units)
    if dp % ranks_per_node:
        raise ValueError(f"dp={dp} is not a whole number of nodes of {ranks_per_node}")
    nodes = dp // ranks_per_node
    unit = parameters // units
    intra: list[CollectiveCall] = []
    inter: list[CollectiveCall] = []
    forward_bytes = INT8_BYTES if qwz else param_bytes
    inter.append(
        CollectiveCall("all_gather", unit * forward_bytes, dp, units, "forward", "weights")
    )
    if hpz:
        intra.append(
            CollectiveCall(
                "all_gather",
                unit * param_bytes,
                ranks_per_node,
                units,
                "backward",
                "secondary weight shard",
            )
        )
    else:
        inter.append(
            CollectiveCall("all_gather", unit * param_bytes, dp, units, "backward", "weights")
        )
    if qgz:
        int4 = int(unit * INT4_BYTES)
        intra.append(
            CollectiveCall("all_to_all", int4, ranks_per_node, units, "backward", "int4 grads")
        )
        if nodes > 1:
            inter.append(
                CollectiveCall(
                    "all_to_all",
                    int4 // ranks_per_node,
                    nodes,
                    units,
                    "backward",
                    "node-reduced int4 grads",
                )
            )
    else:
        inter.append(
            CollectiveCall("reduce_scatter", unit * grad_bytes, dp, units, "backward", "grads")
        )
    flags = "+".join(n for n, on in (("qwZ", qwz), ("hpZ", hpz), ("qgZ", qgz)) if on)
    return Plan(f"ZeRO++ ({flags or 'none'})", intra, inter)


def kv_shard_bytes(
    shape: TransformerShape, cp: int, kv_fraction: float = 1.0, act_bytes: int = 2
) -> int:
    """Bytes of one rank's K and V shards for one attention layer: 2 x b x (s/cp) x h x
    ``kv_fraction`` x ``act_bytes``; ``kv_fraction`` = KV heads / query heads (1 for
    multi-head attention, less with grouped-query attention)."""
    _positive(cp=cp, act_bytes=act_bytes)
    return int(2 * shape.micro_batch * (shape.seq_len // cp) * shape.hidden * kv_fraction) * (
        act_bytes
    )


def context_parallel_calls(
    shape: TransformerShape,
    cp: int,
    *,
    kv_fraction: float = 1.0,
    act_bytes: int = 2,
    grad_accum_bytes: int = 4,
    rotate: str = "allgather",
) -> Plan:
    """Context parallelism on ``cp`` GPUs inside a node, per micro-batch, all layers.

    ``rotate``: "allgather" (torch 2.13's default: one all-gather of the K/V shards per
    attention call) or "alltoall" (cp - 1 ring shifts, each a send/recv of one shard). Backward
    gathers K/V the same way and passes the K/V gradients (``grad_accum_bytes`` per element)
    round the ring cp times.
    """
    if rotate not in ("allgather", "alltoall"):
        raise ValueError(f"rotate must be 'allgather' or 'alltoall', got {rotate!r}")
    shard = kv_shard_bytes(shape, cp, kv_fraction, act_bytes)
    layers = shape.layers
    calls = []
    for phase in ("forward", "backward"):
        if rotate == "allgather":
            calls.append(CollectiveCall("all_gather", shard * cp, cp, layers, phase, "K/V"))
        else:
            calls.append(CollectiveCall("send_recv", shard, 2, layers * (cp - 1), phase, "K/V"))
    grad = shard // act_bytes * grad_accum_bytes
    calls.append(CollectiveCall("send_recv", grad, 2, layers * cp, "backward", "K/V gradients"))
    return Plan(f"context parallel cp={cp} ({rotate})", intra=calls)


def attention_flops_per_rank(shape: TransformerShape, cp: int) -> float:
    """FLOPs of one layer's forward attention scores and weighted sum per rank under context
    parallelism without causal masking: 4 x b x s^2 x h / cp (QK^T and PV, 2 FLOPs per
    multiply-add)."""
    _positive(cp=cp)
    return 4 * shape.micro_batch * shape.seq_len**2 * shape.hidden / cp


def micro_pipeline_time(comm_s: float, compute_s: float, pieces: int) -> float:
    """Seconds for a micro-pipelined all-gather-then-compute cut into ``pieces`` shards, one of
    them local: the local shard is computed at once while the others are copied one after
    another (each ``comm_s`` / (pieces - 1)); each remote shard is computed (``compute_s`` /
    pieces) once it has arrived and the previous one is done."""
    _positive(pieces=pieces)
    if pieces == 1:
        return compute_s
    copy = comm_s / (pieces - 1)
    work = compute_s / pieces
    done = work  # the local shard
    for i in range(1, pieces):
        done = max(done, i * copy) + work
    return done


def serial_time(comm_s: float, compute_s: float) -> float:
    """Seconds when the all-gather finishes before the matmul starts: comm + compute."""
    return comm_s + compute_s


__all__ = [
    "H100_SXM_BF16_DENSE_FLOPS",
    "INT4_BYTES",
    "INT8_BYTES",
    "Plan",
    "attention_flops_per_rank",
    "context_parallel_calls",
    "hsdp_calls",
    "kv_shard_bytes",
    "micro_pipeline_time",
    "serial_time",
    "zeropp_calls",
]
