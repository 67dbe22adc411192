"""Generators for the parameterized questions of ``quizzes/inside-proxy.yml``.

Registered by name like the ones in :mod:`nccl_course.quiz.generators` (``nccl_course.quiz``
imports this module). Answers come from :mod:`nccl_course.cost.nccl.pipeline` (NCCL 2.30.7's
steps, slices and chunks); the mistakes are what a learner gets by taking a slice or a chunk for a
step, counting slices instead of steps, or forgetting the channels or the second half of the ring.
Sizes are drawn in bytes and shown in KiB or MiB (binary units).
"""

from __future__ import annotations

import random

from nccl_course.cost.nccl.pipeline import ring_all_reduce_plan, step_bytes
from nccl_course.quiz.generators import Draw, generator

_BUFFSIZES = [1 << k for k in range(18, 26)]  # 256 KiB to 32 MiB
_RANKS = [4, 8, 16, 32]
_CHANNELS = [1, 2, 4, 8, 16]
_MESSAGE_MIB = [64, 256, 1024, 4096]
_SMALL_MESSAGE_MIB = [4, 16, 32, 64, 128]


@generator("proxy_step_kib")
def proxy_step_kib(rng: random.Random) -> Draw:
    """KiB of one Simple step for NCCL_BUFFSIZE = ``buffsize`` bytes.

    Params: buffsize (bytes), buffsize_kib."""
    buffsize = rng.choice(_BUFFSIZES)
    step = step_bytes("Simple", buffsize) / 1024
    mistakes = [
        (
            2 * step,
            "That is a slice of a ring all-reduce: two steps. A step is one of the 8 slots.",
        ),
        (4 * step, "That is a ring all-reduce's chunk: four steps. A step is one of the 8 slots."),
        (buffsize / 1024 / 4, "NCCL_STEPS is 8, not 4: the buffer has eight slots."),
    ]
    return Draw({"buffsize": buffsize, "buffsize_kib": buffsize // 1024}, step, mistakes)


@generator("ring_allreduce_proxy_steps")
def ring_allreduce_proxy_steps(rng: random.Random) -> Draw:
    """Steps one connection counts for a Ring/Simple all-reduce with the default 4 MiB buffer.

    Params: message_mib, ranks, channels."""
    mib, ranks, channels = rng.choice(_MESSAGE_MIB), rng.choice(_RANKS), rng.choice(_CHANNELS)
    plan = ring_all_reduce_plan(mib * 2**20, ranks, channels, "Simple")
    hops = 2 * (ranks - 1)
    mistakes = [
        (plan.sends, "That counts slices. Each Simple slice of an all-reduce is two steps."),
        (
            hops * plan.chunking.chunk_steps,
            "That is one loop. Count the loops: bytes per channel / (ranks x 2 MiB), rounded up.",
        ),
        (
            (ranks - 1) * plan.loops * plan.chunking.chunk_steps,
            "That is only the reduce-scatter half. An all-reduce's chunk makes 2(p-1) hops.",
        ),
        (
            plan.proxy_steps * channels,
            "That adds up every channel. Each connection counts its own channel's steps.",
        ),
    ]
    return Draw(
        {"message_mib": mib, "ranks": ranks, "channels": channels}, plan.proxy_steps, mistakes
    )


@generator("ring_allreduce_slice_kib")
def ring_allreduce_slice_kib(rng: random.Random) -> Draw:
    """KiB of user data in the largest slice of a Ring/Simple all-reduce (default buffers).

    Params: message_mib, ranks, channels."""
    mib, ranks = rng.choice(_SMALL_MESSAGE_MIB), rng.choice(_RANKS[1:])
    channels = rng.choice(_CHANNELS[2:])
    plan = ring_all_reduce_plan(mib * 2**20, ranks, channels, "Simple")
    per_rank = plan.channel_bytes / ranks / 1024
    mistakes = [
        (per_rank, "That is the whole chunk. Simple sends a chunk as two slices."),
        (
            plan.chunking.slice / 1024,
            "That is a full slice. Below one loop, a slice holds half of "
            "the channel's bytes / ranks (at least 32 KiB).",
        ),
        (mib * 1024 / ranks / 2, "Divide by the channels first: each channel runs its own ring."),
    ]
    return Draw(
        {"message_mib": mib, "ranks": ranks, "channels": channels}, plan.send_bytes / 1024, mistakes
    )
