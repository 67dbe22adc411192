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


# --------------------------------------------------------------- newer plans (training_plans)

from nccl_course.cost import training_plans as tp  # noqa: E402
from nccl_course.cost.model import nvls_allreduce_link_bytes  # noqa: E402


def test_hsdp_bytes_by_hand():
    # 8 GPUs per shard group, 2 replicas; 3200 parameters in 32 units of 100
    plan = tp.hsdp_calls(3200, shard=8, replicate=2, units=32, param_bytes=2, reduce_bytes=4)
    intra, inter = plan.bytes_sent_per_rank()
    # two all-gathers of 200 B and one reduce-scatter of 400 B per unit, each x 7/8
    assert intra == pytest.approx(32 * (200 + 200 + 400) * 7 / 8)
    # all-reduce of the 400/8 = 50 B shard between 2 replicas: 2 x 1/2 x 50 per unit
    assert inter == pytest.approx(32 * 50)
    assert [c.ranks for c in plan.inter] == [2]
    # one replica: no inter-node call at all
    assert tp.hsdp_calls(3200, 8, 1, 32).inter == []


def test_zeropp_without_options_is_zero3():
    params, dp = 6_400_000, 16
    plain = tp.zeropp_calls(params, dp, 8, units=32, qwz=False, hpz=False, qgz=False)
    assert plain.intra == []
    assert tc.bytes_sent_per_rank(plain.inter) == pytest.approx(
        tc.bytes_sent_per_rank(tc.zero3_calls(params, dp, units=32))
    )


def test_zeropp_bytes_by_hand():
    # Psi = 6.4e6 parameters, 2 nodes x 8 GPUs, one unit
    psi, dp, per_node = 6_400_000, 16, 8
    plan = tp.zeropp_calls(psi, dp, per_node, units=1)
    intra, inter = plan.bytes_sent_per_rank()
    # qwZ: int8 forward all-gather of Psi bytes on 16 ranks; qgZ across nodes: int4 gradient
    # reduced in the node to 1/8, all-to-all between 2 nodes sends half of it
    assert inter == pytest.approx(psi * 15 / 16 + psi / 2 / 8 * 1 / 2)
    # hpZ: bf16 backward all-gather inside the node; qgZ: int4 all-to-all inside the node
    assert intra == pytest.approx(2 * psi * 7 / 8 + psi / 2 * 7 / 8)
    # the paper's accounting in model sizes M = 2 Psi (fp16): 3M for ZeRO-3 across nodes;
    # ZeRO++: 0.5 M (int8 weights) + 0.25 M (int4 gradients, summed over the node's 8 GPUs)
    m = 2 * psi
    forward = next(c for c in plan.inter if c.collective == "all_gather")
    grads = next(c for c in plan.inter if c.collective == "all_to_all")
    assert forward.size_bytes / m == 0.5
    assert grads.size_bytes * per_node / m == 0.25
    with pytest.raises(ValueError):
        tp.zeropp_calls(psi, 12, 8, units=1)


def test_context_parallel_bytes_by_hand():
    shape = tc.TransformerShape("t", layers=2, hidden=64, vocab=1, seq_len=1024, micro_batch=1)
    cp = 4
    shard = 2 * (1024 // cp) * 64 * 2  # K and V of 256 tokens, bf16
    assert tp.kv_shard_bytes(shape, cp) == shard
    gathered = tp.context_parallel_calls(shape, cp)
    ring = tp.context_parallel_calls(shape, cp, rotate="alltoall")
    grads = 2 * cp * shard * 2  # fp32 K/V gradients round the ring cp times, both layers
    # forward and backward each move (cp - 1) shards per layer, however they are rotated
    for plan in (gathered, ring):
        intra, inter = plan.bytes_sent_per_rank()
        assert inter == 0
        assert intra == pytest.approx(2 * 2 * (cp - 1) * shard + grads)
    assert tc.total_calls(ring.intra) == 2 * 2 * (cp - 1) + 2 * cp
    assert tc.total_calls(gathered.intra) == 2 * 2 + 2 * cp
    # grouped-query attention with 8 KV heads for 32 query heads sends a quarter
    assert tp.kv_shard_bytes(shape, cp, kv_fraction=0.25) == shard // 4
    with pytest.raises(ValueError):
        tp.context_parallel_calls(shape, cp, rotate="ring")


def test_attention_flops_by_hand():
    shape = tc.TransformerShape("t", layers=1, hidden=4096, vocab=1, seq_len=8192, micro_batch=2)
    assert tp.attention_flops_per_rank(shape, 4) == 4 * 2 * 8192**2 * 4096 / 4


def test_micro_pipeline_time_limits():
    # compute-bound: only compute shows; comm-bound: all copies plus one shard's compute
    assert tp.micro_pipeline_time(comm_s=1.0, compute_s=8.0, pieces=8) == pytest.approx(8.0)
    assert tp.micro_pipeline_time(comm_s=7.0, compute_s=0.8, pieces=8) == pytest.approx(7.1)
    # equal totals: copies of 8/7 each gate every remote shard: 8 + 1
    assert tp.micro_pipeline_time(8.0, 8.0, 8) == pytest.approx(9.0)
    assert tp.micro_pipeline_time(3.0, 5.0, 1) == 5.0
    assert tp.serial_time(3.0, 5.0) == 8.0
    # never better than the larger of the two, never worse than their sum
    for comm, comp in [(1, 2), (2, 1), (5, 5), (0.1, 9)]:
        t = tp.micro_pipeline_time(comm, comp, 4)
        assert max(comm, comp) <= t <= comm + comp


def test_nvls_link_bytes_against_ring():
    n, p = 1024, 8
    assert nvls_allreduce_link_bytes(n, p) == pytest.approx(n + n / 8)
    ring = 2 * (p - 1) / p * n
    assert ring / nvls_allreduce_link_bytes(n, p) == pytest.approx(1.75 / 1.125)
    assert nvls_allreduce_link_bytes(n, 1) == 0


def test_nccl_or_textbook_prices_point_to_point_with_the_textbook():
    from nccl_course.cost.model import predict as textbook
    from nccl_course.cost.nccl import predict as nccl

    calls = [
        tc.CollectiveCall("all_gather", 8 * MIB, 8, 3, "forward", "x"),
        tc.CollectiveCall("send_recv", MIB, 2, 5, "backward", "y"),
    ]
    expected = (
        3 * nccl("all_gather", 8 * MIB, "h100-nvls", ranks=8).time_s
        + 5 * textbook("send_recv", MIB, "h100-nvls", ranks=2).time_s
    )
    assert tc.nccl_or_textbook_time_on_preset(calls, "h100-nvls") == pytest.approx(expected)


def test_one_gpu_per_node_is_what_nccl_sees_as_one_rank_per_node():
    from nccl_course.cost.nccl import predict as nccl
    from nccl_course.cost.presets import one_gpu_per_node

    rail = one_gpu_per_node("ib-ndr-2node", 8)
    q = nccl("all_gather", 2**20, rail)
    assert (q.nodes, q.ranks) == (8, 8)
    # PAT needs one rank per node (NCCL 2.30.7 tuning.cc); on a full 2-node preset it is off
    assert q.algorithm == "PAT"
    assert nccl("all_gather", 2**20, "ib-ndr-2node").candidates["PAT/Simple"] == -1.0
    with pytest.raises(ValueError):
        one_gpu_per_node("h100-nvlink", 4)
    with pytest.raises(ValueError):
        one_gpu_per_node("ib-ndr-2node", 1)
