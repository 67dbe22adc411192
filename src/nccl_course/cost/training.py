"""Communication a training step needs, per parallelism strategy, priced with the cost model.

Each strategy is described as a list of :class:`CollectiveCall`: which collective, its size as
nccl-tests counts it (for all-gather and reduce-scatter the *total* size over the group), the
group size, and how many such calls one optimizer step makes. From that list follow

* the bytes each rank sends for ring/tree algorithms: ``busbw_factor(collective, p) x size`` per
  call (the same factor that turns nccl-tests' algbw into busbw), and
* a time, by summing the cost model's prediction per call. The sum assumes calls run one after
  another and nothing overlaps with compute: it is the *exposed* communication time if no overlap
  happened, an upper bound on what a step loses to communication.

What each strategy sends (standard descriptions; see the "Collectives in training" chapter):

* DDP (PyTorch 2.x): one all-reduce of every gradient, in buckets (default cap 25 MiB, first
  bucket 1 MiB in torch 2.13).
* ZeRO-3 / FSDP full sharding: all-gather of parameters before forward, all-gather again before
  backward (parameters are freed after forward), reduce-scatter of gradients in backward, one of
  each per FSDP unit (here: per transformer layer).
* Megatron tensor parallel: per transformer layer two all-reduces of the activations in forward
  and two in backward; with sequence parallel, each all-reduce becomes an all-gather plus a
  reduce-scatter of the same total size (Shoeybi et al. 2019; Korthikanti et al. 2022).
  Activation recomputation would add forward communication again; it is not modelled.
* Pipeline parallel: one send/recv of the boundary activation per micro-batch and stage boundary
  in forward, one of its gradient in backward.
* Expert parallel: two all-to-alls (dispatch, combine) per MoE layer in forward, two in backward.

Units: bytes, seconds, GB = 1e9 bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from nccl_course.cost.busbw import busbw_factor
from nccl_course.cost.formulas import closed_form_time

MIB = 1024**2

#: PyTorch DDP's default bucket cap (``bucket_cap_mb=None`` means 25 MiB) and the smaller first
#: bucket it uses with the defaults (``torch.distributed._DEFAULT_FIRST_BUCKET_BYTES``, torch 2.13).
DDP_DEFAULT_BUCKET_BYTES = 25 * MIB
DDP_DEFAULT_FIRST_BUCKET_BYTES = 1 * MIB


@dataclass(frozen=True)
class TransformerShape:
    """A GPT-style decoder: ``layers`` blocks of width ``hidden``, a ``vocab``-row embedding.

    ``seq_len`` tokens per sequence and ``micro_batch`` sequences per GPU per forward pass.
    """

    name: str
    layers: int
    hidden: int
    vocab: int
    seq_len: int
    micro_batch: int = 1

    def parameters(self) -> int:
        """Parameter count 12 L h^2 + V h: attention 4h^2 and MLP 8h^2 per block, tied embedding.

        Biases, layer norms and position embeddings (all O(L h)) are left out.
        """
        return 12 * self.layers * self.hidden**2 + self.vocab * self.hidden

    def activation_elements(self) -> int:
        """Elements of one layer's activation b x s x h, the tensor tensor parallel reduces."""
        return self.micro_batch * self.seq_len * self.hidden


#: GPT-3 6.7B's shape (Brown et al. 2020, Table 2.1: 32 layers, d_model 4096, context 2048;
#: GPT-2/3 BPE vocabulary of 50257 tokens).
GPT3_6_7B = TransformerShape(name="GPT-3 6.7B", layers=32, hidden=4096, vocab=50257, seq_len=2048)

#: A few GPT-3 shapes to choose from (Brown et al. 2020, Table 2.1: XL 24 layers of width 2048,
#: 6.7B 32 of 4096, 175B 96 of 12288; all with context 2048 and the 50257-token vocabulary).
GPT3_SHAPES = (
    TransformerShape(name="GPT-3 XL (1.3B)", layers=24, hidden=2048, vocab=50257, seq_len=2048),
    GPT3_6_7B,
    TransformerShape(name="GPT-3 175B", layers=96, hidden=12288, vocab=50257, seq_len=2048),
)


@dataclass(frozen=True)
class CollectiveCall:
    """``count`` identical calls of ``collective`` on ``ranks`` ranks, ``size_bytes`` each.

    ``size_bytes`` is the size as nccl-tests reports it (total over ranks for all-gather and
    reduce-scatter; the buffer for all-reduce; what one rank sends in total for all-to-all; the
    message for send/recv). ``phase`` is "forward", "backward" or "step"; ``what`` says what moves.
    """

    collective: str
    size_bytes: int
    ranks: int
    count: int
    phase: str
    what: str

    def bytes_sent_per_rank(self) -> float:
        """Bytes one rank sends over all ``count`` calls, for ring/tree-style algorithms."""
        return busbw_factor(self.collective, self.ranks) * self.size_bytes * self.count


def _check_positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")


def ddp_bucket_sizes(
    gradient_bytes: int,
    bucket_bytes: int = DDP_DEFAULT_BUCKET_BYTES,
    first_bucket_bytes: int = DDP_DEFAULT_FIRST_BUCKET_BYTES,
) -> list[int]:
    """Sizes in bytes of the buckets DDP all-reduces, in the order backward fills them.

    DDP never splits a parameter across buckets, so real buckets vary around the cap; this
    treats the gradient as divisible at any byte, which is exact in total and close per bucket
    for models made of many tensors smaller than the cap.
    """
    _check_positive(gradient_bytes=gradient_bytes, bucket_bytes=bucket_bytes)
    first = min(first_bucket_bytes, gradient_bytes)
    sizes = [first]
    rest = gradient_bytes - first
    full, tail = divmod(rest, bucket_bytes)
    sizes += [bucket_bytes] * full
    if tail:
        sizes.append(tail)
    return sizes


def ddp_calls(
    parameters: int,
    dp: int,
    grad_bytes: int = 2,
    bucket_bytes: int = DDP_DEFAULT_BUCKET_BYTES,
    first_bucket_bytes: int = DDP_DEFAULT_FIRST_BUCKET_BYTES,
) -> list[CollectiveCall]:
    """DDP on ``dp`` ranks: one all-reduce per gradient bucket, all during backward.

    ``grad_bytes``: bytes per gradient element (2 for bf16/fp16 gradients, 4 for fp32).
    """
    _check_positive(parameters=parameters, dp=dp, grad_bytes=grad_bytes)
    sizes = ddp_bucket_sizes(parameters * grad_bytes, bucket_bytes, first_bucket_bytes)
    counts: dict[int, int] = {}
    for size in sizes:
        counts[size] = counts.get(size, 0) + 1
    return [
        CollectiveCall("all_reduce", size, dp, count, "backward", "gradient bucket")
        for size, count in counts.items()
    ]


def zero3_calls(
    parameters: int,
    dp: int,
    units: int,
    param_bytes: int = 2,
    grad_bytes: int = 2,
) -> list[CollectiveCall]:
    """ZeRO-3 / FSDP full sharding on ``dp`` ranks with ``units`` equal wrapping units.

    Per unit: all-gather its parameters before forward, all-gather them again before backward
    (they were freed after forward), reduce-scatter its gradients after backward.
    """
    _check_positive(parameters=parameters, dp=dp, units=units)
    unit_params = parameters // units
    gather = unit_params * param_bytes
    scatter = unit_params * grad_bytes
    return [
        CollectiveCall("all_gather", gather, dp, units, "forward", "parameters of a unit"),
        CollectiveCall("all_gather", gather, dp, units, "backward", "parameters of a unit"),
        CollectiveCall("reduce_scatter", scatter, dp, units, "backward", "gradients of a unit"),
    ]


def tensor_parallel_calls(
    shape: TransformerShape,
    tp: int,
    act_bytes: int = 2,
    sequence_parallel: bool = False,
    micro_batches: int = 1,
) -> list[CollectiveCall]:
    """Megatron tensor parallel on ``tp`` ranks, for ``micro_batches`` micro-batches per step.

    Per layer and micro-batch: 2 all-reduces of b x s x h activations in forward and 2 in
    backward; with ``sequence_parallel`` each becomes an all-gather and a reduce-scatter.
    """
    _check_positive(tp=tp, act_bytes=act_bytes, micro_batches=micro_batches)
    size = shape.activation_elements() * act_bytes
    per_phase = 2 * shape.layers * micro_batches
    if not sequence_parallel:
        return [
            CollectiveCall("all_reduce", size, tp, per_phase, phase, "layer activations")
            for phase in ("forward", "backward")
        ]
    calls = []
    for phase in ("forward", "backward"):
        calls.append(CollectiveCall("all_gather", size, tp, per_phase, phase, "sequence shards"))
        calls.append(
            CollectiveCall("reduce_scatter", size, tp, per_phase, phase, "sequence shards")
        )
    return calls


def pipeline_calls(
    shape: TransformerShape, stages: int, micro_batches: int, act_bytes: int = 2
) -> list[CollectiveCall]:
    """Pipeline parallel over ``stages``: each stage boundary passes one activation per
    micro-batch forward and its gradient backward (point-to-point, 2 ranks per transfer)."""
    _check_positive(stages=stages, micro_batches=micro_batches)
    if stages == 1:
        return []
    size = shape.activation_elements() * act_bytes
    count = (stages - 1) * micro_batches
    return [
        CollectiveCall("send_recv", size, 2, count, "forward", "boundary activation"),
        CollectiveCall("send_recv", size, 2, count, "backward", "activation gradient"),
    ]


def expert_parallel_calls(
    shape: TransformerShape,
    ep: int,
    moe_layers: int,
    top_k: int = 2,
    act_bytes: int = 2,
) -> list[CollectiveCall]:
    """Expert parallel on ``ep`` ranks: dispatch and combine all-to-alls per MoE layer, each
    carrying every token's hidden vector ``top_k`` times, in forward and again in backward."""
    _check_positive(ep=ep, moe_layers=moe_layers, top_k=top_k)
    size = shape.activation_elements() * act_bytes * top_k
    return [
        CollectiveCall("all_to_all", size, ep, 2 * moe_layers, phase, "routed tokens")
        for phase in ("forward", "backward")
    ]


def bytes_sent_per_rank(calls: Iterable[CollectiveCall]) -> float:
    """Total bytes one rank sends for these calls (ring/tree-style algorithms)."""
    return sum(call.bytes_sent_per_rank() for call in calls)


def total_calls(calls: Iterable[CollectiveCall]) -> int:
    """How many collective calls the list stands for."""
    return sum(call.count for call in calls)


def time_alpha_beta(
    calls: Iterable[CollectiveCall], alpha: float, beta: float, gamma: float = 0.0
) -> float:
    """Serial time in seconds with the ring closed forms (``nccl_course.cost.closed_form_time``).

    alpha: seconds per message; beta: seconds per byte; gamma: seconds per reduced byte.
    Send/recv is one message of the whole size: alpha + n beta.
    """
    total = 0.0
    for call in calls:
        if call.collective == "send_recv":
            one = alpha + call.size_bytes * beta
        elif call.collective == "all_to_all":
            one = closed_form_time(
                "all_to_all", "pairwise", call.size_bytes, call.ranks, alpha, beta
            )
        else:
            one = closed_form_time(
                call.collective, "ring", call.size_bytes, call.ranks, alpha, beta, gamma
            )
        total += call.count * one
    return total


def time_with(calls: Iterable[CollectiveCall], predict_one: Callable[[CollectiveCall], float]):
    """Serial time in seconds, asking ``predict_one(call)`` for the time of one call."""
    return sum(call.count * predict_one(call) for call in calls)


def busbw_at(table: dict[int, float], size_bytes: float) -> float:
    """Bus bandwidth (GB/s) at ``size_bytes`` from measured ``{size_bytes: busbw_GBps}`` points.

    Interpolates linearly in log(size) between the two nearest measured sizes and holds the end
    values outside the measured range (a measurement is never extrapolated).
    """
    if not table:
        raise ValueError("the busbw table is empty")
    points = sorted((int(s), float(b)) for s, b in table.items())
    if any(s <= 0 or b <= 0 for s, b in points):
        raise ValueError("sizes and bus bandwidths in the table must be positive")
    if size_bytes <= points[0][0]:
        return points[0][1]
    if size_bytes >= points[-1][0]:
        return points[-1][1]
    for (s0, b0), (s1, b1) in zip(points, points[1:], strict=False):
        if s0 <= size_bytes <= s1:
            w = (math.log(size_bytes) - math.log(s0)) / (math.log(s1) - math.log(s0))
            return b0 + w * (b1 - b0)
    raise AssertionError("unreachable: size inside the table's range")


def time_from_busbw_table(calls: Iterable[CollectiveCall], table: dict[int, float]) -> float:
    """Serial time in seconds from a measured busbw table (e.g. from ``nccl-course bench``).

    Each call takes ``size x busbw_factor(collective, ranks) / busbw(size)``: the nccl-tests
    definition of busbw solved for time. The table must come from the same collective, rank
    count and links as the calls.
    """
    return time_with(
        calls,
        lambda call: (
            call.size_bytes
            * busbw_factor(call.collective, call.ranks)
            / (busbw_at(table, call.size_bytes) * 1e9)
        ),
    )


def _textbook_seconds(call: CollectiveCall, preset) -> float:
    """One call's time on the textbook model: the fastest algorithm it knows for the size."""
    from nccl_course.cost.model import predict

    return predict(call.collective, call.size_bytes, preset, ranks=call.ranks).time_s


def _nccl_seconds(call: CollectiveCall, preset) -> float:
    """One call's time on NCCL's model: what NCCL 2.30.7's tuner would run for the size."""
    from nccl_course.cost.nccl import predict

    return predict(call.collective, call.size_bytes, preset, ranks=call.ranks).time_s


def time_on_preset(calls: Iterable[CollectiveCall], preset) -> float:
    """Serial time in seconds on a hardware preset of the cost model (``cost.predict``).

    ``preset``: a name from ``nccl_course.cost.PRESETS`` or a ``Preset``. Each call is priced with
    the fastest algorithm the model knows for its size, on ``call.ranks`` ranks of the preset.
    """
    return time_with(calls, lambda call: _textbook_seconds(call, preset))


def nccl_time_on_preset(calls: Iterable[CollectiveCall], preset) -> float:
    """Serial time in seconds on a preset with NCCL's own model (:mod:`nccl_course.cost.nccl`):
    each call runs the algorithm, protocol and channels NCCL 2.30.7's tuner would choose for its
    size on ``call.ranks`` ranks. What a GPU box is expected to measure, where
    :func:`time_on_preset` gives the textbook lower bound. NCCL's tuner prices all-reduce,
    all-gather, reduce-scatter, broadcast and reduce; other calls raise ValueError."""
    return time_with(calls, lambda call: _nccl_seconds(call, preset))


def nccl_or_textbook_time_on_preset(calls: Iterable[CollectiveCall], preset) -> float:
    """Serial time in seconds: NCCL's model (:func:`nccl_time_on_preset`) for the collectives its
    tuner prices, the textbook model (:func:`time_on_preset`) for the rest (all-to-all and
    send/recv, which NCCL runs as grouped point-to-point operations)."""
    from nccl_course.cost.nccl.estimate import function_name

    def one(call: CollectiveCall) -> float:
        try:
            function_name(call.collective)
        except ValueError:
            return _textbook_seconds(call, preset)
        return _nccl_seconds(call, preset)

    return time_with(calls, one)


__all__ = [
    "DDP_DEFAULT_BUCKET_BYTES",
    "DDP_DEFAULT_FIRST_BUCKET_BYTES",
    "GPT3_6_7B",
    "GPT3_SHAPES",
    "CollectiveCall",
    "TransformerShape",
    "busbw_at",
    "bytes_sent_per_rank",
    "ddp_bucket_sizes",
    "ddp_calls",
    "expert_parallel_calls",
    "nccl_or_textbook_time_on_preset",
    "nccl_time_on_preset",
    "pipeline_calls",
    "tensor_parallel_calls",
    "time_alpha_beta",
    "time_from_busbw_table",
    "time_on_preset",
    "time_with",
    "total_calls",
    "zero3_calls",
]
