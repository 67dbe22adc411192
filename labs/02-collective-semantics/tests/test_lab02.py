"""Lab 02 checks: each collective against its definition and against torch.distributed."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.labs.parts import values_of

CHECKS = str(Path(__file__).with_name("checks.py"))
N = 3  # elements per block: small enough to print, more than one so blocks cannot be confused


@pytest.fixture()
def per_rank(lab_once, lab_file, world_size):
    return lab_once((CHECKS, "check_all"), world_size, args=(str(lab_file), N))


def expected(name, rank, p, n=N):
    """The definition of each collective on the lab's inputs: rank q holds mine_q[i] = 10q + i
    and data_q[k] = 100q + k (k < p*n)."""
    if name == "broadcast":  # from the last rank
        return [10 * (p - 1) + i for i in range(n)]
    if name == "all_gather":
        return [10 * q + i for q in range(p) for i in range(n)]
    if name == "reduce_scatter":  # block r summed over ranks q
        return [sum(100 * q + rank * n + i for q in range(p)) for i in range(n)]
    if name == "all_to_all":  # block j comes from rank j's block r
        return [100 * j + rank * n + i for j in range(p) for i in range(n)]
    raise KeyError(name)


WHAT = {
    "broadcast": "every rank ends with the root's (last rank's) tensor",
    "all_gather": "block j of the output is rank j's input, on every rank",
    "reduce_scatter": "rank r gets the sum over all ranks of their block r",
    "all_to_all": "block j of rank r's output is block r of rank j's input",
}


@pytest.mark.parametrize("name", list(WHAT))
def test_collective_matches_its_definition_and_torch(per_rank, world_size, name):
    got = values_of(per_rank, name)
    reference = values_of(per_rank, "torch")
    for rank, value in enumerate(got):
        out = value["out"] if isinstance(value, dict) else value
        want = expected(name, rank, world_size)
        assert reference[rank][name] == want, "the test's expectation disagrees with torch"
        assert out == want, (
            f"{name} on {world_size} ranks, rank {rank}: {WHAT[name]}. Expected {want}, got {out}"
        )
        if isinstance(value, dict):
            assert value["input_untouched"], (
                f"{name} changed the caller's input tensor on rank {rank}: work on a copy"
            )
