"""The JSON text stored for a drawn question (and sent as it is) reads back as what the standard
encoder writes, for every question of every bank in both languages, with finite numbers only
(the fast encoder would write NaN or an infinity as null)."""

from __future__ import annotations

import json
import math

import pytest

from nccl_course.exam.banks import QuizEngine
from nccl_course.server.attempts import encode_json, learner_view

SEEDS = range(4)


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


@pytest.fixture(scope="module")
def engine():
    return QuizEngine.load("quizzes", skip=["quizzes/exam/blueprint.yml"])


@pytest.mark.parametrize("language", ["en", "tr"])
def test_every_drawn_question_encodes_as_the_standard_encoder_reads(engine, language):
    checked = 0
    for bank in engine.banks_for(language).values():
        for question in bank.questions:
            for seed in SEEDS:
                instance = question.instantiate(seed)
                for value in (learner_view(instance.public()), instance.key()):
                    assert _finite(value), (question.uid, seed)
                    text = encode_json(value)
                    assert isinstance(text, str)
                    assert json.loads(text) == json.loads(json.dumps(value)), question.uid
                    checked += 1
    assert checked > 1000


def test_values_beyond_the_fast_encoder_fall_back_to_the_standard_one():
    big = {"n": 2**70, "text": "çığ"}
    assert json.loads(encode_json(big)) == big
    assert encode_json({"a": [1, 2.5, "x"]}) == '{"a":[1,2.5,"x"]}'
