"""Every bank in quizzes/ must validate; malformed banks must fail with file + question id."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from nccl_course.quiz import BankError, bank_paths, load_bank, load_banks, validate_bank

REPO = Path(__file__).resolve().parents[2]
QUIZZES = REPO / "quizzes"


@pytest.mark.parametrize("path", bank_paths(QUIZZES), ids=lambda p: p.stem)
def test_every_bank_in_the_repo_is_valid(path):
    assert validate_bank(path) == []


def test_load_banks_finds_every_bank_and_skips_the_exam_blueprint():
    banks = load_banks(QUIZZES)
    assert "intro" in banks
    assert "exam" not in banks
    assert set(banks) == {p.stem for p in bank_paths(QUIZZES)}
    for chapter, bank in banks.items():
        assert bank.chapter == chapter
        ids = [q.id for q in bank.questions]
        assert len(ids) == len(set(ids))


GOOD_SINGLE = """
  - id: q-good
    type: single
    difficulty: 1
    tags: [t]
    prompt: Pick A.
    choices:
      - {text: A, correct: true, feedback: right}
      - {text: B, feedback: wrong}
"""


def write_bank(tmp_path: Path, body: str, name: str = "demo") -> Path:
    path = tmp_path / f"{name}.yml"
    path.write_text(f"chapter: {name}\ntitle: Demo\nquestions:\n" + textwrap.dedent(body))
    return path


def only_error(path: Path) -> str:
    errors = validate_bank(path)
    assert len(errors) == 1, errors
    assert str(path.name) in errors[0]
    return errors[0]


def test_a_good_bank_validates(tmp_path):
    path = write_bank(tmp_path, GOOD_SINGLE)
    assert validate_bank(path) == []
    assert load_bank(path).questions[0].id == "q-good"


def test_wrong_type_names_file_question_and_type(tmp_path):
    path = write_bank(tmp_path, GOOD_SINGLE.replace("q-good", "q-bad").replace("single", "singel"))
    error = only_error(path)
    assert "demo.yml" in error and "'q-bad'" in error and "'singel'" in error
    assert "single, multiple, numeric" in error


def test_no_correct_choice(tmp_path):
    path = write_bank(tmp_path, GOOD_SINGLE.replace("correct: true", "correct: false"))
    error = only_error(path)
    assert "'q-good'" in error and "no correct choice" in error


def test_two_correct_choices_in_a_single(tmp_path):
    body = GOOD_SINGLE.replace(
        "{text: B, feedback: wrong}", "{text: B, correct: true, feedback: wrong}"
    )
    assert "2 choices are marked correct" in only_error(write_bank(tmp_path, body))


def test_duplicate_id(tmp_path):
    path = write_bank(tmp_path, GOOD_SINGLE + GOOD_SINGLE)
    error = only_error(path)
    assert "'q-good'" in error and "duplicate id" in error


def test_generator_not_found(tmp_path):
    body = """
      - id: q-gen
        type: numeric
        difficulty: 2
        tags: [t]
        generator: no_such_generator
        prompt: "{{ranks}} ranks?"
        unit: ms
        tolerance: {rel: 0.01}
        feedback: {correct: right, incorrect: wrong}
    """
    error = only_error(write_bank(tmp_path, body))
    assert "'q-gen'" in error and "no_such_generator" in error and "not found" in error


def test_unknown_placeholder(tmp_path):
    body = """
      - id: q-ph
        type: numeric
        difficulty: 2
        tags: [t]
        generator: allreduce_time_from_busbw
        prompt: "{{ranks}} ranks and {{no_such_param}}?"
        unit: ms
        tolerance: {rel: 0.02}
        feedback: {correct: right, incorrect: wrong}
    """
    error = only_error(write_bank(tmp_path, body))
    assert "'q-ph'" in error and "no_such_param" in error


def test_missing_feedback_and_unknown_unit_are_both_reported(tmp_path):
    body = """
      - id: q-num
        type: numeric
        difficulty: 1
        tags: [t]
        prompt: How long?
        answer: 3
        unit: fortnights
        tolerance: {rel: 0.01}
    """
    errors = validate_bank(write_bank(tmp_path, body))
    assert len(errors) == 2
    assert all("'q-num'" in e and "demo.yml" in e for e in errors)
    assert any("fortnights" in e for e in errors)
    assert any("feedback" in e for e in errors)


def test_choice_without_feedback(tmp_path):
    body = GOOD_SINGLE.replace("{text: B, feedback: wrong}", "{text: B}")
    error = only_error(write_bank(tmp_path, body))
    assert "choices[1].feedback" in error and "missing" in error


def test_mistake_inside_tolerance_is_rejected(tmp_path):
    body = """
      - id: q-mis
        type: numeric
        difficulty: 1
        tags: [t]
        prompt: Factor for 8 ranks?
        answer: 1.75
        tolerance: {rel: 0.05}
        mistakes: [{answer: 1.76, feedback: close}]
        feedback: {correct: right, incorrect: wrong}
    """
    assert "within the tolerance" in only_error(write_bank(tmp_path, body))


def test_chapter_must_match_file_name(tmp_path):
    path = tmp_path / "demo.yml"
    path.write_text("chapter: other\ntitle: Demo\nquestions:\n" + textwrap.dedent(GOOD_SINGLE))
    assert "must equal the file name 'demo'" in only_error(path)


def test_yaml_syntax_error_names_line(tmp_path):
    path = tmp_path / "demo.yml"
    path.write_text("chapter: demo\ntitle: [unclosed\n")
    error = only_error(path)
    assert "not valid YAML" in error and "line" in error


def test_load_bank_raises_with_every_error(tmp_path):
    body = GOOD_SINGLE.replace("difficulty: 1", "difficulty: 5").replace("tags: [t]", "tags: []")
    with pytest.raises(BankError) as info:
        load_bank(write_bank(tmp_path, body))
    assert len(info.value.errors) == 2
    assert "difficulty" in str(info.value) and "tags" in str(info.value)


def test_yaml_booleans_in_text_get_a_hint(tmp_path):
    body = GOOD_SINGLE.replace("feedback: wrong}", "feedback: no}")
    error = only_error(write_bank(tmp_path, body))
    assert "choices[1].feedback" in error and "quote" in error
