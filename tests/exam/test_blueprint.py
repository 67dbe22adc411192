"""The blueprint file, the per-attempt draw, and the repository's real exam."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.exam.attempts import learner_view
from nccl_course.exam.banks import QuizEngine
from nccl_course.exam.blueprint import (
    BlueprintError,
    draw_questions,
    fit_to_banks,
    instance_seed,
    load_blueprint,
    lookup_share,
)
from nccl_course.quiz.keys import correct_response, wrong_response

REPO = Path(__file__).resolve().parents[2]
REPO_BLUEPRINT = REPO / "quizzes" / "exam" / "blueprint.yml"


def test_load_and_fit(quizzes_dir):
    engine = QuizEngine.load(quizzes_dir)
    assert sorted(engine.banks) == ["alpha", "beta"] and engine.problems == []
    blueprint = load_blueprint(quizzes_dir / "exam" / "blueprint.yml")
    assert blueprint.time_limit_s == 1800 and blueprint.pass_score == 0.7
    assert len(blueprint.digest) == 64
    fitted = fit_to_banks(blueprint, engine.banks)
    assert [(z.chapter, z.draw) for z in fitted.zones] == [("alpha", 3), ("beta", 2)]
    assert fitted.problems[0] == (
        "zone 'gamma-missing' skipped: no question bank quizzes/gamma-missing.yml"
    )
    # The fixture has no fresh (parameterised) guarantee, which the server reports too.
    assert "looking answers up" in fitted.problems[1] and len(fitted.problems) == 2


def test_zone_larger_than_bank_draws_all(quizzes_dir):
    (quizzes_dir / "exam" / "blueprint.yml").write_text(
        "exam: {id: e, title: T, time_limit_minutes: 5, max_attempts: 1, pass_score: 0.5}\n"
        "zones: [{chapter: beta, draw: 9}]\n"
    )
    engine = QuizEngine.load(quizzes_dir)
    fitted = fit_to_banks(load_blueprint(quizzes_dir / "exam" / "blueprint.yml"), engine.banks)
    assert fitted.zones[0].draw == 2
    assert "draws 9 but its bank holds 2" in fitted.problems[0]


def test_broken_bank_is_skipped_not_fatal(quizzes_dir):
    (quizzes_dir / "broken.yml").write_text("chapter: broken\nquestions: 3\n")
    engine = QuizEngine.load(quizzes_dir)
    assert "broken" not in engine.banks and "alpha" in engine.banks
    assert len(engine.problems) == 1 and engine.problems[0].startswith("bank broken.yml skipped")


@pytest.mark.parametrize(
    "text, message",
    [
        ("exam: 3\n", "'exam' section"),
        (
            "exam: {id: e, title: T, time_limit_minutes: 0, max_attempts: 1, pass_score: 0.5}\n"
            "zones: [{chapter: a, draw: 1}]\n",
            "time_limit_minutes must be positive",
        ),
        (
            "exam: {id: e, title: T, time_limit_minutes: 5, max_attempts: 1, pass_score: 70}\n"
            "zones: [{chapter: a, draw: 1}]\n",
            "pass_score is a fraction",
        ),
        (
            "exam: {id: e, title: T, time_limit_minutes: 5, max_attempts: 1, pass_score: 0.7}\n"
            "zones: [{chapter: a, draw: 0}]\n",
            "'draw' must be >= 1",
        ),
        (
            "exam: {id: e, title: T, time_limit_minutes: 5, max_attempts: 1, pass_score: 0.7}\n"
            "zones: [{chapter: a, draw: 1}, {chapter: a, draw: 2}]\n",
            "appears in two zones",
        ),
    ],
)
def test_blueprint_errors(tmp_path, text, message):
    path = tmp_path / "blueprint.yml"
    path.write_text(text)
    with pytest.raises(BlueprintError, match=message):
        load_blueprint(path)


def test_draw_is_deterministic_in_the_seed(quizzes_dir):
    engine = QuizEngine.load(quizzes_dir)
    blueprint = fit_to_banks(load_blueprint(quizzes_dir / "exam" / "blueprint.yml"), engine.banks)

    def summary(seed):
        return [
            (d.position, d.chapter, d.question_id, d.instance_seed, d.instance.public()["prompt"])
            for d in draw_questions(blueprint, engine.banks, seed)
        ]

    assert summary(12345) == summary(12345)
    draws = {tuple(summary(seed)) for seed in range(20)}
    assert len(draws) == 20  # parameters (and picks) change with the seed
    first = summary(7)
    assert [p for p, *_ in first] == [0, 1, 2, 3, 4]
    assert len({q for _, _, q, _, _ in first}) == 5  # no question twice
    assert instance_seed(7, 0) != instance_seed(7, 1) and 0 <= instance_seed(7, 0) < 2**63


def test_repository_exam_draws_from_real_banks():
    """quizzes/exam/blueprint.yml names only banks that exist, and every question of every bank it
    draws from can be answered right (score 1) and wrong (< 1) from its stored key."""
    engine = QuizEngine.load(REPO / "quizzes")
    assert engine.problems == []
    blueprint = fit_to_banks(load_blueprint(REPO_BLUEPRINT), engine.banks)
    assert blueprint.problems == []
    assert blueprint.question_count >= 20
    for zone in blueprint.zones:
        for question in engine.banks[zone.chapter].questions:
            for seed in (1, 2):
                instance = question.instantiate(instance_seed(seed, 0))
                public = learner_view(instance.public())
                assert "seed" not in public and "correct" not in public
                key = instance.key()
                assert engine.grade_key(key, correct_response(key)).score == 1.0, question.id
                assert engine.grade_key(key, wrong_response(key)).score < 1.0, question.id


def test_repository_exam_cannot_be_passed_by_looking_answers_up():
    """Practice pages carry the fixed questions' answers (and printed variants of the
    parameterised ones, which the draw avoids); the fresh questions the exam guarantees must keep
    a look-up-only score below the pass mark, in every draw (tests/exam/test_freshness.py checks
    2,000 draws against the pages' variants)."""
    from nccl_course.quiz import load_banks

    banks = load_banks(REPO / "quizzes")
    blueprint = fit_to_banks(load_blueprint(REPO_BLUEPRINT), banks)
    assert blueprint.problems == []
    assert blueprint.lookup_ceiling < blueprint.pass_score
    for attempt_seed in range(25):
        drawn = draw_questions(blueprint, banks, attempt_seed)
        by_id = {(c, q.id): q for c, bank in banks.items() for q in bank.questions}
        fixed = sum(1 for d in drawn if not by_id[(d.chapter, d.question_id)].parameterized)
        assert fixed / len(drawn) <= blueprint.lookup_ceiling + 1e-12
        assert lookup_share(drawn) == fixed / len(drawn) < blueprint.pass_score


def test_fresh_counts_are_honoured_and_checked(quizzes_dir):
    engine = QuizEngine.load(quizzes_dir)
    blueprint = fit_to_banks(load_blueprint(quizzes_dir / "exam" / "blueprint.yml"), engine.banks)
    # The fixture's banks have no fresh guarantee: the look-up ceiling is 100 %.
    assert blueprint.lookup_ceiling == 1.0
    assert any("looking answers up" in p for p in blueprint.problems)


@pytest.mark.parametrize("fresh", [-1, 4, "2"])
def test_fresh_must_fit_the_draw(tmp_path, fresh):
    path = tmp_path / "blueprint.yml"
    path.write_text(
        "exam: {id: e, title: T, time_limit_minutes: 5, max_attempts: 1, pass_score: 0.5}\n"
        f"zones: [{{chapter: beta, draw: 3, fresh: {fresh!r}}}]\n"
    )
    with pytest.raises(BlueprintError, match="'fresh' must be between 0 and 'draw'"):
        load_blueprint(path)


def test_blueprint_lives_beside_the_banks_not_among_them(tmp_path):
    """The server's default blueprint is quizzes/exam/blueprint.yml, a subfolder the quiz
    package's bank discovery never reads; a blueprint given among the banks is skipped."""
    from nccl_course.quiz import bank_paths
    from nccl_course.server.settings import Settings

    settings = Settings(data_dir=tmp_path, quizzes_dir=REPO / "quizzes")
    assert settings.blueprint_path == REPO_BLUEPRINT and REPO_BLUEPRINT.exists()
    assert all(p.parent == REPO / "quizzes" for p in bank_paths(REPO / "quizzes"))
    folder = tmp_path / "quizzes"
    (folder / "exam").mkdir(parents=True)
    (folder / "exam" / "blueprint.yml").write_text("exam: {id: x}\nzones: []\n")
    assert QuizEngine.load(folder).problems == [f"no question banks in {folder}"]
    (folder / "alpha.yml").write_text("chapter: alpha\nquestions: 3\n")
    engine = QuizEngine.load(folder, skip=[folder / "alpha.yml"])
    assert engine.banks == {} and engine.problems == []


# ---- rules and parts ---------------------------------------------------------------------

OBJECTIVES = """
skills:
  sum: Add the numbers up.
chapters:
  book/start/01-a.md:
  - {id: a/one, text: one}
  - {id: a/two, text: two}
  book/practice/01-b.md:
  - {id: b/one, text: three}
  - {id: b/two, text: four}
"""


def _single(qid, objective, skill=None):
    skill_line = f"    skill: {skill}\n" if skill else ""
    return (
        f"  - id: {qid}\n    type: single\n    difficulty: 1\n    tags: [t]\n"
        f"    objective: {objective}\n{skill_line}    prompt: Which {qid}?\n"
        "    choices:\n"
        "      - {text: this one, correct: true, feedback: Yes.}\n"
        "      - {text: that one, feedback: No.}\n"
    )


RULED_BANKS = {
    # Only q2 and q3 can join beta's fresh question under the rules below: q1 and q4 share its
    # skill, and the parts need one objective of a/ and two of b/.
    "alpha": "chapter: alpha\ntitle: Alpha\nquestions:\n"
    + _single("q1", "a/one", "sum")
    + _single("q2", "a/two")
    + _single("q3", "b/one")
    + _single("q4", "b/one", "sum"),
    "beta": """chapter: beta
title: Beta
questions:
  - id: b-time
    type: numeric
    generator: allreduce_time_from_busbw
    difficulty: 2
    tags: [t]
    objective: b/two
    skill: sum
    prompt: "{{ranks}} ranks all-reduce {{size}} at a busbw of {{busbw}} GB/s: time?"
    unit: ms
    tolerance: {rel: 0.02}
    feedback: {correct: Right., incorrect: Convert busbw to algbw first.}
  - id: b-bytes
    type: numeric
    difficulty: 1
    tags: [t]
    objective: a/one
    prompt: How many bytes are in 1 KiB?
    answer: 1024
    unit: B
    tolerance: {abs: 0.5}
    feedback: {correct: Right., incorrect: 1 KiB = 2^10 B.}
""",
}

RULED_BLUEPRINT = """exam: {id: e, title: T, time_limit_minutes: 5, max_attempts: 1, pass_score: 0.7}
rules: {fresh: 1, min_objectives: 3, unique_skills: true, max_numeric_share: 0.34}
parts:
  - {part: start, chapters: [book/intro.md, book/start/*], min_objectives: 1}
  - {part: practice, chapters: [book/practice/*], min_objectives: PRACTICE}
zones: [{chapter: alpha, draw: 2}, {chapter: beta, draw: 1}]
"""


def _ruled_folder(tmp_path, practice=2, blueprint=RULED_BLUEPRINT):
    folder = tmp_path / "ruled"
    (folder / "exam").mkdir(parents=True)
    (folder / "_objectives.yml").write_text(OBJECTIVES)
    for chapter, text in RULED_BANKS.items():
        (folder / f"{chapter}.yml").write_text(text)
    path = folder / "exam" / "blueprint.yml"
    path.write_text(blueprint.replace("PRACTICE", str(practice)))
    return folder, path


def test_rules_narrow_every_draw_to_the_selections_that_meet_them(tmp_path):
    from nccl_course.quiz import load_banks

    folder, path = _ruled_folder(tmp_path)
    banks = load_banks(folder)
    blueprint = fit_to_banks(load_blueprint(path), banks)
    assert blueprint.objective_parts == {
        "a/one": "start", "a/two": "start", "b/one": "practice", "b/two": "practice",
    }  # fmt: skip
    assert (blueprint.fresh_count, blueprint.numeric_cap) == (1, 1)
    assert blueprint.lookup_ceiling == 2 / 3
    for seed in range(40):
        drawn = draw_questions(blueprint, banks, seed)
        assert sorted(d.question_id for d in drawn[:2]) == ["q2", "q3"]
        assert drawn[2].question_id == "b-time" and not drawn[2].lookup
        assert [d.objective for d in drawn][2] == "b/two"
    # Without the rules and parts the same zones draw the other questions too.
    plain_text = RULED_BLUEPRINT.split("rules:")[0] + RULED_BLUEPRINT.split("\n")[-2] + "\n"
    plain = fit_to_banks(
        load_blueprint(_ruled_folder(tmp_path / "p", blueprint=plain_text)[1]), banks
    )
    seen = {d.question_id for seed in range(40) for d in draw_questions(plain, banks, seed)}
    assert seen == {"q1", "q2", "q3", "q4", "b-time", "b-bytes"}


def test_a_blueprint_the_banks_cannot_meet_is_refused_saying_what_is_missing(tmp_path):
    from nccl_course.quiz import load_banks

    blueprint = RULED_BLUEPRINT.replace("min_objectives: 1}", "min_objectives: 0}")
    folder, path = _ruled_folder(tmp_path, practice=3, blueprint=blueprint)
    with pytest.raises(BlueprintError) as refused:
        fit_to_banks(load_blueprint(path), load_banks(folder))
    message = str(refused.value)
    assert "part 'practice' needs 3 distinct objectives per attempt" in message
    assert "reach at most 2" in message and "b/one, b/two" in message


def test_rules_need_objectives_the_banks_name(quizzes_dir):
    """The conftest banks name no objectives: zones alone still work (tests above), but a rule
    that counts objectives cannot be met, and parts need an objectives file."""
    path = quizzes_dir / "exam" / "blueprint.yml"
    engine = QuizEngine.load(quizzes_dir)
    head = "exam: {id: e, title: T, time_limit_minutes: 5, max_attempts: 1, pass_score: 0.5}\n"
    path.write_text(head + "rules: {min_objectives: 2}\nzones: [{chapter: alpha, draw: 3}]\n")
    with pytest.raises(BlueprintError, match="cover at most 0 distinct objectives"):
        fit_to_banks(load_blueprint(path), engine.banks)
    path.write_text(
        head + "parts: [{part: p, chapters: ['book/*'], min_objectives: 1}]\n"
        "zones: [{chapter: alpha, draw: 3}]\n"
    )
    with pytest.raises(BlueprintError, match="no objectives file"):
        fit_to_banks(load_blueprint(path), engine.banks)


def test_numeric_cap_on_the_test_banks(quizzes_dir):
    path = quizzes_dir / "exam" / "blueprint.yml"
    engine = QuizEngine.load(quizzes_dir)
    head = "exam: {id: e, title: T, time_limit_minutes: 5, max_attempts: 1, pass_score: 0.5}\n"
    path.write_text(
        head + "rules: {max_numeric_share: 0.25}\n"
        "zones: [{chapter: alpha, draw: 2}, {chapter: beta, draw: 2}]\n"
    )
    with pytest.raises(BlueprintError, match="at least 2 of its 4 questions are numeric"):
        fit_to_banks(load_blueprint(path), engine.banks)
    path.write_text(
        head + "rules: {max_numeric_share: 0.25, fresh: 1}\n"
        "zones: [{chapter: alpha, draw: 3}, {chapter: beta, draw: 1}]\n"
    )
    blueprint = fit_to_banks(load_blueprint(path), engine.banks)
    for seed in range(30):
        drawn = draw_questions(blueprint, engine.banks, seed)
        assert [d.question_id for d in drawn][3] == "b-time"  # the fresh one is the numeric one


@pytest.mark.parametrize(
    "rules, message",
    [
        ("rules: {fresh: 12, unique_skills: true}\n", "cannot be met"),
        ("rules: {fresh: 0}\n", "below the zones' 'fresh' counts|raise it"),
        ("rules: {fresh: 30}\n", r"rules.fresh \(the exam draws 25 questions\) must be"),
        ("rules: {min_objectives: 26}\n", "must be a whole number from 0 to 25"),
        ("rules: {max_numeric_share: 1.5}\n", "max_numeric_share is a fraction"),
        ("rules: {unique_skills: yes please}\n", "unique_skills must be true or false"),
        ("rules: {numeric_share: 0.4}\n", "unknown rules"),
        ("rule: {fresh: 8}\n", "unknown top-level keys"),
        ("parts: [{part: p}]\n", "'chapters' must list"),
        ("parts: [{part: p, chapters: [a], min_objectives: 20}, "
         "{part: q, chapters: [b], min_objectives: 20}]\n", "add up to 40"),
    ],
)  # fmt: skip
def test_rules_and_parts_errors(tmp_path, rules, message):
    """Each malformed rule or part is refused with a sentence saying what to write (the
    repository's zones, 25 questions of which 4 fresh in zones)."""
    text = REPO_BLUEPRINT.read_text()
    head, zones = text.split("\nzones:\n")
    exam = head.split("\nrules:\n")[0]
    path = tmp_path / "blueprint.yml"
    path.write_text(exam + "\n" + rules + "zones:\n" + zones)
    if message == "cannot be met":  # parses; only the banks can say no
        from nccl_course.quiz import load_banks

        with pytest.raises(BlueprintError, match="at most 11 can be drawn together"):
            fit_to_banks(load_blueprint(path), load_banks(REPO / "quizzes"))
        return
    with pytest.raises(BlueprintError, match=message):
        load_blueprint(path)


def test_repository_parts_cover_every_chapter_and_refuse_what_banks_lack(tmp_path):
    """Every objective's chapter is in exactly one part of the repository's blueprint, and
    asking a part for more objectives than its zones reach is refused, naming the part."""
    from nccl_course.quiz import load_banks
    from nccl_course.quiz.objectives import load_objectives

    banks = load_banks(REPO / "quizzes")
    fitted = fit_to_banks(load_blueprint(REPO_BLUEPRINT), banks)
    objectives = load_objectives(REPO / "quizzes" / "_objectives.yml")
    assert set(fitted.objective_parts) == set(objectives.objectives)
    assert {fitted.objective_parts[o] for o in objectives.objectives} == {
        "start", "collectives", "algorithms", "hardware", "practice",
    }  # fmt: skip
    path = tmp_path / "blueprint.yml"
    text = REPO_BLUEPRINT.read_text()
    hardware = "chapters: [book/hardware/*]\n    min_objectives:"
    assert f"{hardware} 3" in text
    path.write_text(text.replace(f"{hardware} 3", f"{hardware} 5"))
    # Three hardware zones, and a question on a hardware objective in the measuring bank: 4.
    with pytest.raises(BlueprintError, match="part 'hardware' needs 5 distinct .* at most 4"):
        fit_to_banks(load_blueprint(path), banks)
    path.write_text(text.replace("[book/intro.md, book/start/*]", "[book/start/*]"))
    with pytest.raises(BlueprintError, match="chapter book/intro.md .* is in no part"):
        fit_to_banks(load_blueprint(path), banks)
