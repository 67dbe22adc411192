"""The call-cost model: its terms against a computation of their own, the fitted constants
against a refit, the published sweeps, the learner's calibration and its preset file."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from statistics import median

import pytest

from nccl_course.cli import main
from nccl_course.cost.measured import read_measurement
from nccl_course.cost.nccl import call_cost as C
from nccl_course.cost.nccl import predict
from nccl_course.cost.nccl.call_fit import (
    calibrate,
    fit_constants,
    fit_network,
    median_abs_error,
    sweep_observations,
)
from nccl_course.cost.preset_file import PresetFileError, load_preset_file, personal_preset
from nccl_course.cost.presets import get_preset
from nccl_course.cost.sweeps import call_cost_predictor, compare_sweep, get_sweep, load_sweeps

DATA = Path(__file__).parent / "nccl_tests_output"
ALL_REDUCE = DATA / "all_reduce_16xH100_issue309.txt"
MiB, GiB = 2**20, 2**30

#: Sweeps whose median error over all sizes is above 15 % today, and why (acceptance 1 of the
#: call-cost work is not met on them; the book's table shows them).
NOT_YET_WITHIN_15_PERCENT = {
    "dranet-gke-a4-2x8xb200-allgather": (
        "246-320 us at 1-64 KiB, over 3x NCCL's slowest choice there (Ring/Simple, ~74 us)"
    ),
    "dranet-mpijob-2x1xh200-allreduce": (
        "set_nccl_env.sh hands the choice to gIB's unpublished tuner config; up to 64 KiB the "
        "times follow LL128, not LL"
    ),
    "nvidia-tools-image-2x2xl40s-allreduce": (
        "19.6 %: no GPUDirect RDMA, bytes staged in host memory run at ~2/3 of NCCL's 15 GB/s ring"
    ),
    "panoramic-4xa100-pcie": (
        "23.8 %: SHM through host memory runs at ~1/2 of NCCL's 10 GB/s ring across the sockets"
    ),
}


def test_the_terms_are_the_formula():
    cost = C.call_cost(
        n_bytes=16 * MiB,
        protocol="Simple",
        channels=16,
        latency_us=10.0,
        estimate_us=110.0,
        nodes=2,
        harness_name="torch.distributed",
        network_name="tcpxo",
    )
    net = C.NETWORKS["tcpxo"]
    cap = 16 * 4 * MiB
    fill = C.FILL_FRACTION["Simple"] * 100.0 * (cap / (16 * MiB + cap))
    assert cost.fixed_us == C.HARNESSES["torch.distributed"].fixed_us
    assert cost.network_us == net.latency_us
    assert cost.fill_us == pytest.approx(fill / net.efficiency)
    assert cost.transfer_us == pytest.approx(100.0 / net.efficiency)
    assert cost.total_us == pytest.approx(
        cost.fixed_us + net.latency_us + 10.0 + (fill + 100.0) / net.efficiency
    )


def test_the_fill_grows_with_the_size_then_levels_off():
    def fill(n):
        return C.call_cost(
            n_bytes=n,
            protocol="Simple",
            channels=8,
            latency_us=5,
            estimate_us=5 + n / 1e5,
            nodes=1,
        ).fill_us

    cap_us = C.FILL_FRACTION["Simple"] * 8 * 4 * MiB / 1e5
    assert fill(1024) == pytest.approx(C.FILL_FRACTION["Simple"] * 1024 / 1e5, rel=1e-3)
    assert fill(1024) < fill(MiB) < fill(64 * MiB) < fill(16 * GiB) < cap_us
    assert fill(16 * GiB) == pytest.approx(cap_us, rel=0.01)


def test_the_call_keeps_ncclss_choice_and_costs_at_least_its_estimate():
    for size in (8, 64 * 1024, 4 * MiB, GiB):
        for harness in C.HARNESSES:
            p = predict("all_reduce", size, "ib-ndr-2node", harness=harness)
            plain = predict("all_reduce", size, "ib-ndr-2node")
            assert (p.algorithm, p.protocol, p.channels, p.time_s) == (
                plain.algorithm,
                plain.protocol,
                plain.channels,
                plain.time_s,
            )
            assert p.call_time_s >= p.time_s
            assert p.call_time_s * 1e6 == pytest.approx(sum(p.call_terms_us.values()))
    with pytest.raises(ValueError, match="unknown harness"):
        predict("all_reduce", 8, "h100-nvls", harness="mpi")


def test_the_network_share_slows_only_what_the_network_bounds():
    # A4: NVLSTree's per-channel figure is NVLink SHARP's (48 x NVLS efficiency 0.74 x 7/8 x 2
    # for all-reduce = 62.2 GB/s), below the network's (48 x 2 on two nodes = 96) and the
    # per-channel cap (96): NCCL takes the smallest, so the RoCE share does not apply
    from nccl_course.cost.nccl import system_for, table_for
    from nccl_course.cost.nccl.estimate import node_nvls_busbw

    table = table_for("a4-2node")
    assert not table.is_network_bound("AllReduce", "NVLSTree")
    assert table.is_network_bound("AllReduce", "Ring")
    intra = 48.0 * 0.74 * 7 / 8 * 2
    # the table holds algorithm bandwidth: 8 channels' bus bandwidth x ranks / steps (16 / 30)
    assert table.bandwidth_GBps[4][5][2] == pytest.approx(
        8 * intra * 16 / 30
    )  # AllReduce, NVLSTree, Simple
    size, net = 8 * GiB, C.NETWORKS["gke-roce"]
    tree = predict("all_reduce", size, "a4-2node")
    assert (tree.algorithm, tree.network_bound) == ("NVLSTree", False)
    # ... and the bytes move at the rate NVLS reaches in one B200 node (bus bandwidth)
    one_node = table_for("b200-nvls").bandwidth_GBps[4][4][2] * 14 / 8  # AllReduce, NVLS, Simple
    assert node_nvls_busbw(system_for("a4-2node")) == pytest.approx(one_node)
    assert tree.call_terms_us["transfer_us"] == pytest.approx(size * 30 / 16 / (1e3 * one_node))
    assert tree.call_terms_us["transfer_us"] < tree.time_s * 1e6 - _latency(tree)  # tuner's
    ring = predict("all_gather", size, "a4-2node")
    assert (ring.algorithm, ring.network_bound) == ("Ring", True)
    assert ring.call_terms_us["transfer_us"] == pytest.approx(
        (ring.time_s * 1e6 - _latency(ring)) / net.efficiency
    )
    # A3 Mega's 200 Gb/s NICs are slower than NVLink SHARP there: the share applies
    assert table_for("a3-mega-2node").is_network_bound("AllReduce", "NVLSTree")
    assert not table_for("h100-nvls").is_network_bound("AllReduce", "NVLS")  # one node
    # on H100 the tuner's 2-node NVLSTree figure is within 3 % of one node's NVLS; beyond two
    # nodes, and on one, the tuner's figure stays
    two = table_for("ib-ndr-2node").bandwidth_GBps[4][5][2] * 30 / 16
    assert node_nvls_busbw(system_for("ib-ndr-2node")) == pytest.approx(two, rel=0.035)
    assert node_nvls_busbw(system_for("ib-ndr-4node")) == 0.0
    assert node_nvls_busbw(system_for("h100-nvls")) == 0.0


def test_the_cli_says_whether_the_network_share_applied(capsys):
    assert main(["model", "all_reduce", "--size", "8GiB", "--preset", "a4-2node", "--nccl"]) == 0
    out = capsys.readouterr().out
    assert "NVLink SHARP inside the node, not the network, sets NVLSTree's bandwidth" in out
    assert main(["model", "all_gather", "--size", "8GiB", "--preset", "a4-2node", "--nccl"]) == 0
    assert "gke-roce achieves 68% of the tuner's network bandwidth" in capsys.readouterr().out
    assert main(["model", "all_reduce", "--size", "8GiB", "--preset", "h100-nvls", "--nccl"]) == 0
    assert "  network  " not in capsys.readouterr().out  # one node: no network


def _latency(p) -> float:
    """NCCL's own latency for the prediction's choice (its estimate at 0 bytes)."""
    from nccl_course.cost.nccl import function_name, table_for

    return table_for(p.preset).time_us(function_name(p.collective), p.algorithm, p.protocol, 0)


def test_blackwell_nvlink_hops_add_what_the_scaled_table_gives():
    from nccl_course.cost.nccl import hop_latency as H
    from nccl_course.cost.nccl import system_for
    from nccl_course.cost.nccl.releases import CURRENT

    scale = H.BLACKWELL_NVLINK_HOP_SCALE
    b200 = system_for("b200-nvls")
    # one node, 8 ranks: Ring/LL all-reduce crosses 2 x 7 NVLink hops of 0.6 us in NCCL's table
    ring_ll = H.extra_latency_us("AllReduce", "Ring", "LL", b200, CURRENT)
    assert ring_ll == pytest.approx(14 * 0.6 * (scale - 1))
    # NVLS: one hop of NCCL's NVLS Simple latency (hwLat[NVLINK][NVLS][Simple] = 25 us)
    assert H.extra_latency_us("AllReduce", "NVLS", "Simple", b200, CURRENT) == pytest.approx(
        25.0 * (scale - 1)
    )
    # before Blackwell, nothing; the call's latency term carries it, NCCL's estimate does not
    assert H.extra_latency_us("AllReduce", "Ring", "LL", system_for("h200-nvls"), CURRENT) == 0
    p = predict("all_reduce", 64 * 1024, "b200-nvls")
    assert p.call_terms_us["latency_us"] == pytest.approx(_latency(p) + ring_ll)


def test_the_hop_scale_is_the_fit_on_its_sweep_and_holds_on_the_held_out_one():
    from nccl_course.cost.nccl import hop_latency as H
    from nccl_course.cost.nccl.call_fit import fit_hop_scale, hop_points

    points = [p for i in H.FITTED_ON for p in hop_points(get_sweep(i))]
    assert fit_hop_scale(points) == H.BLACKWELL_NVLINK_HOP_SCALE
    for sweep_id in H.HELD_OUT:
        comparison = compare_sweep(get_sweep(sweep_id), call_cost_predictor)
        assert comparison.band_medians["all sizes"] <= 0.15, sweep_id


def test_the_module_constants_are_the_fit_on_the_named_sweeps():
    groups = {s.id: sweep_observations(s) for s in load_sweeps() if s.id in C.FITTED_ON}
    assert set(groups) == set(C.FITTED_ON)
    fill, fixed = fit_constants(groups)
    used = {o.protocol for obs in groups.values() for o in obs}
    assert {p: fill[p] for p in used} == {p: C.FILL_FRACTION[p] for p in used}
    assert fixed == {name: h.fixed_us for name, h in C.HARNESSES.items()}


def test_the_network_constants_are_the_fit_on_the_named_sweeps():
    sweeps = [s for s in load_sweeps() if s.id in C.NETWORK_FITTED_ON]
    assert {s.id for s in sweeps} == set(C.NETWORK_FITTED_ON)
    fitted = set()
    for network, net in C.NETWORKS.items():
        own = [s for s in sweeps if get_preset(s.preset).network == network]
        if own:
            assert fit_network(own, network) == (net.latency_us, net.efficiency), network
            fitted.add(network)
    assert fitted == {"efa", "tcpxo", "gke-roce"}
    # the networks nothing was fitted on add nothing to NCCL's own model
    for name in set(C.NETWORKS) - fitted:
        assert (C.NETWORKS[name].latency_us, C.NETWORKS[name].efficiency) == (0.0, 1.0)


def test_published_sweeps_within_15_percent_over_all_sizes():
    for sweep in load_sweeps():
        result = compare_sweep(sweep, call_cost_predictor)
        error = result.band_medians["all sizes"]
        if sweep.id in NOT_YET_WITHIN_15_PERCENT:
            assert error > 0.15, f"{sweep.id} is within 15 % now: drop it from the list"
        else:
            assert error <= 0.15, (sweep.id, error)


def test_band_medians_are_the_time_errors_of_the_rows():
    result = compare_sweep(get_sweep("nvidia-dgxc-8xh100"), call_cost_predictor)
    small = [
        abs(r.measured_time_s / r.predicted_time_s - 1)
        for r in result.rows
        if r.size_bytes <= 65536
    ]
    assert result.band_medians["<= 64 KiB"] == pytest.approx(median(small))
    assert result.band_medians["all sizes"] == pytest.approx(
        median(abs(r.measured_time_s / r.predicted_time_s - 1) for r in result.rows)
    )


@pytest.mark.parametrize(
    "sweep_id",
    [
        "stas00-8xh200-nvls",
        "nvidia-tools-image-2x2xl40s-allreduce",
        "dranet-gke-a4-2x1xb200-allgather",
    ],
)
def test_calibrated_on_even_sizes_predicts_the_odd_ones_within_5_percent(sweep_id):
    sweep = get_sweep(sweep_id)
    observations = sweep_observations(sweep)
    calibration = calibrate(observations[::2], "even sizes")
    preset = personal_preset("mine", sweep.model_preset, calibration)
    errors = []
    for o in observations[1::2]:
        p = predict(sweep.collective, o.size, preset, ranks=sweep.ranks, harness=sweep.harness)
        errors.append(abs(o.measured_us / (p.call_time_s * 1e6) - 1))
    assert median(errors) <= 0.05


def test_calibration_recovers_constants_it_is_given():
    """Times made by the model itself with known constants fit back to those constants."""
    sweep = get_sweep("nvidia-dgxc-8xh100")
    truth = C.Calibration(12.0, 0.8, "intra", "made up", {"LL": 0.3, "Simple": 0.6})
    preset = personal_preset("truth", "h100-nvls", truth)
    observations = []
    for o in sweep_observations(sweep):
        t = predict("all_reduce", o.size, preset, ranks=8).call_time_s * 1e6
        observations.append(replace(o, measured_us=t))
    fitted = calibrate(observations, "model")
    assert fitted.fixed_us == pytest.approx(12.0, abs=0.05)
    assert fitted.efficiency == pytest.approx(0.8, rel=1e-3)
    assert fitted.fill_fraction == pytest.approx({"LL": 0.3, "Simple": 0.6}, abs=1e-3)


def test_calibrate_refuses_latency_only_sweeps():
    obs = sweep_observations(get_sweep("nvidia-dgxc-8xh100"))
    with pytest.raises(ValueError, match="latency-bound"):
        calibrate([o for o in obs if o.size <= 1024], "small")
    with pytest.raises(ValueError, match="at least three sizes"):
        calibrate(obs[:2], "two")


def test_harness_comes_from_the_processes_nccl_tests_lists(tmp_path):
    assert read_measurement(ALL_REDUCE).harness == "nccl-tests"
    text = ALL_REDUCE.read_text()
    # the same table as printed by one process driving the GPUs: one Pid for every rank
    one_process = re.sub(r"Pid\s+\d+", "Pid 4242", text)
    path = tmp_path / "g8.txt"
    path.write_text(one_process.replace("bm-h100-02", "bm-h100-01"))
    assert read_measurement(path).harness == "nccl-tests -g"


def test_cli_calibrate_writes_a_preset_file_that_compare_reads(tmp_path, capsys):
    out = tmp_path / "mine.yml"
    assert main(["model", "--calibrate", str(ALL_REDUCE), "--write-preset", str(out)]) == 0
    text = capsys.readouterr().out
    assert "fixed cost per call" in text and f"wrote {out}" in text
    preset = load_preset_file(out)
    assert preset.name == "mine" and preset.calibration.link_class == "inter"
    assert main(["model", "--compare", str(ALL_REDUCE), "--preset-file", str(out)]) == 0
    assert "preset mine" in capsys.readouterr().out
    assert main(["model", "all_reduce", "--size", "1GiB", "--nccl", "--preset-file", str(out)]) == 0
    assert "a call, as nccl-tests times it" in capsys.readouterr().out
    assert main(["model", "all_reduce", "--size", "1GiB", "--preset-file", str(out)]) == 2
    assert "--preset-file goes with --nccl or --compare" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name: [unclosed", "not valid YAML"),
        ("- a list", "expected the keys"),
        ("name: x\nbase: h100-nvls\n", "missing calibration"),
        ("name: x\nbase: nope\ncalibration: {}\n", "unknown preset 'nope'"),
        (
            "name: x\nbase: h100-nvls\ncalibration: {fixed_us: 1, efficiency: -2, "
            "link_class: intra, fitted_on: a, fill_fraction: null}\n",
            "efficiency must be positive",
        ),
        (
            "name: x\nbase: h100-nvls\ncalibration: {fixed_us: 1, efficiency: 1, "
            "link_class: sideways, fitted_on: a, fill_fraction: null}\n",
            "link_class",
        ),
        ("name: x\nbase: h100-nvls\ncalibration: {fixed_us: 1}\nextra: 1\n", "unknown extra"),
    ],
)
def test_malformed_preset_files_get_one_clear_error(tmp_path, content, message):
    path = tmp_path / "p.yml"
    path.write_text(content)
    with pytest.raises(PresetFileError, match=re.escape(message)):
        load_preset_file(path)


def test_preset_file_errors_reach_the_cli_as_one_line(tmp_path, capsys):
    missing = tmp_path / "absent.yml"
    assert (
        main(["model", "all_reduce", "--size", "8", "--nccl", "--preset-file", str(missing)]) == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: cannot read the preset file") and "\n" not in err


def test_sweep_errors_with_the_module_constants_are_what_the_script_prints():
    """scripts/fit_call_cost.py and the book report median_abs_error on the observations;
    compare_sweep's all-sizes band is the same number."""
    sweep = get_sweep("nccl-tests-309-4x8xh100-ndr")
    fixed = {name: h.fixed_us for name, h in C.HARNESSES.items()}
    via_fit = median_abs_error(sweep_observations(sweep), C.FILL_FRACTION, fixed)
    via_compare = compare_sweep(sweep, call_cost_predictor).band_medians["all sizes"]
    assert via_fit == pytest.approx(via_compare)
