"""Lab 04 checks: bandwidths, the alpha-beta fit, the regimes, and a recorded measurement."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from nccl_course.cost import busbw, busbw_factor, closed_form_time
from nccl_course.labs.parts import values_of

CHECKS = str(Path(__file__).with_name("checks.py"))


@pytest.mark.parametrize(
    "collective",
    ["all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce"],
)
@pytest.mark.parametrize("p", [2, 8])
def test_algbw_and_busbw(lab_module, collective, p):
    nbytes, seconds = 256 * 2**20, 0.004
    algbw, bus = lab_module.algbw_busbw(collective, nbytes, seconds, p)
    assert algbw == pytest.approx(nbytes / seconds / 1e9), (
        f"algbw = size / time in GB/s (1e9 bytes/s): {nbytes} B in {seconds} s is "
        f"{nbytes / seconds / 1e9:.4f} GB/s, got {algbw}"
    )
    want = busbw(collective, nbytes, seconds, p)
    assert bus == pytest.approx(want), (
        f"busbw of {collective} on {p} ranks = algbw x {busbw_factor(collective, p):.4g} = "
        f"{want:.4f} GB/s, got {bus}"
    )


SIZES = [2**k for k in range(3, 31, 3)]


@pytest.mark.parametrize(("alpha", "beta", "p"), [(20e-6, 1 / 10e9, 4), (3e-6, 1 / 350e9, 8)])
def test_fit_recovers_alpha_and_beta_of_a_ring(lab_module, alpha, beta, p):
    times = [closed_form_time("all_reduce", "ring", n, p, alpha, beta) for n in SIZES]
    a, b = lab_module.fit_line(SIZES, times)
    assert a == pytest.approx(2 * (p - 1) * alpha, rel=1e-6), (
        f"the line through exact ring all-reduce times has intercept 2(p-1) alpha = "
        f"{2 * (p - 1) * alpha:.4g} s; fit_line gave {a:.4g}"
    )
    assert b == pytest.approx(2 * (p - 1) / p * beta, rel=1e-6), "wrong slope from fit_line"
    got_alpha, got_beta = lab_module.ring_all_reduce_alpha_beta(a, b, p)
    assert got_alpha == pytest.approx(alpha, rel=1e-6), f"alpha should be {alpha}, got {got_alpha}"
    assert got_beta == pytest.approx(beta, rel=1e-6), f"beta should be {beta}, got {got_beta}"


def test_fit_weights_points_relatively(lab_module):
    # Exact line, then the largest point 10 % slow: a relative fit barely moves the intercept.
    alpha, beta, p = 10e-6, 1 / 20e9, 4
    times = [closed_form_time("all_reduce", "ring", n, p, alpha, beta) for n in SIZES]
    times[-1] *= 1.10
    a, _ = lab_module.fit_line(SIZES, times)
    assert a == pytest.approx(2 * (p - 1) * alpha, rel=0.05), (
        "weight each point by 1/t^2 (relative error): an unweighted fit lets the largest, "
        f"slowest points decide the latency; intercept {a:.3g} s vs {2 * (p - 1) * alpha:.3g} s"
    )


def test_half_bandwidth_size_and_regimes(lab_module):
    alpha, beta, p = 5e-6, 1 / 100e9, 8
    n_half = lab_module.half_bandwidth_size(alpha, beta, p)
    assert n_half == pytest.approx(p * alpha / beta), (
        f"2(p-1) alpha = 2(p-1)/p n beta gives n = p alpha / beta = {p * alpha / beta:.0f} B, "
        f"got {n_half}"
    )
    latency = closed_form_time("all_reduce", "ring", n_half, p, alpha, 0.0)
    bandwidth = closed_form_time("all_reduce", "ring", n_half, p, 0.0, beta)
    assert latency == pytest.approx(bandwidth), "at n_half both terms must be equal"
    assert lab_module.regime(1024, alpha, beta, p) == "latency-bound"
    assert lab_module.regime(64 * 2**20, alpha, beta, p) == "bandwidth-bound"


@pytest.fixture()
def per_rank(lab_once, lab_file, world_size):
    return lab_once((CHECKS, "check_all"), world_size, args=(str(lab_file),))


def test_measurement_comes_with_its_environment(per_rank, world_size, lab_backend):
    results = values_of(per_rank, "measure")
    first = results[0]
    rows = first["rows"]
    assert [r["size"] for r in rows] == [8, 512, 32768], "measure the sizes you were given"
    for row in rows:
        assert row["wrong"] == 0, f"the harness found {row['wrong']} wrong elements: {row}"
        assert row["busbw"] == pytest.approx(row["algbw"] * 2 * (world_size - 1) / world_size)
    env = first["environment"]
    assert env.get("torch") == torch.__version__, f"record torch's version, got {env.get('torch')}"
    assert env.get("backend") == lab_backend, f"record the backend, got {env.get('backend')!r}"
    for key in ("nccl_version", "gpu_names", "topology_matrix", "host"):
        assert key in env, f"the environment record needs {key!r} (None when there is none)"
