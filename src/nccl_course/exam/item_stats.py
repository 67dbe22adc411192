"""Item statistics of the exam by classical test theory: how hard each question is, whether it
tells stronger from weaker learners, and how reliable the exam's score is.

The input is every graded question of every graded attempt (``ItemResponse``: a score in
[0, 1], as ``nccl_course.exam.attempts.grade_answer`` gives it); nothing here reads a database
(``nccl_course.store.item_responses`` does). All scores are fractions of one question's point:
a difficulty of 0.8 means learners scored 80 % of the point on average.

Per item (a question uid, ``CHAPTER/id``) over the ``n`` attempts that drew it:

- difficulty ``p = (1/n) * sum_a s_a``: the mean score, the classical "p-value" (the share
  answering right when every score is 0 or 1). High p: an easy item.
- discrimination ``r``: Pearson's correlation between the item's score ``s_a`` and the rest
  score ``R_a = (T_a - s_a) / (m_a - 1)``, where ``T_a`` is the attempt's points and ``m_a`` its
  number of questions; this is the corrected item-total correlation (the item is taken out of
  the total, so it does not correlate with itself), and the point-biserial correlation when
  the item is scored 0/1. ``r = sum (s - mean s)(R - mean R) / sqrt(sum (s - mean s)^2 *
  sum (R - mean R)^2)``, dimensionless in [-1, 1]. The rest score is a fraction of the other
  questions (not their sum) because attempts drawn from different banks or blueprints may hold
  different numbers of questions; with equal counts the two give the same r.
- flags, with the thresholds below: ``too_few_responses`` (under ``min_responses``: nothing
  else is said about the item, the figures are shown but too noisy to judge),
  ``negative_discrimination`` (r < 0: stronger learners do worse on it, usually a wrong key or
  a misleading prompt), ``low_discrimination`` (0 <= r < ``LOW_DISCRIMINATION``),
  ``discrimination_undefined`` (every response, or every rest score, is the same), ``too_easy``
  (p > ``EASY_ABOVE``) and ``too_hard`` (p < ``HARD_BELOW``).

Reliability of a drawn exam: attempts do not see the same questions, so the learners x items
table is mostly empty and Cronbach's alpha over items cannot be computed. The blueprint,
though, fills the same slots in every attempt: position ``j`` always holds a question of the
same zone (``nccl_course.exam.blueprint.draw_questions`` numbers positions zone by zone). Alpha
is computed over positions, among the attempts of one form (the same blueprint digest and the
same chapter at every position):

    alpha = k / (k - 1) * (1 - sum_j var(X_j) / var(T))

with ``k`` positions, ``X_j`` the score at position j, ``T`` the attempt's points, and sample
variances (the ratio does not depend on the divisor). A position's variance includes which
question was drawn there, so this alpha treats the drawn questions as one random form out of
many ("randomly parallel" forms): the reliability of the score a learner gets on whatever form
they drew, which is the score that passes or fails them. When every score is 0 or 1 it is
KR-20. The standard error of measurement, ``SEM = sd(T) * sqrt(1 - alpha)``, is in points.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

# Below this many responses an item's figures are shown but not judged: the standard error of
# a correlation near zero is about 1 / sqrt(n), 0.18 at n = 30, as wide as the gap between a
# poor and a good item.
DEFAULT_MIN_RESPONSES = 30
# Ebel's rule of thumb reads an item-total correlation under 0.20 as a poor item.
LOW_DISCRIMINATION = 0.20
# Items nearly everyone gets right (or wrong) say almost nothing about who knows more.
EASY_ABOVE = 0.95
HARD_BELOW = 0.05

FEW = "too_few_responses"
NEGATIVE = "negative_discrimination"
LOW = "low_discrimination"
UNDEFINED = "discrimination_undefined"
EASY = "too_easy"
HARD = "too_hard"
FLAG_MEANINGS = {
    FEW: "fewer responses than the minimum: not judged",
    NEGATIVE: "negative item-rest correlation: stronger learners score lower (check the key)",
    LOW: f"item-rest correlation under {LOW_DISCRIMINATION}: tells learners apart poorly",
    UNDEFINED: "every response (or every rest score) is the same: no correlation",
    EASY: f"mean score above {EASY_ABOVE:.0%}: nearly everyone gets it",
    HARD: f"mean score under {HARD_BELOW:.0%}: nearly nobody gets it",
}


@dataclass(frozen=True)
class ItemResponse:
    """One graded question of one graded attempt."""

    attempt: int  # the attempt's key (any hashable id; the database's primary key)
    position: int  # 0-based place in the attempt
    uid: str  # CHAPTER/id
    chapter: str
    score: float  # in [0, 1]: the fraction of the question's point
    objective: str | None = None
    skill: str | None = None
    form: str = ""  # the blueprint digest the attempt was drawn from


@dataclass(frozen=True)
class ItemStats:
    uid: str
    chapter: str
    objective: str | None
    skill: str | None
    responses: int
    difficulty: float  # mean score, in [0, 1]
    score_sd: float  # sample standard deviation of the score (0 with one response)
    discrimination: float | None  # corrected item-total (item-rest) correlation
    flags: tuple[str, ...]


@dataclass(frozen=True)
class GroupStats:
    """The items of one chapter or one objective together."""

    key: str
    items: int
    responses: int
    difficulty: float  # mean score over all their responses
    mean_discrimination: float | None  # mean r of the judged items (enough responses)
    flagged: int  # judged items with a flag


@dataclass(frozen=True)
class Reliability:
    method: str  # "KR-20" (every score 0 or 1) or "Cronbach's alpha"
    alpha: float | None  # None: no variance in the total
    attempts: int  # attempts of the form it was computed on
    positions: int  # k
    total_mean: float  # points
    total_sd: float  # points (sample standard deviation)
    sem: float | None  # points
    form: str
    note: str = ""


@dataclass(frozen=True)
class ExamStats:
    attempts: int
    responses: int
    min_responses: int
    items: list[ItemStats]
    chapters: list[GroupStats]
    objectives: list[GroupStats]
    reliability: Reliability | None
    thresholds: dict = field(default_factory=dict)

    def flagged(self, flag: str) -> list[str]:
        """The uids of the items that carry ``flag``."""
        return [item.uid for item in self.items if flag in item.flags]

    def to_dict(self) -> dict:
        def plain(obj) -> dict:
            return {name: getattr(obj, name) for name in obj.__dataclass_fields__}

        return {
            "attempts": self.attempts,
            "responses": self.responses,
            "min_responses": self.min_responses,
            "thresholds": dict(self.thresholds),
            "flag_meanings": dict(FLAG_MEANINGS),
            "items": [{**plain(i), "flags": list(i.flags)} for i in self.items],
            "chapters": [plain(g) for g in self.chapters],
            "objectives": [plain(g) for g in self.objectives],
            "reliability": plain(self.reliability) if self.reliability else None,
        }


def mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def sample_variance(values: list[float]) -> float:
    """``sum (x - mean)^2 / (n - 1)``; 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    centre = mean(values)
    return math.fsum((x - centre) ** 2 for x in values) / (len(values) - 1)


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's correlation of two equally long lists; None when either has no variance
    (or fewer than two pairs)."""
    if len(xs) != len(ys):
        raise ValueError(f"pearson: {len(xs)} x values but {len(ys)} y values")
    if len(xs) < 2:
        return None
    mx, my = mean(xs), mean(ys)
    dx = [x - mx for x in xs]
    dy = [y - my for y in ys]
    sxx = math.fsum(d * d for d in dx)
    syy = math.fsum(d * d for d in dy)
    # Differences this small are rounding of equal values, not variance.
    if sxx <= 1e-24 * len(xs) or syy <= 1e-24 * len(ys):
        return None
    r = math.fsum(a * b for a, b in zip(dx, dy, strict=True)) / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


def item_flags(n: int, p: float, r: float | None, min_responses: int) -> tuple[str, ...]:
    if n < min_responses:
        return (FEW,)
    flags = []
    if r is None:
        flags.append(UNDEFINED)
    elif r < 0:
        flags.append(NEGATIVE)
    elif r < LOW_DISCRIMINATION:
        flags.append(LOW)
    if p > EASY_ABOVE:
        flags.append(EASY)
    elif p < HARD_BELOW:
        flags.append(HARD)
    return tuple(flags)


def cronbach_alpha(rows: list[list[float]]) -> float | None:
    """Alpha of a complete table (one row per attempt, one column per position); None when
    the total has no variance or there are fewer than two columns or rows."""
    if len(rows) < 2 or len(rows[0]) < 2:
        return None
    k = len(rows[0])
    totals = [math.fsum(row) for row in rows]
    total_var = sample_variance(totals)
    if total_var <= 1e-24:
        return None
    item_var = math.fsum(sample_variance([row[j] for row in rows]) for j in range(k))
    return k / (k - 1) * (1 - item_var / total_var)


def reliability(by_attempt: dict[int, list[ItemResponse]]) -> Reliability | None:
    """Alpha over positions on the form most attempts were drawn from (module docstring)."""
    forms: dict[tuple, list[list[float]]] = defaultdict(list)
    for answers in by_attempt.values():
        ordered = sorted(answers, key=lambda r: r.position)
        if [r.position for r in ordered] != list(range(len(ordered))):
            continue  # a gap: not a complete row of its form
        key = (ordered[0].form, tuple(r.chapter for r in ordered))
        forms[key].append([r.score for r in ordered])
    if not forms:
        return None
    (form, chapters), rows = max(forms.items(), key=lambda kv: (len(kv[1]), kv[0]))
    totals = [math.fsum(row) for row in rows]
    alpha = cronbach_alpha(rows)
    sd = math.sqrt(sample_variance(totals))
    dichotomous = all(s in (0.0, 1.0) for row in rows for s in row)
    others = sum(len(r) for key, r in forms.items() if key != (form, chapters))
    note = f"{others} attempts of other forms left out" if others else ""
    if alpha is None:
        note = "; ".join(filter(None, [note, "too few attempts or no variance in the total"]))
    return Reliability(
        method="KR-20" if dichotomous else "Cronbach's alpha",
        alpha=alpha,
        attempts=len(rows),
        positions=len(chapters),
        total_mean=mean(totals),
        total_sd=sd,
        sem=sd * math.sqrt(max(0.0, 1 - alpha)) if alpha is not None else None,
        form=form,
        note=note,
    )


def _group(key: str, items: list[ItemStats], scores: list[float]) -> GroupStats:
    judged = [i for i in items if FEW not in i.flags]
    rs = [i.discrimination for i in judged if i.discrimination is not None]
    return GroupStats(
        key=key,
        items=len(items),
        responses=len(scores),
        difficulty=mean(scores),
        mean_discrimination=mean(rs) if rs else None,
        flagged=sum(1 for i in judged if i.flags),
    )


def compute(
    responses: Iterable[ItemResponse], min_responses: int = DEFAULT_MIN_RESPONSES
) -> ExamStats:
    """Item, chapter and objective statistics and the reliability of the graded attempts."""
    if min_responses < 1:
        raise ValueError(f"min_responses must be at least 1, not {min_responses}")
    by_attempt: dict[int, list[ItemResponse]] = defaultdict(list)
    for response in responses:
        if not (math.isfinite(response.score) and 0.0 <= response.score <= 1.0):
            raise ValueError(
                f"attempt {response.attempt}, {response.uid}: score {response.score} is not "
                "in [0, 1]"
            )
        by_attempt[response.attempt].append(response)
    # Per item: (score, rest score) of each attempt that drew it.
    pairs: dict[str, list[tuple[float, float | None]]] = defaultdict(list)
    first: dict[str, ItemResponse] = {}
    for answers in by_attempt.values():
        total, m = math.fsum(r.score for r in answers), len(answers)
        for r in answers:
            rest = (total - r.score) / (m - 1) if m > 1 else None
            pairs[r.uid].append((r.score, rest))
            first.setdefault(r.uid, r)
    items = []
    for uid in sorted(pairs):
        scores = [s for s, _ in pairs[uid]]
        with_rest = [(s, rest) for s, rest in pairs[uid] if rest is not None]
        r = pearson([s for s, _ in with_rest], [rest for _, rest in with_rest])
        p = mean(scores)
        info = first[uid]
        items.append(
            ItemStats(
                uid=uid,
                chapter=info.chapter,
                objective=info.objective,
                skill=info.skill,
                responses=len(scores),
                difficulty=p,
                score_sd=math.sqrt(sample_variance(scores)),
                discrimination=r,
                flags=item_flags(len(scores), p, r, min_responses),
            )
        )
    scores_of = {uid: [s for s, _ in pairs[uid]] for uid in pairs}

    def groups(key_of) -> list[GroupStats]:
        members: dict[str, list[ItemStats]] = defaultdict(list)
        for item in items:
            members[key_of(item)].append(item)
        return [
            _group(key, its, [s for i in its for s in scores_of[i.uid]])
            for key, its in sorted(members.items())
        ]

    return ExamStats(
        attempts=len(by_attempt),
        responses=sum(len(a) for a in by_attempt.values()),
        min_responses=min_responses,
        items=items,
        chapters=groups(lambda i: i.chapter),
        objectives=groups(lambda i: i.objective or "(none)"),
        reliability=reliability(by_attempt),
        thresholds={
            "low_discrimination": LOW_DISCRIMINATION,
            "easy_above": EASY_ABOVE,
            "hard_below": HARD_BELOW,
        },
    )
