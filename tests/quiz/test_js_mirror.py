"""The page's JavaScript (static/nccl-quiz.js, run in Node) grades exactly like Python.

For every question of every bank and several seeds, a table of responses (right, wrong, at the
edge of the tolerance, in other units, unreadable) is graded by both; score and outcome must be
identical. The JavaScript gets the page key (no feedback texts), as in the book.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from nccl_course.quiz import grade_key, load_bank, load_banks
from nccl_course.quiz.sphinx_directive import STATIC, page_key

REPO = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

RUNNER = """
const quiz = require(process.argv[2]);
const cases = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
const out = cases.map(([key, response]) => {
  const g = quiz.gradeKey(key, response);
  return [g.score, g.outcome];
});
process.stdout.write(JSON.stringify(out));
"""


def exact_boundaries(a: float, tol: float) -> list[float]:
    """Floats x with |x - a| == tol exactly (where they exist): where '<=' and '<' differ."""
    found = []
    for start, direction in ((a + tol, math.inf), (a - tol, -math.inf)):
        x = start
        for _ in range(64):
            if abs(x - a) == tol:
                found.append(x)
                break
            x = math.nextafter(x, direction if abs(x - a) < tol else -direction)
    return found


def numeric_responses(key: dict) -> list:
    a, tol, unit = key["answer"], key["tol"], key["unit"]
    out: list = [a, repr(a), f"{a:.3g}", a + tol, a - tol, a + tol * 1.0001, a - tol * 1.0001]
    out += [repr(a + tol), repr(a - tol), repr(a + tol * 0.9999), f"{a * 1.5:g}", "", "abc"]
    out += [f" {a!r} {unit} ", f"{a!r}{unit}", f"{a!r} furlongs", "1e400", "--3", "+.5e-1"]
    for other, factor in key["units"].items():
        if other != unit:
            converted = a * key["units"][unit] / factor
            out += [
                f"{converted!r} {other}",
                f"{converted * (1 + 0.9 * tol / abs(a)):.10g} {other}",
            ]
    out += exact_boundaries(a, tol)
    out += [m["answer"] for m in key["mistakes"]]
    out += [m["answer"] + 0.5 * m["tol"] for m in key["mistakes"]]
    return out


def responses_for(key: dict) -> list:
    t = key["type"]
    if t == "single":
        return list(range(key["n_choices"])) + [key["n_choices"], -1, "1", None, [0], "x"]
    if t == "multiple":
        n = key["n_choices"]
        subsets = [[i for i in range(n) if mask >> i & 1] for mask in range(2**n)]
        return subsets + [[0, 0], [n], "0", 3]
    if t == "numeric":
        return numeric_responses(key)
    if t == "ordering":
        n = len(key["order"])
        rev = list(reversed(key["order"]))
        return [key["order"], rev, list(range(n)), [0] * n, list(range(n + 1)), "0 1 2"]
    if t == "matching":
        m = key["match"]
        return [m, m[::-1], [0] * len(m), m[:-1], [key["n_right"]] * len(m)]
    if t == "text":
        return (
            key["answers"]
            + ["", " Gloo ", "ALL-GATHER", "nccl", 5]
            + [m["answer"].upper() for m in key["mistakes"]]
        )
    raise AssertionError(t)


@pytest.mark.skipif(NODE is None, reason="node is not installed (make setup installs it for npm)")
def test_javascript_grading_mirrors_python(tmp_path):
    banks = load_banks(REPO / "quizzes")
    banks["edges"] = load_bank(write_edge_bank(tmp_path))
    cases, expected = [], []
    for bank in banks.values():
        for question in bank.questions:
            for seed in (0, 1, 2, 3, 4):
                inst = question.instantiate(seed)
                full, page = inst.key(), page_key(inst)
                for response in responses_for(full):
                    g = grade_key(full, response)
                    cases.append([page, response])
                    expected.append([g.score, g.outcome])
                if not question.parameterized:
                    break
    data = tmp_path / "cases.json"
    data.write_text(json.dumps(cases))
    script = tmp_path / "run.js"
    script.write_text(RUNNER)
    out = subprocess.run(
        [NODE, str(script), str(STATIC / "nccl-quiz.js"), str(data)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert len(got) == len(expected) > 500
    mismatches = [
        (case[0]["uid"], case[1], exp, js)
        for case, exp, js in zip(cases, expected, got, strict=True)
        if exp != js
    ]
    assert not mismatches, mismatches[:10]
    # the table exercises every branch
    outcomes = {o for _, o in expected}
    assert {"correct", "incorrect", "partial", "unreadable", "mistake:0"} <= outcomes
    boundary = [
        c
        for c in cases
        if c[0]["type"] == "numeric"
        and isinstance(c[1], float)
        and abs(c[1] - c[0]["answer"]) == c[0]["tol"]
    ]
    assert len(boundary) >= 6, "the table needs answers exactly at the tolerance"


EDGE_BANK = """chapter: edges
title: Tolerance edges
questions:
  - {id: rel, type: numeric, difficulty: 1, tags: [t], prompt: x, answer: 100, unit: ms,
     tolerance: {rel: 0.02}, feedback: {correct: c, incorrect: i}}
  - {id: abs, type: numeric, difficulty: 1, tags: [t], prompt: x, answer: 2, unit: "",
     tolerance: {abs: 0.5}, mistakes: [{answer: 4, feedback: m}],
     feedback: {correct: c, incorrect: i}}
  - {id: sig, type: numeric, difficulty: 1, tags: [t], prompt: x, answer: 1.25, unit: GiB,
     sig_figs: 2, feedback: {correct: c, incorrect: i}}
  - {id: pct, type: numeric, difficulty: 1, tags: [t], prompt: x, answer: 80, unit: "%",
     tolerance: {abs: 1}, feedback: {correct: c, incorrect: i}}
"""


def write_edge_bank(tmp_path: Path) -> Path:
    """Answers and tolerances on the binary grid, so '<=' and '<' give different grades."""
    path = tmp_path / "edges.yml"
    path.write_text(EDGE_BANK)
    return path
