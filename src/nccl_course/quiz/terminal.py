"""Take a practice quiz in a terminal: plain text in, plain text out (testable with any streams)."""

from __future__ import annotations

import re
import string
import sys
from typing import TextIO

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.numbers import format_number
from nccl_course.quiz.exhibits import KIND_LABELS, numbered_lines
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


def _tr(inst: QuestionInstance):
    return translator(inst.question.language)


def show_question(inst: QuestionInstance, number: int, total: int, out: TextIO) -> None:
    q = inst.question
    tr = _tr(inst)
    stars = "*" * q.difficulty
    heading = tr(N_("Question {number}/{total}"), number=number, total=total)
    out.write(f"\n{heading} [{q.id}] {stars}\n")
    if q.exhibit is not None:
        show_exhibit(inst, out)
    out.write(plain(inst.prompt) + "\n")
    if q.type in ("single", "multiple"):
        for i, text in enumerate(inst.choices):
            out.write(f"  {i + 1}. {plain(text.text)}\n")
        if q.type == "single":
            out.write(tr(N_("Answer with the number of one choice.")) + "\n")
        else:
            out.write(tr(N_("Answer with the numbers of every right choice, e.g. 1,3.")) + "\n")
    elif q.type == "numeric":
        if q.unit:
            line = tr(N_("Answer with a number in {unit} (you may add a unit)."), unit=q.unit)
        else:
            line = tr(N_("Answer with a number."))
        out.write(line + "\n")
    elif q.type == "ordering":
        for i, text in enumerate(inst.items):
            out.write(f"  {i + 1}. {plain(text)}\n")
        out.write(tr(N_("Answer with the item numbers in the right order, e.g. 3 1 2 4.")) + "\n")
    elif q.type == "matching":
        for i, text in enumerate(inst.left):
            out.write(f"  {i + 1}. {plain(text)}\n")
        out.write("  " + tr(N_("with:")) + "\n")
        for i, text in enumerate(inst.right):
            out.write(f"  {_LETTERS[i]}) {plain(text)}\n")
        out.write(tr(N_("Answer with one letter per numbered item, in order, e.g. b a c.")) + "\n")
    elif q.type == "text":
        out.write(tr(N_("Answer with a word or a short phrase.")) + "\n")


def show_exhibit(inst: QuestionInstance, out: TextIO) -> None:
    """The exhibit between two rules, its lines numbered as the choices name them."""
    exhibit = inst.question.exhibit
    label = _tr(inst)(KIND_LABELS[exhibit.kind])
    caption = f"{label}: {exhibit.caption}" if exhibit.caption else label
    rule = "-" * 8
    out.write(f"{rule} {caption} {rule}\n")
    out.write("\n".join(numbered_lines(exhibit.text)) + "\n")
    out.write("-" * (len(caption) + 2 * len(rule) + 2) + "\n")


def parse_answer(inst: QuestionInstance, line: str):
    """Turn a typed line into the response format of quizzes/README.md; ValueError if unreadable."""
    q = inst.question
    text = line.strip()
    if not text:
        raise ValueError(_tr(inst)(N_("type an answer (Ctrl-D stops the quiz)")))
    if q.type == "single":
        return _number_list(text, len(inst.choices), _tr(inst), exactly=1)[0]
    if q.type == "multiple":
        return _number_list(text, len(inst.choices), _tr(inst))
    if q.type == "ordering":
        return _number_list(text, len(inst.items), _tr(inst), exactly=len(inst.items))
    if q.type == "matching":
        letters = [t for t in re.split(r"[\s,;]+", text.lower()) if t]
        if len(letters) == 1 and len(letters[0]) == len(inst.left):
            letters = list(letters[0])
        if len(letters) != len(inst.left):
            raise ValueError(
                _tr(inst)(N_("give {count} letters, one per numbered item"), count=len(inst.left))
            )
        out = []
        for letter in letters:
            if len(letter) != 1 or letter not in _LETTERS[: len(inst.right)]:
                raise ValueError(
                    _tr(inst)(
                        N_("'{letter}' is not one of a-{last}"),
                        letter=letter,
                        last=_LETTERS[len(inst.right) - 1],
                    )
                )
            out.append(_LETTERS.index(letter))
        return out
    return text  # numeric and text are graded from the string itself


def _number_list(text: str, n: int, tr, exactly: int | None = None) -> list[int]:
    parts = [p for p in re.split(r"[\s,;]+", text) if p]
    if not all(p.isdigit() and 1 <= int(p) <= n for p in parts):
        raise ValueError(tr(N_("use numbers from 1 to {last}"), last=n))
    if exactly is not None and len(parts) != exactly:
        if exactly == 1:
            raise ValueError(tr(N_("give 1 number")))
        raise ValueError(tr(N_("give {count} numbers"), count=exactly))
    return [int(p) - 1 for p in parts]


def take(bank: Bank, seed: int, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> float:
    """Ask every question of ``bank`` drawn with ``seed``; return the total score."""
    total = len(bank.questions)
    tr = translator(bank.questions[0].language if bank.questions else "en")
    out.write(tr(N_("{title}: {count} questions. Ctrl-D stops."), title=bank.title, count=total))
    out.write("\n")
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
                _summary(score, answered, total, out, tr)
                return score
            try:
                response = parse_answer(inst, line)
                break
            except ValueError as exc:
                out.write(tr(N_("Could not read that: {message}."), message=exc) + "\n")
        if response is None:
            out.write(tr(N_("Skipped.")) + "\n")
            answered += 1
            continue
        result = grade(inst, response)
        if result.outcome == "unreadable":
            out.write(plain(result.feedback) + "\n" + tr(N_("Skipped.")) + "\n")
        else:
            if result.score == 1.0:
                verdict = tr(N_("Correct."))
            elif result.score == 0:
                verdict = tr(N_("Not right."))
            else:
                shown = format_number(result.score, tr.language, digits=2)
                verdict = tr(N_("Score {score}."), score=shown)
            out.write(verdict + "\n" + plain(result.feedback) + "\n")
            if not result.correct:
                out.write(tr(N_("Right answer: {answer}"), answer=right_answer(inst)) + "\n")
        score += result.score
        answered += 1
    _summary(score, answered, total, out, tr)
    return score


def _summary(score: float, answered: int, total: int, out: TextIO, tr) -> None:
    share = 100 * score / total if total else 0.0
    line = tr(
        N_("Score: {score} / {total} ({percent} %; {answered} answered)."),
        score=format_number(score, tr.language, sig_figs=6),
        total=total,
        percent=format_number(share, tr.language, digits=0),
        answered=answered,
    )
    out.write(f"\n{line}\n")
