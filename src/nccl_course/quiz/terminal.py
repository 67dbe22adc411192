"""Take a practice quiz in a terminal: plain text in, plain text out (testable with any streams)."""

from __future__ import annotations

import re
import string
import sys
from typing import TextIO

from nccl_course.quiz.grading import grade
from nccl_course.quiz.latex_text import math_as_text
from nccl_course.quiz.model import Bank, QuestionInstance

_LETTERS = string.ascii_lowercase
MAX_RETRIES = 3


def plain(markdown: str) -> str:
    """Markdown as it reads in a terminal: math as Unicode text (2·15/16, log₂ p), the rest as
    written."""
    return math_as_text(markdown).strip()


def right_answer(inst: QuestionInstance) -> str:
    """The right answer, written the way the learner types it (choice numbers, letters)."""
    q = inst.question
    response = inst.correct_response()
    if q.type == "single":
        return f"{response + 1}. {plain(inst.choices[response].text)}"
    if q.type == "multiple":
        return "; ".join(f"{i + 1}. {plain(inst.choices[i].text)}" for i in response)
    if q.type == "ordering":
        return " ".join(str(i + 1) for i in response)
    if q.type == "matching":
        return " ".join(_LETTERS[j] for j in response)
    return str(inst.key()["display"])


def show_question(inst: QuestionInstance, number: int, total: int, out: TextIO) -> None:
    q = inst.question
    stars = "*" * q.difficulty
    out.write(f"\nQuestion {number}/{total} [{q.id}] {stars}\n")
    out.write(plain(inst.prompt) + "\n")
    if q.type in ("single", "multiple"):
        for i, text in enumerate(inst.choices):
            out.write(f"  {i + 1}. {plain(text.text)}\n")
        if q.type == "single":
            out.write("Answer with the number of one choice.\n")
        else:
            out.write("Answer with the numbers of every right choice, e.g. 1,3.\n")
    elif q.type == "numeric":
        unit = f" in {q.unit}" if q.unit else ""
        out.write(f"Answer with a number{unit} (you may add a unit).\n")
    elif q.type == "ordering":
        for i, text in enumerate(inst.items):
            out.write(f"  {i + 1}. {plain(text)}\n")
        out.write("Answer with the item numbers in the right order, e.g. 3 1 2 4.\n")
    elif q.type == "matching":
        for i, text in enumerate(inst.left):
            out.write(f"  {i + 1}. {plain(text)}\n")
        out.write("  with:\n")
        for i, text in enumerate(inst.right):
            out.write(f"  {_LETTERS[i]}) {plain(text)}\n")
        out.write("Answer with one letter per numbered item, in order, e.g. b a c.\n")
    elif q.type == "text":
        out.write("Answer with a word or a short phrase.\n")


def parse_answer(inst: QuestionInstance, line: str):
    """Turn a typed line into the response format of quizzes/README.md; ValueError if unreadable."""
    q = inst.question
    text = line.strip()
    if not text:
        raise ValueError("type an answer (Ctrl-D stops the quiz)")
    if q.type == "single":
        return _number_list(text, len(inst.choices), exactly=1)[0]
    if q.type == "multiple":
        return _number_list(text, len(inst.choices))
    if q.type == "ordering":
        return _number_list(text, len(inst.items), exactly=len(inst.items))
    if q.type == "matching":
        letters = [t for t in re.split(r"[\s,;]+", text.lower()) if t]
        if len(letters) == 1 and len(letters[0]) == len(inst.left):
            letters = list(letters[0])
        if len(letters) != len(inst.left):
            raise ValueError(f"give {len(inst.left)} letters, one per numbered item")
        out = []
        for letter in letters:
            if len(letter) != 1 or letter not in _LETTERS[: len(inst.right)]:
                raise ValueError(f"{letter!r} is not one of a-{_LETTERS[len(inst.right) - 1]}")
            out.append(_LETTERS.index(letter))
        return out
    return text  # numeric and text are graded from the string itself


def _number_list(text: str, n: int, exactly: int | None = None) -> list[int]:
    parts = [p for p in re.split(r"[\s,;]+", text) if p]
    if not all(p.isdigit() and 1 <= int(p) <= n for p in parts):
        raise ValueError(f"use numbers from 1 to {n}")
    if exactly is not None and len(parts) != exactly:
        raise ValueError(f"give {exactly} number{'s' if exactly > 1 else ''}")
    return [int(p) - 1 for p in parts]


def take(bank: Bank, seed: int, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> float:
    """Ask every question of ``bank`` drawn with ``seed``; return the total score."""
    total = len(bank.questions)
    out.write(f"{bank.title}: {total} questions. Ctrl-D stops.\n")
    score = 0.0
    answered = 0
    for number, question in enumerate(bank.questions, start=1):
        inst = question.instantiate(seed)
        show_question(inst, number, total, out)
        response = None
        for _ in range(MAX_RETRIES):
            out.write("> ")
            out.flush()
            line = stdin.readline()
            if line == "":
                out.write("\n")
                _summary(score, answered, total, out)
                return score
            try:
                response = parse_answer(inst, line)
                break
            except ValueError as exc:
                out.write(f"Could not read that: {exc}.\n")
        if response is None:
            out.write("Skipped.\n")
            answered += 1
            continue
        result = grade(inst, response)
        if result.outcome == "unreadable":
            out.write(plain(result.feedback) + "\nSkipped.\n")
        else:
            verdict = {1.0: "Correct."}.get(result.score, f"Score {result.score:.2f}.")
            if result.score == 0:
                verdict = "Not right."
            out.write(verdict + "\n" + plain(result.feedback) + "\n")
            if not result.correct:
                out.write(f"Right answer: {right_answer(inst)}\n")
        score += result.score
        answered += 1
    _summary(score, answered, total, out)
    return score


def _summary(score: float, answered: int, total: int, out: TextIO) -> None:
    share = 100 * score / total if total else 0.0
    out.write(f"\nScore: {score:g} / {total} ({share:.0f} %; {answered} answered).\n")
