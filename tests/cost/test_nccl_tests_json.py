"""nccl-tests' own JSON file (``all_reduce_perf -J FILE.json``, nccl-tests 2.18.5 and later):
the published 2 x 8 H100 run of tests/cost/nccl_tests_output written out in the layout of
nccl-tests' src/util.cu (unrounded numbers, one devices entry per process), read as the text
of the same run reads, edited numbers caught, malformed files refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nccl_course.cli import main
from nccl_course.cost.busbw import busbw_factor
from nccl_course.cost.measured import MeasurementError, read_measurement
from nccl_course.cost.measured.comparison import compare
from nccl_course.cost.measured.measurement import inconsistencies

ALL_REDUCE = Path(__file__).parent / "nccl_tests_output" / "all_reduce_16xH100_issue309.txt"


def _group(size: int, time_us: str, factor: float, wrong: str) -> dict:
    """One out_of_place / in_place object as nccl-tests writes it: the bandwidths computed
    from the time (GB/s = bytes / us / 1e3), not rounded."""
    time = float(time_us)
    algbw = size / time / 1e3
    return {
        "time": time,
        "alg_bw": algbw,
        "bus_bw": algbw * factor,
        "nwrong": None if wrong == "N/A" else float(wrong),
    }


def _nccl_tests_json(**changes) -> dict:
    """The text file's run in nccl-tests' JSON layout: 16 processes of one GPU each."""
    factor = busbw_factor("all_reduce", 16)
    results = []
    for line in ALL_REDUCE.read_text().splitlines():
        cells = line.split()
        if not line[:12].strip().isdigit():
            continue
        size = int(cells[0])
        results.append(
            {
                "size": size,
                "count": int(cells[1]),
                "type": cells[2],
                "redop": cells[3],
                "root": f"{int(cells[4]):6d}",
                "out_of_place": _group(size, cells[5], factor, cells[8]),
                "in_place": _group(size, cells[9], factor, cells[12]),
                "actual_iterations": 20,
                "experiment_name": "",
            }
        )
    devices = [
        {
            "rank": r,
            "group": 0,
            "pid": 29262 + r,
            "hostname": f"bm-h100-0{1 + r // 8}",
            "device": r % 8,
            "device_hex": "0000:19:00",
            "device_info": "NVIDIA H100 80GB HBM3",
        }
        for r in range(16)
    ]
    data = {
        "version": 3,
        "start_time": "2026-12-06 14:00:00",
        "args": ["/root/nccl-tests/build/all_reduce_perf_mpi", "-b", "8", "-e", "16G", "-J", "x"],
        "env": ["PATH=/usr/bin", "NCCL_DEBUG=VERSION", "NCCL_IB_HCA=mlx5_0"],
        "nccl_version": 22602,
        "config": {"nthreads": 1, "ngpus": 1, "minimum_bytes": 8, "devices": devices},
        "results": results,
        "out_of_bounds": {"count": 0, "okay": True},
        "average_bus_bandwidth": {"bandwidth": 100.0, "okay": "unchecked"},
    }
    data.update(changes)
    return data


def _write(tmp_path: Path, data, name: str = "run.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1))
    return path


def test_the_json_file_reads_as_the_text_of_the_same_run(tmp_path):
    m = read_measurement(_write(tmp_path, _nccl_tests_json()))
    text = read_measurement(ALL_REDUCE)
    assert (m.source, m.collective, m.ranks, m.nodes) == ("nccl-tests JSON", "all_reduce", 16, 2)
    assert (m.nccl_version, m.harness, m.time_is_cpu) == ("2.26.2", "nccl-tests", False)
    assert m.gpu_names == ("NVIDIA H100 80GB HBM3",) * 16
    assert [r.size for r in m.rows] == [r.size for r in text.rows]
    for ours, printed in zip(m.rows, text.rows, strict=True):
        assert ours.out_of_place.time_us == printed.out_of_place.time_us
        # the printed busbw was rounded from the unrounded time, the JSON's from the printed one
        assert ours.out_of_place.busbw == pytest.approx(
            printed.out_of_place.busbw, rel=2e-3, abs=6e-3
        )
        assert (ours.root, ours.out_of_place.wrong) == (-1, 0)
    assert inconsistencies(m) == ()
    ours, printed = compare(m, "ib-ndr-2node"), compare(text, "ib-ndr-2node")
    assert [r.model_time_us for r in ours.rows] == [r.model_time_us for r in printed.rows]


def test_an_edited_number_is_caught_where_it_is(tmp_path):
    data = _nccl_tests_json()
    data["results"][20]["in_place"]["bus_bw"] *= 1.01
    found = inconsistencies(read_measurement(_write(tmp_path, data)))
    assert [(f.where, f.group, f.quantity) for f in found] == [("results[20]", "in place", "busbw")]


def test_processes_driving_several_gpus_and_cpu_time(tmp_path):
    # -g 8 under 2 processes: config.devices has each process's first GPU only
    data = _nccl_tests_json()
    data["config"].update(ngpus=8, devices=data["config"]["devices"][::8])
    for item in data["results"]:
        for group in ("out_of_place", "in_place"):
            item[group]["cpu_time"] = item[group].pop("time")
    m = read_measurement(_write(tmp_path, data))
    assert (m.ranks, m.nodes, m.harness, m.time_is_cpu) == (16, 2, "nccl-tests -g", True)


def test_the_cli_compares_a_json_file(tmp_path, capsys):
    path = _write(tmp_path, _nccl_tests_json(env=["NCCL_ALGO=Ring", "NCCL_PROTO=Simple"]))
    assert main(["model", "--compare", str(path)]) == 0
    out = capsys.readouterr().out
    assert "all_reduce on 16 ranks (2 node(s), NVIDIA H100 80GB HBM3), nccl-tests JSON" in out
    assert "Ring/Simple" in out and "Tree/" not in out


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"results": []}, "has no results with a size above 0"),
        ({"results": [5]}, "results[0] must be an object"),
        ({"results": [{"size": "8"}]}, "results[0].size must be a number"),
        ({"results": [{"size": 8.5}]}, "results[0].size must be a whole number"),
        ({"results": [{"size": 8, "out_of_place": None}]}, "neither out_of_place nor in_place"),
        (
            {"results": [{"size": 8, "out_of_place": {"time": 1.0, "alg_bw": "x"}}]},
            "results[0].out_of_place.alg_bw must be a number",
        ),
        ({"results": [{"size": 8, "root": "all", "in_place": None}]}, "root must be a whole"),
    ],
)
def test_malformed_files_are_refused_in_one_line(tmp_path, change, message):
    with pytest.raises(MeasurementError, match=message.replace("[", "\\[").replace("]", "\\]")):
        read_measurement(_write(tmp_path, _nccl_tests_json(**change)))


def test_a_second_sweep_a_cut_file_and_a_rank_count_that_disagrees(tmp_path, capsys):
    data = _nccl_tests_json()
    data["results"].append(dict(data["results"][3], type="half"))
    with pytest.raises(MeasurementError, match="size 64 again in results\\[32\\]"):
        read_measurement(_write(tmp_path, data))
    with pytest.raises(MeasurementError, match="lists 16 ranks, and -p/--ranks says 8"):
        read_measurement(_write(tmp_path, _nccl_tests_json()), ranks=8)
    # a run that stopped before nccl-tests closed its JSON
    cut = json.dumps(_nccl_tests_json())[:5000]
    path = _write(tmp_path, cut, "cut.json")
    assert main(["model", "--compare", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {path} is malformed JSON") and "nccl-tests -J" in err
