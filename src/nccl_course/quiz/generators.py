"""Generators for parameterized questions: draw parameters from a seeded RNG, compute the answer.

A generator is ``fn(rng: random.Random, **options) -> Draw``. ``Draw.params`` fill the ``{{name}}``
placeholders of the question's text; ``Draw.answer`` is the value in the question's ``unit``;
``Draw.mistakes`` are values that common mistakes give, with feedback naming the mistake.
Answers come from ``nccl_course.cost`` (busbw factors, closed forms), never copied numbers.

Units: sizes in bytes, times in seconds, bandwidths in GB/s = 1e9 bytes/s, unless a parameter's
name says otherwise (``alpha_us`` is in microseconds).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from nccl_course.collectives import display_name
from nccl_course.cost import BUSBW_COLLECTIVES, algbw, busbw, busbw_factor, closed_form_time
from nccl_course.units import format_size

# A common mistake is only worth naming when its value stands clear of the answer.
MISTAKE_MIN_REL_DISTANCE = 0.05


@dataclass(frozen=True)
class Draw:
    """One draw: the parameters shown to the learner, the answer, and common wrong answers.

    Mistakes closer to the answer than MISTAKE_MIN_REL_DISTANCE (relative) are dropped: for some
    draws a mistake makes no difference (e.g. leaving out a latency that is negligible).
    """

    params: dict
    answer: float
    mistakes: list[tuple[float, str]] = field(default_factory=list)

    def __post_init__(self):
        kept = [
            (float(v), text)
            for v, text in self.mistakes
            if v > 0 and abs(v - self.answer) > MISTAKE_MIN_REL_DISTANCE * abs(self.answer)
        ]
        object.__setattr__(self, "mistakes", kept)


Generator = Callable[..., Draw]
GENERATORS: dict[str, Generator] = {}


def generator(name: str) -> Callable[[Generator], Generator]:
    """Register a generator under ``name`` (the name a bank's ``generator:`` key uses)."""

    def register(fn: Generator) -> Generator:
        if name in GENERATORS:
            raise ValueError(f"generator {name!r} registered twice")
        GENERATORS[name] = fn
        return fn

    return register


def resolve(name: str) -> Generator:
    """The generator registered as ``name``. Raises LookupError listing the registered ones."""
    if name in GENERATORS:
        return GENERATORS[name]
    known = ", ".join(sorted(GENERATORS))
    raise LookupError(f"generator {name!r} not found; registered ones: {known}")


# Sizes people actually all-reduce (gradient buckets to full fp16 models), and bus bandwidths
# measured in public (~370 GB/s ring all-reduce on 8x H100/H200 NVLink, NVIDIA/nccl-tests issues
# #212 and #309; ~46-48 GB/s per NDR 400G NIC across nodes, NVIDIA/nccl-tests issue #290: the
# rows of nccl_course.cost.published).
_SIZES = [256 * 2**20, 512 * 2**20, 2**30, 4 * 2**30, 16 * 2**30]
_RANKS = [2, 4, 8, 16, 32, 64]
_BUSBWS = [46.0, 92.0, 185.0, 370.0]


def _decimal_misreading(size: int) -> float:
    """The bytes a learner gets by reading "4 GiB" as 4e9 (or "256 MiB" as 256e6)."""
    if size >= 2**30:
        return size / 2**30 * 1e9
    return size / 2**20 * 1e6


# How the text names each collective the busbw generators take (those with a busbw factor).
_COLLECTIVE_WORDS = {name: display_name(name) for name in BUSBW_COLLECTIVES}


@generator("collective_time_from_busbw")
def collective_time_from_busbw(rng: random.Random, collective: str = "all_reduce") -> Draw:
    """Time in ms of one ``collective`` of S bytes on p ranks at a given busbw (GB/s).

    busbw = algbw x factor and algbw = S / t, so t = S x factor / busbw.
    """
    p = rng.choice(_RANKS)
    size = rng.choice(_SIZES)
    bw = rng.choice(_BUSBWS)
    factor = busbw_factor(collective, p)
    seconds = size * factor / (bw * 1e9)
    params = {
        "collective": _COLLECTIVE_WORDS[collective],
        "ranks": p,
        "size": format_size(size),
        "size_bytes": size,
        "busbw": f"{bw:g}",
        "factor": f"{factor:g}",
    }
    mistakes = []
    if factor != 1.0:
        mistakes.append(
            (
                size / (bw * 1e9) * 1e3,
                "You divided the size by the bus bandwidth. busbw is algbw times the factor "
                "{{factor}}; convert back to algbw first (algbw = busbw / factor).",
            )
        )
        mistakes.append(
            (
                size / (bw * 1e9 * factor) * 1e3,
                "You multiplied busbw by the factor; it goes the other way: algbw = busbw / factor.",
            )
        )
    mistakes.append(
        (
            _decimal_misreading(size) * factor / (bw * 1e9) * 1e3,
            "You read the binary size as decimal: 1 GiB = 1024^3 = 1.074e9 bytes and "
            "1 MiB = 1.049e6 bytes, while GB/s means 1e9 bytes per second.",
        )
    )
    return Draw(params, seconds * 1e3, mistakes)


@generator("allreduce_time_from_busbw")
def allreduce_time_from_busbw(rng: random.Random) -> Draw:
    """Time in ms of an all-reduce of S bytes on p ranks at a given busbw; see the general one."""
    return collective_time_from_busbw(rng, collective="all_reduce")


@generator("busbw_from_time")
def busbw_from_time(rng: random.Random, collective: str = "all_reduce") -> Draw:
    """Bus bandwidth in GB/s that nccl-tests prints for S bytes in t ms on p ranks.

    The time shown is drawn so that busbw is a plausible measured value, then rounded to three
    significant figures; the answer is computed from the rounded time the learner sees.
    """
    p = rng.choice([4, 8, 16])
    size = rng.choice([2**30, 4 * 2**30, 8 * 2**30])
    target = rng.choice(_BUSBWS) * rng.choice([0.8, 0.9, 1.0])
    factor = busbw_factor(collective, p)
    ms = float(f"{size * factor / (target * 1e9) * 1e3:.3g}")
    value = busbw(collective, size, ms / 1e3, p)
    params = {
        "collective": _COLLECTIVE_WORDS[collective],
        "ranks": p,
        "size": format_size(size),
        "ms": f"{ms:g}",
        "factor": f"{factor:g}",
    }
    mistakes = []
    if factor != 1.0:
        mistakes.append(
            (
                algbw(size, ms / 1e3),
                "That is algbw (S / t). nccl-tests multiplies it by {{factor}} to get busbw.",
            )
        )
    return Draw(params, value, mistakes)


@generator("algbw_from_time")
def algbw_from_time(rng: random.Random) -> Draw:
    """Algorithm bandwidth in GB/s for S bytes moved in t ms (S / t)."""
    size = rng.choice([64 * 2**20, 256 * 2**20, 2**30, 2 * 2**30])
    ms = rng.choice([1.0, 2.5, 4.0, 10.0, 16.0])
    value = algbw(size, ms / 1e3)
    params = {"size": format_size(size), "ms": f"{ms:g}"}
    mistakes = [
        (
            size / 2**30 / (ms / 1e3),
            "That is GiB/s. GB/s counts 1e9 bytes, and 1 GiB = 1.074e9 bytes.",
        )
    ]
    return Draw(params, value, mistakes)


@generator("ring_allreduce_alpha_beta")
def ring_allreduce_alpha_beta(rng: random.Random) -> Draw:
    """Ring all-reduce time in ms from the alpha-beta model (gamma = 0):
    2(p-1) alpha + 2 (p-1)/p n beta, with beta = 1 / link bandwidth."""
    p = rng.choice([4, 8, 16, 32])
    size = rng.choice([2**20, 16 * 2**20, 256 * 2**20, 2**30])
    alpha_us = rng.choice([2.0, 5.0, 10.0, 20.0])
    link = rng.choice([25.0, 50.0, 100.0, 400.0])
    beta = 1 / (link * 1e9)
    seconds = closed_form_time("all_reduce", "ring", size, p, alpha_us * 1e-6, beta)
    params = {
        "ranks": p,
        "size": format_size(size),
        "size_bytes": size,
        "alpha_us": f"{alpha_us:g}",
        "link": f"{link:g}",
    }
    mistakes = [
        (
            closed_form_time("reduce_scatter", "ring", size, p, alpha_us * 1e-6, beta) * 1e3,
            "That is one reduce-scatter. A ring all-reduce is a reduce-scatter followed by an "
            "all-gather: twice the steps and twice the bytes.",
        ),
        (
            2 * (p - 1) / p * size * beta * 1e3,
            "You left out the latency term 2(p-1) alpha.",
        ),
    ]
    return Draw(params, seconds * 1e3, mistakes)


@generator("ring_bytes_sent_per_rank")
def ring_bytes_sent_per_rank(rng: random.Random, collective: str = "all_reduce") -> Draw:
    """MiB each rank sends in a ring ``collective`` of S bytes on p ranks: S x busbw factor.

    For a ring, the busbw factor is exactly the fraction of S each rank puts on its link.
    """
    p = rng.choice([2, 4, 8, 16, 64])
    size = rng.choice([64 * 2**20, 256 * 2**20, 2**30])
    factor = busbw_factor(collective, p)
    mib = size * factor / 2**20
    params = {
        "collective": _COLLECTIVE_WORDS[collective],
        "ranks": p,
        "size": format_size(size),
    }
    mistakes = [
        (size / 2**20, "Each rank sends less than the whole buffer per phase: S/p per step."),
    ]
    if collective == "all_reduce":
        mistakes.append(
            (
                size * (p - 1) / p / 2**20,
                "That is one phase. A ring all-reduce has two: reduce-scatter, then all-gather.",
            )
        )
    return Draw(params, mib, mistakes)


@generator("pipelined_broadcast_time")
def pipelined_broadcast_time(rng: random.Random) -> Draw:
    """Time in ms of a chunked (pipelined) ring broadcast: (p + k - 2)(alpha + n/k beta)."""
    p = rng.choice([4, 8, 16])
    size = rng.choice([64 * 2**20, 256 * 2**20, 2**30])
    k = rng.choice([8, 16, 32, 64])
    alpha_us = rng.choice([2.0, 5.0, 10.0])
    link = rng.choice([25.0, 50.0, 100.0])
    beta = 1 / (link * 1e9)
    seconds = closed_form_time("broadcast", "ring", size, p, alpha_us * 1e-6, beta, k=k)
    params = {
        "ranks": p,
        "size": format_size(size),
        "chunks": k,
        "alpha_us": f"{alpha_us:g}",
        "link": f"{link:g}",
    }
    unpipelined = (p - 1) * (alpha_us * 1e-6 + size * beta)
    mistakes = [
        (
            unpipelined * 1e3,
            "That is the unchunked chain: every hop waits for the whole message. With k chunks "
            "the hops overlap: (p + k - 2) steps of alpha + (n/k) beta.",
        )
    ]
    return Draw(params, seconds * 1e3, mistakes)


@generator("preset_ring_allreduce_time")
def preset_ring_allreduce_time(rng: random.Random) -> Draw:
    """Ring all-reduce time in us on a hardware preset (nccl_course.cost.PRESETS), from the
    alpha-beta closed form with the preset's per-hop latency and per-direction link bandwidth."""
    from nccl_course.cost import PRESETS

    name = rng.choice(["h100-nvlink", "pcie-gen4", "pcie-gen5"])
    preset = PRESETS[name]
    p = preset.ranks
    size = rng.choice([64 * 2**10, 2**20, 16 * 2**20, 256 * 2**20])
    seconds = closed_form_time(
        "all_reduce", "ring", size, p, preset.alpha_s, preset.beta_s_per_byte
    )
    params = {
        "preset": name,
        "description": preset.description,
        "ranks": p,
        "size": format_size(size),
        "alpha_us": f"{preset.alpha_s * 1e6:g}",
        "link": f"{preset.bandwidth_Bps / 1e9:g}",
    }
    mistakes = [
        (
            closed_form_time(
                "all_reduce", "ring", size, p, preset.alpha_s, 1 / (2 * preset.bandwidth_Bps)
            )
            * 1e6,
            "You used a bidirectional bandwidth. beta is per direction: a ring sends one way on each "
            "link at a time.",
        ),
        (
            2 * (p - 1) / p * size * preset.beta_s_per_byte * 1e6,
            "You left out the latency term 2(p-1) alpha; for small buffers it dominates.",
        ),
    ]
    return Draw(params, seconds * 1e6, mistakes)


__all__ = ["Draw", "GENERATORS", "generator", "resolve"]
