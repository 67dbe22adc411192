"""The tuner against NCCL's own output in public logs (nccl_course.cost.nccl.public_logs):
the choices and estimated times NCCL 2.22.3 printed for 14 all-reduce sizes, a 2.20-2.22 call
on one node, and the TUNING table NCCL 2.20 printed for two nodes, each with the rules of the
release that printed it; and proof that the release matters (2.30.7 gives other numbers)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.log_check import TIME_RTOL
from nccl_course.cost.nccl.overrides import Enablement
from nccl_course.cost.nccl.public_logs import (
    NCCL_1453,
    NCCL_1519,
    NCCL_1595,
    check_choices,
    check_table,
)
from nccl_course.cost.nccl.releases import (
    CURRENT,
    NCCL_2_20_5,
    NCCL_2_22_3,
    NCCL_2_30_7,
    release,
)
from nccl_course.cost.nccl.select import choose
from nccl_course.cost.nccl.tuner import A, F, P, cost_table


def test_nccl_2_22_3_choices_and_times_on_three_h100_nodes_are_reproduced():
    rows = check_choices(NCCL_1453)
    assert [r.n_bytes for r in rows] == [
        8, 64, 256, 512, 1024, 2048, 4096, 8192, 65536, 131072, 524288,
        2**29, 2**30, 2**33,
    ]  # fmt: skip
    assert all(r.same_choice for r in rows), [r for r in rows if not r.same_choice]
    worst = max(abs(r.relative_error) for r in rows)
    assert worst < TIME_RTOL, worst
    # NCCL's switch points as printed: Tree/LL, Tree/LL128, NVLSTree/Simple, Ring/Simple
    switches = []
    for r in rows:
        pick = f"{r.nccl_algorithm}/{r.nccl_protocol}"
        if not switches or switches[-1] != pick:
            switches.append(pick)
    assert switches == ["Tree/LL", "Tree/LL128", "NVLSTree/Simple", "Ring/Simple"]


def test_the_one_input_taken_from_the_log_is_needed_and_the_rest_is_the_models_search():
    # the model's own search on this hardware gives the graphs the times need...
    searched = NCCL_1453.system.graphs
    assert (searched["Ring"].n_channels, searched["Ring"].bw_inter) == (8, 24.0)
    assert NCCL_1453.system.comm_channels == 16  # "16 coll channels" in the log
    assert NCCL_1453.system.nvls_channels == 16  # "16 nvls channels"
    # ...and without the plain-tree pattern the small sizes miss by far more than rounding
    balanced = replace(NCCL_1453, graphs=())
    assert balanced.system.graphs["Tree"].pattern == T.PATTERN_BALANCED_TREE
    misses = [abs(r.relative_error) for r in check_choices(balanced)[:9]]
    assert min(misses[1:]) > 10 * TIME_RTOL


@pytest.mark.parametrize("version", ["2.20.5", "2.22.3"])
def test_one_node_ring_simple_call_reproduced_by_the_preset_search(version):
    # the thread's release is 2.20-2.22 (its line format); both give the same Ring/Simple time
    log = replace(NCCL_1595, nccl=version)
    [row] = check_choices(log)
    assert row.same_choice and (row.model_algorithm, row.model_protocol) == ("Ring", "Simple")
    assert abs(row.relative_error) < TIME_RTOL


def test_nccl_2_20_tuning_table_on_two_h100_nodes_is_reproduced_cell_by_cell():
    cells, threads = check_table(NCCL_1519)
    assert len(cells) == 41  # 4 whole rows x 9 cells + the 5 cells of the cut AllReduce row
    bad = [c for c in cells if not c.matches]
    assert not bad, bad
    assert [(n, m) for *_, n, m in threads] == [(512, 512), (640, 640), (512, 512)] * 2 + [
        (0, 0),
        (0, 0),
        (640, 640),
    ]
    # the cells that only this release explains
    by_key = {(c.function, c.algorithm, c.protocol): c for c in cells}
    assert by_key["AllReduce", "Tree", "Simple"].nccl == (448.0,)
    assert by_key["Broadcast", "Ring", "LL"].nccl == (9.3, 5.0)
    assert by_key["AllReduce", "Ring", "LL"].nccl == (43.4, 2.7)


def test_the_release_matters_2_30_7_gives_other_numbers_for_the_same_systems():
    table = cost_table(NCCL_1519.system, Enablement.defaults(), CURRENT)

    def cell(f, a, p):
        i, j, k = F[f], A[a], P[p]
        return round(table.latency_us[i][j][k], 1), round(table.bandwidth_GBps[i][j][k], 1)

    assert cell("Broadcast", "Ring", "LL") == (9.3, 10.0)  # Ring/LL: half, not a quarter
    assert cell("AllReduce", "Tree", "Simple")[0] == 92.4  # 8.4 + 2 (7 x 4.0 + 14 + 0)
    assert cell("AllReduce", "Ring", "LL")[0] == 40.0  # 2 (nodes - 1) network steps, not 2 nodes
    newer = cost_table(NCCL_1453.system, Enablement.defaults(), NCCL_2_30_7)
    assert choose(newer, "AllReduce", 2**29).algorithm == "NVLSTree"  # 2.22.3 chose Ring


def test_releases_alias_and_refuse_unknown_versions():
    assert release("2.21.5") is NCCL_2_22_3 and release("2.20.3") is NCCL_2_20_5
    assert release("2.30.7") is CURRENT is NCCL_2_30_7
    with pytest.raises(ValueError, match="known releases: 2.30.7, 2.22.3, 2.21.5, 2.20.5, 2.20.3$"):
        release("2.25.1")
    # each older release is the next newer one with its differences, from NCCL's sources
    assert NCCL_2_20_5.ll_max_bw[2] == T.LL_MAX_BW[1] and NCCL_2_22_3.ll_max_bw == T.LL_MAX_BW
    assert NCCL_2_22_3.hw_latency_us[T.HW_NET][0][2] == 28.0 != T.HW_LATENCY_US[T.HW_NET][0][2]
    assert NCCL_2_22_3.hw_latency_us[T.HW_NVLINK][0][2] == 28.0  # Tree/Simple, NVLink hop
    assert T.HW_LATENCY_US[T.HW_NVLINK][0][2] == 4.0  # the book: "from 28 us to 4 us"
    assert NCCL_2_20_5.hw_latency_us[T.HW_NVLINK][4][2] == 23.0
    assert NCCL_2_22_3.hw_latency_us[T.HW_NVLINK][4][2] == 25.0
    assert NCCL_2_22_3.source.endswith("/v2.22.3-1/src/graph/tuning.cc")


def test_predict_and_the_cli_price_with_an_older_release(capsys):
    from nccl_course.cli import main
    from nccl_course.cost.nccl import predict

    # nccl#1595's logged call, through the public API and the command line
    q = predict("all_reduce", 805306368, "h100-nvlink", proto="Simple", nccl_version="2.22.3")
    assert (q.algorithm, q.protocol, q.nccl_version) == ("Ring", "Simple", "2.22.3")
    assert abs(q.time_s * 1e6 - 3970.683594) / 3970.683594 < TIME_RTOL
    argv = ["model", "all_reduce", "--size", "805306368", "--preset", "h100-nvlink", "--nccl"]
    assert main(argv + ["--proto", "Simple", "--nccl-version", "2.21.5"]) == 0
    out = capsys.readouterr().out
    assert "NCCL 2.22.3 model" in out and "NCCL 2.21.5 has the same tuner as 2.22.3" in out
    assert "PAT" not in out  # no PAT column before 2.23
    assert main(argv + ["--nccl-version", "2.25.1"]) == 2
    assert "no tuner model for NCCL 2.25.1" in capsys.readouterr().err
    assert main(argv + ["--nccl-version", "2.20.5", "--algo", "ring"]) == 2
    assert "fell back to Ring" in capsys.readouterr().err
    assert main(argv + ["--nccl-version", "2.20.5", "--proto", "allreduce:simple"]) == 2
    assert "2.24 added" in capsys.readouterr().err
    assert main(argv[:-1] + ["--nccl-version", "2.20.5"]) == 2
    assert "add --nccl" in capsys.readouterr().err
