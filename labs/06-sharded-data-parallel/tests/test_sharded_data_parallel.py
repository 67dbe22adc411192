"""Lab 06 tests: shard layout, all-gather / reduce-scatter, Adam on shards, bytes per rank.

One launch per world size (tests/checks.py:run_checks); the full-replica reference (torch.optim.Adam
on the whole global batch, one process) is computed here. Data and weights are on a grid of powers
of two, so the first step's averaged gradient is exact for 2 and 4 ranks (bit-identical to the
replica's); with 3 ranks the scaling by 1/3 rounds and the last bit may differ, so 1e-12 is
allowed. Adam's square roots round anyway, so parameters are compared with 1e-12 (values O(1)).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from nccl_course.launcher.launch import load_file_module

CHECKS = Path(__file__).with_name("checks.py")
TOL = 1e-12


@pytest.fixture
def results(lab_file, world_size, lab_once):
    # One launch per (learner file, world size) in this module; every test reads its results.
    return lab_once((str(CHECKS), "run_checks"), world_size, args=(str(lab_file),))


def _reference(world_size: int) -> dict:
    checks = load_file_module(CHECKS)
    model = checks.check_model()
    initial = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).tolist()
    adam = torch.optim.Adam(model.parameters(), lr=checks.LR, foreach=False)
    grads, params = [], []
    for step in range(checks.STEPS):
        xs, ys = zip(*(checks.check_batch(step, r) for r in range(world_size)), strict=True)
        adam.zero_grad()
        (checks.check_loss(model(torch.cat(xs)), torch.cat(ys)) / world_size).backward()
        grads.append(torch.cat([p.grad.reshape(-1) for p in model.parameters()]).tolist())
        adam.step()
        params.append(torch.cat([p.detach().reshape(-1) for p in model.parameters()]).tolist())
    return {"numel": len(initial), "initial": initial, "grads": grads, "params": params}


def _no_step_error(res: dict, rank: int) -> None:
    assert res["step_error"] is None, f"rank {rank}: a training step raised {res['step_error']}"


def _worst(got, want) -> float:
    return max(abs(a - b) for a, b in zip(got, want, strict=True))


def test_shard_layout(lab_module):
    layout = lab_module.shard_layout
    assert layout(113, 2) == (57, 114), "113 elements on 2 ranks: shards of 57, padded to 114"
    assert layout(113, 3) == (38, 114), "113 elements on 3 ranks: shards of 38, padded to 114"
    assert layout(113, 4) == (29, 116), "113 elements on 4 ranks: shards of 29, padded to 116"
    assert layout(120, 4) == (30, 120), "no padding when the world size divides the size"
    assert layout(1, 8) == (1, 8), "fewer elements than ranks: every shard has one element"


def test_state_bytes_formula(lab_module):
    got = lab_module.state_bytes(113, 4, 8)
    assert got["replica"] == 4 * 113 * 8, "replica: params + grads + 2 Adam tensors, all full"
    assert got["sharded"] == 4 * 29 * 8, "sharded: one shard (29 elements) of each of the four"
    assert got["sharded_peak"] == 4 * 29 * 8 + 2 * 116 * 8, (
        "peak adds the full (padded) parameters and gradients alive during forward/backward"
    )
    # ZeRO's headline: 7.5 B parameters, mixed precision with Adam = 16 bytes per parameter,
    # 64 ranks -> 1.875 GB per rank instead of 120 GB (Rajbhandari et al. 2020, fig. 1).
    big = lab_module.state_bytes(7_500_000_000, 64, 4)
    assert big["replica"] == 120_000_000_000
    assert big["sharded"] == 1_875_000_000


def test_shards_and_initial_parameters(results, world_size):
    ref = _reference(world_size)
    n = ref["numel"]
    shard = -(-n // world_size)
    for rank, res in enumerate(results):
        assert res["shard_numel"] == shard, (
            f"rank {rank}: {n} parameters over {world_size} ranks: shard of {shard}, "
            f"got {res['shard_numel']}"
        )
        assert res["shard_lengths"] == [shard] * 3, (
            f"rank {rank}: gradient and Adam shards must have the parameter shard's length"
        )
        got = res["gathered_init"]
        assert got[:n] == ref["initial"], (
            f"rank {rank}: the shards, gathered in rank order, must be exactly the model's "
            "initial parameters (flattened in parameters() order)"
        )
        assert got[n:] == [0.0] * (len(got) - n), f"rank {rank}: the padding must be zeros"
        assert res["freed_after_init"], (
            f"rank {rank}: after sharding, the module's own parameters must hold no memory"
        )


def test_gradient_shards_are_the_averaged_gradient(results, world_size):
    ref = _reference(world_size)
    n = ref["numel"]
    exact = world_size & (world_size - 1) == 0
    for rank, res in enumerate(results):
        _no_step_error(res, rank)
        for step, (got, want) in enumerate(zip(res["grad_shards"], ref["grads"], strict=True)):
            if exact and step == 0:
                assert got[:n] == want, (
                    f"rank {rank}: with {world_size} ranks the first step's averaged gradient "
                    f"must equal the replica's bit for bit; worst {_worst(got[:n], want):.3g}"
                )
            assert _worst(got[:n], want) <= TOL, (
                f"rank {rank}, step {step}: gathered gradient shards differ from the global-"
                f"batch gradient by {_worst(got[:n], want):.3g}; reduce-scatter the gradients "
                "scaled by 1/world_size"
            )


def test_matches_full_replica_training(results, world_size):
    ref = _reference(world_size)
    n = ref["numel"]
    for rank, res in enumerate(results):
        _no_step_error(res, rank)
        for step, (got, want) in enumerate(zip(res["params"], ref["params"], strict=True)):
            assert _worst(got[:n], want) <= TOL, (
                f"rank {rank}, after step {step + 1}: sharded parameters differ from full-replica "
                f"Adam by {_worst(got[:n], want):.3g}"
            )
        assert res["reported_full"] == res["params"][-1][:n], (
            f"rank {rank}: full_parameters() must return the gathered, unpadded parameters"
        )


def test_full_parameters_exist_only_during_the_step(results):
    for rank, res in enumerate(results):
        _no_step_error(res, rank)
        assert all(res["full_during_step"]), (
            f"rank {rank}: after gather_parameters() every parameter has its full shape"
        )
        assert all(res["freed_after_step"]), (
            f"rank {rank}: after reduce_gradients() the full parameters and gradients are freed"
        )


def test_bytes_per_rank(results, world_size, lab_module):
    ref = _reference(world_size)
    shard = -(-ref["numel"] // world_size)
    want = 4 * shard * 8
    for rank, res in enumerate(results):
        assert res["held_error"] is None, f"rank {rank}: held_bytes() raised {res['held_error']}"
        _no_step_error(res, rank)
        for key in ("held_measured", "held_measured_after", "held_reported"):
            assert res[key] == want, (
                f"rank {rank}: between steps a rank holds 4 shards of {shard} float64 values "
                f"= {want} bytes; {key} = {res[key]}"
            )
    replica = lab_module.state_bytes(ref["numel"], world_size, 8)["replica"]
    assert replica == 4 * ref["numel"] * 8
