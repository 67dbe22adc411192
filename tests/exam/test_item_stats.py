"""The item statistics' formulas (``nccl_course.exam.item_stats``), each against an independent
computation with numpy on the same data: means, ``np.corrcoef`` on the item and rest scores,
alpha from the covariance matrix and KR-20 from p*q with population variances."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from nccl_course.exam import item_stats
from nccl_course.exam.item_stats import ItemResponse, compute, pearson


def drawn_class(seed=7, attempts=120, bank=10, draw=4, partial=False):
    """Attempts that each draw ``draw`` of ``bank`` questions of one chapter, with scores that
    rise with a hidden ability (and one item that falls with it); the dense attempt x item
    table has NaN where an attempt did not draw the item."""
    rng = random.Random(seed)
    table = np.full((attempts, bank), np.nan)
    responses = []
    for a in range(attempts):
        ability = rng.gauss(0, 1)
        for position, j in enumerate(rng.sample(range(bank), draw)):
            slope = -1.0 if j == 3 else 0.5 + j / bank
            chance = 1 / (1 + math.exp(-slope * (ability - (j - bank / 2) / 3)))
            if partial:
                score = round(min(1.0, max(0.0, chance + rng.uniform(-0.3, 0.3))), 2)
            else:
                score = 1.0 if rng.random() < chance else 0.0
            table[a, j] = score
            chapter = "c1" if j < bank / 2 else "c2"
            responses.append(
                ItemResponse(
                    attempt=a,
                    position=position,
                    uid=f"{chapter}/i{j}",
                    chapter=chapter,
                    score=score,
                    objective=f"{chapter}/o{j % 2}",
                )
            )
    return responses, table


def uid_of(j, bank=10):
    return f"{'c1' if j < bank / 2 else 'c2'}/i{j}"


@pytest.mark.parametrize("partial", [False, True])
def test_difficulty_and_discrimination_match_numpy(partial):
    responses, table = drawn_class(partial=partial)
    stats = {i.uid: i for i in compute(responses, min_responses=1).items}
    drawn = ~np.isnan(table)
    totals = np.nansum(table, axis=1)
    counts = drawn.sum(axis=1)
    for j in range(table.shape[1]):
        rows = drawn[:, j]
        scores = table[rows, j]
        rest = (totals[rows] - scores) / (counts[rows] - 1)
        item = stats[uid_of(j)]
        assert item.responses == rows.sum()
        assert item.difficulty == pytest.approx(scores.mean(), abs=1e-12)
        assert item.score_sd == pytest.approx(scores.std(ddof=1), abs=1e-12)
        assert item.discrimination == pytest.approx(np.corrcoef(scores, rest)[0, 1], abs=1e-12)


def test_the_item_is_left_out_of_its_own_total():
    """With the item in the total, r would be larger (it correlates with itself): the
    corrected correlation is the one reported."""
    responses, table = drawn_class()
    stats = {i.uid: i for i in compute(responses, min_responses=1).items}
    rows = ~np.isnan(table[:, 0])
    uncorrected = np.corrcoef(table[rows, 0], np.nansum(table, axis=1)[rows])[0, 1]
    assert stats[uid_of(0)].discrimination < uncorrected - 0.05


def test_pearson_matches_numpy_and_is_none_without_variance():
    rng = np.random.default_rng(3)
    xs, ys = rng.normal(size=50), rng.normal(size=50)
    assert pearson(list(xs), list(ys)) == pytest.approx(np.corrcoef(xs, ys)[0, 1], abs=1e-12)
    assert pearson([1.0, 1.0, 1.0], [0.0, 1.0, 2.0]) is None
    assert pearson([0.0, 1.0], [2.0, 2.0]) is None
    assert pearson([1.0], [2.0]) is None
    with pytest.raises(ValueError, match="2 x values but 3"):
        pearson([1.0, 2.0], [1.0, 2.0, 3.0])


def full_form(seed=11, attempts=80, k=6, binary=True):
    """Every attempt holds k positions (one form): a complete table."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(size=(attempts, 1))
    chance = 1 / (1 + np.exp(-(ability - np.linspace(-1, 1, k))))
    table = (rng.random((attempts, k)) < chance).astype(float) if binary else chance.round(2)
    responses = [
        ItemResponse(attempt=a, position=j, uid=f"c/q{j}", chapter="c", score=table[a, j], form="F")
        for a in range(attempts)
        for j in range(k)
    ]
    return responses, table


def test_alpha_matches_the_covariance_form_and_kr20():
    responses, table = full_form()
    rel = compute(responses).reliability
    k = table.shape[1]
    cov = np.cov(table, rowvar=False)
    alpha = k / (k - 1) * (1 - np.trace(cov) / cov.sum())
    p = table.mean(axis=0)
    kr20 = k / (k - 1) * (1 - np.sum(p * (1 - p)) / table.sum(axis=1).var(ddof=0))
    assert rel.method == "KR-20"
    assert rel.alpha == pytest.approx(alpha, abs=1e-12)
    assert rel.alpha == pytest.approx(kr20, abs=1e-12)
    assert (rel.attempts, rel.positions, rel.form) == (80, 6, "F")
    totals = table.sum(axis=1)
    assert rel.total_mean == pytest.approx(totals.mean())
    assert rel.total_sd == pytest.approx(totals.std(ddof=1))
    assert rel.sem == pytest.approx(totals.std(ddof=1) * math.sqrt(1 - alpha))


def test_alpha_with_partial_credit_is_named_alpha():
    responses, table = full_form(binary=False)
    rel = compute(responses).reliability
    cov = np.cov(table, rowvar=False)
    k = table.shape[1]
    assert rel.method == "Cronbach's alpha"
    assert rel.alpha == pytest.approx(k / (k - 1) * (1 - np.trace(cov) / cov.sum()), abs=1e-12)


def test_alpha_is_computed_over_positions_of_the_commonest_form():
    responses, table = full_form()
    other = [
        ItemResponse(attempt=1000 + a, position=j, uid=f"d/q{j}", chapter="d", score=1.0, form="G")
        for a in range(5)
        for j in range(3)
    ]
    rel = compute(responses + other).reliability
    assert (rel.form, rel.attempts, rel.positions) == ("F", 80, 6)
    assert rel.note == "5 attempts of other forms left out"


def test_alpha_needs_variance():
    same = [
        ItemResponse(attempt=a, position=j, uid=f"c/q{j}", chapter="c", score=1.0)
        for a in range(4)
        for j in range(3)
    ]
    rel = compute(same).reliability
    assert rel.alpha is None and rel.sem is None
    assert "no variance" in rel.note


def one_item(scores, rests):
    """Responses where item ``x/target`` has ``scores`` and the attempts' other item the
    rest score ``rests`` (two questions per attempt: the rest is the other question)."""
    out = []
    for a, (s, r) in enumerate(zip(scores, rests, strict=True)):
        out.append(ItemResponse(attempt=a, position=0, uid="x/target", chapter="x", score=s))
        out.append(ItemResponse(attempt=a, position=1, uid="x/other", chapter="x", score=r))
    return out


def flags_of(scores, rests, min_responses=4):
    stats = {i.uid: i for i in compute(one_item(scores, rests), min_responses).items}
    return stats["x/target"].flags


def test_flags():
    up = [0.0, 0.0, 1.0, 1.0] * 10
    assert flags_of(up, [0.1, 0.2, 0.8, 0.9] * 10) == ()
    assert flags_of(up, [0.9, 0.8, 0.2, 0.1] * 10) == (item_stats.NEGATIVE,)
    # r about 0.1: near zero.
    low = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    rests = [0.0, 0.0, 0.5, 0.5, 1.0, 1.0, 0.2, 0.4, 0.9, 0.7]
    r = np.corrcoef(low, rests)[0, 1]
    assert 0 <= r < item_stats.LOW_DISCRIMINATION
    assert flags_of(low, rests) == (item_stats.LOW,)
    easy = [1.0] * 39 + [0.0]
    assert flags_of(easy, [1.0] * 39 + [0.0]) == (item_stats.EASY,)
    assert flags_of([1.0] * 40, [0.0, 1.0] * 20) == (item_stats.UNDEFINED, item_stats.EASY)
    hard = [0.0] * 39 + [1.0]
    assert flags_of(hard, [0.0] * 39 + [1.0]) == (item_stats.HARD,)
    # Too few: nothing else is said, though the figures would flag it.
    assert flags_of([1.0, 0.0, 1.0], [0.0, 1.0, 0.0], min_responses=4) == (item_stats.FEW,)


def test_chapter_and_objective_aggregates():
    responses, table = drawn_class()
    stats = compute(responses, min_responses=1)
    items = {i.uid: i for i in stats.items}
    chapters = {g.key: g for g in stats.chapters}
    for chapter, columns in (("c1", range(0, 5)), ("c2", range(5, 10))):
        values = table[:, list(columns)]
        group = chapters[chapter]
        assert group.items == 5
        assert group.responses == (~np.isnan(values)).sum()
        assert group.difficulty == pytest.approx(np.nanmean(values), abs=1e-12)
        rs = [items[uid_of(j)].discrimination for j in columns]
        assert group.mean_discrimination == pytest.approx(np.mean(rs), abs=1e-12)
        assert group.flagged == sum(1 for j in columns if items[uid_of(j)].flags)
    objectives = {g.key: g for g in stats.objectives}
    assert set(objectives) == {"c1/o0", "c1/o1", "c2/o0", "c2/o1"}
    c1_even = table[:, [0, 2, 4]]
    assert objectives["c1/o0"].difficulty == pytest.approx(np.nanmean(c1_even), abs=1e-12)
    assert stats.attempts == 120 and stats.responses == 480


def test_aggregates_leave_out_items_with_too_few_responses():
    responses, _ = drawn_class()
    extra = ItemResponse(attempt=0, position=9, uid="c1/rare", chapter="c1", score=1.0)
    stats = compute([*responses, extra], min_responses=5)
    c1 = next(g for g in stats.chapters if g.key == "c1")
    items = [i for i in stats.items if i.chapter == "c1"]
    judged = [i.discrimination for i in items if i.uid != "c1/rare"]
    assert c1.items == 6
    assert c1.mean_discrimination == pytest.approx(np.mean(judged), abs=1e-12)
    assert stats.flagged(item_stats.FEW) == ["c1/rare"]


def test_refuses_scores_out_of_range_and_a_bad_minimum():
    bad = ItemResponse(attempt=1, position=0, uid="x/y", chapter="x", score=1.5)
    with pytest.raises(ValueError, match=r"attempt 1, x/y: score 1.5 is not in \[0, 1\]"):
        compute([bad])
    with pytest.raises(ValueError, match="at least 1"):
        compute([], min_responses=0)


def test_no_responses():
    stats = compute([])
    assert (stats.attempts, stats.items, stats.reliability) == (0, [], None)
    assert stats.to_dict()["items"] == []
