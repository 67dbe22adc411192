"""The benchmark harness: sizes, checking, fit, the table, JSON and plot, and the CLI end to end."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from nccl_course.bench.collectives import count_wrong, pattern, reduce_patterns
from nccl_course.bench.harness import sweep_sizes
from nccl_course.bench.report import fit_alpha_beta, format_table, model_busbw
from nccl_course.cost import busbw_factor, closed_form_time
from nccl_course.launcher import launch

WORKERS = str(Path(__file__).with_name("workers.py"))


def test_sweep_sizes_like_nccl_tests_flags():
    assert sweep_sizes(8, 128) == [8, 16, 32, 64, 128]
    assert sweep_sizes(8, 100) == [8, 16, 32, 64]
    assert sweep_sizes(1024, 1024**3, 4)[-1] == 1024**3
    assert len(sweep_sizes(8, 2**30)) == 28  # 8 B .. 1 GiB, factor 2
    assert sweep_sizes(100, 400, step=100) == [100, 200, 300, 400]
    with pytest.raises(ValueError):
        sweep_sizes(64, 8)


def test_patterns_and_wrong_counts():
    p, count = 4, 26
    want = reduce_patterns(p, count, "sum", "cpu")
    manual = [sum((7 * r + 3 * i) % 13 for r in range(p)) for i in range(count)]
    assert want.tolist() == manual
    assert reduce_patterns(p, 3, "max", "cpu", offset=2).tolist() == [
        max((7 * r + 3 * i) % 13 for r in range(p)) for i in (2, 3, 4)
    ]
    got = torch.tensor(want.tolist(), dtype=torch.bfloat16)  # small integers are exact
    assert count_wrong(got, want) == 0
    got[5] += 1
    got[7] -= 1
    assert count_wrong(got, want) == 2
    assert pattern(2, 4, torch.float32, "cpu").tolist() == [1.0, 4.0, 7.0, 10.0]


def test_reduction_check_is_chunked_and_matches_the_full_reduction(monkeypatch):
    """Past one chunk (and at an offset, as reduce_scatter asks) the periodic expansion equals
    the reduction of every rank's full pattern, and a wrong element in a later chunk counts."""
    from nccl_course.bench.collectives import common

    monkeypatch.setattr(common, "CHECK_CHUNK", 10)  # 5 chunks for 47 elements
    p, count, offset = 5, 47, 31
    for redop in ("sum", "max", "min", "avg"):
        want = reduce_patterns(p, count, redop, "cpu", offset=offset)
        full = torch.stack([pattern(r, offset + count, torch.float64, "cpu") for r in range(p)])
        reference = {
            "sum": full.sum(0),
            "max": full.max(0).values,
            "min": full.min(0).values,
            "avg": full.mean(0),
        }[redop][offset:]
        assert want.tolist() == reference.tolist()
        got = reference.clone().to(torch.float32)
        assert count_wrong(got, want, redop) == 0
        got[43] += 5
        assert count_wrong(got, want, redop) == 1
    assert count_wrong(torch.zeros(46), reduce_patterns(p, 47, "sum", "cpu")) == 47


@pytest.mark.parametrize(("collective", "p"), [("all_reduce", 4), ("all_gather", 3), ("gather", 8)])
def test_fit_recovers_the_model_it_was_generated_from(collective, p):
    alpha, beta = 12e-6, 1 / 40e9
    sizes = [2**k for k in range(3, 31, 3)]
    if collective == "gather":  # no closed form: t = alpha + S * beta
        times = [alpha + s * beta for s in sizes]
    else:
        algorithm = {"all_reduce": "ring", "all_gather": "ring"}[collective]
        times = [closed_form_time(collective, algorithm, s, p, alpha, beta) for s in sizes]
    fit = fit_alpha_beta(collective, p, sizes, times)
    assert fit.alpha_s == pytest.approx(alpha, rel=1e-9)
    assert fit.beta_s_per_byte == pytest.approx(beta, rel=1e-9)
    assert fit.rms_rel_error < 1e-9
    # The model's busbw at a huge size tends to the link speed (beta), as busbw is meant to.
    assert model_busbw(collective, p, 2**40, alpha, beta) == pytest.approx(
        40.0 * (busbw_factor(collective, p) if collective == "gather" else 1.0), rel=1e-3
    )


def test_fit_never_returns_a_negative_latency():
    sizes = [8, 64, 512, 4096]
    times = [1e-3 + s / 1e9 for s in sizes]
    times[0] = 1e-7  # a fast first point pulls the line's intercept below zero
    fit = fit_alpha_beta("all_reduce", 2, sizes, times)
    assert fit.alpha_s >= 0 and fit.beta_s_per_byte >= 0


@pytest.fixture(scope="module")
def every_collective_on_three_ranks():
    return launch(
        (WORKERS, "every_collective"), 3, args=([8, 1000, 65536],), backend="gloo", timeout_s=240
    )


def test_every_collective_runs_and_checks_clean(every_collective_on_three_ranks):
    results = every_collective_on_three_ranks
    for rank_result in results[1:]:
        assert rank_result == results[0], "every rank reports the same, agreed rows"
    for name, rows in results[0].items():
        assert [r["wrong"] for r in rows] == [0, 0, 0], f"{name}: {rows}"
        for row in rows:
            assert row["time_us"] > 0
            seconds = row["time_us"] * 1e-6
            assert row["algbw"] == pytest.approx(row["size"] / seconds / 1e9)
            assert row["busbw"] == pytest.approx(row["algbw"] * busbw_factor(name, 3))
            if name in ("all_gather", "reduce_scatter", "all_to_all", "gather", "scatter"):
                assert row["count"] % 3 == 0, f"{name}: the total count is whole blocks per rank"
            assert row["root"] == (
                1 if name in ("broadcast", "reduce", "gather", "scatter") else -1
            )


def test_a_wrong_result_is_counted():
    rows = launch(
        (WORKERS, "with_broken_all_reduce"), 2, args=([64, 4096],), backend="gloo", timeout_s=120
    )[0]
    assert all(r["wrong"] > 0 for r in rows), rows


def test_table_has_nccl_tests_columns():
    result = {
        "collective": "all_reduce",
        "nranks": 4,
        "backend": "gloo",
        "config": {"warmup": 5, "iters": 20},
        "environment": {"torch": "2.13.0"},
        "rows": [
            {
                "size": 1024,
                "count": 256,
                "type": "float",
                "redop": "sum",
                "root": -1,
                "time_us": 12.5,
                "algbw": 0.08192,
                "busbw": 0.12288,
                "wrong": 0,
                "iters": 20,
            }
        ],
    }
    table = format_table(result)
    header = next(line for line in table.splitlines() if "size" in line and "busbw" in line)
    assert header.split()[1:] == [
        "size",
        "count",
        "type",
        "redop",
        "root",
        "time",
        "algbw",
        "busbw",
        "#wrong",
    ]
    row = next(line for line in table.splitlines() if line.strip().startswith("1024"))
    assert row.split() == ["1024", "256", "float", "sum", "-1", "12.50", "0.082", "0.123", "0"]
    assert "Avg bus bandwidth    : 0.1229 GB/s" in table


def test_cli_all_reduce_on_four_ranks_prints_table_json_and_plot(tmp_path):
    out = tmp_path / "ar.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nccl_course",
            "bench",
            "all_reduce",
            "--nproc",
            "4",
            "-b",
            "1K",
            "-e",
            "1M",
            "-n",
            "3",
            "-w",
            "1",
            "--preset",
            "h100-nvls",
            "--json",
            str(out),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line and not line.startswith("#")]
    # nccl-tests' units: 1K .. 1M is 1024 .. 1048576 bytes, 1 MiB included
    assert [int(line.split()[0]) for line in lines] == [1024 * 2**k for k in range(11)]
    record = json.loads(out.read_text())
    assert record["nranks"] == 4 and record["backend"] == "gloo"
    env = record["environment"]
    assert env["torch"] == torch.__version__
    assert {"nccl_version", "gpu_names", "topology_matrix", "nccl_env", "host"} <= set(env)
    assert record["fit"]["alpha_s"] >= 0 and not math.isnan(record["fit"]["beta_s_per_byte"])
    # NCCL's model and the textbook model overlaid, with NCCL's choice per size recorded
    from nccl_course.cost.nccl import predict

    nccl = record["nccl_prediction"]
    expected = predict("all_reduce", 2**20, "h100-nvls", ranks=4)
    assert nccl["choice"][str(2**20)] == f"{expected.algorithm}/{expected.protocol}"
    assert nccl["busbw_GBps"][str(2**20)] == expected.busbw_GBps
    assert record["preset_prediction"]["preset"] == "h100-nvls"
    png = out.with_suffix(".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_preset_prediction_overlay_follows_the_cost_model():
    from nccl_course.bench.cli import guess_preset
    from nccl_course.bench.report import preset_overlay
    from nccl_course.cost import predict

    label, busbw_at = preset_overlay("all_reduce", 8, "h100-nvlink")
    assert "h100-nvlink" in label
    assert busbw_at(2**30) == predict("all_reduce", 2**30, "h100-nvlink", ranks=8).busbw_GBps
    on_h200 = {
        "backend": "nccl",
        "nranks": 8,
        "environment": {"gpu_names": ["NVIDIA H200"] * 8},
    }
    assert guess_preset(on_h200) == "h200-nvlink"
    assert guess_preset(on_h200 | {"backend": "gloo"}) is None  # CPU runs get the fit only
    assert guess_preset(on_h200 | {"nranks": 16}) is None  # several nodes: no single-node preset


def test_nccl_overlay_marks_the_choice_nccl_would_make():
    from nccl_course.bench.report import nccl_overlay
    from nccl_course.cost.nccl import predict

    label, busbw_at, choice_at = nccl_overlay("all_reduce", 8, "h200-nvls")
    assert "NCCL 2.30.7 model" in label and "h200-nvls" in label
    assert choice_at(32 * 1024) == "Ring/LL" and choice_at(2**30) == "NVLS/Simple"
    assert busbw_at(2**30) == predict("all_reduce", 2**30, "h200-nvls", ranks=8).busbw_GBps
    # all_to_all: the course's model of NCCL's grouped sends and receives, no tuner choice
    _, _, p2p_choice_at = nccl_overlay("all_to_all", 8, "h200-nvls")
    assert p2p_choice_at(1024) == "P2P/LL" and p2p_choice_at(2**30) == "P2P/Simple"
    with pytest.raises(ValueError):
        nccl_overlay("gather", 8, "h200-nvls")  # grouped p2p the model does not price


def test_time_is_the_mean_over_ranks_as_nccl_tests_reports():
    # nccl-tests' default (-a 1) averages the per-rank times; 1, 2, 3 -> 2.
    from nccl_course.launcher import launch

    assert launch((WORKERS, "mean_of_rank_numbers"), 3, backend="gloo", timeout_s=120) == [2.0] * 3


def test_one_rank_warns_and_writes_no_infinite_fit(tmp_path):
    """On one rank nothing moves between ranks: the run says so and the JSON stays valid JSON
    (a fit on busbw = 0 would give 1/beta = inf, which JSON cannot hold)."""
    out = tmp_path / "one.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nccl_course",
            "bench",
            "all_reduce",
            "--nproc",
            "1",
            "--backend",
            "gloo",
            "-b",
            "8",
            "-e",
            "1K",
            "-n",
            "2",
            "-w",
            "1",
            "--json",
            str(out),
            "--no-plot",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "warning: one rank moves no data between ranks" in done.stderr
    assert "inf" not in done.stdout
    record = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"JSON has {c}"))
    assert "fit" not in record and record["warning"].startswith("one rank")
