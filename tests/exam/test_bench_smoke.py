"""The load benchmark runs end to end (a few learners, seconds) and its integrity check holds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_exam_load.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_exam_load", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_bench_open_loop_small(tmp_path, quizzes_dir, capsys):
    """Default mode: learners arrive over a ramp and answer after a (short) think time."""
    bench = load_bench()
    out = tmp_path / "figures.json"
    code = bench.main(
        ["--learners", "5", "--ramp-s", "0.5", "--think-s", "0.2", "--answers", "6",
         "--per-bank", "2", "--quizzes", str(quizzes_dir), "--max-seconds", "60",
         "--json", str(out)]
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert code == 0, capsys.readouterr().out
    assert figures["mode"] == "open-loop"
    assert figures["questions_per_attempt"] == 4  # alpha 2 + beta 2; 6 answers wrap around
    assert figures["answer_saves"] == 5 * 6
    assert figures["start_count"] == figures["submit_count"] == 5
    assert figures["answer_rows"] == figures["acknowledged_answers"] == 5 * 4
    assert figures["lost"] == figures["duplicated"] == figures["wrong_value"] == 0
    assert figures["wrong_revision"] == figures["extra_rows"] == figures["cut_off_learners"] == 0
    assert figures["submitted_attempts"] == 5
    assert figures["save_max_ms"] >= figures["save_p99_ms"] >= figures["save_p95_ms"]
    assert figures["save_p95_ms"] >= figures["save_p50_ms"] > 0
    assert "open loop" in capsys.readouterr().out


def test_bench_closed_loop_small(tmp_path, quizzes_dir, capsys):
    """--closed-loop: all learners at once, no think time, every question saved --resaves times."""
    bench = load_bench()
    out = tmp_path / "figures.json"
    code = bench.main(
        ["--closed-loop", "--learners", "6", "--resaves", "3", "--per-bank", "2",
         "--quizzes", str(quizzes_dir), "--max-seconds", "60", "--json", str(out)]
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert code == 0, capsys.readouterr().out
    assert figures["mode"] == "closed-loop"
    assert figures["answer_saves"] == 6 * 4 * 3
    assert figures["answer_rows"] == figures["acknowledged_answers"] == 24
    assert figures["lost"] == figures["duplicated"] == figures["wrong_revision"] == 0
    assert figures["submitted_attempts"] == 6


def test_bench_checks_a_given_blueprint(tmp_path, quizzes_dir, capsys):
    """The integrity check counts this run's attempts whatever the blueprint's exam id is
    (it used to count only exam id 'load-benchmark' and report every answer lost)."""
    bench = load_bench()
    blueprint = tmp_path / "blueprint.yml"
    blueprint.write_text(
        "exam:\n  id: some-other-exam\n  title: Other\n  time_limit_minutes: 60\n"
        "  max_attempts: 1\n  pass_score: 0.7\nzones:\n  - {chapter: alpha, draw: 2}\n"
    )
    out = tmp_path / "figures.json"
    code = bench.main(
        ["--learners", "3", "--ramp-s", "0.3", "--think-s", "0.1", "--answers", "2",
         "--blueprint", str(blueprint), "--quizzes", str(quizzes_dir), "--max-seconds", "60",
         "--json", str(out)]
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert code == 0, capsys.readouterr().out
    assert figures["answer_rows"] == figures["acknowledged_answers"] == 6
    assert figures["lost"] == 0 and figures["checked_attempts"] == 3


def test_bench_max_seconds_cuts_off(tmp_path, quizzes_dir, capsys):
    """--max-seconds is a hard bound: learners still thinking are cut off and counted."""
    bench = load_bench()
    out = tmp_path / "figures.json"
    code = bench.main(
        ["--learners", "2", "--ramp-s", "0.1", "--think-s", "30", "--answers", "3",
         "--per-bank", "1", "--quizzes", str(quizzes_dir), "--max-seconds", "2",
         "--json", str(out)]
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert code == 1
    assert figures["cut_off_learners"] == 2 and figures["wall_s"] < 15
    assert figures["lost"] == figures["duplicated"] == 0


def test_percentile():
    bench = load_bench()
    assert bench.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    assert bench.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.99) == pytest.approx(4.96)
    assert bench.percentile([10.0, 0.0], 0.0) == 0.0


def test_bench_several_client_processes_read_and_cpu(tmp_path, quizzes_dir, capsys):
    """--clients 2: the learners are split over two processes; every learner reads its attempt
    back once; the servers' CPU and the clients' verdict are reported."""
    bench = load_bench()
    out = tmp_path / "figures.json"
    code = bench.main(
        ["--learners", "6", "--ramp-s", "0.6", "--think-s", "0.1", "--answers", "3",
         "--per-bank", "2", "--quizzes", str(quizzes_dir), "--clients", "2",
         "--max-seconds", "60", "--json", str(out)]
    )  # fmt: skip
    figures = json.loads(out.read_text())
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert figures["clients"] == 2
    assert figures["read_count"] == figures["submit_count"] == figures["submitted_attempts"] == 6
    assert figures["answer_rows"] == figures["acknowledged_answers"] == 6 * 3
    assert figures["lost"] == figures["duplicated"] == figures["wrong_revision"] == 0
    assert figures["server_cpu_s"] > 0 and figures["client_cpu_s"] > 0
    assert "clients: 2 processes" in printed


def test_bench_one_at_a_time_measures_each_request_type(tmp_path, quizzes_dir, capsys):
    bench = load_bench()
    out = tmp_path / "figures.json"
    code = bench.main(
        ["--one-at-a-time", "4", "--answers", "3", "--per-bank", "2",
         "--quizzes", str(quizzes_dir), "--json", str(out)]
    )  # fmt: skip
    assert code == 0
    figures = json.loads(out.read_text())["one_at_a_time"]
    for kind in ("register", "start", "save", "read", "submit"):
        assert figures[f"{kind}_cpu_ms"] > 0
    assert "flow mean per request" in capsys.readouterr().out


def test_cpu_by_type_recovers_the_cost_of_each_request_type():
    """The fit of interval CPU to the requests finished in each interval finds the costs it
    was generated with (a mix that varies: more starts early, more saves later, submits at
    the end); a register and its start, a read and its submit, are priced as pairs."""
    bench = load_bench()
    cost_ms = {"register+start": 6.0, "save": 0.5, "read+submit": 9.0}
    when = {k: [] for k in bench.KINDS}
    samples, ns = [(0.0, 0)], 0
    for i in range(40):
        t = float(i)
        mix = {"register+start": max(0, 20 - i), "save": 3 * i % 17 + 1, "read+submit": i // 8}
        for group, n in mix.items():
            for kind in group.split("+"):
                when[kind] += [(t + 0.1, t + 0.5)] * n
            ns += int(n * cost_ms[group] * 1e6)
        samples.append((t + 1.0, ns))
    fitted = bench.cpu_by_type(samples, when)
    assert fitted == pytest.approx(cost_ms, rel=1e-6)


def test_client_verdict_names_a_busy_client():
    bench = load_bench()
    busy = {
        "client_cpu_s": [3.0],
        "client_wall_s": [10.0],
        "client_peak_share": [0.95],
        "lags": [0.001] * 100,
    }
    bound, line = bench.client_verdict(busy, server_cpu_s=2.0)
    assert bound and "CLIENT-BOUND" in line and "95% of a core in its busiest second" in line
    late = dict(busy, client_peak_share=[0.2], lags=[0.001] * 90 + [0.2] * 10)
    bound, line = bench.client_verdict(late, server_cpu_s=2.0)
    assert bound and "ran 200 ms late" in line and "the machine was busy" in line
    idle = {
        "client_cpu_s": [1.0, 1.2],
        "client_wall_s": [10.0, 10.0],
        "client_peak_share": [0.3, 0.2],
        "lags": [0.001] * 100,
    }
    bound, line = bench.client_verdict(idle, server_cpu_s=2.0)
    assert not bound and "not the bottleneck" in line


def test_peak_share_finds_the_busiest_second():
    bench = load_bench()
    # 0.1 s ticks: idle, then one second at 90% of a core, then idle again.
    samples, cpu = [], 0.0
    for i in range(50):
        cpu += 0.09 if 20 <= i < 30 else 0.001
        samples.append((i * 0.1, cpu))
    assert bench.peak_share(samples) == pytest.approx(0.9, abs=0.1)


def test_bench_two_servers_need_postgresql(quizzes_dir, capsys):
    bench = load_bench()
    with pytest.raises(SystemExit):
        bench.main(["--servers", "2", "--quizzes", str(quizzes_dir)])
    assert "PostgreSQL" in capsys.readouterr().err
