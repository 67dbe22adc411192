"""Every registered generator's answer, recomputed here from the drawn parameters with formulas
written out independently (nccl-tests' busbw factors, the alpha-beta closed forms)."""

from __future__ import annotations

import random

import pytest

from nccl_course.quiz.generators import GENERATORS, Draw, resolve

BINARY = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def size_bytes(text: str) -> int:
    number, unit = text.split()
    return int(float(number) * BINARY[unit])


def factor(collective: str, p: int) -> float:
    # nccl-tests doc/PERFORMANCE.md
    return {
        "all-reduce": 2 * (p - 1) / p,
        "all-gather": (p - 1) / p,
        "reduce-scatter": (p - 1) / p,
        "all-to-all": (p - 1) / p,
        "broadcast": 1.0,
        "reduce": 1.0,
    }[collective]


def expected_training(name: str, params: dict) -> float:
    """The generators of quizzes/training.yml (nccl_course.quiz.training_generators)."""
    if name == "ddp_bytes_per_gpu":  # a ring all-reduce of every gradient
        p, n = params["dp"], int(float(params["billions"]) * 1e9)
        return 2 * (p - 1) / p * n * params["bytes"] / 1e9
    if name == "zero3_bytes_per_gpu":  # two bf16 all-gathers and one bf16 reduce-scatter
        p, n = params["dp"], int(float(params["billions"]) * 1e9)
        return 3 * (p - 1) / p * n * 2 / 1e9
    if name == "tp_activation_mib":  # b x s x h bf16 elements
        return params["batch"] * params["seq"] * params["hidden"] * 2 / 2**20
    if name == "ddp_bucket_count":  # one 1 MiB bucket, then 25 MiB ones
        grad = params["millions"] * 10**6 * (2 if params["dtype"] == "bf16" else 4)
        return 1 + -(-(grad - 2**20) // (25 * 2**20))
    if name == "young_checkpoint_interval":  # sqrt(2 C M), M = GPU MTBF / GPUs (Young 1974)
        mtbf_s = float(params["unit_mtbf_h"].replace(",", "")) * 3600 / params["gpus"]
        return (2 * params["checkpoint_s"] * mtbf_s) ** 0.5 / 60
    if name == "failure_cost_minutes":  # timeout + restart + half an interval
        return params["timeout_min"] + params["restart_min"] + params["interval_min"] / 2
    if name == "alltoall_network_busbw":  # NIC GB/s x (P - 1) / (P - g), P = nodes x gpus
        p, g = params["nodes"] * params["gpus"], params["gpus"]
        return params["nic_gbit"] / 8 * (p - 1) / (p - g)
    if name in PROXY_GENERATORS:
        return expected_proxy(name, params)
    if name == "moe_device_saving_us":  # 3 calls + 1 wait against 2 launches, per layer
        return 2 * float(params["fixed_us"]) * params["layers"]
    if name == "moe_device_saving_share":  # 2F / (4F + C + 2X), in per cent
        f, c, x = float(params["fixed_us"]), params["counts_us"], params["tokens_us"]
        return 100 * 2 * f / (4 * f + c + 2 * x)
    if name == "nccl_ring_buffer_mib":  # per channel: receiver rounded to 2 MiB + 2 MiB sender
        receiver = 4096 + 524288 + 4915200 + params["buffsize_mib"] * 2**20
        return params["channels"] * (2 * -(-receiver // 2**21) + 2)
    if name == "nccl_nvls_buffer_mib":  # channels x 2 x (chunk x 8 steps) x heads
        return params["channels"] * 2 * params["chunk_kib"] * 8 / 1024 * params["heads"]
    if name == "nic_port_GBps":  # ports x 4 lanes x Gb/s per lane / 8 bits
        return params["nics"] * 4 * float(params["lane_gbit"]) / 8
    if name == "roce_tc_from_dscp":  # DSCP in the upper six bits of the traffic class byte
        return params["dscp"] * 4
    raise AssertionError(f"no independent formula for generator {name!r}: add one here")


PROXY_GENERATORS = ("proxy_step_kib", "ring_allreduce_proxy_steps", "ring_allreduce_slice_kib")


def expected_proxy(name: str, params: dict) -> float:
    """The generators of quizzes/inside-proxy.yml: NCCL 2.30.7's 8 steps per buffer; Ring/Simple
    all-reduce chunks of 4 steps (2 MiB) sent as 2 slices, a slice at least 1/32 of 1 MiB."""
    if name == "proxy_step_kib":
        return params["buffsize"] / 8 / 1024
    per_channel = params["message_mib"] * 2**20 // params["channels"]
    p = params["ranks"]
    loops = -(-per_channel // (p * 2**21))
    if name == "ring_allreduce_proxy_steps":
        return 2 * (p - 1) * loops * 4
    if loops > 1:
        return 1024.0
    chunk = -(-per_channel // p)
    return min(chunk, max(chunk / 2, 32 * 1024)) / 1024


def expected(name: str, params: dict) -> float:
    if "size" not in params:
        return expected_training(name, params)
    s = size_bytes(params["size"])
    if name in ("collective_time_from_busbw", "allreduce_time_from_busbw"):
        p = params["ranks"]
        return s * factor(params["collective"], p) / (float(params["busbw"]) * 1e9) * 1e3
    if name == "busbw_from_time":
        p = params["ranks"]
        return s / (float(params["ms"]) * 1e-3) / 1e9 * factor(params["collective"], p)
    if name == "algbw_from_time":
        return s / (float(params["ms"]) * 1e-3) / 1e9
    if name == "ring_allreduce_alpha_beta":
        p, alpha = params["ranks"], float(params["alpha_us"]) * 1e-6
        link = float(params["link"]) * 1e9
        return (2 * (p - 1) * alpha + 2 * (p - 1) / p * s / link) * 1e3
    if name == "ring_bytes_sent_per_rank":
        p = params["ranks"]
        return factor(params["collective"], p) * s / 2**20
    if name == "pipelined_broadcast_time":
        p, k = params["ranks"], params["chunks"]
        alpha, link = float(params["alpha_us"]) * 1e-6, float(params["link"]) * 1e9
        return (p + k - 2) * (alpha + s / k / link) * 1e3
    if name == "preset_ring_allreduce_time":
        p, alpha = params["ranks"], float(params["alpha_us"]) * 1e-6
        link = float(params["link"]) * 1e9
        return (2 * (p - 1) * alpha + 2 * (p - 1) / p * s / link) * 1e6
    if name == "alltoall_network_busbw":  # NIC GB/s x (P - 1) / (P - g), P = nodes x gpus
        p, g = params["nodes"] * params["gpus"], params["gpus"]
        return params["nic_gbit"] / 8 * (p - 1) / (p - g)
    raise AssertionError(f"no independent formula for generator {name!r}: add one here")


# The choose generators draw options, not a number: tests/quiz/test_choose.py checks them.
NUMBER_GENERATORS = sorted(
    n for n, fn in GENERATORS.items() if fn.__module__ != "nccl_course.quiz.choose_generators"
)


@pytest.mark.parametrize("name", NUMBER_GENERATORS)
def test_generator_answer_matches_independent_formula(name):
    fn = GENERATORS[name]
    seen = set()
    for seed in range(40):
        draw = fn(random.Random(seed))
        assert isinstance(draw, Draw)
        assert draw.answer == pytest.approx(expected(name, draw.params), rel=1e-12)
        seen.add(round(draw.answer, 9))
        for value, feedback in draw.mistakes:
            assert feedback.strip()
            assert abs(value - draw.answer) > 0.02 * abs(draw.answer), (name, draw.params, value)
    assert len(seen) > 5, f"{name}: 40 seeds gave only {len(seen)} different answers"


@pytest.mark.parametrize("collective", ["all_gather", "reduce_scatter", "all_to_all", "broadcast"])
def test_collective_options(collective):
    for seed in range(10):
        draw = GENERATORS["collective_time_from_busbw"](random.Random(seed), collective=collective)
        assert draw.answer == pytest.approx(
            expected("collective_time_from_busbw", draw.params), rel=1e-12
        )
        draw = GENERATORS["busbw_from_time"](random.Random(seed), collective=collective)
        assert draw.answer == pytest.approx(expected("busbw_from_time", draw.params), rel=1e-12)


class Scripted(random.Random):
    """An RNG whose choice() returns scripted values, to pin a generator to a known case."""

    def __init__(self, values):
        super().__init__(0)
        self.values = list(values)

    def choice(self, seq):
        value = self.values.pop(0)
        assert value in seq, (value, seq)
        return value


def test_issue_example_8_ranks_4gib_370():
    # 8 ranks, 4 GiB, 370 GB/s busbw: t = 4 * 2^30 * 1.75 / 370e9 s = 20.31 ms
    draw = GENERATORS["allreduce_time_from_busbw"](Scripted([8, 4 * 2**30, 370.0]))
    assert draw.params["size"] == "4 GiB"
    assert draw.answer == pytest.approx(20.3138, rel=1e-4)


def test_ring_alpha_beta_known_case():
    # p=4, 1 GiB, alpha 5 us, 100 GB/s: 6*5us + 1.5 * 2^30 / 1e11 s = 0.03 + 16.106 ms
    draw = GENERATORS["ring_allreduce_alpha_beta"](Scripted([4, 2**30, 5.0, 100.0]))
    assert draw.answer == pytest.approx(0.03 + 16.10612736, rel=1e-9)


def test_preset_generator_uses_published_link_speeds():
    # h100-nvlink: 8 GPUs, 0.6 us per hop (NCCL tuning.cc, LL), 450 GB/s per direction (NVLink 4)
    draw = GENERATORS["preset_ring_allreduce_time"](Scripted(["h100-nvlink", 2**20]))
    assert (draw.params["ranks"], draw.params["alpha_us"], draw.params["link"]) == (8, "0.6", "450")
    assert draw.answer == pytest.approx(14 * 0.6 + 1.75 * 2**20 / 450e9 * 1e6, rel=1e-12)


def test_resolve_registered_names_only():
    assert resolve("algbw_from_time") is GENERATORS["algbw_from_time"]
    # the training generators register by name too, when nccl_course.quiz is imported
    assert resolve("ddp_bucket_count").__module__ == "nccl_course.quiz.training_generators"
    with pytest.raises(LookupError, match="not found"):
        resolve("nope")
    # no "module:function" loading: a bank names a registered generator
    with pytest.raises(LookupError, match="not found"):
        resolve("nccl_course.quiz.generators:algbw_from_time")
