"""Every bank in Turkish: complete, and graded exactly like the English (a translation changes
no id, answer, tolerance, draw or correct choice; it may add accepted text answers, the Turkish
names of things); Turkish answers take a decimal comma."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.quiz import grade_key, load_banks
from nccl_course.quiz.translation import (
    GENERATED_TEXT_SEEDS,
    MissingTranslation,
    bank_problems,
    generated_texts,
    translate_bank,
)

REPO = Path(__file__).resolve().parents[2]
LOCALES = REPO / "locales"
BANKS = load_banks(REPO / "quizzes")
TEXT_FIELDS = {
    "explanation",
    "feedback",
    "choice_feedback",
    "display",
    "language",
    "decimal",
    "params",
}


@pytest.mark.parametrize("chapter", sorted(BANKS))
def test_every_bank_is_translated_and_graded_the_same(chapter):
    bank = BANKS[chapter]
    assert bank_problems(bank, "tr", LOCALES) == [], (
        f"quizzes/{chapter}.yml has questions without a current Turkish text: run "
        "'nccl-course quiz validate' and see CONTRIBUTING.md, 'Translations'"
    )
    turkish = translate_bank(bank, "tr", LOCALES)
    assert [q.id for q in turkish.questions] == [q.id for q in bank.questions]
    changed_prompts = 0
    for en_q, tr_q in zip(bank.questions, turkish.questions, strict=True):
        changed_prompts += en_q.prompt != tr_q.prompt
        for seed in (0, 7):
            en_key, tr_key = en_q.instantiate(seed).key(), tr_q.instantiate(seed).key()
            strip = lambda key: {k: v for k, v in key.items() if k not in TEXT_FIELDS}  # noqa: E731
            if "mistakes" in en_key:
                for key in (en_key, tr_key):
                    key["mistakes"] = [
                        {k: v for k, v in m.items() if k != "feedback"} for m in key["mistakes"]
                    ]
            if "answers" in en_key:  # a translation adds its names of things, removes none
                assert set(en_key["answers"]) <= set(tr_key["answers"])
                tr_key["answers"] = en_key["answers"]
            assert strip(tr_key) == strip(en_key), f"{chapter}/{en_q.id} grades differently"
            numbers = lambda key: {  # noqa: E731
                k: v for k, v in key["params"].items() if not isinstance(v, str)
            }
            assert numbers(tr_key) == numbers(en_key)
            assert tr_key["language"] == "tr"
    assert changed_prompts >= len(bank.questions) * 0.8, "most prompts should read in Turkish"


def test_a_numeric_answer_with_a_decimal_comma_is_right():
    question = translate_bank(BANKS["all-reduce"], "tr", LOCALES).question("ar-busbw-factor-16")
    key = question.instantiate(0).key()
    assert key["decimal"] == "," and key["display"] == "1,88"  # 3 significant figures
    assert grade_key(key, "1,875").correct
    assert not grade_key(key, "1,9").correct
    english = BANKS["all-reduce"].question("ar-busbw-factor-16").instantiate(0).key()
    assert grade_key(english, "1,875").outcome == "unreadable"


def test_drawn_numbers_and_generator_feedback_read_in_turkish():
    bank = translate_bank(BANKS["all-reduce"], "tr", LOCALES)
    inst = bank.question("ar-time-from-busbw").instantiate(0)
    factor = inst.params["factor"]  # drawn as text, "1.75" for 8 ranks
    assert "." in factor and factor.replace(".", ",") in inst.feedback_correct
    inst = bank.question("ar-time-from-busbw").instantiate(3)
    english = BANKS["all-reduce"].question("ar-time-from-busbw").instantiate(3)
    for (value, text), (en_value, en_text) in zip(inst.mistakes, english.mistakes, strict=True):
        assert value == en_value and text != en_text


def test_generated_texts_are_all_found_by_the_seeds_collected():
    """The catalog collects what generators write from GENERATED_TEXT_SEEDS draws; far more
    draws find nothing new (so no drawn sentence is left in English)."""
    for bank in BANKS.values():
        for q in bank.questions:
            if q.generator:
                assert set(generated_texts(q, 1000)) == set(generated_texts(q)), q.uid
    assert GENERATED_TEXT_SEEDS <= 1000


def test_a_missing_translation_names_the_file_and_the_question(tmp_path):
    bank = BANKS["broadcast"]
    folder = tmp_path / "tr" / "LC_MESSAGES" / "quizzes"
    folder.mkdir(parents=True)
    source = LOCALES / "tr" / "LC_MESSAGES" / "quizzes" / "broadcast.po"
    lines = source.read_text(encoding="utf-8").split("\n\n")
    qid = bank.questions[0].id
    kept = [block for block in lines if f'msgctxt "{qid}"' not in block]
    (folder / "broadcast.po").write_text("\n\n".join(kept), encoding="utf-8")
    with pytest.raises(MissingTranslation) as caught:
        translate_bank(bank, "tr", tmp_path)
    assert all(
        p.context == qid and p.catalog.endswith("broadcast.po") for p in caught.value.problems
    )
    assert qid in str(caught.value)
