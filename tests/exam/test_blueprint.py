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
