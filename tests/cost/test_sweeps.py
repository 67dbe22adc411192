"""The published sweeps: complete metadata, rows that agree with nccl-tests' own definitions
(an independent check of the transcription), and the comparison with a model."""

from __future__ import annotations

import re

import matplotlib
import pytest

from nccl_course.cost import PRESETS, busbw_factor, predict
from nccl_course.cost.published import PUBLISHED, comparison_table
from nccl_course.cost.sweeps import (
    METADATA_KEYS,
    PublishedSweep,
    SweepRow,
    SwitchPoint,
    compare_sweep,
    compare_sweeps,
    get_sweep,
    load_sweeps,
    textbook_predictor,
)
from nccl_course.viz.sweep_plots import plot_comparison, render_table

matplotlib.use("Agg")

SWEEPS = load_sweeps()
IDS = [s.id for s in SWEEPS]
MiB = 1024**2
GiB = 1024**3

# Preset names the NCCL model is adding to cost/presets.py in parallel; once they exist there,
# this set can go.
#: Sweeps whose source prints sizes from 8 MiB only.
LARGE_SIZES_ONLY = {"dstack-a3mega-2x8xh100-allgather", "dstack-a4-2x8xb200-allreduce"}

PENDING_PRESETS = {"a100-nvlink", "b200-nvls", "ib-ndr-4node", "h100-nvlink", "h200-nvlink"}


def _time_half_step(time_us: float) -> float:
    """Half the last printed digit of an nccl-tests time: it prints %.0f from 10000 us,
    %.1f from 100 us and %.2f below."""
    if time_us >= 10000:
        return 0.5
    if time_us >= 100:
        return 0.05
    return 0.005


def test_the_sweeps_load():
    assert len(SWEEPS) >= 5
    assert len(set(IDS)) == len(IDS)
    # runs of the large sizes only (a network's bandwidth) have about 10 rows
    assert all(len(s.rows) >= 10 for s in SWEEPS)


@pytest.mark.parametrize("sweep", SWEEPS, ids=IDS)
def test_metadata_is_complete(sweep):
    for key in METADATA_KEYS:
        assert key in sweep.metadata, key
    # a permalink: the exact version that was read; or an issue thread, which has no commit,
    # so the note must say whose post and when
    issue = re.match(r"https://github\.com/[\w.-]+/[\w.-]+/issues/\d+$", sweep.source_url)
    if issue:
        assert re.search(r"\b20\d\d-\d\d", sweep.metadata["source_note"]), "post date"
    else:
        assert re.match(r"https://github\.com/[\w.-]+/[\w.-]+/blob/[0-9a-f]{40}/", sweep.source_url)
    assert sweep.nccl_version.strip()
    assert sweep.metadata["command"].strip() and sweep.metadata["benchmark"].strip()
    assert sweep.ranks == sweep.metadata["gpus_per_node"] * sweep.metadata["nodes"]
    assert sweep.preset in PRESETS or sweep.preset in PENDING_PRESETS
    assert sweep.collective == "all_reduce" or busbw_factor(sweep.collective, 2)
    for point in sweep.switch_points:
        assert point.last_bytes in sweep.sizes and point.first_bytes in sweep.sizes
        assert point.last_bytes < point.first_bytes


@pytest.mark.parametrize("sweep", SWEEPS, ids=IDS)
def test_sizes_strictly_increase(sweep):
    sizes = sweep.sizes
    assert all(a < b for a, b in zip(sizes[:-1], sizes[1:], strict=True))
    # small to large: every sweep reaches the bandwidth plateau (a PCIe box's sweep stops at
    # 128 MiB, the size its source ran to); the runs their sources print from 8 MiB only are
    # kept for the networks' bandwidth
    assert sizes[0] <= (8 * MiB if sweep.id in LARGE_SIZES_ONLY else 64 * 1024)
    assert sizes[-1] >= 128 * MiB


@pytest.mark.parametrize("sweep", SWEEPS, ids=IDS)
def test_busbw_is_algbw_times_the_factor(sweep):
    factor = busbw_factor(sweep.collective, sweep.ranks)
    checked = 0
    for row in sweep.rows:
        if row.algbw_GBps is None or row.busbw_GBps is None:
            continue
        # both printed to 0.01 GB/s
        assert row.busbw_GBps == pytest.approx(
            row.algbw_GBps * factor, abs=0.005 + 0.005 * factor + 1e-9
        ), row
        checked += 1
    with_both = [r for r in sweep.rows if r.algbw_GBps is not None and r.busbw_GBps is not None]
    assert checked == len(with_both)


@pytest.mark.parametrize("sweep", SWEEPS, ids=IDS)
def test_algbw_is_size_over_time(sweep):
    for row in sweep.rows:
        if row.time_us is None or row.algbw_GBps is None:
            continue
        exact = row.size_bytes / (row.time_us * 1e3)  # bytes / us / 1e3 = GB/s
        slack = 0.005 + exact * _time_half_step(row.time_us) / row.time_us + 1e-9
        assert row.algbw_GBps == pytest.approx(exact, abs=slack), row


def test_rows_read_from_the_sources():
    # figures the sources also state in their prose
    h200 = get_sweep("stas00-8xh200-nvls")
    assert h200.row(16 * GiB).busbw_GBps == 482.26
    assert h200.row(32 * 1024).algbw_GBps == 0.82
    assert h200.nccl_version == "2.27.7"
    a100 = get_sweep("stas00-8xa100-nccl-tests")
    assert a100.row(16 * GiB) == SweepRow(16 * GiB, 127997.0, 134.22, 234.89)
    b200 = get_sweep("stas00-8xb200-nvls")
    efa = get_sweep("stas00-4x8xb200-efa")
    assert (b200.row(16 * GiB).busbw_GBps, efa.row(16 * GiB).busbw_GBps) == (845.67, 381.80)
    assert efa.ranks == 32 and efa.row(32 * 1024).time_us is None


def _synthetic() -> PublishedSweep:
    rows = (
        SweepRow(512 * 1024, 90.0, 5.83, 10.20),
        SweepRow(MiB, 100.0, 10.49, 10.0),  # inconsistent on purpose: only busbw is compared
        SweepRow(2 * MiB, None, 20.0, 35.0),
        SweepRow(4 * MiB, None, None, 70.0),
    )
    return PublishedSweep(
        id="synthetic",
        title="synthetic",
        source_url="https://example.invalid",
        collective="all_reduce",
        preset="h100-nvls",
        ranks=8,
        algo="Ring",
        proto="LL",
        nccl_version="0",
        rows=rows,
        switch_points=(SwitchPoint(MiB, 2 * MiB, "RING/LL", "NVLS/SIMPLE"),),
    )


class _Pred:
    def __init__(self, size):
        self.time_s = 1e-4
        self.busbw_GBps = 12.5
        self.algorithm = "ring" if size < 2 * MiB else "nvls"
        self.protocol = "LL" if size < 2 * MiB else "Simple"


def test_compare_sweep_states_exact_errors():
    calls = []

    def predictor(collective, size_bytes, preset, *, ranks, algo, proto):
        calls.append((collective, size_bytes, preset, ranks, algo, proto))
        return _Pred(size_bytes)

    result = compare_sweep(_synthetic(), predictor)
    assert calls[1] == ("all_reduce", MiB, "h100-nvls", 8, "Ring", "LL")
    assert [r.busbw_rel_error for r in result.rows] == pytest.approx(
        [(12.5 - 10.2) / 10.2, 0.25, (12.5 - 35) / 35, (12.5 - 70) / 70]
    )
    # printed time; size / algbw; size x 2(p-1)/p / busbw: 2 MiB / 20 GB/s = 4 MiB x 1.75 / 70
    assert [r.measured_time_s for r in result.rows] == pytest.approx(
        [90e-6, 100e-6, 104.8576e-6, 104.8576e-6]
    )
    assert [r.time_derived for r in result.rows] == [False, False, True, True]
    assert result.rows[1].time_rel_error == pytest.approx(0.0)
    assert result.rows[2].time_rel_error == pytest.approx((100 - 104.8576) / 104.8576)
    # median over sizes >= 1 MiB of |0.25|, |-0.642857|, |-0.821429|
    assert result.median_abs_busbw_error == pytest.approx(22.5 / 35)
    assert result.predicted_switch_points == (SwitchPoint(MiB, 2 * MiB, "RING/LL", "NVLS/SIMPLE"),)
    assert result.reported_switch_points == result.predicted_switch_points


def test_zero_busbw_has_no_relative_error():
    sweep = get_sweep("a3mega-2x8xh100")  # prints 0.00 GB/s for the smallest sizes
    result = compare_sweep(sweep, lambda *a, **k: _Pred(a[1]))
    assert result.rows[0].measured_busbw_GBps == 0.0
    assert result.rows[0].busbw_rel_error is None
    assert result.rows[0].time_rel_error == pytest.approx((100 - 135.8) / 135.8)


def test_textbook_model_against_the_h200_sweep():
    sweep = get_sweep("stas00-8xh200-nvls")
    result = compare_sweep(sweep, textbook_predictor)
    for row in result.rows:
        direct = predict("all_reduce", row.size_bytes, "h200-nvls", ranks=8)
        assert row.predicted_busbw_GBps == direct.busbw_GBps
        assert row.algorithm == direct.algorithm
    big = [r.busbw_rel_error for r in result.rows if r.size_bytes >= MiB]
    assert result.median_abs_busbw_error == pytest.approx(sorted(abs(e) for e in big)[7])
    assert result.reported_switch_points == (SwitchPoint(MiB, 2 * MiB, "RING/LL", "NVLS/SIMPLE"),)


def test_textbook_adapter_maps_forced_algorithms_and_refuses_unknown_presets():
    ring = textbook_predictor("all_reduce", GiB, "h200-nvlink", ranks=8, algo="Ring", proto="LL")
    assert ring.algorithm == "ring"
    with pytest.raises(ValueError):
        textbook_predictor("all_reduce", GiB, "h200-nvls", ranks=8, algo="CollNetDirect")
    done, skipped = compare_sweeps(textbook_predictor)
    priced = {c.sweep.id for c in done}
    assert {"stas00-8xh200-nvls", "a3mega-2x8xh100"} <= priced
    assert priced | {s for s, _ in skipped} == set(IDS)
    assert all(sweep_id not in priced for sweep_id, _ in skipped)


def test_table_and_plot():
    result = compare_sweep(_synthetic(), lambda *a, **k: _Pred(a[1]))
    lines = render_table(result)
    assert len(lines) == 2 + 4 + 4
    assert lines[3].startswith("| 1 MiB | 100.0 | 100.0 | +0% | 10.00 | 12.50 | +25% |")
    assert lines[4].split(" | ")[1] == "104.9*"
    assert "64.3%" in lines[-3]
    assert lines[-2] == "reported switch points: RING/LL up to 1 MiB, NVLS/SIMPLE from 2 MiB"
    fig = plot_comparison(result)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and len(ax.lines) == 2


def test_published_rows_quote_the_tagged_run():
    rows = {(r["preset"], r["metric"]): r for r in comparison_table()}
    latency = rows[("h200-nvls", "time_s")]
    assert latency["published"] == pytest.approx(32 * 1024 / 0.82e9)  # ~40 us, not ~18
    assert "NCCL 2.27.7" in latency["versions"] and "2.9.1" in latency["versions"]
    assert rows[("h200-nvls", "busbw_GBps")]["published"] == 482.26
    nic = next(p for p in PUBLISHED if p.metric == "busbw_GBps_per_nic")
    assert "nccl-tests/issues/290" in nic.source and "946" not in nic.source
