"""Lab 07 tests: counts, their exchange, dispatch order, and the MoE output against one process.

Every value is a multiple of a power of two, so each expert's output is exact and must equal the
single-process reference bit for bit, whatever grouping of rows the matrix multiplies use.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from nccl_course.launcher.launch import load_file_module

CHECKS = Path(__file__).with_name("checks.py")


@pytest.fixture
def results(lab_file, world_size, lab_once):
    # One launch per (learner file, world size) in this module; every test reads its results.
    return lab_once((str(CHECKS), "run_checks"), world_size, args=(str(lab_file),))


@pytest.fixture(scope="module")
def checks():
    return load_file_module(CHECKS)


def _value(part: dict, what: str):
    assert part["error"] is None, f"{what} raised {part['error']}"
    return part["value"]


def _plan(checks, name, world_size):
    """Per rank: tokens, expert ids, destination ranks; and the count matrix sent[i][j]."""
    per_rank = [checks.scenario(name, r, world_size) for r in range(world_size)]
    dests = [ids // checks.EXPERTS_PER_RANK for _, ids in per_rank]
    matrix = [[int((d == j).sum()) for j in range(world_size)] for d in dests]
    return per_rank, dests, matrix


def test_send_counts(lab_module):
    counts = lab_module.send_counts(torch.tensor([2, 0, 2, 2, 1]), 4)
    assert counts == [1, 1, 3, 0], f"destinations [2,0,2,2,1] on 4 ranks: [1,1,3,0], got {counts}"
    empty = lab_module.send_counts(torch.tensor([], dtype=torch.int64), 3)
    assert empty == [0, 0, 0], "no tokens: zero to every rank"


@pytest.mark.parametrize("name", ["uneven", "all_to_rank0", "rank0_empty"])
def test_counts_are_exchanged(results, world_size, checks, name):
    _, _, matrix = _plan(checks, name, world_size)
    for rank, res in enumerate(results):
        sent = _value(res[name]["sent"], f"rank {rank}'s send_counts")
        assert sent == matrix[rank], (
            f"{name}, rank {rank}: tokens per destination should be {matrix[rank]}, got {sent}"
        )
        received = _value(res[name]["received"], f"rank {rank}'s exchange_counts")
        want = [matrix[i][rank] for i in range(world_size)]
        assert received == want, (
            f"{name}, rank {rank}: exchange_counts should return what each rank sends here "
            f"(column {rank} of the count matrix) = {want}, got {received}"
        )


@pytest.mark.parametrize("name", ["uneven", "all_to_rank0", "rank0_empty"])
def test_dispatch_delivers_tokens_in_order(results, world_size, checks, name):
    per_rank, dests, _ = _plan(checks, name, world_size)
    for rank, res in enumerate(results):
        want_tokens, want_ids = [], []
        for sender, (tokens, ids) in enumerate(per_rank):
            rows = (dests[sender] == rank).nonzero(as_tuple=True)[0]
            want_tokens += tokens[rows].tolist()
            want_ids += (ids[rows] % checks.EXPERTS_PER_RANK).tolist()
        got = _value(res[name]["dispatched"], f"rank {rank}'s dispatch")
        assert got["tokens"] == want_tokens, (
            f"{name}, rank {rank}: should receive {len(want_tokens)} tokens, rank 0's first, each "
            f"sender's in its original order; got {len(got['tokens'])} tokens "
            "(or the right number in another order)"
        )
        assert got["local_ids"] == want_ids, (
            f"{name}, rank {rank}: expert ids must travel with their tokens, made local "
            f"(global id % experts_per_rank): want {want_ids}, got {got['local_ids']}"
        )


@pytest.mark.parametrize("name", ["uneven", "all_to_rank0", "rank0_empty"])
def test_output_matches_single_process(results, world_size, checks, name):
    experts = checks.experts(world_size)
    for rank, res in enumerate(results):
        tokens, ids = checks.scenario(name, rank, world_size)
        want = [(tokens[i] @ experts[e][0] + experts[e][1]).tolist() for i, e in enumerate(ids)]
        got = _value(res[name]["output"], f"rank {rank}'s moe_forward")
        assert len(got) == len(want), (
            f"{name}, rank {rank}: one output per input token ({len(want)}), got {len(got)}"
        )
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert g == w, (
                f"{name}, rank {rank}, token {i} (expert {int(ids[i])}): output {g} should be "
                f"{w}; a wrong expert, a wrong position after combine, or a mixed-up split"
            )
