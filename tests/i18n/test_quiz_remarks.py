"""What the graders write themselves, beside a question's own feedback, in the question's
language: the remark a wrong ordering or matching opens with (how many items are in place, how
many pairs are right), from the Python grader and from the page's script."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.i18n.interface import script_strings, translator
from nccl_course.quiz import grade, load_banks
from nccl_course.quiz.grading import IN_PLACE, PAIRS_RIGHT
from nccl_course.quiz.sphinx_directive import PAGE_SCRIPT_STRINGS
from nccl_course.quiz.translation import translate_bank

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "src" / "nccl_course" / "quiz" / "static" / "nccl-quiz.js"


def test_the_page_script_says_only_what_a_turkish_page_carries():
    """Every S() string of the quiz script is in the table a translated page embeds, and has
    Turkish; the two remarks are among them."""
    shown = set(script_strings(SCRIPT.read_text(encoding="utf-8")))
    assert {IN_PLACE, PAIRS_RIGHT} <= shown
    assert shown == set(PAGE_SCRIPT_STRINGS)
    tr = translator("tr")
    untranslated = [text for text in PAGE_SCRIPT_STRINGS if tr(text) == text]
    assert untranslated == []


def first_of(banks, kind):
    return next(q for b in banks.values() for q in b.questions if q.type == kind)


@pytest.mark.parametrize(
    ("kind", "english", "turkish"),
    [
        ("ordering", "items are in the right place", "tanesi doğru yerde"),
        ("matching", "pairs are right", "tanesi doğru."),
    ],
)
def test_a_wrong_answer_opens_with_the_remark_in_the_questions_language(kind, english, turkish):
    banks = load_banks(REPO / "quizzes")
    question = first_of(banks, kind)
    turkish_bank = translate_bank(banks[question.chapter], "tr", REPO / "locales")
    for bank, words, other in (
        (banks[question.chapter], english, turkish),
        (turkish_bank, turkish, english),
    ):
        inst = bank.question(question.id).instantiate(3)
        key = inst.key()
        right = key["order"] if kind == "ordering" else key["match"]
        # the right answer with its first two entries swapped: n - 2 in place
        wrong = [right[1], right[0], *right[2:]]
        g = grade(inst, wrong)
        assert g.score == 0
        count = len(right)
        assert words in g.feedback and other not in g.feedback, g.feedback
        assert g.feedback.endswith(key["feedback"]["incorrect"])
        if bank is turkish_bank:
            assert g.feedback.startswith(f"{count} ")  # "{count} öğeden {n} tanesi ..."
        else:
            assert g.feedback.startswith(f"{count - 2} of {count} ")
