"""``nccl-course report``: a results folder as one HTML page.

A bundle from a real gloo run (the benchmark and the doctor run as the check runs them), one
made of a real NCCL log and published H100 measurements (the model's row checked against an
independent computation), NCCL's own logged choices, the preset path, bundles with parts
missing, malformed files, and hostile text."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

from nccl_course.cli import main
from nccl_course.cost.busbw import busbw_factor
from nccl_course.cost.nccl import predict
from nccl_course.cost.nccl.log_check import system_from_log
from nccl_course.cost.nccl.log_reader import read_log
from nccl_course.cost.nccl.public_logs import NCCL_1453, NCCL_1519
from nccl_course.cost.nccl.releases import release
from nccl_course.cost.nccl.select import choose
from nccl_course.cost.nccl.tuner import cost_table
from nccl_course.cost.presets import get_preset
from nccl_course.cost.sweeps import get_sweep
from tests.results.bundles import ENVIRONMENT, NCCL_LOG, PRESET, SWEEP, bench_record, nccl_bundle
from tests.results.html_tables import table


def report(folder: Path, capsys, *extra: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``nccl-course report`` in this process."""
    code = main(["report", str(folder), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def page(folder: Path, capsys) -> str:
    code, out, err = report(folder, capsys)
    assert code == 0, err
    assert out == f"report: {folder / 'report.html'}\n"
    return (folder / "report.html").read_text()


def course(*args: str, stdout=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nccl_course", *args],
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=240,
    )


def test_a_bundle_from_a_real_gloo_run_renders_the_measurement_without_a_model(tmp_path, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    with open(folder / "bench-all_reduce.txt", "w") as out:
        bench = course(
            "bench", "all_reduce", "--nproc", "2", "--backend", "gloo", "-b", "8", "-e",
            "64KiB", "-n", "3", "-w", "1", "--json", str(folder / "bench-all_reduce.json"),
            "--no-plot", "--no-progress", stdout=out,
        )  # fmt: skip
    assert bench.returncode == 0, bench.stderr
    with open(folder / "environment.json", "w") as out:
        assert course("doctor", "--json", stdout=out).returncode == 0
    step = {
        "name": "bench all_reduce",
        "status": "pass",
        "seconds": 9,
        "log": "bench-all_reduce.txt",
    }
    (folder / "steps.jsonl").write_text(json.dumps(step) + "\n")
    record = json.loads((folder / "bench-all_reduce.json").read_text())
    doctor = json.loads((folder / "environment.json").read_text())
    environment = doctor.get("environment", doctor)

    html = page(folder, capsys)
    assert f"<h1>GPU check results: {environment['host']}</h1>" in html
    assert "No model: the benchmark ran on gloo (CPU processes), not NCCL" in html
    header, rows = table(html, "sizes")
    assert header == ["size (B)", "size", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "wrong"]
    assert [int(r["size (B)"]) for r in rows] == [8 * 2**k for k in range(14)]
    for row, measured in zip(rows, record["rows"], strict=True):
        assert row["time (us)"] == f"{measured['time_us']:.2f}"
        busbw = measured["busbw"]
        assert row["busbw (GB/s)"] == (f"{busbw:.3g}" if busbw < 0.01 else f"{busbw:.3f}")
        assert row["wrong"] == "0"
    _, steps = table(html, "steps")
    assert steps == [
        {
            "status": "pass",
            "step": "bench all_reduce",
            "seconds": "9",
            "log": "bench-all_reduce.txt",
        }
    ]
    assert '<a href="bench-all_reduce.txt">bench-all_reduce.txt</a>' in html
    png = re.search(r'<img class="plot"[^>]* src="data:image/png;base64,([^"]+)"', html)
    assert base64.b64decode(png.group(1))[:8] == b"\x89PNG\r\n\x1a\n"
    # nothing on a CPU machine is "missing" that the check only writes with GPUs
    assert "<li>topology.txt: not in the folder</li>" not in html
    assert "<li>nccl-log.*: not in the folder</li>" not in html
    assert "<li>summary.txt: not in the folder</li>" in html
    if "checks" in doctor:  # the doctor's findings, failures and warnings first
        _, findings = table(html, "findings")
        rank = {"fail": 0, "warn": 1}
        expected = sorted(doctor["checks"], key=lambda c: rank.get(c["status"], 2))
        assert [(f["status"], f["check"]) for f in findings] == [
            (c["status"], c["title"]) for c in expected
        ]
    else:
        assert "environment.json has no checks" in html


def independent_model(size: int, measured_busbw: float) -> dict[str, str]:
    """The model's cells for ``size`` on the 2-node system of issue #1519's log, computed from
    the tuner's parts and nccl-tests' busbw definition, formatted as the table prints them."""
    log = read_log(NCCL_1519.text)
    system = system_from_log(log, get_preset(PRESET).nccl)
    c = choose(cost_table(system, release=release("2.20.5")), "AllReduce", size)
    ranks = 16
    busbw = size / (c.time_us * 1e-6) / 1e9 * (2 * (ranks - 1) / ranks)
    assert busbw_factor("all_reduce", ranks) == 2 * (ranks - 1) / ranks
    return {
        "model time (us)": f"{c.time_us:.2f}",
        "model busbw (GB/s)": f"{busbw:.3f}",
        "error %": f"{(busbw - measured_busbw) / measured_busbw * 100:+.1f}",
        "model algorithm/protocol": f"{c.algorithm}/{c.protocol}",
        "model channels": str(c.channels),
    }


def test_an_nccl_bundle_shows_the_model_of_the_logged_system_with_its_error(tmp_path, capsys):
    folder = nccl_bundle(tmp_path / "results")
    html = page(folder, capsys)
    assert (
        "Model: NCCL 2.20.5&#x27;s tuner on the system rank 0&#x27;s log nccl-log.a3mega-0.4242 "
        "describes: 2 node(s) x 8 GPU(s), sm_90" in html
    )
    assert f"of preset {PRESET}, which matches the GPU names (H100 SXM)" in html
    assert "the log prints no CPU line: Intel CPUs assumed" in html
    header, rows = table(html, "sizes")
    assert "NCCL logged" not in header  # issue #1519's log shows the table, no calls
    sweep = get_sweep(SWEEP)
    assert len(rows) == len(sweep.rows) == 31
    by_size = {int(r["size (B)"]): r for r in rows}
    gib = by_size[2**30]
    published = sweep.row(2**30)
    assert (gib["time (us)"], gib["algbw (GB/s)"], gib["busbw (GB/s)"]) == (
        "6759.00",
        "158.860",
        "297.860",
    )
    assert published.busbw_GBps == 297.86
    expected = independent_model(2**30, 297.86)
    assert {k: gib[k] for k in expected} == expected
    # the 8 B row's published busbw is 0.00: no error can be stated
    assert by_size[8]["error %"] == "n/a"
    assert (
        by_size[8]["model algorithm/protocol"]
        == independent_model(8, 1.0)["model algorithm/protocol"]
    )
    # steps, findings (failures and warnings first, with their fix), what is missing
    _, steps = table(html, "steps")
    assert [(s["status"], s["log"]) for s in steps] == [
        ("pass", "lab03-run.txt"),
        ("fail", "lab03-tests.txt (missing)"),
        ("skip", ""),
    ]
    assert '<a href="lab03-run.txt">lab03-run.txt</a>' in html
    _, findings = table(html, "findings")
    assert [f["status"] for f in findings] == ["fail", "warn", "ok", "n/a"]
    assert findings[0]["detail"] == "7 of 8 GPUs answer Fix: reset GPU 3 with nvidia-smi -r -i 3"
    assert "<li>topology.txt: not in the folder</li>" in html
    assert "has no TUNING output" in html  # model-vs-nccl-log.txt, as the command wrote it
    assert f'<a href="{NCCL_LOG}">{NCCL_LOG}</a> (rank 0)' in html


def test_nccls_logged_choices_are_shown_next_to_the_models(tmp_path, capsys):
    """Issue #1453's log (3 nodes x 8 H100, NCCL 2.22.3) prints NCCL's pick per size."""
    folder = tmp_path / "results"
    environment = dict(ENVIRONMENT, nccl_version="2.22.3")
    nccl_bundle(folder, environment)
    record = bench_record(environment, nranks=24)
    logged_sizes = {c.n_bytes for c in read_log(NCCL_1453.text).calls}
    record["rows"] = [r for r in record["rows"] if r["size"] in logged_sizes]
    (folder / "bench-all_reduce.json").write_text(json.dumps(record))
    (folder / NCCL_LOG).write_text(NCCL_1453.text)
    html = page(folder, capsys)
    assert "NCCL 2.22.3&#x27;s tuner on the system rank 0&#x27;s log" in html
    assert "3 node(s) x 8 GPU(s)" in html
    _, rows = table(html, "sizes")
    logged = {int(r["size (B)"]): r["NCCL logged"] for r in rows}
    # "Algo 0 proto 0", "Algo 5 proto 2", "Algo 1 proto 2" in NCCL's order of names
    assert (logged[8], logged[524288], logged[2**30]) == (
        "Tree/LL",
        "NVLSTree/Simple",
        "Ring/Simple",
    )


def test_without_a_log_the_preset_matching_the_gpus_is_used(tmp_path, capsys):
    folder = tmp_path / "results"
    environment = dict(ENVIRONMENT, nccl_version="2.21.5")
    nccl_bundle(folder, environment)
    for log in folder.glob("nccl-log.*"):
        log.unlink()
    record = bench_record(environment, nranks=8)
    (folder / "bench-all_reduce.json").write_text(json.dumps(record))
    html = page(folder, capsys)
    assert "Model: NCCL 2.22.3&#x27;s tuner on preset h100-nvls" in html
    assert "NVLS (NVLink SHARP) assumed available" in html
    assert "no rank-0 NCCL log in the bundle" in html
    _, rows = table(html, "sizes")
    for row in rows[::6]:
        size = int(row["size (B)"])
        p = predict("all_reduce", size, "h100-nvls", ranks=8, nccl_version="2.21.5")
        assert row["model busbw (GB/s)"] == f"{p.busbw_GBps:.3f}"
        assert row["model algorithm/protocol"] == f"{p.algorithm}/{p.protocol}"

    # a release the course has no tuner for is priced with 2.30.7's, and the page says so
    record["environment"] = dict(environment, nccl_version="2.27.7")
    (folder / "bench-all_reduce.json").write_text(json.dumps(record))
    html = page(folder, capsys)
    assert "no tuner model for NCCL 2.27.7" in html and "priced with 2.30.7" in html

    # NCCL_ALGO as the run had it: applied, and refused where NCCL would refuse it
    record["environment"] = dict(environment, nccl_env={"NCCL_ALGO": "ring"})
    (folder / "bench-all_reduce.json").write_text(json.dumps(record))
    html = page(folder, capsys)  # forcing is modelled for 2.30.7 only
    assert "forcing an algorithm is modelled for NCCL 2.30.7 only" in html
    record["environment"]["nccl_version"] = "2.30.7"
    (folder / "bench-all_reduce.json").write_text(json.dumps(record))
    html = page(folder, capsys)
    assert "the benchmark ran with NCCL_ALGO=ring, which the model applies" in html
    assert {r["model algorithm/protocol"].split("/")[0] for r in table(html, "sizes")[1]} == {
        "Ring"
    }
    record["environment"] = dict(environment, nccl_env={"NCCL_ALGO": "bogus"})
    (folder / "bench-all_reduce.json").write_text(json.dumps(record))
    html = page(folder, capsys)
    assert "No model: the model cannot price this run: " in html

    # GPUs no preset describes: the measurement alone, and why
    record["environment"] = dict(environment, gpu_names=["NVIDIA H800"] * 8)
    (folder / "bench-all_reduce.json").write_text(json.dumps(record))
    html = page(folder, capsys)
    assert "No model: no preset describes these GPUs (NVIDIA H800)" in html
    assert "model busbw (GB/s)" not in table(html, "sizes")[0]


def test_a_bundle_with_files_missing_renders_what_is_there(tmp_path, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "summary.txt").write_text("PASS  lab 01\nFAIL  bench all_reduce (exit 1)\n")
    old_doctor = dict(ENVIRONMENT)  # a doctor from before "checks": the environment alone
    (folder / "environment.json").write_text(json.dumps(old_doctor))
    html = page(folder, capsys)
    assert "No steps.jsonl; summary.txt says:" in html
    assert "FAIL  bench all_reduce (exit 1)" in html
    assert "environment.json has no checks" in html
    for name in ("steps.jsonl", "bench-all_reduce.json", "topology.txt", "nccl-log.*"):
        assert f"<li>{name}: not in the folder</li>" in html, name
    assert "<h1>GPU check results: a3mega-0</h1>" in html
    assert 'class="sizes"' not in html and "<img" not in html


def test_bad_folders_and_malformed_files_are_one_line_errors(tmp_path, capsys):
    code, _, err = report(tmp_path / "nowhere", capsys)
    assert (code, err) == (
        2,
        f"error: {tmp_path / 'nowhere'}: no such folder; give the folder labs/gpu_check.sh wrote\n",
    )
    (tmp_path / "file").write_text("x")
    code, _, err = report(tmp_path / "file", capsys)
    assert code == 2 and "not a folder" in err
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("hello")
    code, _, err = report(tmp_path / "empty", capsys)
    assert code == 2 and "none of the files labs/gpu_check.sh writes" in err

    folder = nccl_bundle(tmp_path / "results")
    bench = folder / "bench-all_reduce.json"
    text = json.dumps(bench_record(ENVIRONMENT), indent=2)
    bench.write_text(text[: len(text) // 2])  # the copy stopped half-way
    lines = text[: len(text) // 2].count("\n") + 1
    code, out, err = report(folder, capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"error: bench-all_reduce.json line {lines}: malformed JSON (")
    assert not (folder / "report.html").exists()

    bench.write_text(json.dumps(bench_record(ENVIRONMENT)))
    steps = folder / "steps.jsonl"
    steps.write_text(steps.read_text() + '{"name": "bench all_reduce", "sta')
    code, _, err = report(folder, capsys)
    assert code == 2 and err.startswith("error: steps.jsonl line 4: malformed JSON (")

    steps.write_text('{"name": "x", "status": "pass"}\n["not", "a", "step"]\n')
    code, _, err = report(folder, capsys)
    assert (code, err) == (2, "error: steps.jsonl line 2: a step must be a JSON object, got list\n")

    steps.write_text('{"name": "x", "status": "pass"}\n')
    (folder / "environment.json").write_text('{"environment": {"host": "h"}, "checks": {}}')
    code, _, err = report(folder, capsys)
    assert (code, err) == (2, "error: environment.json: 'checks' must be a list, got dict\n")


def test_text_from_the_bundle_is_escaped_and_links_stay_in_the_folder(tmp_path, capsys):
    hostile = "<script>alert(1)</script>"
    environment = dict(
        ENVIRONMENT,
        host=hostile,
        gpu_names=['NVIDIA H100 80GB HBM3"><img src=x onerror=alert(2)>'] * 8,
        driver_version="</td><iframe src=https://example.org>",
    )
    folder = nccl_bundle(tmp_path / "results", environment)
    steps = [
        {"name": "<b>bold</b>", "status": "pass<i>", "seconds": 1, "log": "javascript:alert(3)"},
        {"name": "escape", "status": "fail", "seconds": 1, "log": "../../../etc/passwd"},
        {"name": "absolute", "status": "fail", "seconds": 1, "log": "/etc/passwd"},
    ]
    (folder / "steps.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    (folder / "javascript:alert(3)").write_text("a file with a hostile name")
    (folder / "linked.txt").symlink_to("/etc/hostname")
    (folder / "topology.txt").symlink_to("/etc/passwd")
    html = page(folder, capsys)
    lowered = html.lower()
    assert "<script" not in lowered and "<iframe" not in lowered and "<img src=x" not in lowered
    assert "<h1>GPU check results: &lt;script&gt;alert(1)&lt;/script&gt;</h1>" in html
    assert "<title>GPU check: &lt;script&gt;alert(1)&lt;/script&gt;</title>" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "pass&lt;i&gt;" in html
    # a file name that looks like a URL scheme is a relative, percent-encoded path
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert "javascript%3Aalert%283%29" in hrefs
    schemes = [h for h in hrefs if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", h)]
    assert schemes == [] and all(not h.startswith("/") and ".." not in h for h in hrefs)
    assert "../../../etc/passwd <span" in html and "/etc/passwd <span" in html  # not links
    # symbolic links are not followed: topology.txt is named, not read
    assert "<li>topology.txt: a symbolic link, not read</li>" in html
    assert "root:" not in html
    assert hostile not in html


def test_output_elsewhere_links_back_into_the_folder(tmp_path, capsys):
    folder = nccl_bundle(tmp_path / "results")
    out = tmp_path / "pages" / "check.html"
    out.parent.mkdir()
    code, stdout, err = report(folder, capsys, "-o", str(out))
    assert code == 0, err
    assert stdout == f"report: {out}\n"
    html = out.read_text()
    assert '<a href="../results/lab03-run.txt">lab03-run.txt</a>' in html
    code, _, err = report(folder, capsys, "-o", str(tmp_path / "no" / "such" / "x.html"))
    assert code == 2 and err.startswith("error: cannot write ")
