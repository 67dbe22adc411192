"""Reading NCCL's INFO log and comparing it with the model (cost.nccl.log_reader, log_check,
``nccl-course model --check-log``): every print format NCCL has used for the tuner's lines,
a round trip through a log written in NCCL 2.30.7's own formats (src/graph/search.cc line
1319, tuning.cc lines 543-585, enqueue.cc line 822) that must come back identical, and one
changed number that must be caught."""

from __future__ import annotations

import re

from nccl_course.cli import main
from nccl_course.cost.nccl import table_for, tuning_table
from nccl_course.cost.nccl.estimate import system_for
from nccl_course.cost.nccl.log_check import check_log, system_from_log
from nccl_course.cost.nccl.log_reader import read_log
from nccl_course.cost.nccl.releases import CURRENT
from nccl_course.cost.nccl.select import choose

PREFIX = "node-a:4242:4300 [0] NCCL INFO "
SIZES = (8, 4096, 2**20, 2**24, 2**30)


def _graph_line(g) -> str:
    # the format string of ncclTopoPrintGraph, src/graph/search.cc line 1319 of v2.30.7-1
    return (
        f"Pattern {g.pattern}, crossNic 0, nChannels {g.n_channels}, bw {g.bw_intra:f}/"
        f"{g.bw_inter:f}, type {g.type_intra}/{g.type_inter}, sameChannels "
        f"{int(g.same_channels)}"
    )


def nccl_2_30_log(preset: str, ranks: int) -> str:
    """A rank-0 log as NCCL 2.30.7 would print it for the model's own system."""
    system = system_for(preset, ranks)
    table = table_for(preset, ranks)
    names = {"Tree": "TREE", "Ring": "RING", "NVLS": "NVLS", "NVLSTree": "NVLS_TREE"}
    lines = [
        "NCCL version 2.30.7+cuda12.9",
        "CPU/0-0 (1/1/143)",
        f"NVLS multicast support is {'' if system.nvls_support else 'not '}available on dev 0",
        f"comm 0x55d35c3a9ec0 rank 0 nRanks {system.ranks} nNodes {system.nodes} localRanks "
        f"{system.gpus_per_node} localRank 0 MNNVL 0",
    ]
    graphs = system.graphs
    for name in ("Ring", "Tree", "NVLS"):
        if graphs[name] is not None:
            lines.append(_graph_line(graphs[name]))
    lines += tuning_table(table).splitlines()
    for size in SIZES:
        c = choose(table, "AllReduce", size)
        lines.append(
            f"AllReduce: {size} Bytes -> Algo {names[c.algorithm]} proto {c.protocol.upper()} "
            f"channel{{Lo..Hi}}={{0..{c.channels - 1}}}"
        )
    gather = choose(table, "AllGather", 2**20)  # logged per rank: count x type size
    lines.append(
        f"AllGather: {2**20 // system.ranks} Bytes -> Algo {names[gather.algorithm]} proto "
        f"{gather.protocol.upper()} channel{{Lo..Hi}}={{0..{gather.channels - 1}}}"
    )
    return "\n".join(PREFIX + line for line in lines) + "\n"


def test_every_call_line_format_nccl_has_printed_is_read():
    log = read_log(
        PREFIX
        + "524288 Bytes -> Algo 5 proto 2 time 59.553600\n"
        + PREFIX
        + "AllReduce: 4096 Bytes -> Algo 0 proto 1 time 12.500000\n"
        + PREFIX
        + "AllGather: 4096 Bytes -> Algo NVLS_TREE proto SIMPLE channel{Lo..Hi}={0..15}\n"
    )
    calls = [
        (c.function, c.n_bytes, c.algorithm, c.protocol, c.time_us, c.channels) for c in log.calls
    ]
    assert calls == [
        (None, 524288, "NVLSTree", "Simple", 59.5536, None),  # 2.20-2.22
        ("AllReduce", 4096, "Tree", "LL128", 12.5, None),  # 2.23
        ("AllGather", 4096, "NVLSTree", "Simple", None, 16),  # 2.24 on
    ]


def test_the_shape_vendor_nvls_version_and_graphs_are_read_from_the_first_rank_only():
    text = nccl_2_30_log("ib-ndr-2node", 16)
    # rank 3's copy, with a different ring and interleaved line by line with rank 0's
    other = re.sub(
        r"Pattern 4, crossNic 0, nChannels \d+", "Pattern 4, crossNic 0, nChannels 99", text
    )
    other = other.replace(PREFIX, "node-b:1:2 [3] NCCL INFO ").replace(
        "rank 0 nRanks", "rank 3 nRanks"
    )
    mixed = [
        line for pair in zip(other.splitlines(), text.splitlines(), strict=True) for line in pair
    ]
    log = read_log("\n".join(mixed))
    assert (log.version, log.ranks, log.nodes, log.local_ranks) == ("2.30.7", 16, 2, 8)
    assert (log.cpu_vendor, log.nvls_multicast) == ("Intel", True)
    graphs = dict(log.graphs)
    assert set(graphs) == {"Ring", "Tree", "PAT", "NVLS", "NVLSTree"}
    assert graphs["Ring"] == system_for("ib-ndr-2node", 16).graphs["Ring"]  # not rank 3's 99
    assert read_log(PREFIX + "CPU/0-1 (1/2/49)\n").cpu_vendor == "AMD"
    assert (
        read_log(PREFIX + "NVLS multicast support is not available on dev 0\n").nvls_multicast
        is False
    )


def test_a_log_in_nccl_2_30_formats_round_trips_identical():
    for preset, ranks in (("h200-nvls", 8), ("ib-ndr-2node", 16), ("pcie-gen4", 8)):
        log = read_log(nccl_2_30_log(preset, ranks))
        hw = system_for(preset, ranks).hardware
        result = check_log(log, hw, CURRENT)
        assert result.mismatches == 0, result.report()
        assert len(result.cells) == 5 * 7 * 3 and len(result.threads) == 7 * 3
        assert len(result.calls) == len(SIZES) + 1


def test_one_changed_number_is_caught_and_reported():
    text = nccl_2_30_log("h200-nvls", 8)
    ring_simple = "    56.0/ 205.7 |"  # AllReduce Ring/Simple on 8x H200, as the table prints it
    assert text.count(ring_simple) == 1
    log = read_log(text.replace(ring_simple, "    56.0/ 199.0 |"))
    result = check_log(log, system_for("h200-nvls", 8).hardware, CURRENT)
    assert result.mismatches == 1
    assert "cell AllReduce Ring/Simple: NCCL 56.0/199.0, model 56.0/205.7" in result.report()


def test_system_from_log_refuses_what_it_cannot_model():
    hw = system_for("h100-nvlink", 8).hardware
    try:
        system_from_log(read_log(PREFIX + "NCCL version 2.30.7\n"), hw)
    except ValueError as err:
        assert "NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING" in str(err)
    else:
        raise AssertionError("no comm line must be refused")


def test_cli_check_log(tmp_path, capsys):
    path = tmp_path / "nccl.log"
    path.write_text(nccl_2_30_log("ib-ndr-2node", 16))
    assert main(["model", "--check-log", str(path), "--preset", "ib-ndr-2node"]) == 0
    out = capsys.readouterr().out
    assert "NCCL 2.30.7 tuner on 2 node(s) x 8 GPU(s), sm_90, Intel CPUs, NVLS on" in out
    assert "table cells: 105 of 105 the same" in out and "calls: 6 of 6 the same" in out
    # --sm alone works when the log has the graphs
    assert main(["model", "--check-log", str(path), "--sm", "90"]) == 0
    capsys.readouterr()
    changed = tmp_path / "changed.log"
    changed.write_text(
        re.sub(
            r"AllReduce: 8 Bytes -> Algo \w+ proto \w+",
            "AllReduce: 8 Bytes -> Algo COLLNET_CHAIN proto SIMPLE",
            path.read_text(),
        )
    )
    assert main(["model", "--check-log", str(changed), "--preset", "ib-ndr-2node"]) == 1
    assert "call AllReduce 8 B: NCCL CollNetChain/Simple on 1 channels" in capsys.readouterr().out
    # clear errors, exit 2
    for argv, message in [
        (["--check-log", str(tmp_path / "missing.log"), "--sm", "90"], "cannot read"),
        (["--check-log", str(path)], "--preset NAME"),
        (["--check-log", str(path), "--sm", "90", "--nccl-version", "2.25.1"], "no tuner model"),
        (["--sm", "90", "all_reduce", "--size", "1MiB"], "--sm only goes with --check-log"),
    ]:
        assert main(["model", *argv]) == 2, argv
        assert message in capsys.readouterr().err
    other = tmp_path / "other.log"
    other.write_text(path.read_text().replace("NCCL version 2.30.7", "NCCL version 2.26.2"))
    assert main(["model", "--check-log", str(other), "--preset", "ib-ndr-2node"]) == 2
    assert "the log is from NCCL 2.26.2" in capsys.readouterr().err
    empty = tmp_path / "empty.log"
    empty.write_text("hello\n")
    assert main(["model", "--check-log", str(empty), "--sm", "90"]) == 2
    assert "has no TUNING output" in capsys.readouterr().err


def test_a_one_rank_log_is_refused_with_a_reason(tmp_path, capsys):
    # gpu_check on a one-GPU machine logs a 1-rank communicator; the model has nothing to price.
    path = tmp_path / "one.log"
    text = nccl_2_30_log("h100-nvlink", 2)
    text = re.sub(r"nRanks \d+ nNodes \d+ localRanks \d+", "nRanks 1 nNodes 1 localRanks 1", text)
    path.write_text(text)
    assert main(["model", "--check-log", str(path), "--sm", "90"]) == 2
    assert "one rank moves nothing" in capsys.readouterr().err
    assert (
        main(
            [
                "model",
                "all_reduce",
                "--size",
                "1MiB",
                "--preset",
                "h100-nvls",
                "--ranks",
                "1",
                "--nccl",
            ]
        )
        == 2
    )
    assert "use 2 ranks or more" in capsys.readouterr().err
