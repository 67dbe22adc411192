"""Acceptance: 1,000 attempts drawn from the repository's blueprint and banks, each checked
against the rules from the questions themselves (not from the draw's own bookkeeping): at least
25 distinct objectives, each part of the book at its minimum, no skill twice, at most 40 %
numeric answers, and a look-up score (fixed questions, and fresh ones that coincide with a
variant the practice pages print) below the pass mark in every attempt."""

from __future__ import annotations

import fnmatch
import random
import statistics
import time
from collections import Counter
from pathlib import Path

import pytest

from nccl_course.exam.blueprint import draw_questions, fit_to_banks, load_blueprint
from nccl_course.exam.selection import plan_for
from nccl_course.quiz import load_banks
from nccl_course.quiz.objectives import load_objectives
from nccl_course.quiz.printed import printed_variants

REPO = Path(__file__).resolve().parents[2]
ATTEMPTS = 1000
# The book's parts as _toc.yml lays them out (the root page, intro, opens "Start here").
BOOK_PARTS = {
    "start": ["book/intro.md", "book/start/*"],
    "collectives": ["book/collectives/*"],
    "algorithms": ["book/algorithms/*"],
    "hardware": ["book/hardware/*"],
    "practice": ["book/practice/*"],
}


@pytest.fixture(scope="module")
def exam():
    banks = load_banks(REPO / "quizzes")
    blueprint = fit_to_banks(load_blueprint(REPO / "quizzes" / "exam" / "blueprint.yml"), banks)
    assert blueprint.problems == []
    return blueprint, banks


def part_of(chapter_file: str) -> str:
    (part,) = [
        p for p, globs in BOOK_PARTS.items() if any(fnmatch.fnmatch(chapter_file, g) for g in globs)
    ]
    return part


def test_thousand_draws_meet_every_rule(exam):
    blueprint, banks = exam
    objectives = load_objectives(REPO / "quizzes" / "_objectives.yml")
    printed = printed_variants(banks)
    rules = blueprint.rules
    assert (rules.min_objectives, rules.unique_skills, rules.max_numeric_share) == (25, True, 0.4)
    minimums = {p.name: p.min_objectives for p in blueprint.parts}
    assert set(minimums) == set(BOOK_PARTS) and all(minimums.values())

    spent = 0.0
    distinct, numeric_share, ceiling, per_part = [], [], [], Counter()
    for seed in range(ATTEMPTS):
        attempt_seed = random.Random(seed).getrandbits(63)  # like the server's secrets.randbits
        start = time.process_time()
        drawn = draw_questions(blueprint, banks, attempt_seed)
        spent += time.process_time() - start
        questions = [d.instance.question for d in drawn]
        assert len(drawn) == blueprint.question_count == 25
        assert [d.objective for d in drawn] == [q.objective for q in questions]
        named = [q.objective for q in questions]
        distinct.append(len(set(named)))
        assert distinct[-1] >= 25, (attempt_seed, named)
        parts = Counter(part_of(objectives[o].chapter) for o in set(named))
        for part, low in minimums.items():
            assert parts[part] >= low, (attempt_seed, part, parts)
        per_part.update(parts)
        skills = [q.skill for q in questions if q.skill]
        assert len(skills) == len(set(skills)), (attempt_seed, Counter(skills).most_common(2))
        numeric_share.append(sum(q.type == "numeric" for q in questions) / len(questions))
        assert numeric_share[-1] <= 0.4
        ceiling.append(sum(printed.lookup(d.instance) for d in drawn) / len(drawn))
        assert ceiling[-1] < blueprint.pass_score, attempt_seed
        # the server's zone order: position j holds the same chapter in every attempt
        assert [d.chapter for d in drawn] == [
            z.chapter for z in blueprint.zones for _ in range(z.draw)
        ]

    plan = plan_for(blueprint, banks)
    stuck = sum(plan.greedy(random.Random(s)) is None for s in range(ATTEMPTS))
    print(
        f"\n{ATTEMPTS} attempts of {blueprint.question_count} questions: objectives per attempt "
        f"min {min(distinct)}, median {statistics.median(distinct)}; numeric share max "
        f"{max(numeric_share):.0%} (mean {statistics.mean(numeric_share):.0%}); look-up score max "
        f"{max(ceiling):.0%} against a pass mark of {blueprint.pass_score:.0%}; objectives per "
        f"part (mean) { ({p: round(n / ATTEMPTS, 1) for p, n in per_part.items()}) }; "
        f"greedy passes stuck {stuck / ATTEMPTS:.0%}; draw {spent / ATTEMPTS * 1000:.2f} ms CPU"
    )
    assert max(ceiling) <= blueprint.lookup_ceiling < blueprint.pass_score
    # The draw varies: many different questions, and each skill in many attempts, not one set.
    uids = Counter(
        q.uid
        for seed in range(50)
        for q in (d.instance.question for d in draw_questions(blueprint, banks, seed))
    )
    assert len(uids) > 100


def test_the_fresh_questions_the_blueprint_counts_on(exam):
    """The blueprint's comment explains its size by the fresh questions the banks offer with no
    skill twice: one per skill of its zones' parameterised questions, and those with none."""
    blueprint, banks = exam
    printed = printed_variants(banks)
    fresh = [
        q for z in blueprint.zones for q in banks[z.chapter].questions if printed.can_be_fresh(q)
    ]
    skills = sorted({q.skill for q in fresh if q.skill})
    loose = sorted(q.uid for q in fresh if not q.skill)
    print(f"\nfresh questions by skill: {skills}; without a skill: {loose}")
    offered = len(skills) + len(loose)
    assert (offered, blueprint.fresh_count) == (11, 8), (
        f"the zones' banks now offer {offered} fresh questions with no skill twice: update "
        "rules.fresh, the question count and the comment of quizzes/exam/blueprint.yml"
    )
    # numeric, or a choose question whose options a model computes
    assert all(q.type == "numeric" or q.generator.startswith("choose_") for q in fresh)
    text = (REPO / "quizzes" / "exam" / "blueprint.yml").read_text()
    assert all(s in text for s in skills) and all(u in text for u in loose)
