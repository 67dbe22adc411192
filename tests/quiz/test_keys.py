"""Answer keys (nccl_course.quiz.keys): for every question of every shipped bank the key's
correct response is the bank's own answer, read back through what the learner sees, and it
scores 1; the key's wrong response scores 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nccl_course.quiz import TYPES, grade, grade_key, load_banks
from nccl_course.quiz.generators import resolve
from nccl_course.quiz.keys import answer_key, correct_response, wrong_response
from nccl_course.quiz.model import fill_placeholders

REPO = Path(__file__).resolve().parents[2]
BANKS = load_banks(REPO / "quizzes")
QUESTIONS = [q for bank in BANKS.values() for q in bank.questions]
SEEDS = (0, 1, 7)


def test_the_shipped_banks_have_every_question_type():
    assert {q.type for q in QUESTIONS} == set(TYPES)


def banks_answer(question, seed: int, public: dict, response):
    """(what the response picks, the bank's answer), both read without the key."""
    q = question
    if q.type == "single" and q.parameterized:
        # a choose question: the option its generator marks right, filled with its numbers
        _, drawn = q.draw(seed)
        (right,) = [o for o in drawn.options if o.correct]
        return public["choices"][response], fill_placeholders(
            right.text, {**drawn.params, **right.params}
        )
    if q.type == "single":
        return public["choices"][response], next(c.text for c in q.choices if c.correct)
    if q.type == "multiple":
        picked = sorted(public["choices"][i] for i in response)
        return picked, sorted(c.text for c in q.choices if c.correct)
    if q.type == "numeric":
        if q.parameterized:
            # instantiate draws the generator first from this same stream
            return response, float(resolve(q.generator)(q.rng(seed), **q.options).answer)
        return response, q.answer
    if q.type == "ordering":
        return [public["items"][i] for i in response], list(q.items)
    if q.type == "matching":
        picked = [
            (left, public["right"][m]) for left, m in zip(public["left"], response, strict=True)
        ]
        return picked, list(q.pairs)
    return response, q.answers[0]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.uid)
def test_the_correct_response_is_the_banks_answer_and_scores_one(question):
    for seed in SEEDS:
        inst = question.instantiate(seed)
        key = inst.key()
        right = correct_response(key)
        picked, expected = banks_answer(question, seed, inst.public(), right)
        assert picked == expected, (seed, key)
        assert grade_key(key, right).score == 1.0, (seed, right)
        assert grade(inst, right).correct
        assert inst.correct_response() == right


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.uid)
def test_the_wrong_response_scores_zero(question):
    for seed in SEEDS:
        inst = question.instantiate(seed)
        key = inst.key()
        wrong = wrong_response(key)
        g = grade_key(key, wrong)
        assert g.score == 0.0 and g.outcome != "unreadable", (seed, wrong, g)
        # a stored key (JSON, as the exam keeps it) answers the same
        stored = json.loads(json.dumps(key))
        assert grade_key(stored, wrong_response(stored)).score == 0.0
        assert grade_key(stored, correct_response(stored)).score == 1.0


def test_inst_key_is_answer_key():
    for q in QUESTIONS:
        inst = q.instantiate(3)
        assert inst.key() == answer_key(inst)


@pytest.mark.parametrize("make", [correct_response, wrong_response])
def test_an_unknown_type_is_refused(make):
    with pytest.raises(ValueError, match="unknown question type"):
        make({"type": "essay"})
