"""A learner's own numbers against the NCCL model (cost.measured, ``nccl-course model
--compare``): published nccl-tests output read row by row (tests/cost/nccl_tests_output, see
its README), the same rows in the other layouts nccl-tests has printed (rendered with the
format strings of its src/common.cu and src/util.cu), edited numbers caught, malformed input
refused with one line, and the comparison's error recomputed from predict()."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from statistics import median

import pytest

from nccl_course.cli import main
from nccl_course.cost import algbw as algbw_of
from nccl_course.cost import busbw as busbw_of
from nccl_course.cost.measured import MeasurementError, read_measurement
from nccl_course.cost.measured.comparison import SIZE_RANGES, compare
from nccl_course.cost.measured.measurement import half_step, inconsistencies
from nccl_course.cost.nccl import predict
from nccl_course.cost.sweeps import get_sweep

DATA = Path(__file__).parent / "nccl_tests_output"
ALL_REDUCE = DATA / "all_reduce_16xH100_issue309.txt"
ALL_GATHER = DATA / "all_gather_16xB200_dranet.txt"
REDUCE_SCATTER = DATA / "reduce_scatter_8ranks_issue128_head.txt"
ALLTOALL_80 = DATA / "alltoall_80xH100_nccl_tests_cluster.txt"
GiB = 1024**3


def _rows(path: Path) -> list[list[str]]:
    """The data rows of a stored output, as their printed cells."""
    lines = path.read_text().splitlines()
    return [line.split() for line in lines if line[:12].strip().isdigit()]


def _write(tmp_path: Path, text: str, name: str = "out.txt") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# --- published output, row by row ----------------------------------------------------------


def test_all_reduce_of_issue_309_with_mpi_warnings_between_the_lines():
    m = read_measurement(ALL_REDUCE)
    assert (m.collective, m.ranks, m.nodes) == ("all_reduce", 16, 2)  # all_reduce_perf_mpi
    assert set(m.gpu_names) == {"NVIDIA H100 80GB HBM3"} and m.nccl_version == "2.26.2"
    assert len(m.rows) == 32 and m.rows[0].line == 46
    first, last = m.rows[0], m.rows[-1]
    assert (first.size, first.out_of_place.time_us, first.in_place.time_us) == (8, 68.52, 24.70)
    assert (last.size, last.out_of_place.time_us, last.out_of_place.busbw) == (
        16 * GiB,
        68652,
        469.21,
    )
    assert next(r for r in m.rows if r.size == GiB).out_of_place.busbw == 448.90
    assert inconsistencies(m) == ()
    # the same rows transcribed independently into the published sweep
    sweep = get_sweep("nccl-tests-309-2x8xh100-ndr")
    printed = [
        (r.size, r.out_of_place.time_us, r.out_of_place.algbw, r.out_of_place.busbw) for r in m.rows
    ]
    assert printed == [(r.size_bytes, r.time_us, r.algbw_GBps, r.busbw_GBps) for r in sweep.rows]


def test_all_gather_of_the_dranet_guide_needs_its_name():
    with pytest.raises(MeasurementError, match="columns fit all_gather, all_to_all"):
        read_measurement(ALL_GATHER)  # run through a script: no *_perf in the file
    m = read_measurement(ALL_GATHER, collective="all_gather")
    assert (m.ranks, m.nodes, set(m.gpu_names), m.nccl_version) == (
        16,
        2,
        {"NVIDIA B200"},
        "2.26.6",
    )
    assert [r.size for r in m.rows] == [1024 * 2**i for i in range(24)]
    assert (m.rows[0].count, m.rows[0].out_of_place.time_us) == (16, 280.4)
    assert (m.rows[-1].out_of_place.busbw, m.rows[-1].in_place.time_us) == (260.03, 31063)
    assert inconsistencies(m) == ()


def test_reduce_scatter_of_issue_128_from_its_columns_alone():
    m = read_measurement(REDUCE_SCATTER)  # no command, no Rank lines: redop sum, 8 blocks
    assert (m.collective, m.ranks, m.nodes, m.gpu_names) == ("reduce_scatter", 8, None, ())
    assert [(r.line, r.size, r.count) for r in m.rows] == [(9, 128, 4), (10, 256, 8)]
    assert m.rows[0].out_of_place.time_us == 32.31 and m.rows[-1].out_of_place.busbw == 0.01
    assert m.notes == ("skipped 5 row(s) of size 0 (line 4-8): a call of 0 bytes moves nothing",)
    with pytest.raises(MeasurementError, match="means 8 ranks for this collective"):
        read_measurement(REDUCE_SCATTER, ranks=4)


def test_a_table_without_its_command_is_told_from_sendrecv_by_the_bus_factor(tmp_path):
    text = "\n".join(line for line in ALL_REDUCE.read_text().splitlines() if "_perf" not in line)
    assert read_measurement(_write(tmp_path, text)).collective == "all_reduce"


# --- the other layouts nccl-tests prints ---------------------------------------------------


def _render_2_19(cells: list[str], per_iteration=False, stamp=None) -> str:
    """A row laid out as writeBenchmarkLinePreamble, writeBenchmarkLineBody and
    writePerIterReport print it (src/util.cu of v2.19.6), from the printed values of ``cells``."""
    size, count, dtype, redop, root = cells[:5]
    line = f"{size:>12}  {count:>12}  {dtype:>8}  {redop:>6}  {root:>6}"
    for time, alg, bus, wrong in (cells[5:9], cells[9:13]):
        line += f"  {time:>7}  {alg:>6}  {bus:>6}  {float(wrong):6g}"
        if per_iteration:  # i_min, i_max, i_p99 and i_cv%
            line += f"  {time:>7}  {time:>7}  {time:>7}  {'1.00':>7}"
    return line + (f"{stamp:>21}" if stamp else "")


def _header_2_19(per_iteration: bool, stamp: bool) -> str:
    group = ["time", "algbw", "busbw", "#wrong"] + (
        ["i_min", "i_max", "i_p99", "i_cv%"] if per_iteration else []
    )
    names = ["size", "count", "type", "redop", "root", *group, *group]
    return "# " + "  ".join(names) + ("  timestamp" if stamp else "")


@pytest.mark.parametrize("per_iteration,stamp", [(True, None), (False, "2025-10-17 12:34:56")])
def test_newest_layouts_per_iteration_and_timestamps(tmp_path, per_iteration, stamp):
    rows = _rows(ALL_REDUCE)
    text = "# Collective test starting: all_reduce_perf\n"
    text += _header_2_19(per_iteration, bool(stamp)) + "\n"
    text += "\n".join(_render_2_19(cells, per_iteration, stamp) for cells in rows) + "\n"
    m = read_measurement(_write(tmp_path, text), ranks=16)
    expected = read_measurement(ALL_REDUCE)
    assert [(r.size, r.out_of_place.time_us, r.in_place.busbw) for r in m.rows] == [
        (r.size, r.out_of_place.time_us, r.in_place.busbw) for r in expected.rows
    ]
    assert inconsistencies(m) == ()


# all_gather.cu and common.cu of v2.10.0, as written there: the header, the leading columns,
# one timed group (its time string is %7.0f above 10000 us, %7.1f above 100 us, else %7.2f).
OLD_HEADER = "# %10s  %12s  %8s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n"
OLD_LEADING = "%12li  %12li  %8s"
OLD_GROUP = "  %7s  %6.2f  %6.2f  %5.0le"


def _old_time(value: str) -> str:
    t = float(value)
    return "%7.0f" % t if t > 10000 else "%7.1f" % t if t > 100 else "%7.2f" % t  # noqa: UP031


def test_layout_before_2_13_without_redop_and_root(tmp_path):
    names = ("size", "count", "type", *(("time", "algbw", "busbw", "error") * 2))
    text = "./build/all_gather_perf -b 1K\n" + OLD_HEADER % names  # noqa: UP031
    for cells in _rows(ALL_GATHER):
        text += OLD_LEADING % (int(cells[0]), int(cells[1]), cells[2])  # noqa: UP031
        for time, alg, bus, _ in (cells[5:9], cells[9:13]):
            text += OLD_GROUP % (_old_time(time), float(alg), float(bus), 0)  # noqa: UP031
        text += "\n"
    m = read_measurement(_write(tmp_path, text), ranks=16)
    first, last = m.rows[0], m.rows[-1]
    assert (m.collective, first.dtype, first.redop, first.root) == (
        "all_gather",
        "float",
        None,
        None,
    )
    assert (last.out_of_place.busbw, last.out_of_place.wrong) == (260.03, 0)  # "0e+00"
    assert inconsistencies(m) == ()


def test_other_ranks_and_launchers_lines_are_skipped(tmp_path):
    lines = ALL_REDUCE.read_text().splitlines()
    tagged = []
    for line in lines:
        tagged.append(f"[1,0]<stdout>:{line}")
        tagged.append("[1,3]<stdout>:           8             2     float     sum      -1    1.00")
        tagged.append("[1,0]<stderr>:host:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1]")
    m = read_measurement(_write(tmp_path, "\n".join(tagged)))
    assert (m.ranks, len(m.rows), m.rows[-1].out_of_place.busbw) == (16, 32, 469.21)
    labelled = "\n".join(f"0: {line}" for line in lines) + "\n3: 8 2 float sum -1 1.00\n"
    assert len(read_measurement(_write(tmp_path, labelled, "srun.txt")).rows) == 32


def test_mpich_rank_tags_are_read_even_inside_a_row(tmp_path):
    # mpiexec -prepend-rank (MPICH's Hydra, Intel MPI) tags every write with the rank, and
    # nccl-tests writes a row in several, so rank 0's tag also sits inside its rows (as in
    # NVIDIA/nccl#1453: "1048576 262144 float sum -1[0] 1626.5 0.64 1.24 0[0] 2302.3 ...")
    tagged = []
    for line in ALL_REDUCE.read_text().splitlines():
        cells = line.split()
        if line[:12].strip().isdigit():
            line = "  ".join(cells[:5]) + "[0]  " + "  ".join(cells[5:9]) + "[0]  "
            line += "  ".join(cells[9:])
        tagged.append(f"[0] {line}")
        tagged.append("[3]            8             2     float     sum      -1    1.00")
    m = read_measurement(_write(tmp_path, "\n".join(tagged), "hydra.txt"))
    plain = read_measurement(ALL_REDUCE)
    assert (m.ranks, m.collective) == (plain.ranks, plain.collective) == (16, "all_reduce")
    assert [(r.size, r.out_of_place, r.in_place) for r in m.rows] == [
        (r.size, r.out_of_place, r.in_place) for r in plain.rows
    ]
    # a row that another rank's output broke is refused with its line, not misread
    broken = tagged[:]
    first = next(
        i for i, line in enumerate(broken) if line.startswith("[0] ") and "[0]" in line[4:]
    )
    row = broken[first]
    broken[first] = row[:4] + row[4:].replace("[0]", "[0]host:1:1 [0] NCCL INFO x", 1)
    with pytest.raises(MeasurementError, match=f"line {first + 1}: a row of"):
        read_measurement(_write(tmp_path, "\n".join(broken), "hydra.txt"))


def test_a_log_of_several_runs_is_cut_to_the_named_collective(tmp_path, capsys):
    # a script looping over the binaries into one log (as xxrjun/nccl-tests-cluster's logs
    # hold five runs): here the issue-309 all_reduce, given the banner a 2.17 run prints,
    # between the two published alltoall runs
    banner = "# nccl-tests version 2.17.8 nccl-headers=22602 nccl-library=22602\n"
    all_reduce = banner + "# Collective test starting: all_reduce_perf\n" + ALL_REDUCE.read_text()
    one_node = DATA / "alltoall_8xH100_nccl_tests_cluster.txt"
    log = "\n".join(
        ["$ for t in alltoall all_reduce; do ./build/${t}_perf -b 32M -e 64G; done"]
        + [one_node.read_text(), all_reduce, ALLTOALL_80.read_text()]
    )
    path = _write(tmp_path, log, "runs.log")
    with pytest.raises(MeasurementError, match="holds 3 runs \\(alltoall_perf, all_reduce_perf, "):
        read_measurement(path)
    m = read_measurement(path, collective="all_reduce")
    plain = read_measurement(ALL_REDUCE)
    assert (m.collective, m.ranks, m.nodes, m.nccl_version) == ("all_reduce", 16, 2, "2.26.2")
    assert [r.out_of_place for r in m.rows] == [r.out_of_place for r in plain.rows]
    with pytest.raises(MeasurementError, match="holds 2 runs of alltoall_perf \\(lines 3, "):
        read_measurement(path, collective="all_to_all")
    with pytest.raises(MeasurementError, match="holds runs of .*, none of broadcast"):
        read_measurement(path, collective="broadcast")
    # the CLI says how to name one, in one line
    assert "e.g. nccl-course model all_to_all --compare" in _refused(capsys, "--compare", str(path))


def test_each_process_printing_its_own_table_is_refused(tmp_path):
    text = ALL_REDUCE.read_text()
    twice = text.replace("#  Rank  1 Group", "#  Rank  0 Group", 1)
    with pytest.raises(
        MeasurementError, match="line 26: rank 0 is listed again \\(first on line 25\\).*MPI=1"
    ):
        read_measurement(_write(tmp_path, twice))
    with pytest.raises(MeasurementError, match="size 8 again"):
        read_measurement(
            _write(tmp_path, text + "\n".join(" ".join(c) for c in _rows(ALL_REDUCE)[:1]))
        )


# --- the consistency check -----------------------------------------------------------------


def test_half_a_unit_of_the_last_printed_digit():
    assert (half_step("12.34"), half_step("18535"), half_step("1.2e+06")) == (0.005, 0.5, 50000.0)


def test_an_edited_busbw_or_time_is_caught(tmp_path):
    text = ALL_REDUCE.read_text()
    row = "  1073741824     268435456     float     sum      -1   4484.9  239.41  448.90"
    assert text.count(row) == 1
    bad = inconsistencies(
        read_measurement(_write(tmp_path, text.replace(row, row[:-6] + "458.90")))
    )
    assert [(i.where, i.group, i.quantity, i.printed) for i in bad] == [
        ("line 73", "out of place", "busbw", 458.90)
    ]
    assert bad[0].expected == pytest.approx(239.41 * 30 / 16)
    slower = text.replace(row, row.replace("4484.9", "4584.9"))
    assert [i.quantity for i in inconsistencies(read_measurement(_write(tmp_path, slower)))] == [
        "algbw"
    ]


# --- malformed input: one line, exit 2 -----------------------------------------------------


def _refused(capsys, *argv: str) -> str:
    assert main(["model", *argv]) == 2
    return _error_line(capsys)


def test_malformed_inputs_are_refused_in_one_line(tmp_path, capsys):
    missing = tmp_path / "nothing.txt"
    assert _refused(capsys, "--compare", str(missing)) == f"error: no such file: {missing}"
    assert "is empty" in _refused(capsys, "--compare", str(_write(tmp_path, "\n\n", "empty.txt")))
    headers = "\n".join(REDUCE_SCATTER.read_text().splitlines()[:3])
    assert "has no data rows" in _refused(
        capsys, "--compare", str(_write(tmp_path, headers, "h.txt"))
    )
    # the excerpt of NVIDIA/nccl-tests issue 128 as published goes on with a row cut after its time
    cut = (
        REDUCE_SCATTER.read_text()
        + "         512            16     float     sum      -1    23.99\n"
    )
    message = _refused(
        capsys, "--compare", str(_write(tmp_path, cut, "cut.txt")), "--preset", "h100-nvlink"
    )
    assert "cut.txt line 11: a row of 6 columns where the column header on line 2 has 13" in message
    message = _refused(capsys, "scatter", "--compare", str(ALL_GATHER), "--preset", "b200-nvls")
    assert "measured scatter, which NCCL's model does not price" in message
    broken = _write(tmp_path, '{"collective": "all_reduce", "nranks": 8, "rows": [', "b.json")
    assert _refused(capsys, "--compare", str(broken)).startswith(
        f"error: {broken} is malformed JSON"
    )
    listed = _write(tmp_path, "[1, 2]", "list.json")
    assert "is JSON but neither nccl-tests' -J file" in _refused(capsys, "--compare", str(listed))
    assert "give --preset NAME" in _refused(capsys, "--compare", str(REDUCE_SCATTER))
    geforce = ALL_REDUCE.read_text().replace("NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090")
    message = _refused(capsys, "--compare", str(_write(tmp_path, geforce, "4090.txt")))
    assert "matches no preset family" in message and "l40s-pcie (Ada, PCIe Gen4)" in message
    assert "host memory (SHM)" in message and "l40s-pcie" not in _refused(
        capsys, "--compare", str(REDUCE_SCATTER)
    )
    assert "is all_reduce_perf output" in _refused(
        capsys, "all_gather", "--compare", str(ALL_REDUCE)
    )


# --- the comparison ------------------------------------------------------------------------


def test_the_error_of_a_row_is_predicts_against_the_measured_time():
    result = compare(read_measurement(ALL_REDUCE), "ib-ndr-2node")
    row = next(r for r in result.rows if r.size == GiB)
    p = predict("all_reduce", GiB, "ib-ndr-2node", ranks=16)
    measured = GiB / 4484.9e-6 / 1e9 * 2 * 15 / 16  # nccl-tests' busbw of the printed time
    assert row.error == pytest.approx((p.call_busbw_GBps - measured) / measured, rel=1e-12)
    assert (row.algorithm, row.protocol, row.channels) == (p.algorithm, p.protocol, p.channels)
    assert row.model_time_us == pytest.approx(p.call_time_s * 1e6)
    large = [abs(r.error) for r in result.rows if r.size >= 256 * 2**20]
    assert len(large) == 7 and result.medians[">= 256 MiB"] == median(large)
    assert list(result.medians) == [label for label, _, _ in SIZE_RANGES]
    assert result.nccl_version == "2.30.7" and "NCCL 2.26.2" in " ".join(result.notes)


def test_cli_end_to_end_text_json_and_plot(tmp_path, capsys):
    assert main(["model", "--compare", str(ALL_REDUCE)]) == 0
    out = capsys.readouterr().out
    assert "all_reduce on 16 ranks (2 node(s), NVIDIA H100 80GB HBM3)" in out
    assert (
        "model: NCCL 2.30.7's choice and the call's cost on preset ib-ndr-2node, timed as nccl-tests"
        in out
    )
    assert "median |error|: all sizes" in out and "(32 sizes)" in out
    plot = tmp_path / "cmp.png"
    argv = ["model", "all_gather", "--compare", str(ALL_GATHER), "--json", "--plot", str(plot)]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"]["preset"] == "ib-xdr-2node" and len(data["rows"]) == 24
    assert data["rows"][0]["size"] == 1024 and data["inconsistencies"] == []
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    argv = ["model", "--compare", str(REDUCE_SCATTER), "--preset", "h100-nvlink", "--json"]
    assert main(argv) == 0
    assert [r["size"] for r in json.loads(capsys.readouterr().out)["rows"]] == [128, 256]


# --- the course's own bench JSON -----------------------------------------------------------


def _bench_record(backend: str = "nccl") -> dict:
    """A record in run_benchmark's shape (bench/harness.py), bandwidths computed as it does."""
    rows = []
    for size, time_us in ((2**20, 27.37), (2**26, 324.7), (2**30, 4029.4)):
        seconds = time_us * 1e-6
        rows.append(
            {
                "size": size,
                "count": size // 4,
                "type": "float",
                "redop": "sum",
                "root": -1,
                "time_us": time_us,
                "algbw": algbw_of(size, seconds),
                "busbw": busbw_of("all_reduce", size, seconds, 8),
                "wrong": 0,
                "iters": 20,
            }
        )
    env = {"gpu_names": ["NVIDIA H100 80GB HBM3"] * 8, "nccl_version": "2.21.5", "nccl_env": {}}
    return {
        "collective": "all_reduce",
        "nranks": 8,
        "backend": backend,
        "config": {},
        "rows": rows,
        "environment": env,
    }


def test_the_bench_record_shape_is_the_harness_row():
    tree = ast.parse((Path(__file__).parents[2] / "src/nccl_course/bench/harness.py").read_text())
    bench_row = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BenchRow")
    fields = [n.target.id for n in bench_row.body if isinstance(n, ast.AnnAssign)]
    assert list(_bench_record()["rows"][0]) == fields


def test_a_bench_record_is_read_checked_and_compared(tmp_path, capsys):
    record = _bench_record()
    m = read_measurement(_write(tmp_path, json.dumps(record), "bench.json"))
    assert (m.source, m.collective, m.ranks, m.nodes, m.nccl_version) == (
        "nccl-course bench",
        "all_reduce",
        8,
        1,
        "2.21.5",
    )
    assert [r.size for r in m.rows] == [2**20, 2**26, 2**30] and inconsistencies(m) == ()
    record["rows"][1]["busbw"] *= 1.01
    bad = inconsistencies(read_measurement(_write(tmp_path, json.dumps(record), "edited.json")))
    assert [(i.where, i.quantity) for i in bad] == [("rows[1]", "busbw")]
    assert main(["model", "--compare", str(tmp_path / "bench.json"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"] == {
        "preset": "h100-nvls",
        "nccl_version": "2.22.3",  # 2.21.5 has the same tuner
        "algo": None,
        "proto": None,
        "harness": "torch.distributed",  # the course's bench times a torch.distributed loop
    }
    gloo = _write(tmp_path, json.dumps(_bench_record("gloo")), "gloo.json")
    assert "measured on gloo" in _refused(capsys, "--compare", str(gloo))


# --- what else a file says ------------------------------------------------------------------


def test_the_average_line_catches_a_lost_row(tmp_path):
    lines = ALL_REDUCE.read_text().splitlines()
    kept = [line for line in lines if not line.strip().startswith("17179869184")]
    m = read_measurement(_write(tmp_path, "\n".join(kept)))
    assert m.notes == (
        "the file's Avg bus bandwidth 139.56 GB/s is not the mean busbw of its rows "
        "(128.9 GB/s): rows are missing or edited",
    )


def test_the_runs_own_nccl_algo_is_applied(tmp_path, capsys):
    text = "export NCCL_ALGO=Ring\n" + ALL_REDUCE.read_text()
    path = _write(tmp_path, text)
    assert read_measurement(path).env == {"NCCL_ALGO": "Ring"}
    assert main(["model", "--compare", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"]["algo"] == "Ring" and {r["algorithm"] for r in data["rows"]} == {"Ring"}
    assert "the run set NCCL_ALGO=Ring, which the model applies" in data["notes"]


def test_cpu_times_are_not_checked_against_the_bandwidths(tmp_path):
    text = ALL_REDUCE.read_text().replace("    root     time", "    root  cputime")
    edited = text.replace("   4484.9  239.41", "   9999.9  239.41")  # a CPU time may be anything
    m = read_measurement(_write(tmp_path, edited))
    assert m.time_is_cpu and inconsistencies(m) == ()
    assert "CPU times" in " ".join(compare(m, "ib-ndr-2node").notes)


def test_plot_without_compare_is_a_usage_error(capsys):
    from nccl_course.cli import main

    assert main(["model", "all_reduce", "--size", "1MiB", "--plot", "x.png"]) == 2
    assert "--plot only goes with --compare FILE" in capsys.readouterr().err
