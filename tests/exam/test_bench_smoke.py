"""The load benchmark runs end to end (a few learners) and its integrity check holds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_exam_load.py"


def test_bench_exam_load_small(tmp_path, quizzes_dir, capsys):
    spec = importlib.util.spec_from_file_location("bench_exam_load", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "figures.json"
    code = bench.main(
        [
            "--learners",
            "6",
            "--resaves",
            "3",
            "--per-bank",
            "2",
            "--quizzes",
            str(quizzes_dir),
            "--json",
            str(out),
        ]
    )
    figures = json.loads(out.read_text())
    assert code == 0, capsys.readouterr().out
    assert figures["questions_per_attempt"] == 4  # alpha 2 + beta 2
    assert figures["answer_saves"] == 6 * 4 * 3
    assert figures["answer_rows"] == figures["acknowledged_answers"] == 24
    assert figures["lost"] == figures["duplicated"] == figures["wrong_revision"] == 0
    assert figures["submitted_attempts"] == 6
    assert figures["answers_per_s"] > 0 and figures["save_p99_ms"] >= figures["save_p50_ms"]
    assert "throughput" in capsys.readouterr().out


def test_percentile():
    spec = importlib.util.spec_from_file_location("bench_exam_load", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    assert bench.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.99) == pytest.approx(4.96)
    assert bench.percentile([10.0, 0.0], 0.0) == 0.0
