"""The mock exam's forms (nccl_course.book.mock_exam): the blueprint's draw, printed variants only."""

from __future__ import annotations

from pathlib import Path

from nccl_course.book.mock_exam import BLUEPRINT, DEFAULT_FORMS, form_seed, mock_instances
from nccl_course.exam.blueprint import draw_questions, fit_to_banks, load_blueprint
from nccl_course.quiz.banks import load_banks
from nccl_course.quiz.printed import printed_seeds, printed_variants

REPO = Path(__file__).resolve().parents[2]
BANKS = load_banks(REPO / "quizzes")
EXAM = fit_to_banks(load_blueprint(REPO / "quizzes" / BLUEPRINT), BANKS)


def test_a_form_holds_the_questions_of_the_attempt_with_its_seed():
    for number in range(1, DEFAULT_FORMS + 1):
        seed = form_seed(number)
        form = mock_instances(EXAM, BANKS, seed)
        drawn = draw_questions(EXAM, BANKS, seed)
        assert [(c, q) for c, q, _ in form] == [(d.chapter, d.question_id) for d in drawn]
        assert len(form) == EXAM.question_count


def test_every_question_of_a_form_is_a_variant_the_practice_pages_print():
    printed = printed_variants(BANKS)
    fresh_in_attempts = 0
    for number in range(1, DEFAULT_FORMS + 1):
        drawn = draw_questions(EXAM, BANKS, form_seed(number))
        for (chapter, qid, seed), attempt in zip(
            mock_instances(EXAM, BANKS, form_seed(number)), drawn, strict=True
        ):
            question = BANKS[chapter].question(qid)
            assert seed in printed_seeds(question)
            assert printed.lookup(question.instantiate(seed)), question.uid
            fresh_in_attempts += not attempt.lookup
    # The attempts with these seeds hold fresh instances; the forms show none of them.
    assert fresh_in_attempts > 0


def test_the_forms_differ_and_are_the_same_every_build():
    forms = [mock_instances(EXAM, BANKS, form_seed(n)) for n in range(1, DEFAULT_FORMS + 1)]
    assert len({tuple(f) for f in forms}) == DEFAULT_FORMS
    assert forms[0] == mock_instances(EXAM, BANKS, form_seed(1))
