"""The terminal quiz in Turkish says what went wrong in Turkish: a typed answer it cannot read,
an unknown chapter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nccl_course.i18n.english_text import is_english
from nccl_course.quiz import load_bank
from nccl_course.quiz.terminal import parse_answer
from nccl_course.quiz.translation import translate_bank

REPO = Path(__file__).resolve().parents[2]


def test_a_letter_out_of_range_is_named_in_turkish():
    bank = translate_bank(load_bank(REPO / "quizzes" / "algorithms.yml"), "tr", REPO / "locales")
    question = next(q for q in bank.questions if q.type == "matching")
    inst = question.instantiate(0)
    with pytest.raises(ValueError) as caught:
        parse_answer(inst, " ".join("z" * len(inst.left)))
    assert str(caught.value).startswith("'z' harfi a-")
    english = load_bank(REPO / "quizzes" / "algorithms.yml").question(question.id).instantiate(0)
    with pytest.raises(ValueError, match="'z' is not one of a-"):
        parse_answer(english, " ".join("z" * len(english.left)))


def test_an_unknown_chapter_is_named_in_turkish():
    command = [sys.executable, "-m", "nccl_course", "quiz", "take", "yok-boyle", "--lang", "tr"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 1
    assert done.stderr.startswith("hata: 'yok-boyle' adında bir test yok; olanlar: ")
    assert not is_english(done.stderr.split(";")[0])
