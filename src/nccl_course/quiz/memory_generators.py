"""Generators for the parameterized questions of ``quizzes/memory-startup.yml``.

Registered by name like the ones in :mod:`nccl_course.quiz.generators` (``nccl_course.quiz``
imports this module). Answers come from :mod:`nccl_course.cost.nccl.memory`, in MiB; the
mistakes are what a learner gets by forgetting the cuMem rounding, the sender's share, the two
directions of an NVLS slot or the heads.
"""

from __future__ import annotations

import random

from nccl_course.cost.nccl import memory as M
from nccl_course.quiz.generators import Draw, generator

_CHANNELS = [8, 12, 16, 24, 32]
_BUFFSIZE_MIB = [1, 2, 4, 8]
_NVLS_CHANNELS = [8, 16, 24, 32]
_CHUNK_KIB = [64, 128, 256]
_HEADS = [4, 8]


@generator("nccl_ring_buffer_mib")
def nccl_ring_buffer_mib(rng: random.Random) -> Draw:
    """Ring buffers per GPU (MiB) on one node of 8 GPUs with cuMem, for a drawn channel count
    and NCCL_BUFFSIZE.

    Params: channels, buffsize_mib."""
    channels, buffsize_mib = rng.choice(_CHANNELS), rng.choice(_BUFFSIZE_MIB)
    buffers = {"Simple": buffsize_mib << 20}
    answer = M.mib(M.ring_bytes(channels, 8, 1, buffers))
    raw = M.p2p_connection(buffers, cumem=False)
    rounded = M.p2p_connection(buffers)
    mistakes = [
        (
            M.mib(channels * (raw.receiver + raw.sender)),
            "That leaves out the cuMem rounding: each allocation is rounded up to 2 MiB.",
        ),
        (
            M.mib(channels * rounded.receiver),
            "That counts only the receiver's side; the sender's header allocation costs 2 MiB too.",
        ),
        (
            float(channels * buffsize_mib),
            "That is the Simple buffers alone; LL and LL128 buffers are allocated as well.",
        ),
    ]
    return Draw({"channels": channels, "buffsize_mib": buffsize_mib}, answer, mistakes)


@generator("nccl_nvls_buffer_mib")
def nccl_nvls_buffer_mib(rng: random.Random) -> Draw:
    """NVLS buffer per GPU (MiB), NCCL 2.22+ layout, for drawn channels, chunk and heads.

    Params: channels, chunk_kib, heads."""
    channels, chunk_kib, heads = (
        rng.choice(_NVLS_CHANNELS),
        rng.choice(_CHUNK_KIB),
        rng.choice(_HEADS),
    )
    answer = M.mib(M.nvls_bytes(channels, heads, chunk_bytes=chunk_kib << 10))
    slot_mib = chunk_kib * M.NCCL_STEPS / 1024
    mistakes = [
        (
            channels * slot_mib * heads,
            "Each channel has two slots per head (the 2 in the formula).",
        ),
        (channels * 2 * slot_mib, "That is one head's share; multiply by the number of heads."),
        (
            channels * 2 * chunk_kib / 1024 * heads,
            "A slot holds NCCL_STEPS = 8 chunks, not one.",
        ),
    ]
    shown = {"channels": channels, "chunk_kib": chunk_kib, "heads": heads}
    return Draw(shown, answer, mistakes)
