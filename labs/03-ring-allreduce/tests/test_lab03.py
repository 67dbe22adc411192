"""Lab 03 checks: segment bounds, the plain and the pipelined ring (exact sums), busbw."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.cost import busbw
from nccl_course.labs.parts import values_of

CHECKS = str(Path(__file__).with_name("checks.py"))
SIZES = (1, 2, 3, 7, 1001, 4099)
CHUNKS = (1, 3, 4)


@pytest.fixture()
def per_rank(lab_once, lab_file, world_size):
    return lab_once((CHECKS, "check_all"), world_size, args=(str(lab_file),), timeout_s=120)


def expected_sum(n, p):
    return [float(p * (i % 97) + 7 * p * (p - 1) // 2) for i in range(n)]


@pytest.mark.parametrize(
    ("numel", "parts", "want"),
    [
        (10, 4, [(0, 3), (3, 3), (6, 2), (8, 2)]),
        (12, 4, [(0, 3), (3, 3), (6, 3), (9, 3)]),
        (2, 3, [(0, 1), (1, 1), (2, 0)]),
        (0, 2, [(0, 0), (0, 0)]),
        (7, 1, [(0, 7)]),
    ],
)
def test_split_bounds(lab_module, numel, parts, want):
    got = [tuple(b) for b in lab_module.split_bounds(numel, parts)]
    assert got == want, (
        f"split_bounds({numel}, {parts}) should give {want} (lengths differ by at most one, the "
        f"longer first, consecutive), got {got}"
    )


def _first_difference(got, want):
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        if g != w:
            return f"first difference at element {i}: expected {w}, got {g}"
    return f"expected {len(want)} elements, got {len(got)}"


def test_ring_all_reduce_simple_sums_exactly(per_rank, world_size):
    for rank, results in enumerate(values_of(per_rank, "simple")):
        for n in SIZES:
            want = expected_sum(n, world_size)
            got = results[n]
            assert got == want, (
                f"ring_all_reduce_simple on {world_size} ranks, {n} elements, rank {rank}: "
                f"{_first_difference(got, want)}"
                + (
                    " (fewer elements than ranks: some segments are empty)"
                    if n < world_size
                    else ""
                )
            )


def test_pipelined_ring_all_reduce_sums_exactly(per_rank, world_size):
    for rank, results in enumerate(values_of(per_rank, "pipelined")):
        for n in SIZES:
            for chunks in CHUNKS:
                want = expected_sum(n, world_size)
                got = results[(n, chunks)]
                assert got == want, (
                    f"ring_all_reduce(chunks={chunks}) on {world_size} ranks, {n} elements, "
                    f"rank {rank}: {_first_difference(got, want)}"
                )


@pytest.mark.parametrize(
    ("nbytes", "seconds", "p"), [(64 * 2**20, 0.01, 4), (2**30, 0.003, 8), (8, 1e-5, 2)]
)
def test_busbw_all_reduce_is_nccl_tests_definition(lab_module, nbytes, seconds, p):
    want = busbw("all_reduce", nbytes, seconds, p)
    got = lab_module.busbw_all_reduce(nbytes, seconds, p)
    assert got == pytest.approx(want, rel=1e-12), (
        f"busbw of a {nbytes}-byte all-reduce in {seconds} s on {p} ranks is "
        f"{nbytes / seconds / 1e9:.4g} GB/s x 2({p}-1)/{p} = {want:.6g} GB/s, got {got}"
    )
