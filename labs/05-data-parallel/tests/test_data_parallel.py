"""Lab 05 tests: bucket layout, gradients equal to DistributedDataParallel's, overlap, errors.

One launch per world size (tests/checks.py:run_checks) returns everything; the tests below read
from it. Gradients are float64 on a model whose forward and backward are exact (weights and data
on a grid of powers of two), so the only rounding is DDP's scaling by 1/world_size: for 2 and 4
ranks that is exact and our gradients must be bit-identical to DDP's; for 3 ranks 1/3 rounds,
and adding three rounded numbers in a different order (another bucket layout means another
split of the ring all-reduce) may change the last bit, so we allow 1e-12 (values are O(1)).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from nccl_course.launcher.launch import load_file_module

CHECKS = Path(__file__).with_name("checks.py")


@pytest.fixture
def results(lab_file, world_size, lab_once):
    # One launch per (learner file, world size) in this module; every test reads its results.
    return lab_once((str(CHECKS), "run_checks"), world_size, args=(str(lab_file),))


def _no_error(res: dict, key: str, rank: int, what: str) -> None:
    assert res[key] is None, f"rank {rank}: {what} raised {res[key]}"


def _exact_expected(world_size: int) -> bool:
    return world_size & (world_size - 1) == 0


def test_assign_buckets_reverse_order_and_cap(lab_module):
    assign = lab_module.assign_buckets
    # Bytes per parameter in registration order; backward reaches the last one first.
    assert assign([480, 80, 640, 64, 192, 24], 200) == [[5, 4], [3, 2], [1, 0]], (
        "buckets take parameters from the last to the first and close once they hold >= cap bytes"
    )
    assert assign([8, 8, 8, 8], 16) == [[3, 2], [1, 0]], (
        "a bucket that reaches the cap exactly closes"
    )
    assert assign([100, 10], 50) == [[1, 0]], "10 < 50 bytes: the bucket stays open for param 0"
    assert assign([1000], 10) == [[0]], "a parameter larger than the cap gets a bucket of its own"
    assert assign([4, 4, 4], 2**20) == [[2, 1, 0]], "everything fits in one bucket"
    assert assign([], 64) == [], "no parameters, no buckets"


def test_bucket_layout_of_the_check_model(results):
    for rank, res in enumerate(results):
        assert res["bucket_indices"] == [[5, 4], [3, 2], [1, 0]], (
            f"rank {rank}: with a 200-byte cap the check model's buckets should be "
            f"[[5, 4], [3, 2], [1, 0]], got {res['bucket_indices']}"
        )


def test_replicas_start_equal(results):
    want = results[0]["params_after_wrap"]
    for rank, res in enumerate(results):
        assert res["params_after_wrap"] == want, (
            f"rank {rank}: after wrapping, every replica should hold rank 0's parameters "
            "(broadcast them from rank 0 in __init__, as DDP does)"
        )


def test_gradients_match_ddp(results, world_size):
    exact = _exact_expected(world_size)
    for rank, res in enumerate(results):
        _no_error(res, "train_error", rank, "training next to DDP")
        for step, (ours, ddp) in enumerate(zip(res["ours"], res["ddp"], strict=True)):
            worst = max(abs(a - b) for a, b in zip(ours, ddp, strict=True))
            if exact and step == 0:
                assert ours == ddp, (
                    f"rank {rank}, step {step}: with {world_size} ranks every operation is exact, "
                    f"so the averaged gradients must equal DDP's bit for bit; largest difference "
                    f"{worst:.3g}"
                )
            assert worst <= 1e-12, (
                f"rank {rank}, step {step}: averaged gradients differ from DDP's by {worst:.3g} "
                "(more than rounding can explain: check the scaling by 1/world_size and that "
                "every bucket is copied back to the right parameters)"
            )


def test_gradients_are_the_global_batch_average(results, world_size, lab_config):
    checks = load_file_module(CHECKS)
    model = checks.check_model()
    xs, ys = zip(*(checks.check_batch(0, r) for r in range(world_size)), strict=True)
    torch.nn.functional.mse_loss(model(torch.cat(xs)), torch.cat(ys)).backward()
    want = torch.cat([p.grad.reshape(-1) for p in model.parameters()]).tolist()
    _no_error(results[0], "train_error", 0, "training next to DDP")
    got = results[0]["ours"][0]
    worst = max(abs(a - b) for a, b in zip(got, want, strict=True))
    if _exact_expected(world_size):
        assert got == want, (
            f"the averaged gradient should equal the gradient of the whole global batch "
            f"computed on one process; largest difference {worst:.3g}"
        )
    assert worst <= 1e-12, (
        f"averaged gradient is not the global-batch gradient (off by {worst:.3g})"
    )


def test_all_ranks_hold_identical_gradients(results):
    for rank, res in enumerate(results):
        _no_error(res, "train_error", rank, "training next to DDP")
        for step, grads in enumerate(res["ours"]):
            assert grads == results[0]["ours"][step], (
                f"rank {rank}, step {step}: after the all-reduce every rank must hold the same "
                "gradients, bit for bit"
            )


def test_all_reduce_starts_during_backward(results):
    for rank, res in enumerate(results):
        _no_error(res, "train_error", rank, "training next to DDP")
        n = res["num_params"]
        for step, log in enumerate(res["launch_logs"]):
            order = [bucket for bucket, _ in log]
            assert order == [0, 1, 2], (
                f"rank {rank}, step {step}: buckets must be launched once each, in bucket order "
                f"(the same order on every rank); got {order}"
            )
            fired = [hooks for _, hooks in log]
            assert fired[0] < n, (
                f"rank {rank}, step {step}: bucket 0 was launched after all {n} gradient hooks "
                "had fired, i.e. after backward: it should start as soon as its own gradients "
                "are ready"
            )
            assert fired == sorted(fired), f"rank {rank}: hook counts at launch {fired}"


def test_no_overlap_baseline(results):
    for rank, res in enumerate(results):
        _no_error(res, "no_overlap_error", rank, "the overlap=False run")
        _no_error(res, "train_error", rank, "training next to DDP")
        n = res["num_params"]
        fired = [hooks for _, hooks in res["no_overlap_log"]]
        assert fired == [n, n, n], (
            f"rank {rank}: with overlap=False all buckets are launched after backward "
            f"({n} hooks fired), got hook counts {fired}"
        )
        assert res["no_overlap_grads"] == res["ours"][0], (
            f"rank {rank}: overlap must not change the gradients"
        )


def test_unused_parameter_is_a_clear_error(results):
    for rank, res in enumerate(results):
        message = res["unused_error"]
        assert message is not None and message.startswith("RuntimeError"), (
            f"rank {rank}: a parameter that gets no gradient leaves its bucket incomplete; "
            f"finish_gradient_sync must raise RuntimeError instead of waiting or skipping it; "
            f"got {message!r}"
        )
        assert "unused_head" in message, (
            f"rank {rank}: the error should name the parameters without a gradient; got {message!r}"
        )


def test_overlap_is_measured(results):
    for rank, res in enumerate(results):
        _no_error(res, "timing_error", rank, "measure_overlap")
        timing = res["timing"]
        for key in ("backward_s", "comm_s", "sequential_s", "overlapped_s"):
            value = timing.get(key)
            assert value is not None and math.isfinite(value) and 0 < value < 60, (
                f"rank {rank}: measure_overlap should report {key} in seconds, got {value!r}"
            )
        assert timing == results[0]["timing"], "times are maxima over ranks: every rank agrees"
