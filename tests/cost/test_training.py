"""Communication per training step: volumes against hand-derived closed forms."""

from __future__ import annotations

import pytest

from nccl_course.cost import closed_form_time
from nccl_course.cost import training as tc

GIB = 1024**3
MIB = 1024**2


def test_gpt3_6_7b_parameter_count():
    # 12 * 32 * 4096^2 + 50257 * 4096
    assert tc.GPT3_6_7B.parameters() == 6_442_450_944 + 205_852_672
    assert 6.6e9 < tc.GPT3_6_7B.parameters() < 6.7e9


def test_ddp_buckets_first_small_then_capped_then_tail():
    sizes = tc.ddp_bucket_sizes(100 * MIB)
    assert sizes[0] == 1 * MIB
    assert sizes[1:4] == [25 * MIB] * 3
    assert sizes[4] == 24 * MIB
    assert sum(sizes) == 100 * MIB
    # a gradient smaller than the first bucket is one bucket
    assert tc.ddp_bucket_sizes(1000) == [1000]
    # with a user cap, torch uses the cap for the first bucket too: caller passes it
    assert tc.ddp_bucket_sizes(100 * MIB, 50 * MIB, 50 * MIB) == [50 * MIB, 50 * MIB]


def test_ddp_volume_is_ring_allreduce_of_all_gradients():
    params, dp = 1_000_000_000, 16
    calls = tc.ddp_calls(params, dp, grad_bytes=2)
    assert sum(c.size_bytes * c.count for c in calls) == 2 * params
    assert tc.bytes_sent_per_rank(calls) == pytest.approx(2 * (dp - 1) / dp * 2 * params)
    # 2 GB of gradients in a 1 MiB bucket plus 25 MiB buckets
    assert tc.total_calls(calls) == 1 + -(-(2 * params - MIB) // (25 * MIB))


def test_zero3_sends_one_and_a_half_times_ddp():
    # ZeRO paper (Rajbhandari et al. 2020, sec. 7.2.2): stage 3 moves 3 Psi vs 2 Psi for DDP
    params, dp = 6_000_000_000, 64
    ddp = tc.bytes_sent_per_rank(tc.ddp_calls(params, dp))
    zero3 = tc.bytes_sent_per_rank(tc.zero3_calls(params, dp, units=32))
    assert zero3 / ddp == pytest.approx(1.5)


def test_zero3_call_structure():
    calls = tc.zero3_calls(3200, dp=8, units=32, param_bytes=2, grad_bytes=4)
    assert [(c.collective, c.phase, c.count, c.size_bytes) for c in calls] == [
        ("all_gather", "forward", 32, 200),
        ("all_gather", "backward", 32, 200),
        ("reduce_scatter", "backward", 32, 400),
    ]


def test_tensor_parallel_counts_and_sequence_parallel_same_volume():
    shape = tc.TransformerShape("t", layers=4, hidden=1024, vocab=1000, seq_len=512, micro_batch=2)
    tp = 8
    plain = tc.tensor_parallel_calls(shape, tp)
    sp = tc.tensor_parallel_calls(shape, tp, sequence_parallel=True)
    size = 2 * 512 * 1024 * 2
    assert {(c.collective, c.count, c.size_bytes) for c in plain} == {("all_reduce", 8, size)}
    assert tc.total_calls(plain) == 4 * shape.layers
    assert tc.total_calls(sp) == 8 * shape.layers
    assert tc.bytes_sent_per_rank(sp) == pytest.approx(tc.bytes_sent_per_rank(plain))
    assert tc.bytes_sent_per_rank(plain) == pytest.approx(4 * 4 * 2 * (tp - 1) / tp * size)


def test_pipeline_and_expert_calls():
    shape = tc.TransformerShape("t", layers=4, hidden=256, vocab=10, seq_len=128, micro_batch=1)
    assert tc.pipeline_calls(shape, stages=1, micro_batches=8) == []
    pp = tc.pipeline_calls(shape, stages=4, micro_batches=8)
    assert tc.total_calls(pp) == 2 * 3 * 8
    assert tc.bytes_sent_per_rank(pp) == 2 * 3 * 8 * 128 * 256 * 2
    ep = tc.expert_parallel_calls(shape, ep=8, moe_layers=2, top_k=2)
    assert tc.total_calls(ep) == 8
    assert all(c.collective == "all_to_all" and c.size_bytes == 128 * 256 * 2 * 2 for c in ep)


def test_alpha_beta_time_sums_ring_closed_forms():
    a, b = 5e-6, 1 / 40e9
    calls = tc.zero3_calls(1_000_000, dp=8, units=10)
    expected = 10 * (
        2 * closed_form_time("all_gather", "ring", 200_000, 8, a, b)
        + closed_form_time("reduce_scatter", "ring", 200_000, 8, a, b)
    )
    assert tc.time_alpha_beta(calls, a, b) == pytest.approx(expected)
    # bandwidth-dominated limit: time -> bytes sent per rank * beta
    big = tc.ddp_calls(10_000_000_000, dp=16, bucket_bytes=GIB, first_bucket_bytes=GIB)
    assert tc.time_alpha_beta(big, 0.0, b) == pytest.approx(tc.bytes_sent_per_rank(big) * b)


def test_time_with_custom_predictor_and_errors():
    calls = [tc.CollectiveCall("all_reduce", 100, 4, 3, "backward", "x")]
    assert tc.time_with(calls, lambda c: 0.5) == 1.5
    with pytest.raises(ValueError):
        tc.ddp_calls(0, 8)
    with pytest.raises(ValueError):
        tc.zero3_calls(10, 8, units=0)


def test_busbw_table_interpolates_in_log_size_and_holds_ends():
    table = {2**20: 10.0, 2**24: 50.0, 2**30: 90.0}
    assert tc.busbw_at(table, 2**20) == 10.0
    assert tc.busbw_at(table, 2**22) == pytest.approx(30.0)  # halfway in log2: 20 -> 22 -> 24
    assert tc.busbw_at(table, 2**10) == 10.0
    assert tc.busbw_at(table, 2**40) == 90.0
    with pytest.raises(ValueError):
        tc.busbw_at({}, 5)


def test_time_from_busbw_table_inverts_the_busbw_definition():
    # one all-reduce of 1 GiB on 16 ranks at a flat 47 GB/s: t = S * 2(p-1)/p / busbw
    calls = [tc.CollectiveCall("all_reduce", GIB, 16, 2, "backward", "x")]
    t = tc.time_from_busbw_table(calls, {MIB: 47.0, GIB: 47.0})
    assert t == pytest.approx(2 * GIB * 1.875 / 47e9)


def test_time_on_preset_sums_predictions_per_call():
    from nccl_course.cost import predict

    calls = tc.zero3_calls(3_200_000_000, dp=16, units=32)
    expected = sum(
        c.count * predict(c.collective, c.size_bytes, "ib-ndr-2node", ranks=16).time_s
        for c in calls
    )
    assert tc.time_on_preset(calls, "ib-ndr-2node") == pytest.approx(expected)
    # nominal links bound the time from below by bytes / (8 NICs x 50 GB/s)
    assert tc.time_on_preset(calls, "ib-ndr-2node") >= tc.bytes_sent_per_rank(calls) / 400e9
