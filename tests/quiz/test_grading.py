"""Grading: for every question of every bank, the right answer scores 1 and every distractor 0;
the partial-credit and tolerance rules hold exactly as quizzes/README.md states them."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nccl_course.quiz import grade, grade_key, load_banks, normalize_text
from nccl_course.quiz.grading import multiple_score
from nccl_course.quiz.units import format_value, read_number, tolerance

REPO = Path(__file__).resolve().parents[2]
BANKS = load_banks(REPO / "quizzes")
QUESTIONS = [q for bank in BANKS.values() for q in bank.questions]
SEEDS = (0, 1, 7)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.uid)
def test_right_answer_scores_one_and_every_distractor_zero(question):
    for seed in SEEDS:
        inst = question.instantiate(seed)
        key = inst.key()
        right = grade(inst, inst.correct_response())
        assert right.score == 1.0 and right.correct and right.outcome == "correct", right
        assert right.feedback.strip()
        for wrong in distractors(inst):
            g = grade(inst, wrong)
            assert g.score == 0.0 and not g.correct, (seed, wrong, g)
            assert g.feedback.strip()
        if question.type in ("single", "multiple"):
            # every choice's own feedback is what the learner gets for picking it
            for i, choice in enumerate(inst.choices):
                if question.type == "single":
                    assert grade(inst, i).feedback.startswith(choice.feedback.strip())
                else:
                    assert choice.feedback in grade(inst, [i]).feedback
        if question.type == "numeric":
            for m in key["mistakes"]:
                g = grade(inst, m["answer"])
                assert g.score == 0.0 and g.outcome.startswith("mistake:"), (m, g)
                assert g.feedback == m["feedback"]


def distractors(inst) -> list:
    """Responses that must score 0 for this instance."""
    q = inst.question
    if q.type == "single":
        return [i for i, c in enumerate(inst.choices) if not c.correct]
    if q.type == "multiple":
        wrong = [[i] for i, c in enumerate(inst.choices) if not c.correct]
        return wrong + [list(range(len(inst.choices))), []]
    if q.type == "numeric":
        a = inst.answer
        tol = tolerance(a, q.rel, q.abs, q.sig_figs)
        return [a + 2 * tol + 1e-12 * abs(a), a - 2 * tol - 1e-12 * abs(a), "not a number"]
    if q.type == "ordering":
        n = len(inst.order)
        return [
            p
            for p in itertools.islice(itertools.permutations(range(n)), 24)
            if list(p) != inst.order
        ]
    if q.type == "matching":
        match = inst.match
        rotated = match[1:] + match[:1]
        return [rotated, [match[0]] * len(match)]
    if q.type == "text":
        return ["", "definitely not the answer"] + [str(m) for m, _ in inst.mistakes]
    raise AssertionError(q.type)


def test_multiple_select_partial_credit_rule():
    correct, n = {0, 1}, 4  # two right, two wrong
    assert multiple_score({0, 1}, correct, n) == 1.0
    assert multiple_score({0}, correct, n) == 0.5
    assert multiple_score({0, 2}, correct, n) == 0.0
    assert multiple_score({0, 1, 2}, correct, n) == 0.5
    assert multiple_score({2}, correct, n) == 0.0
    assert multiple_score(set(), correct, n) == 0.0
    assert multiple_score({0, 1, 2, 3}, correct, n) == 0.0
    # three right, one wrong: a wrong pick costs a whole point
    assert multiple_score({0, 1, 3}, {0, 1, 2}, 4) == 0.0
    assert multiple_score({0, 1}, {0, 1, 2}, 4) == pytest.approx(2 / 3)


def test_multiple_grade_reports_partial_and_feedback_for_missed():
    inst = BANKS["intro"].question("nccl-call-semantics").instantiate(0)
    right = inst.correct_response()
    g = grade(inst, right[:1])
    assert g.outcome == "partial" and g.score == 0.5
    missed = inst.choices[right[1]].feedback
    assert missed in g.feedback and "(missed)" in g.feedback
    assert grade(inst, [right[0], right[0]]).score == 0.5  # duplicates ignored


def test_numeric_units_and_tolerance():
    inst = BANKS["intro"].question("allreduce-time-busbw").instantiate(3)
    a = inst.answer  # ms
    assert grade(inst, f"{a * 1.019:.6f}").correct
    assert not grade(inst, f"{a * 1.021:.6f}").correct
    assert grade(inst, f"{a / 1e3:.8g} s").correct
    assert grade(inst, f"{a * 1e3:.8g} us").correct
    assert grade(inst, f"{a * 1e3:.8g} µs").correct
    assert grade(inst, f"  {a:.6g}ms ").correct
    bad_unit = grade(inst, f"{a:.6g} GB")
    assert bad_unit.outcome == "unreadable" and "ms" in bad_unit.feedback
    assert grade(inst, "twelve").outcome == "unreadable"
    assert grade(inst, True).outcome == "unreadable"


def test_tolerance_rule_exact_values():
    assert tolerance(100.0, rel=0.02) == 2.0
    assert tolerance(100.0, abs_tol=0.5, rel=0.001) == 0.5
    # 3 significant figures of 12.345: half a unit in the last place is 0.05
    assert tolerance(12.345, sig_figs=3) == pytest.approx(0.05)
    assert tolerance(0.001234, sig_figs=2) == pytest.approx(0.00005)
    assert format_value(12.345, 3) == "12.3"
    assert format_value(0.0001234, 3) == "0.000123"
    assert format_value(123456.0, 3) == "123456"


def test_read_number():
    units = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
    assert read_number("2.5e-2 s", "ms", units) == pytest.approx(25.0)
    assert read_number(".5", "ms", units) == 0.5
    assert read_number(7, "ms", units) == 7.0
    assert read_number("1.5 Gb/s", "GB/s") == pytest.approx(0.1875)
    assert read_number("80 %", "%") == 80.0


def test_text_normalization():
    assert normalize_text("All-Gather") == normalize_text("all gather") == "allgather"
    assert normalize_text("  ALL_GATHER. ") == "allgather"
    inst = BANKS["intro"].question("cpu-backend-name").instantiate(0)
    assert grade(inst, " Gloo ").correct
    g = grade(inst, "NCCL")
    assert g.outcome == "mistake:1" and "no CPU support" in g.feedback


def test_unreadable_index_responses_score_zero():
    inst = BANKS["intro"].question("gather-shards-everywhere").instantiate(0)
    for bad in (17, -1, "x", None, [0], True):
        assert grade(inst, bad).outcome == "unreadable"
    assert grade(inst, str(inst.correct_response())).correct  # "2" is read as 2


PUBLIC_KEYS = {
    "id",
    "chapter",
    "uid",
    "type",
    "prompt",
    "prompt_format",
    "exhibit",
    "difficulty",
    "tags",
    "objective",
    "skill",
}
PUBLIC_BY_TYPE = {
    "single": {"choices"},
    "multiple": {"choices"},
    "numeric": {"unit", "units"},
    "ordering": {"items"},
    "matching": {"left", "right"},
    "text": set(),
}


def test_public_view_carries_no_answer():
    for q in QUESTIONS:
        inst = q.instantiate(5)
        public = inst.public()
        assert set(public) == PUBLIC_KEYS | PUBLIC_BY_TYPE[q.type], q.uid
        assert json.loads(json.dumps(public)) == public
        assert all(isinstance(c, str) for c in public.get("choices", []))
        if q.type == "ordering":
            assert public["items"] != [inst.items[i] for i in inst.order]  # shown shuffled
        json.dumps(inst.key())


def test_instances_are_deterministic_in_the_seed():
    for q in QUESTIONS:
        assert q.instantiate(11).key() == q.instantiate(11).key()
        assert q.instantiate(11).public() == q.instantiate(11).public()
    parameterized = [q for q in QUESTIONS if q.parameterized]
    assert parameterized
    for q in parameterized:
        # a numeric question's number; a choose question's right option
        answers = {
            q.instantiate(s).answer
            if q.type == "numeric"
            else next(c.text for c in q.instantiate(s).choices if c.correct)
            for s in range(12)
        }
        assert len(answers) > 1, f"{q.uid}: 12 seeds drew the same answer"


def test_seeds_are_reproducible_across_processes():
    script = (
        "import json; from nccl_course.quiz import load_banks; "
        f"b = load_banks({str(REPO / 'quizzes')!r}); "
        "print(json.dumps([q.instantiate(42).key() for bank in b.values() for q in bank.questions]))"
    )
    outputs = []
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr
        outputs.append(out.stdout)
    assert outputs[0] == outputs[1]
    here = [q.instantiate(42).key() for bank in BANKS.values() for q in bank.questions]
    assert json.loads(outputs[0]) == json.loads(json.dumps(here))


def test_grade_key_equals_grade_on_instance():
    inst = BANKS["intro"].question("busbw-factor-8").instantiate(0)
    assert grade_key(inst.key(), "1.75") == grade(inst, "1.75")
    assert grade(inst, 0.875).outcome == "mistake:0"
    assert grade(inst, 1.7549).correct and not grade(inst, 1.7551).correct
