"""Integer helpers for algorithms on p ranks (stdlib only; the simulator and the cost model share
them)."""

from __future__ import annotations


def ceil_log2(p: int) -> int:
    """Number of rounds of a doubling algorithm on p ranks: ceil(log2 p), 0 for p = 1."""
    if p < 1:
        raise ValueError(f"rank count must be at least 1, got {p}")
    return (p - 1).bit_length()


def floor_pow2(p: int) -> int:
    """The largest power of two <= p (p >= 1)."""
    if p < 1:
        raise ValueError(f"rank count must be at least 1, got {p}")
    return 1 << (p.bit_length() - 1)


__all__ = ["ceil_log2", "floor_pow2"]
