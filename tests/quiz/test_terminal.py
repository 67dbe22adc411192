"""``nccl-course quiz take|list|validate`` through their real input and output."""

from __future__ import annotations

import io
import string
import subprocess
import sys
from pathlib import Path

from nccl_course.quiz import load_bank
from nccl_course.quiz.terminal import show_question, take

REPO = Path(__file__).resolve().parents[2]
INTRO = load_bank(REPO / "quizzes" / "intro.yml")


def typed(inst, right: bool = True) -> str:
    """What a learner types for an instance: the right answer, or a wrong one."""
    q = inst.question
    if q.type == "single":
        i = inst.correct_response()
        return str(i + 1 if right else (i + 1) % len(inst.choices) + 1)
    if q.type == "multiple":
        picks = (
            inst.correct_response()
            if right
            else [i for i, c in enumerate(inst.choices) if not c.correct]
        )
        return ",".join(str(i + 1) for i in picks)
    if q.type == "numeric":
        return repr(inst.answer if right else inst.answer * 3)
    if q.type == "ordering":
        order = inst.order if right else list(range(len(inst.order)))
        return " ".join(str(i + 1) for i in order)
    if q.type == "matching":
        match = inst.match if right else inst.match[1:] + inst.match[:1]
        return " ".join(string.ascii_lowercase[i] for i in match)
    return inst.answers[0] if right else "carrier pigeon"


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nccl_course", "quiz", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )


def test_take_all_right_through_the_command_line():
    seed = 5
    lines = [typed(q.instantiate(seed)) for q in INTRO.questions]
    out = cli("take", "intro", "--seed", str(seed), stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Correct.") == len(INTRO.questions)
    assert f"Score: {len(INTRO.questions)} / {len(INTRO.questions)}" in out.stdout
    # prompts are shown with their drawn numbers
    inst = INTRO.question("allreduce-time-busbw").instantiate(seed)
    assert f"{inst.params['ranks']} GPUs all-reduce a {inst.params['size']}" in out.stdout


def test_take_all_wrong_shows_teaching_feedback():
    seed = 2
    stdin = io.StringIO("\n".join(typed(q.instantiate(seed), right=False) for q in INTRO.questions))
    out = io.StringIO()
    score = take(INTRO, seed, stdin=stdin, out=out)
    text = out.getvalue()
    assert score == 0
    assert "Correct." not in text
    assert text.count("Not right.") == len(INTRO.questions)
    inst = INTRO.question("gather-shards-everywhere").instantiate(seed)
    wrong = (inst.correct_response() + 1) % len(inst.choices)
    assert inst.choices[wrong].feedback.splitlines()[0] in text
    assert "Right answer: 1.75" in text  # numeric answers are revealed after a wrong try
    # and so is every other kind: a single choice by its number and text
    assert f"Right answer: {inst.correct_response() + 1}. " in text
    assert text.count("Right answer: ") == len(INTRO.questions)
    assert f"Score: 0 / {len(INTRO.questions)} (0 %; {len(INTRO.questions)} answered)" in text


def test_take_reasks_unreadable_input_and_stops_at_end_of_input():
    first = INTRO.questions[0].instantiate(0)
    out = io.StringIO()
    score = take(INTRO, 0, stdin=io.StringIO("banana\n9\n" + typed(first) + "\n"), out=out)
    text = out.getvalue()
    assert text.count("Could not read that") == 2
    assert score == 1
    share = round(100 / len(INTRO.questions))
    assert f"Score: 1 / {len(INTRO.questions)} ({share} %; 1 answered)" in text


def test_list_and_validate_commands(tmp_path):
    out = cli("list")
    assert out.returncode == 0, out.stderr
    assert "intro" in out.stdout and "14 questions" in out.stdout
    out = cli("validate")
    assert out.returncode == 0, out.stderr
    assert "quizzes/intro.yml: ok" in out.stdout
    bad = tmp_path / "broken.yml"
    bad.write_text(
        "chapter: broken\ntitle: B\nquestions:\n"
        "  - {id: q1, type: single, difficulty: 1, tags: [t], prompt: p,\n"
        "     choices: [{text: a, feedback: f}, {text: b, feedback: g}]}\n"
    )
    out = cli("validate", str(bad))
    assert out.returncode == 1
    assert "broken.yml: question 'q1': no correct choice" in out.stderr


def test_take_unknown_chapter_says_what_exists():
    out = cli("take", "no-such-chapter")
    assert out.returncode == 1
    assert "no quiz 'no-such-chapter'" in out.stderr and "intro" in out.stderr


def test_math_is_printed_as_text():
    bank = load_bank(REPO / "quizzes" / "cost-model.yml")
    out = io.StringIO()
    for question in bank.questions:
        show_question(question.instantiate(1), 1, 1, out)
    text = out.getvalue()
    assert "\\" not in text and "$" not in text, text
    assert "2(p-1)α" in text and "log₂ p" in text
