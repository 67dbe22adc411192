"""The step time of a parallel layout (data, sharded data, tensor and pipeline parallel sizes),
from the training module's collective calls priced with the course's model of NCCL.

A *layout* splits ``nodes x gpus_per_node`` GPUs into ``dp x tp x pp``: tensor-parallel groups of
``tp`` consecutive GPUs (always inside a node), data-parallel groups of ``dp`` GPUs at stride
``tp``, and ``pp`` pipeline stages outermost (Megatron-LM's order). The data-parallel side either
replicates the model (DDP) or shards it (FSDP / ZeRO-3). A step trains ``global_batch``
sequences, one per micro-batch, so each data-parallel replica runs ``global_batch / dp``
micro-batches through its pipeline.

What the step time adds up, serially (nothing overlaps, as in :mod:`nccl_course.cost.training`,
so it is an upper bound in which every term is visible):

* compute: 6 x parameters x tokens FLOPs (forward 2, backward 4) over all GPUs, at the GPU's
  achieved rate;
* the pipeline bubble: with m micro-batches and pp stages, a 1F1B or GPipe schedule runs
  m + pp - 1 micro-batch slots instead of m (Huang et al. 2019; Narayanan et al. 2021);
* tensor-parallel communication: :func:`~nccl_course.cost.training.tensor_parallel_calls` of a
  stage's layers for every micro-batch, on the node's NVLink;
* pipeline communication: :func:`~nccl_course.cost.training.pipeline_calls` of one stage
  boundary (each GPU sends its activation forward and its gradient back per micro-batch), on
  NVLink or, when a stage fills whole nodes, through one NIC;
* data-parallel communication: DDP's bucket all-reduces
  (:func:`~nccl_course.cost.training.ddp_calls`) or FSDP's all-gathers, repeated for every
  micro-batch because FSDP frees the gathered parameters after each use, and one reduce-scatter
  (:func:`~nccl_course.cost.training.zero3_calls`), of a stage's 1/tp of the parameters, priced
  on the links the group spans.

Every call is priced with :func:`~nccl_course.cost.training.nccl_or_textbook_time_on_preset`.
Memory counts the model states only: 16 bytes per parameter with mixed-precision Adam (bf16
weights and gradients, fp32 master weights and two moments; Rajbhandari et al. 2020), divided by
tp x pp, and by dp as well under FSDP. Activations are not counted.

Units: seconds, bytes, FLOP/s.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

from nccl_course.cost.presets import Preset, get_preset, one_gpu_per_node
from nccl_course.cost.training import (
    CollectiveCall,
    TransformerShape,
    ddp_calls,
    nccl_or_textbook_time_on_preset,
    pipeline_calls,
    tensor_parallel_calls,
    zero3_calls,
)

#: Model-state bytes per parameter with mixed-precision Adam: bf16 weights (2) and gradients
#: (2), fp32 master weights, momentum and variance (4 + 4 + 4) (Rajbhandari et al. 2020, ZeRO).
MODEL_STATE_BYTES_PER_PARAM = 16

#: Tensor-parallel sizes a layout may use: powers of two that fit in a node.
TP_SIZES = (1, 2, 4, 8)
#: Pipeline depths a layout may use (each must divide the model's layers).
PP_SIZES = (1, 2, 4, 8)


@dataclass(frozen=True)
class Cluster:
    """``nodes`` nodes of ``gpus_per_node`` GPUs: ``node_preset`` prices groups inside a node,
    ``net_preset`` (a multi-node preset with one NIC per GPU) groups that span nodes.
    ``flops`` is what one GPU achieves in training (FLOP/s)."""

    name: str
    nodes: int
    gpus_per_node: int
    node_preset: str
    net_preset: str
    flops: float

    @property
    def gpus(self) -> int:
        return self.nodes * self.gpus_per_node


@dataclass(frozen=True, order=True)
class Layout:
    """``dp`` x ``tp`` x ``pp`` GPUs; ``fsdp``: the data-parallel side shards the model
    states (ZeRO-3) instead of replicating them (DDP)."""

    dp: int
    tp: int
    pp: int
    fsdp: bool = False

    @property
    def mode(self) -> str:
        return "FSDP" if self.fsdp else "DDP"

    def label(self) -> str:
        return f"DP={self.dp}, TP={self.tp}, PP={self.pp}, {self.mode}"


@dataclass(frozen=True)
class StepTime:
    """The modelled step of one layout, each term in seconds, and the model states each GPU
    holds (bytes)."""

    layout: Layout
    micro_batches: int
    compute_s: float
    bubble_s: float
    tp_s: float
    pp_s: float
    dp_s: float
    state_bytes: float

    @property
    def comm_s(self) -> float:
        return self.tp_s + self.pp_s + self.dp_s

    @property
    def total_s(self) -> float:
        return self.compute_s + self.bubble_s + self.comm_s

    def fits(self, memory_bytes: float) -> bool:
        """Whether the model states fit in ``memory_bytes`` per GPU."""
        return self.state_bytes <= memory_bytes


def layouts(cluster: Cluster, shape: TransformerShape, global_batch: int) -> list[Layout]:
    """Every layout of ``cluster`` for ``shape``: tp from TP_SIZES inside a node, pp from
    PP_SIZES dividing the layers, dp the rest, dividing ``global_batch``; DDP and FSDP for
    dp > 1."""
    found = []
    for tp in TP_SIZES:
        if tp > cluster.gpus_per_node or cluster.gpus_per_node % tp:
            continue
        for pp in PP_SIZES:
            if shape.layers % pp or cluster.gpus % (tp * pp):
                continue
            dp = cluster.gpus // (tp * pp)
            if global_batch % dp:
                continue
            found.append(Layout(dp, tp, pp, False))
            if dp > 1:
                found.append(Layout(dp, tp, pp, True))
    return found


def group_preset(cluster: Cluster, ranks: int, stride: int) -> tuple[Preset, int]:
    """(preset, ranks) pricing a group of ``ranks`` GPUs ``stride`` apart: the node's preset when
    the group fits in a node, else the network preset seen as the group's nodes with their GPUs
    of the group, each GPU with its own NIC (rail-optimised)."""
    per_node = max(1, cluster.gpus_per_node // stride)
    if ranks <= per_node:
        return get_preset(cluster.node_preset), ranks
    nodes = ranks // per_node
    if per_node == 1:
        return one_gpu_per_node(cluster.net_preset, nodes), ranks
    base = get_preset(cluster.net_preset)
    nics = base.nccl.nics_per_node * per_node // base.ranks_per_node
    preset = dataclasses.replace(
        base,
        name=f"{base.name}-{per_node}gpu-x{nodes}",
        description=f"{nodes} nodes x {per_node} GPUs of {base.name}, one NIC each",
        ranks=ranks,
        ranks_per_node=per_node,
        nccl=dataclasses.replace(base.nccl, gpus_per_node=per_node, nics_per_node=nics),
    )
    return preset, ranks


def _priced(calls: list[CollectiveCall], preset: Preset) -> float:
    return nccl_or_textbook_time_on_preset(calls, preset) if calls else 0.0


@lru_cache(maxsize=4096)
def step_time(
    layout: Layout, cluster: Cluster, shape: TransformerShape, global_batch: int
) -> StepTime:
    """The modelled step of ``layout`` (see the module docstring). ``shape.micro_batch``
    sequences per micro-batch; ``global_batch`` sequences per step. ValueError for a layout
    that does not split the cluster, the layers or the batch."""
    dp, tp, pp = layout.dp, layout.tp, layout.pp
    if dp * tp * pp != cluster.gpus:
        raise ValueError(f"{layout.label()} uses {dp * tp * pp} GPUs, not {cluster.gpus}")
    if shape.layers % pp:
        raise ValueError(f"pp={pp} does not divide the {shape.layers} layers")
    if tp > cluster.gpus_per_node or cluster.gpus_per_node % tp:
        raise ValueError(f"tp={tp} must divide the {cluster.gpus_per_node} GPUs of a node")
    sequences = global_batch // dp
    if global_batch % dp or sequences % shape.micro_batch:
        raise ValueError(f"dp={dp} does not split {global_batch} sequences into micro-batches")
    m = sequences // shape.micro_batch
    parameters = shape.parameters()
    stage = dataclasses.replace(shape, layers=shape.layers // pp)
    shard = parameters // (tp * pp)  # the parameters one GPU owns before data parallelism

    tokens = global_batch * shape.seq_len
    ideal = 6 * parameters * tokens / cluster.gpus / cluster.flops
    per_slot = ideal / m
    bubble = (pp - 1) * per_slot

    tp_s = 0.0
    if tp > 1:
        preset, ranks = group_preset(cluster, tp, 1)
        tp_s = _priced(tensor_parallel_calls(stage, ranks, micro_batches=m), preset)
    pp_s = 0.0
    if pp > 1:
        # One boundary: this GPU and its peer in the next stage, tp x dp GPUs apart.
        preset, _ = group_preset(cluster, 2, tp * dp)
        pp_s = _priced(pipeline_calls(shape, stages=2, micro_batches=m), preset)
    dp_s = 0.0
    if dp > 1:
        preset, ranks = group_preset(cluster, dp, tp)
        if layout.fsdp:
            calls = [
                dataclasses.replace(c, count=c.count * m) if c.collective == "all_gather" else c
                for c in zero3_calls(shard, ranks, units=stage.layers)
            ]
        else:
            calls = ddp_calls(shard, ranks)
        dp_s = _priced(calls, preset)
    states = MODEL_STATE_BYTES_PER_PARAM * shard / (dp if layout.fsdp else 1)
    return StepTime(layout, m, ideal, bubble, tp_s, pp_s, dp_s, states)


def best_layout(
    cluster: Cluster, shape: TransformerShape, global_batch: int, memory_bytes: float
) -> StepTime | None:
    """The fastest layout whose model states fit in ``memory_bytes`` per GPU (None if none
    fits)."""
    fitting = [
        t
        for t in (
            step_time(x, cluster, shape, global_batch)
            for x in layouts(cluster, shape, global_batch)
        )
        if t.fits(memory_bytes)
    ]
    return min(fitting, key=lambda t: (t.total_s, t.layout), default=None)


__all__ = [
    "MODEL_STATE_BYTES_PER_PARAM",
    "PP_SIZES",
    "TP_SIZES",
    "Cluster",
    "Layout",
    "StepTime",
    "best_layout",
    "group_preset",
    "layouts",
    "step_time",
]
