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
