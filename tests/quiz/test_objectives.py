"""Learning objectives as data: quizzes/_objectives.yml agrees one to one with the chapters'
"Learning objectives" lists, every question names an objective, every objective is tested by a
question (or is marked ``questions_pending``), every skill is used, and the loader refuses ids
it does not know."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import pytest

from nccl_course.quiz import BankError, load_bank, load_banks, validate_bank
from nccl_course.quiz.objectives import (
    OBJECTIVES_FILE,
    chapter_objectives,
    load_objectives,
    normalize_text,
    parse_objectives,
    questions_by_objective,
)

REPO = Path(__file__).resolve().parents[2]
QUIZZES = REPO / "quizzes"
OBJECTIVES = load_objectives(QUIZZES / OBJECTIVES_FILE)
BANKS = load_banks(QUIZZES)


def chapters_with_objectives() -> dict[str, list[str]]:
    """Every page of the book with a "Learning objectives" list, by path from the repository."""
    found = {}
    for path in sorted((REPO / "book").rglob("*.md")):
        items = chapter_objectives(path.read_text(encoding="utf-8"))
        if items:
            found[path.relative_to(REPO).as_posix()] = items
    return found


CHAPTERS = chapters_with_objectives()


def test_the_book_has_objectives_to_compare():
    # 33 chapters and guides, from the introduction to the hosting guide
    assert len(CHAPTERS) >= 30
    assert sum(map(len, CHAPTERS.values())) == len(OBJECTIVES)


def test_every_chapter_with_objectives_is_in_the_file_and_no_other():
    listed = set(OBJECTIVES.by_chapter())
    assert listed - set(CHAPTERS) == set(), "objectives of chapters without a list"
    assert set(CHAPTERS) - listed == set(), f"add their objectives to quizzes/{OBJECTIVES_FILE}"


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_the_file_words_each_objective_as_its_chapter_does(chapter):
    in_chapter = [normalize_text(t) for t in CHAPTERS[chapter]]
    in_file = [normalize_text(o.text) for o in OBJECTIVES.by_chapter().get(chapter, [])]
    assert in_file == in_chapter, (
        f"{chapter}'s learning objectives and quizzes/{OBJECTIVES_FILE} differ: copy the "
        "chapter's list into the file (one entry per item, same order, same words)"
    )


def test_objective_ids_name_their_chapter_once():
    prefixes: dict[str, str] = {}
    for objective in OBJECTIVES.objectives.values():
        owner = prefixes.setdefault(objective.chapter_slug, objective.chapter)
        assert owner == objective.chapter, objective.id
    assert len(prefixes) == len(CHAPTERS)


def test_every_question_names_a_known_objective():
    missing = [
        q.uid for bank in BANKS.values() for q in bank.questions if q.objective not in OBJECTIVES
    ]
    assert missing == []


def test_every_objective_is_tested_or_marked_pending():
    """An objective without a question fails unless it says ``questions_pending: true``; a
    pending one that has questions fails too, so the flag goes as soon as the gap is filled.
    The pending ones are counted and listed in a warning on every run."""
    by_objective = questions_by_objective(OBJECTIVES, BANKS)
    untested = [
        oid
        for oid, uids in by_objective.items()
        if not uids and not OBJECTIVES[oid].questions_pending
    ]
    assert untested == [], "no question tests these: write one, or mark questions_pending: true"
    stale = [o.id for o in OBJECTIVES.pending() if by_objective[o.id]]
    assert stale == [], "these have questions now: remove their questions_pending"
    pending = [o.id for o in OBJECTIVES.pending()]
    if pending:
        warnings.warn(
            f"{len(pending)} of {len(OBJECTIVES)} learning objectives have no question yet: "
            + ", ".join(pending),
            stacklevel=1,
        )


def test_every_skill_is_used_by_a_question():
    used = {q.skill for bank in BANKS.values() for q in bank.questions}
    unused = sorted(set(OBJECTIVES.skills) - used)
    assert unused == [], "no question exercises these skills"


def test_the_busbw_conversion_is_one_skill_across_banks():
    banks = {
        bank.chapter
        for bank in BANKS.values()
        for q in bank.questions
        if q.skill == "busbw-conversion"
    }
    generators = {
        q.generator
        for bank in BANKS.values()
        for q in bank.questions
        if q.generator in ("busbw_from_time", "collective_time_from_busbw", "algbw_from_time")
    }
    assert len(banks) >= 5 and generators
    for bank in BANKS.values():
        for q in bank.questions:
            if q.generator in generators:
                assert q.skill == "busbw-conversion", q.uid


def test_public_view_and_translation_carry_the_objective():
    q = BANKS["all-reduce"].question("ar-identity")
    public = q.instantiate(3).public()
    assert public["objective"] == "all-reduce/use-rs-ag-identity"
    assert public["skill"] is None
    q = BANKS["measuring"].question("allreduce-busbw")
    assert q.instantiate(0).public()["skill"] == "busbw-conversion"


# --- the loader, on banks of its own ---------------------------------------------------------

OBJECTIVES_YML = """
skills:
  sums: Add numbers up.
chapters:
  book/demo.md:
    - id: demo/pick-a
      text: pick `A` when asked;
      skill: sums
    - id: demo/pick-b
      text: pick B
      questions_pending: true
"""

QUESTION = """
  - id: q-one
    type: single
    difficulty: 1
    tags: [t]
{fields}
    prompt: Pick A.
    choices:
      - {{text: A, correct: true, feedback: right}}
      - {{text: B, feedback: wrong}}
"""


def write(folder: Path, fields: str, objectives: str | None = OBJECTIVES_YML) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if objectives is not None:
        (folder / OBJECTIVES_FILE).write_text(textwrap.dedent(objectives))
    body = QUESTION.format(fields=textwrap.indent(textwrap.dedent(fields).strip(), "    "))
    path = folder / "demo.yml"
    path.write_text("chapter: demo\ntitle: Demo\nquestions:\n" + body)
    return path


def test_a_known_objective_and_skill_load(tmp_path):
    path = write(tmp_path, "objective: demo/pick-a\nskill: sums")
    q = load_bank(path).questions[0]
    assert (q.objective, q.skill) == ("demo/pick-a", "sums")
    assert load_banks(tmp_path)["demo"].questions[0].objective == "demo/pick-a"


def test_the_loader_rejects_an_unknown_objective(tmp_path):
    path = write(tmp_path, "objective: demo/pick-c")
    errors = validate_bank(path)
    assert len(errors) == 1, errors
    error = errors[0]
    assert "demo.yml" in error and "q-one" in error and "'demo/pick-c'" in error
    assert "unknown objective" in error and OBJECTIVES_FILE in error
    assert "did you mean 'demo/pick-b', 'demo/pick-a'?" in error
    with pytest.raises(BankError, match="unknown objective 'demo/pick-c'"):
        load_bank(path)
    with pytest.raises(BankError, match="unknown objective 'demo/pick-c'"):
        load_banks(tmp_path)


def test_the_loader_rejects_a_missing_objective_and_an_unknown_skill(tmp_path):
    errors = validate_bank(write(tmp_path / "a", "skill: sums"))
    assert len(errors) == 1 and "'objective' is missing" in errors[0] and "q-one" in errors[0]
    errors = validate_bank(write(tmp_path / "b", "objective: demo/pick-a\nskill: products"))
    assert len(errors) == 1 and "unknown skill 'products'" in errors[0]
    errors = validate_bank(write(tmp_path / "c", "objective: [demo/pick-a]"))
    assert any("'objective' must be an id" in e for e in errors)


def test_banks_without_an_objectives_file_need_none_and_may_name_none(tmp_path):
    q = load_bank(write(tmp_path / "a", "", objectives=None)).questions[0]
    assert q.objective is None and q.instantiate(0).public()["objective"] is None
    errors = validate_bank(write(tmp_path / "b", "objective: demo/pick-a", objectives=None))
    assert len(errors) == 1 and f"no {OBJECTIVES_FILE}" in errors[0]


def test_a_broken_objectives_file_is_reported_for_the_bank(tmp_path):
    broken = OBJECTIVES_YML.replace("skill: sums", "skill: nothing").replace(
        "demo/pick-b", "demo/pick-a"
    )
    errors = validate_bank(write(tmp_path, "objective: demo/pick-a", objectives=broken))
    text = "\n".join(errors)
    assert "demo.yml" in text and OBJECTIVES_FILE in text
    assert "skill 'nothing' is not one of the file's 'skills'" in text
    assert "'demo/pick-a' is listed twice" in text


def test_objectives_file_problems_are_all_named(tmp_path):
    path = tmp_path / OBJECTIVES_FILE
    path.write_text(
        textwrap.dedent(
            """
            skills: {Bad Name: x}
            extra: 1
            chapters:
              book/a.md:
                - {id: a/one, text: one}
                - {id: b/two, text: two}
                - {id: NoSlash, text: three}
                - {id: a/four}
              book/b.md:
                - {id: a/five, text: five, questions_pending: maybe}
            """
        )
    )
    _, errors = parse_objectives(path)
    text = "\n".join(errors)
    for expected in (
        "unknown top-level keys ['extra']",
        "'skills' must map",
        "'id' must be CHAPTER/SLUG",
        "'text' must be the objective",
        "ids start with different chapters ['a', 'b']",
        "'questions_pending' must be true or false",
        "the id prefix 'a' is used by two chapters",
    ):
        assert expected in text, (expected, errors)


def test_chapter_objectives_reads_the_admonition_only():
    page = textwrap.dedent(
        """
        # A chapter

        - not an objective

        :::{admonition} Learning objectives
        :class: tip
        After this chapter you can:
        - define all-reduce and draw every rank's buffer
          before and after it;
        - call `torch.distributed.all_reduce`.
        :::

        - not one either
        """
    )
    items = chapter_objectives(page)
    assert items == [
        "define all-reduce and draw every rank's buffer before and after it;",
        "call `torch.distributed.all_reduce`.",
    ]
    assert normalize_text(items[1]) == "call torch.distributed.all_reduce"
    assert chapter_objectives("# No objectives here\n") == []
