"""Grading: the one place that decides a score. The book's JavaScript (static/quiz.js) mirrors
``grade_key`` rule for rule, and a test runs both on the same answers.

Rules (quizzes/README.md): single, numeric, ordering, matching and text score 1 or 0; multiple
scores max(0, hits / n_correct - false_picks / n_incorrect).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.numbers import format_number
from nccl_course.quiz.units import ResponseError, read_number

_TEXT_DROP = re.compile(r"[\s\-_.]+")


def normalize_text(text: str) -> str:
    """NFKC, lower case, and drop whitespace, '-', '_' and '.' (so All-Gather == allgather).
    Turkish's dotted and dotless i are one letter here ("YAYIN", "yayın" and "yayin" match):
    lower case turns "I" into "i" and "İ" into "i" with a combining dot."""
    lowered = unicodedata.normalize("NFKC", str(text)).lower()
    return _TEXT_DROP.sub("", lowered.replace("\u0307", "").replace("ı", "i"))


@dataclass(frozen=True)
class Grade:
    """A graded response. ``outcome`` names the branch taken ("correct", "incorrect",
    "mistake:<i>", "partial", "unreadable"), the same string the page's JavaScript computes.
    ``feedback`` is markdown that teaches; ``expected`` shows the right answer (renderers decide
    when to reveal it)."""

    score: float
    outcome: str
    feedback: str
    expected: str = ""
    details: dict = field(default_factory=dict)

    @property
    def correct(self) -> bool:
        return self.score == 1.0


class _Unreadable(Exception):
    """A response the grader cannot read; the message is a template and its fields, shown in
    the key's language."""

    def __init__(self, template: str, **fields):
        self.template = template
        self.fields = fields
        super().__init__(template.format(**fields) if fields else template)


def _tr(key: dict):
    # The language the question was drawn in (nccl_course.quiz.translation); English keys
    # written before there was a language field have none.
    return translator(key.get("language", "en"))


def _index(value, n: int) -> int:
    if isinstance(value, bool):
        raise _Unreadable(N_("expected a choice number"))
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or not 0 <= value < n:
        raise _Unreadable(
            N_("expected an index from 0 to {last}, got {value}"), last=n - 1, value=repr(value)
        )
    return value


def _indices(values, n: int) -> list[int]:
    if not isinstance(values, list | tuple):
        raise _Unreadable(N_("expected a list of indices"))
    return [_index(v, n) for v in values]


def grade_key(key: dict, response) -> Grade:
    """Grade ``response`` against an answer key (``QuestionInstance.key()``)."""
    try:
        return _GRADERS[key["type"]](key, response)
    except _Unreadable as exc:
        tr = _tr(key)
        message = tr(exc.template, **exc.fields)
        return Grade(
            0.0,
            "unreadable",
            tr(N_("Could not read the answer: {message}."), message=message),
            _expected(key),
        )


def grade(instance, response) -> Grade:
    """Grade ``response`` for a ``QuestionInstance``; response formats are in quizzes/README.md."""
    return grade_key(instance.key(), response)


def _expected(key: dict) -> str:
    if key["type"] == "numeric" or key["type"] == "text":
        return key["display"]
    return ""


def _with_explanation(key: dict, text: str) -> str:
    parts = [t for t in (text, key.get("explanation", "")) if t and t.strip()]
    return "\n\n".join(p.strip() for p in parts)


def _grade_single(key: dict, response) -> Grade:
    n = key["n_choices"]
    chosen = _index(response, n)
    right = chosen in key["correct"]
    feedback = key["choice_feedback"][chosen]
    return Grade(
        1.0 if right else 0.0,
        "correct" if right else "incorrect",
        _with_explanation(key, feedback),
        details={"chosen": chosen},
    )


def multiple_score(selected: set[int], correct: set[int], n: int) -> float:
    """max(0, hits / n_correct - false_picks / n_incorrect)."""
    hits = len(selected & correct)
    false_picks = len(selected - correct)
    return max(0.0, hits / len(correct) - false_picks / (n - len(correct)))


def _grade_multiple(key: dict, response) -> Grade:
    n = key["n_choices"]
    selected = set(_indices(response, n))
    correct = set(key["correct"])
    score = multiple_score(selected, correct, n)
    tr = _tr(key)
    lines = []
    for i in range(n):
        if i in selected:
            mark = (
                N_("Choice {number} (right to select): {feedback}")
                if i in correct
                else N_("Choice {number} (wrong to select): {feedback}")
            )
            lines.append("- " + tr(mark, number=i + 1, feedback=key["choice_feedback"][i]))
        elif i in correct:
            lines.append(
                "- "
                + tr(
                    N_("Choice {number} (missed): {feedback}"),
                    number=i + 1,
                    feedback=key["choice_feedback"][i],
                )
            )
    outcome = "correct" if score == 1.0 else ("partial" if score > 0 else "incorrect")
    head = {
        "correct": tr(N_("All correct choices, and nothing else.")),
        "partial": tr(
            N_("Partly right: score {score}."),
            score=format_number(score, key.get("language", "en"), digits=2),
        ),
        "incorrect": tr(N_("Score 0.")),
    }[outcome]
    return Grade(
        score,
        outcome,
        _with_explanation(key, head + "\n\n" + "\n".join(lines)),
        details={"selected": sorted(selected)},
    )


def _grade_numeric(key: dict, response) -> Grade:
    try:
        value = read_number(response, key["unit"], key["units"], key.get("decimal", "."))
    except ResponseError as exc:
        raise _Unreadable(exc.template, **exc.fields) from None
    if abs(value - key["answer"]) <= key["tol"]:
        return Grade(
            1.0,
            "correct",
            _with_explanation(key, key["feedback"]["correct"]),
            key["display"],
            {"value": value},
        )
    for i, mistake in enumerate(key["mistakes"]):
        if abs(value - mistake["answer"]) <= mistake["tol"]:
            return Grade(
                0.0,
                f"mistake:{i}",
                mistake["feedback"],
                key["display"],
                {"value": value},
            )
    return Grade(0.0, "incorrect", key["feedback"]["incorrect"], key["display"], {"value": value})


# What a wrong ordering or matching says before its feedback (the page's script says the same).
IN_PLACE = N_("{in_place} of {count} items are in the right place.")
PAIRS_RIGHT = N_("{right} of {count} pairs are right.")


def _grade_ordering(key: dict, response) -> Grade:
    n = len(key["order"])
    order = _indices(response, n)
    if sorted(order) != list(range(n)):
        raise _Unreadable(N_("expected each of the {count} items exactly once"), count=n)
    in_place = sum(a == b for a, b in zip(order, key["order"], strict=True))
    if in_place == n:
        return Grade(1.0, "correct", _with_explanation(key, key["feedback"]["correct"]))
    remark = _tr(key)(IN_PLACE, in_place=in_place, count=n)
    return Grade(
        0.0,
        "incorrect",
        f"{remark} {key['feedback']['incorrect']}",
        details={"in_place": in_place},
    )


def _grade_matching(key: dict, response) -> Grade:
    n_left = len(key["match"])
    chosen = _indices(response, key["n_right"])
    if len(chosen) != n_left:
        raise _Unreadable(N_("expected one choice for each of the {count} items"), count=n_left)
    right = sum(a == b for a, b in zip(chosen, key["match"], strict=True))
    if right == n_left:
        return Grade(1.0, "correct", _with_explanation(key, key["feedback"]["correct"]))
    remark = _tr(key)(PAIRS_RIGHT, right=right, count=n_left)
    return Grade(
        0.0,
        "incorrect",
        f"{remark} {key['feedback']['incorrect']}",
        details={"right": right},
    )


def _grade_text(key: dict, response) -> Grade:
    if not isinstance(response, str):
        raise _Unreadable(N_("expected text"))
    given = normalize_text(response)
    if given in key["answers"]:
        return Grade(
            1.0, "correct", _with_explanation(key, key["feedback"]["correct"]), key["display"]
        )
    for i, mistake in enumerate(key["mistakes"]):
        if given == mistake["answer"]:
            return Grade(0.0, f"mistake:{i}", mistake["feedback"], key["display"])
    return Grade(0.0, "incorrect", key["feedback"]["incorrect"], key["display"])


_GRADERS = {
    "single": _grade_single,
    "multiple": _grade_multiple,
    "numeric": _grade_numeric,
    "ordering": _grade_ordering,
    "matching": _grade_matching,
    "text": _grade_text,
}
