"""Answer keys: the key of a drawn question, and the responses made from a key.

``answer_key(inst)`` (what ``QuestionInstance.key()`` returns) holds everything ``grade_key``
needs to grade a response without the bank; the exam stores it server-side and the practice
pages embed it. ``correct_response(key)`` and ``wrong_response(key)`` turn a key into a
well-formed response that scores 1, or 0, so tests and scripted learners can answer like an
expert or fail on purpose. The response formats are in quizzes/README.md.
"""

from __future__ import annotations

from nccl_course.i18n.numbers import decimal_separator, format_number
from nccl_course.quiz.grading import normalize_text
from nccl_course.quiz.units import DEFAULT_DISPLAY_SIG_FIGS, family_units, tolerance


def answer_key(inst) -> dict:
    """The answer key of ``inst`` (a :class:`nccl_course.quiz.model.QuestionInstance`, which
    this module reads but does not import: the model imports this module), JSON-safe: what
    ``grade_key`` needs, and the feedback to show. Server-side only (the practice pages embed
    it, by design). ``inst.key()`` returns this."""
    q = inst.question
    key: dict = {
        "id": q.id,
        "chapter": q.chapter,
        "uid": q.uid,
        "type": q.type,
        "seed": inst.seed,
        # The language of the texts, so the grader writes its own words in it too.
        "language": q.language,
        "params": {k: v for k, v in inst.params.items() if _json_scalar(v)},
        "explanation": inst.explanation,
        "feedback": {"correct": inst.feedback_correct, "incorrect": inst.feedback_incorrect},
    }
    if q.type in ("single", "multiple"):
        key["n_choices"] = len(inst.choices)
        key["correct"] = [i for i, c in enumerate(inst.choices) if c.correct]
        key["choice_feedback"] = [c.feedback for c in inst.choices]
    elif q.type == "numeric":
        sig = q.sig_figs or DEFAULT_DISPLAY_SIG_FIGS
        key["answer"] = inst.answer
        key["unit"] = q.unit
        key["units"] = family_units(q.unit)
        key["tol"] = tolerance(inst.answer, q.rel, q.abs, q.sig_figs)
        key["display"] = format_number(inst.answer, q.language, sig_figs=sig) + (
            f" {q.unit}" if q.unit else ""
        )
        # The decimal separator a response may use: Turkish learners write 1,5.
        key["decimal"] = decimal_separator(q.language)
        key["mistakes"] = [
            {
                "answer": m,
                "tol": max(q.rel * abs(m), q.abs),
                "feedback": text,
            }
            for m, text in inst.mistakes
        ]
    elif q.type == "ordering":
        key["order"] = list(inst.order)
    elif q.type == "matching":
        key["match"] = list(inst.match)
        key["n_right"] = len(inst.right)
    elif q.type == "text":
        key["answers"] = [normalize_text(a) for a in inst.answers]
        key["display"] = inst.answers[0]
        key["mistakes"] = [
            {"answer": normalize_text(m), "feedback": text} for m, text in inst.mistakes
        ]
    return key


def _json_scalar(v) -> bool:
    return isinstance(v, str | int | float | bool) or v is None


def correct_response(key: dict):
    """The response that scores 1 for an answer key (formats in quizzes/README.md)."""
    kind = key["type"]
    if kind == "single":
        return key["correct"][0]
    if kind == "multiple":
        return list(key["correct"])
    if kind == "numeric":
        return key["answer"]
    if kind == "ordering":
        return list(key["order"])
    if kind == "matching":
        return list(key["match"])
    if kind == "text":
        return key["display"]
    raise ValueError(f"unknown question type {kind!r}")


def wrong_response(key: dict):
    """A well-formed response that scores 0 (for tests of failing attempts)."""
    kind = key["type"]
    if kind == "single":
        n = len(key["choice_feedback"])
        return next(i for i in range(n) if i not in key["correct"])
    if kind == "multiple":
        n = len(key["choice_feedback"])
        return [i for i in range(n) if i not in key["correct"]]
    if kind == "numeric":
        return (key["answer"] or 1.0) * 1000 + 12345
    if kind == "ordering":
        return list(reversed(key["order"]))
    if kind == "matching":
        return [(m + 1) % key["n_right"] for m in key["match"]]
    if kind == "text":
        return "certainly not the answer"
    raise ValueError(f"unknown question type {kind!r}")
