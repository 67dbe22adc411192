"""Generators for the parameterized questions of ``quizzes/training.yml``.

Registered by name like the ones in :mod:`nccl_course.quiz.generators` (``nccl_course.quiz``
imports this module). Answers come from the training-communication model,
:mod:`nccl_course.cost.training`; the mistakes are what a learner gets by leaving out a factor.
"""

from __future__ import annotations

import math
import random

from nccl_course.cost.training import (
    DDP_DEFAULT_BUCKET_BYTES,
    TransformerShape,
    bytes_sent_per_rank,
    ddp_calls,
    tensor_parallel_calls,
    total_calls,
    zero3_calls,
)
from nccl_course.quiz.generators import Draw, generator

_PARAMS_B = [1.3, 2.7, 6.7, 13.0]  # billions of parameters (GPT-3 family sizes)
_DP = [8, 16, 32, 64]


@generator("ddp_bytes_per_gpu")
def ddp_bytes_per_gpu(rng: random.Random) -> Draw:
    """GB each GPU sends per step for DDP's gradient all-reduce (ring), bf16 or fp32 gradients.

    Params: billions, dp, dtype, bytes."""
    billions = rng.choice(_PARAMS_B)
    dp = rng.choice(_DP)
    grad_bytes = rng.choice([2, 4])
    params = int(billions * 1e9)
    answer = bytes_sent_per_rank(ddp_calls(params, dp, grad_bytes)) / 1e9
    size_gb = params * grad_bytes / 1e9
    mistakes = [
        (size_gb, "That is the gradient size. A ring all-reduce sends 2(p-1)/p times it per GPU."),
        (
            size_gb * (dp - 1) / dp,
            "That is one phase (reduce-scatter). The all-gather phase sends as much again.",
        ),
    ]
    dtype = "bf16" if grad_bytes == 2 else "fp32"
    shown = {"billions": f"{billions:g}", "dp": dp, "dtype": dtype, "bytes": grad_bytes}
    return Draw(shown, answer, mistakes)


@generator("zero3_bytes_per_gpu")
def zero3_bytes_per_gpu(rng: random.Random) -> Draw:
    """GB each GPU sends per step under ZeRO-3 (bf16 parameters and gradients).

    Params: billions, dp."""
    billions = rng.choice(_PARAMS_B)
    dp = rng.choice(_DP)
    params = int(billions * 1e9)
    answer = bytes_sent_per_rank(zero3_calls(params, dp, units=1)) / 1e9
    ddp = bytes_sent_per_rank(ddp_calls(params, dp)) / 1e9
    mistakes = [
        (ddp, "That is DDP's traffic. ZeRO-3 all-gathers parameters twice (forward and backward)"),
        (
            2 * 2 * params * (dp - 1) / dp / 1e9,
            "You counted one all-gather and the reduce-scatter; parameters are gathered again in "
            "backward because they were freed after forward.",
        ),
    ]
    return Draw({"billions": f"{billions:g}", "dp": dp}, answer, mistakes)


@generator("tp_activation_mib")
def tp_activation_mib(rng: random.Random) -> Draw:
    """MiB carried by one Megatron tensor-parallel all-reduce (b x s x h, bf16).

    Params: batch, seq, hidden, tp."""
    batch = rng.choice([1, 2, 4])
    seq = rng.choice([2048, 4096, 8192])
    hidden = rng.choice([4096, 5120, 8192])
    tp = rng.choice([2, 4, 8])
    shape = TransformerShape(
        "quiz", layers=1, hidden=hidden, vocab=1, seq_len=seq, micro_batch=batch
    )
    (call, _) = tensor_parallel_calls(shape, tp)
    answer = call.size_bytes / 2**20
    mistakes = [
        (answer / tp, "The all-reduced tensor is the whole b x s x h activation, not 1/tp of it."),
        (answer / 2, "bf16 is 2 bytes per element."),
    ]
    return Draw({"batch": batch, "seq": seq, "hidden": hidden, "tp": tp}, answer, mistakes)


@generator("ddp_bucket_count")
def ddp_bucket_count(rng: random.Random) -> Draw:
    """How many all-reduces DDP launches per step with default buckets (1 MiB first, 25 MiB cap).

    Params: millions, dtype."""
    millions = rng.choice([125, 350, 760, 1300])
    grad_bytes = rng.choice([2, 4])
    params = millions * 10**6
    answer = float(total_calls(ddp_calls(params, dp=8, grad_bytes=grad_bytes)))
    naive = math.ceil(params * grad_bytes / DDP_DEFAULT_BUCKET_BYTES)
    mistakes = [
        (
            float(naive),
            "Close: with the default cap DDP makes the first bucket only 1 MiB, then 25 MiB ones.",
        ),
        (
            float(math.ceil((params * grad_bytes - 1e6) / 25e6) + 1),
            "MiB are 1024^2 bytes, not 1e6.",
        ),
    ]
    dtype = "bf16" if grad_bytes == 2 else "fp32"
    return Draw({"millions": millions, "dtype": dtype}, answer, mistakes)


__all__ = ["ddp_bucket_count", "ddp_bytes_per_gpu", "tp_activation_mib", "zero3_bytes_per_gpu"]
