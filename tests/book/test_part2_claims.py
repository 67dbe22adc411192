"""The numbers part 2 of the book states in prose and in its quiz banks, recomputed with the package.

Each test computes a figure with ``nccl_course.cost`` (and its training model,
``nccl_course.cost.training``) and checks that the page (or bank) states it as written. A change
to the cost code or to a page that makes them disagree fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course import yaml_text
from nccl_course.cost import busbw_factor, closed_form_time
from nccl_course.cost import training as tc

ROOT = Path(__file__).resolve().parents[2]
GIB = 2**30
MIB = 2**20


def page(name: str) -> str:
    return (ROOT / "book" / name).read_text(encoding="utf-8")


def bank_answer(chapter: str, qid: str) -> float:
    bank = yaml_text.safe_load((ROOT / "quizzes" / f"{chapter}.yml").read_text(encoding="utf-8"))
    (question,) = [q for q in bank["questions"] if q["id"] == qid]
    return float(question["answer"])


def allreduce_ms_at_busbw(size: float, p: int, busbw_gbps: float) -> float:
    return size * busbw_factor("all_reduce", p) / (busbw_gbps * 1e9) * 1e3


# ---- hardware -------------------------------------------------------------------------------


def test_hardware_link_numbers():
    text = page("hardware/01-links-and-topology.md")
    gen5 = 32e9 * 16 * 128 / 130 / 8 / 1e9
    assert round(gen5) == 63 and "63 GB/s" in text
    assert 400 / 8 == 50 and "50 GB/s per direction" in text
    assert 18 * 25 == 450 and "450" in text and "900 GB/s bidirectional" in text


def test_hardware_worked_example_times():
    text = page("hardware/01-links-and-topology.md")
    ceiling = allreduce_ms_at_busbw(GIB, 16, 8 * 50.0)
    healthy = allreduce_ms_at_busbw(GIB, 16, 8 * 47.0)
    intra = allreduce_ms_at_busbw(GIB, 8, 370.0)
    two_nics = allreduce_ms_at_busbw(GIB, 16, 2 * 50.0)
    assert f"{ceiling:.1f}" == "5.0" and "about 5.0 ms at the ceiling" in text
    assert f"{healthy:.1f}" == "5.4" and "5.4 ms at a healthy 376 GB/s" in text
    assert f"{intra:.1f}" == "5.1" and "the 5.1 ms the same" in text
    assert 20 <= two_nics < 21 and "at least 20 ms" in text
    assert "8 × 50 = 400 GB/s" in text


def test_hardware_bank_fixed_answers():
    assert bank_answer("hardware", "two-node-allreduce") == pytest.approx(
        allreduce_ms_at_busbw(GIB, 16, 8 * 47.0), rel=1e-3
    )
    assert bank_answer("hardware", "pcie-gen5-per-direction") == pytest.approx(
        32e9 * 16 * 128 / 130 / 8 / 1e9, rel=1e-3
    )
    assert bank_answer("hardware", "nic-ceiling") == pytest.approx(2 * 400 / 8)


def test_ring_busbw_approaches_link_bandwidth():
    # the claim the hardware chapter's figure illustrates: ring busbw -> 1/beta for large n
    n, p, link = 16 * GIB, 8, 450e9
    t = closed_form_time("all_reduce", "ring", n, p, 3.4e-6, 1 / link)
    bus = n / t * busbw_factor("all_reduce", p)
    assert bus == pytest.approx(link, rel=1e-3)
    assert bus < link


# ---- inside NCCL ----------------------------------------------------------------------------


def _proto_time(n, hop, eff, p=8, link=450e9):
    return 2 * (p - 1) * hop + 2 * (p - 1) / p * n / (link * eff)


PROTOCOLS = {"LL": (0.6e-6, 0.5), "LL128": (1.9e-6, 120 / 128), "Simple": (3.4e-6, 1.0)}


def test_protocol_model_crossovers_as_stated():
    text = page("practice/01-inside-nccl.md")
    sizes = [2**k for k in range(10, 31)]
    best = [min(PROTOCOLS, key=lambda name, n=n: _proto_time(n, *PROTOCOLS[name])) for n in sizes]
    first_ll128 = sizes[best.index("LL128")]
    first_simple = sizes[best.index("Simple")]
    # "a few MiB and about 100 MiB"
    assert 2 * MIB <= first_ll128 <= 16 * MIB
    assert 64 * MIB <= first_simple <= 256 * MIB
    assert "(a few MiB and about 100 MiB)" in text
    assert "120/128 ≈ 94%" in text
    assert bank_answer("nccl-internals", "ll128-efficiency") == pytest.approx(100 * 120 / 128)


def test_ring_hops_answer_is_the_alpha_coefficient():
    hops = closed_form_time("all_reduce", "ring", 0, 16, alpha=1.0, beta=0.0)
    assert bank_answer("nccl-internals", "ring-hops") == hops == 30


# ---- training and capstone ------------------------------------------------------------------


def test_training_ddp_worked_example():
    text = page("practice/02-training.md")
    params = tc.GPT3_6_7B.parameters()
    calls = tc.ddp_calls(params, dp=16)
    sent = tc.bytes_sent_per_rank(calls)
    assert f"{params / 1e9:.2f}" == "6.65" and "6.65 \\times 10^9" in text
    assert f"{2 * params / 1e9:.1f}" == "13.3" and "13.3" in text
    assert f"{sent / 1e9:.1f}" == "24.9" and "24.9" in text
    assert round(sent / 400e9 * 1e3) == 62 and "24.9 / 400 \\approx 62$ ms" in text
    assert round(sent / 376e9 * 1e3) == 66 and "(66 ms at 376 GB/s)" in text
    assert round(tc.total_calls(calls), -1) == 510 and "about 510 buckets" in text


def test_training_plan_table_claims():
    text = page("practice/02-training.md")
    model, params = tc.GPT3_6_7B, tc.GPT3_6_7B.parameters()
    zero3 = tc.zero3_calls(params, dp=16, units=model.layers)
    ddp = tc.ddp_calls(params, dp=16)
    assert tc.bytes_sent_per_rank(zero3) / tc.bytes_sent_per_rank(ddp) == pytest.approx(1.5)
    assert tc.total_calls(zero3) == 96 and "96 larger calls" in text
    # "with fewer calls its model time is close to DDP's"
    t_ddp = tc.time_on_preset(ddp, "ib-ndr-2node")
    t_zero3 = tc.time_on_preset(zero3, "ib-ndr-2node")
    assert abs(t_zero3 / t_ddp - 1) < 0.15
    tp = tc.tensor_parallel_calls(model, tp=8)
    assert tc.total_calls(tp) == 128 and "128 all-reduces per micro-batch" in text
    sp = tc.tensor_parallel_calls(model, tp=8, sequence_parallel=True)
    assert tc.bytes_sent_per_rank(sp) == pytest.approx(tc.bytes_sent_per_rank(tp))
    cross = tc.ddp_calls(params // 8, dp=2)
    assert f"{tc.bytes_sent_per_rank(cross) / 1e9:.2f}" == "1.66" and "1.66 GB" in text
    assert bank_answer("training", "zero3-over-ddp") == 1.5


def test_training_bucket_tradeoff_numbers():
    from nccl_course.cost import predict

    text = page("practice/02-training.md")
    params = tc.GPT3_6_7B.parameters()

    def to_hide(cap):
        calls = tc.ddp_calls(
            params, 16, bucket_bytes=cap * MIB, first_bucket_bytes=min(MIB, cap * MIB)
        )
        return tc.time_on_preset(calls, "ib-ndr-2node"), tc.bytes_sent_per_rank(calls) / 400e9

    hide1, floor = to_hide(1)
    assert hide1 / floor - 1 > 5 and "more than\nfive times the bandwidth term" in text
    hide25, floor = to_hide(25)
    assert 0.6 < hide25 / floor - 1 < 0.72 and "about two thirds of the bandwidth term" in text
    tail = predict("all_reduce", 25 * MIB, "ib-ndr-2node").time_s
    assert f"{tail * 1e3:.1f}" == "0.2" and "the tail at about 0.2 ms" in text


def test_capstone_prediction_and_tail():
    from nccl_course.cost.nccl import predict
    from nccl_course.cost.nccl import tables as T
    from nccl_course.cost.nccl.estimate import table_for

    text = page("practice/05-capstone.md")
    params = tc.GPT3_6_7B.parameters()
    calls = tc.ddp_calls(params, dp=16)
    ddp_ms = tc.nccl_time_on_preset(calls, "ib-ndr-2node") * 1e3
    assert round(ddp_ms) == 88 and "about 88 ms" in text
    assert sum(c.count for c in calls if c.size_bytes == 25 * MIB) == 507 and "507 full" in text
    bucket = predict("all_reduce", 25 * MIB, "ib-ndr-2node")
    assert (bucket.algorithm, bucket.protocol) == ("NVLSTree", "Simple")
    table = table_for("ib-ndr-2node", 16)
    f, a = T.FUNCTIONS.index("AllReduce"), T.ALGORITHMS.index("NVLSTree")
    lat, bw = table.latency_us[f][a][2], table.bandwidth_GBps[f][a][2]
    assert f"{lat:.1f}" == "66.8" and round(bw) == 246 and "66.8 + 106.5 = 173" in text
    assert f"{25 * MIB / (1000 * bw):.1f}" == "106.5"
    assert round(bucket.time_s * 1e6) == 173 and round(bucket.busbw_GBps) == 284
    ring = predict("all_reduce", 25 * MIB, "ib-ndr-2node", algo="allreduce:ring")
    assert round(ring.time_s * 1e6) == 243 and round(ring.busbw_GBps) == 203
    assert "about 243 µs, a busbw of\nabout 203 GB/s" in text
    assert f"{bucket.time_s * 1e3:.1f}" == "0.2" and "about 0.2 ms, stays exposed" in text
    one_nic = tc.bytes_sent_per_rank(calls) / 47e9
    assert one_nic > 0.5 and "over half a second" in text


# ---- what comes next, debugging ---------------------------------------------------------------


def test_what_next_claim_evaluation_numbers():
    text = page("practice/04-what-comes-next.md")
    p, alpha = 16, 14e-6

    def speedup(n):
        before = closed_form_time("all_reduce", "ring", n, p, alpha, 1 / 47e9)
        return before / closed_form_time("all_reduce", "ring", n, p, alpha, 1 / 94e9)

    assert speedup(MIB) < 1.1 and "almost nothing to a 1 MiB all-reduce" in text
    assert f"{speedup(25 * MIB):.2f}" == "1.55" and "about 1.55× at a 25 MiB bucket" in text
    assert "a 25 MiB all-reduce gets about 1.55× faster" in text
    assert speedup(GIB) > 1.95 and "nearly 2× at 1 GiB" in text
    amdahl = 1 / (0.8 + 0.2 / 2)
    assert round((amdahl - 1) * 100) == 11 and "about 11% faster" in text
    assert bank_answer("training", "amdahl-link") == pytest.approx(amdahl, rel=1e-3)
    exposed_after = 0.15 / speedup(25 * MIB)
    step = 1 / (0.85 + exposed_after)
    assert round(exposed_after * 100) == 10 and round((step - 1) * 100) == 6
    assert "about 6% faster, not 2×" in text


def test_debugging_watchdog_arithmetic():
    text = page("practice/03-debugging.md")
    assert round(600 / 1.2) == 500 and "about\n500 step-times" in text
    assert bank_answer("debugging", "steps-before-watchdog") == 600 / 1.5
    assert bank_answer("debugging", "default-nccl-timeout") == 10
    assert bank_answer("debugging", "gather-output-size") == 8 * 1024
    assert bank_answer("debugging", "reduce-scatter-output-size") == 4096 / 8


def test_ring_tree_switch_on_two_nodes_is_about_one_mib():
    from nccl_course.viz.plots import comparison_data

    text = page("practice/01-inside-nccl.md")
    algos = ("ring", "double_binary_tree")
    switches = comparison_data("all_reduce", "ib-ndr-2node", None, None, algos)["switches"]
    assert len(switches) == 1
    size, below, above = switches[0]
    assert (below, above) == ("double_binary_tree", "ring")
    assert 0.5 * MIB < size < 2 * MIB and "the switch around 1 MiB in this model" in text


def test_training_bank_bucket_time_from_busbw():
    calls = [tc.CollectiveCall("all_reduce", 25 * MIB, 16, 1, "backward", "bucket")]
    t_ms = tc.time_from_busbw_table(calls, {25 * MIB: 376.0}) * 1e3
    assert bank_answer("training", "bucket-time-from-busbw") == pytest.approx(t_ms, rel=1e-3)
