"""Generators for the parameterized questions of ``quizzes/device-initiated.yml``.

Registered by name like the ones in :mod:`nccl_course.quiz.generators` (``nccl_course.quiz``
imports this module). Answers come from the MoE dispatch model,
:mod:`nccl_course.cost.moe_dispatch`; the fixed costs drawn are the course's fitted per-call
costs (:data:`nccl_course.cost.nccl.call_cost.HARNESSES`). The mistakes are what a learner gets
by counting the host's calls wrongly or dividing by the wrong total.
"""

from __future__ import annotations

import random

from nccl_course.cost.moe_dispatch import (
    HOST_CALLS,
    HOST_ROUND_TRIPS,
    MoeLayerCost,
)
from nccl_course.cost.nccl.call_cost import HARNESSES
from nccl_course.quiz.generators import Draw, generator

_FIXED_US = sorted({h.fixed_us for h in HARNESSES.values()})
_LAYERS = [16, 24, 32, 48, 60]


@generator("moe_device_saving_us")
def moe_device_saving_us(rng: random.Random) -> Draw:
    """Microseconds a device-initiated dispatch and combine save per forward pass of ``layers``
    MoE layers, each host-issued call, launch or wait costing ``fixed_us``.

    Params: fixed_us, layers."""
    fixed_us = rng.choice(_FIXED_US)
    layers = rng.choice(_LAYERS)
    per_layer = MoeLayerCost(tokens_s=0.0, counts_s=0.0, fixed_s=fixed_us * 1e-6).saved_s * 1e6
    answer = per_layer * layers
    mistakes = [
        (
            HOST_ROUND_TRIPS * fixed_us * layers,
            "That counts only the round trip. The count exchange is a call of its own, which the "
            "device path does not make either.",
        ),
        (
            (HOST_CALLS + HOST_ROUND_TRIPS) * fixed_us * layers,
            "That is everything the host path pays; the device path still launches its two "
            "kernels, so subtract those.",
        ),
        (per_layer, "That is one layer. The forward pass runs every MoE layer in turn."),
    ]
    return Draw({"fixed_us": f"{fixed_us:g}", "layers": layers}, answer, mistakes)


@generator("moe_device_saving_share")
def moe_device_saving_share(rng: random.Random) -> Draw:
    """Per cent of one MoE layer's host-initiated communication time that the device-initiated
    path saves, from the exchange time of the tokens, of the counts and the fixed cost.

    Params: tokens_us, counts_us, fixed_us."""
    fixed_us = rng.choice(_FIXED_US)
    tokens_us = rng.choice([4, 10, 25, 60, 150, 600])
    counts_us = rng.choice([1, 2, 3])
    cost = MoeLayerCost(
        tokens_s=tokens_us * 1e-6, counts_s=counts_us * 1e-6, fixed_s=fixed_us * 1e-6
    )
    answer = 100 * cost.saved_share
    mistakes = [
        (
            100 * cost.saved_s / cost.device_s,
            "You divided by the device-initiated time; the share is of the host-initiated time.",
        ),
        (
            100 * HOST_ROUND_TRIPS * cost.fixed_s / cost.host_s,
            "That counts only the round trip; the count exchange's call is saved too.",
        ),
        (
            100 * cost.saved_s / (cost.host_s - cost.tokens_s),
            "Dispatch and combine both exchange the tokens: the host path has two token "
            "exchanges, not one.",
        ),
    ]
    shown = {"fixed_us": f"{fixed_us:g}", "tokens_us": tokens_us, "counts_us": counts_us}
    return Draw(shown, answer, mistakes)
