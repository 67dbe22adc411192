"""Which questions an attempt takes: the zones' picks under the blueprint's rules.

The blueprint (``nccl_course.exam.blueprint``) says how many questions each zone draws from its
chapter's bank and what the attempt as a whole must hold: fresh (parameterised) questions, a
numeric cap, distinct objectives overall and per part of the book, no skill twice. A ``Plan``
holds each zone's candidates with what the rules read of them (skill, objective, part, numeric,
fresh), built once per blueprint and set of banks. ``Plan.greedy`` is one random pass over the
attempt's slots (a zone's compulsory fresh slots first, the others in random order): each slot
takes one of the best-scored questions that keep every rule reachable by the slots after it
(helping a part that needs every later slot first, then a fresh question while the attempt
needs more, then an objective of a part short of its minimum, then a new objective), and a
pass that gets stuck gives None. ``select`` makes up to MAX_TRIES passes with the attempt's
random stream, then takes ``Plan.fallback``: one selection found by FIT_TRIES passes from a
fixed seed, which the blueprint looks for when it is fitted to the banks, so a blueprint the
banks cannot satisfy is refused at start (``Plan.shortfall`` says what is missing) and every
attempt meets every rule.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass

from nccl_course.quiz.printed import printed_variants

# Greedy passes one attempt's draw makes before it takes the plan's fallback selection. On the
# course's blueprint about one pass in three gets stuck (tests/exam/test_blueprint_simulation.py
# prints the share), so 40 passes all get stuck about once in 10^20 attempts; a pass costs
# ~0.1 ms.
MAX_TRIES = 40
# Passes a plan makes (from a fixed seed) looking for one selection that meets every rule: the
# fallback of every draw, and the proof that the banks can satisfy the blueprint.
FIT_TRIES = 3000


@dataclass(
    frozen=True, eq=False
)  # compared by identity: comparing questions field by field is slow
class Candidate:
    """A question of a zone's bank, with what the rules read of it."""

    question: object  # nccl_course.quiz Question
    skill: str | None  # None unless the rules make skills unique
    objective: str | None
    part: str | None
    numeric: bool
    fresh: bool  # parameterised with unprinted draws: drawn fresh


class Plan:
    """The zones' candidates for one blueprint and one set of banks (built once, kept), the
    greedy pass that picks an attempt's questions, and the fallback selection."""

    def __init__(self, blueprint, banks: dict):
        self.blueprint = blueprint
        self.printed = printed_variants(banks)
        rules = blueprint.rules
        self.zones: list[tuple[object, tuple[Candidate, ...]]] = []
        for zone in blueprint.zones:
            candidates = tuple(
                Candidate(
                    question=q,
                    skill=q.skill if rules.unique_skills else None,
                    objective=q.objective,
                    part=blueprint.objective_parts.get(q.objective),
                    numeric=q.type == "numeric",
                    fresh=self.printed.can_be_fresh(q),
                )
                for q in banks[zone.chapter].questions
            )
            self.zones.append((zone, candidates))
        # (zone index, the slot must take a fresh question), one per question of the attempt
        self.slots = [
            (i, k < z.fresh) for i, (z, _) in enumerate(self.zones) for k in range(z.draw)
        ]
        self.fresh_needed = blueprint.fresh_count
        self.numeric_cap = blueprint.numeric_cap
        self.min_objectives = rules.min_objectives
        self.part_minimums = {p.name: p.min_objectives for p in blueprint.parts if p.min_objectives}
        # Prefer new objectives only where a rule counts them: otherwise every pick is uniform.
        self.counts_objectives = bool(self.min_objectives or self.part_minimums)
        # Whether a fresh question still needed must be counted as numeric in advance.
        self.fresh_is_numeric = all(c.numeric for _, cs in self.zones for c in cs if c.fresh)
        # Per zone: whether it has fresh candidates, and the parts its candidates' objectives are
        # in; over all slots: how many can take a fresh question, an objective of each part.
        self.zone_fresh = [any(c.fresh for c in cs) for _, cs in self.zones]
        self.zone_parts = [
            {c.part for c in cs if c.part in self.part_minimums} for _, cs in self.zones
        ]
        self.fresh_slots = sum(self.zone_fresh[i] for i, _ in self.slots)
        self.part_slots = {p: 0 for p in self.part_minimums}
        for i, _ in self.slots:
            for part in self.zone_parts[i]:
                self.part_slots[part] += 1
        self._fallback: list[list[Candidate]] | None = None
        self._searched = False
        self._lock = threading.Lock()

    def greedy(self, rng: random.Random) -> list[list[Candidate]] | None:
        """One pass: slots in random order (a zone's compulsory fresh slots first), each taking
        a random one of the best questions that keep every rule reachable by the slots after
        it; None if a slot has none or the pass ends short of a rule."""
        compulsory = [s for s in self.slots if s[1]]
        rest = [s for s in self.slots if not s[1]]
        rng.shuffle(compulsory)
        rng.shuffle(rest)
        picks: list[list[Candidate]] = [[] for _ in self.zones]
        skills: set[str] = set()
        objectives: set[str] = set()
        deficits = dict(self.part_minimums)
        deficit = sum(deficits.values())
        numeric = fresh = 0
        left = len(self.slots)
        cap, need_objectives, need_fresh = self.numeric_cap, self.min_objectives, self.fresh_needed
        counts = self.counts_objectives
        # Slots still to come that can take a fresh question, or an objective of each part.
        fresh_room = self.fresh_slots
        part_room = dict(self.part_slots)
        for zone_index, must_be_fresh in compulsory + rest:
            left -= 1  # the counts below are of the slots after this one
            fresh_room -= self.zone_fresh[zone_index]
            must_help = None
            tight = set()  # parts whose every later slot must help: helping them comes first
            for part in self.zone_parts[zone_index]:
                part_room[part] -= 1
            for part, short in deficits.items():
                if short > part_room[part]:  # this slot must take an objective of ``part``
                    if must_help is not None:
                        return None
                    must_help = part
                elif short and short == part_room[part]:
                    tight.add(part)
            best: list[Candidate] = []
            best_score = -1
            zone_picks = picks[zone_index]
            for c in self.zones[zone_index][1]:
                if must_be_fresh and not c.fresh:
                    continue
                if c.skill is not None and c.skill in skills:
                    continue
                if c in zone_picks:
                    continue
                fresh_short = max(0, need_fresh - fresh - c.fresh)
                if fresh_short > fresh_room:
                    continue
                reserved = fresh_short if self.fresh_is_numeric else 0
                if numeric + c.numeric + reserved > cap:
                    continue
                new = c.objective is not None and c.objective not in objectives
                if len(objectives) + new + left < need_objectives:
                    continue
                helps = new and deficits.get(c.part, 0) > 0
                if deficit - helps > left or (
                    must_help is not None and not (helps and c.part == must_help)
                ):
                    continue
                score = (
                    8 * (helps and c.part in tight)
                    + 4 * (c.fresh and fresh < need_fresh)
                    + 2 * helps
                    + (new and counts)
                )
                if score > best_score:
                    best, best_score = [c], score
                elif score == best_score:
                    best.append(c)
            if not best:
                return None
            c = best[rng.randrange(len(best))] if len(best) > 1 else best[0]
            zone_picks.append(c)
            if c.skill is not None:
                skills.add(c.skill)
            if c.objective is not None and c.objective not in objectives:
                objectives.add(c.objective)
                if deficits.get(c.part, 0) > 0:
                    deficits[c.part] -= 1
                    deficit -= 1
            numeric += c.numeric
            fresh += c.fresh
        if fresh < need_fresh or deficit or len(objectives) < need_objectives or numeric > cap:
            return None
        return picks

    def fallback(self) -> list[list[Candidate]] | None:
        """A selection that meets every rule, found once by FIT_TRIES passes from a fixed seed;
        None when there is none (``shortfall`` says why)."""
        with self._lock:
            if self._fallback is None and not self._searched:
                self._searched = True
                rng = random.Random("nccl-course-exam:fallback")
                for _ in range(FIT_TRIES):
                    found = self.greedy(rng)
                    if found is not None:
                        self._fallback = found
                        break
            return self._fallback

    def shortfall(self) -> str:
        """Why no selection meets the rules: the first rule the zones' banks cannot meet even
        alone, or, if each can be met alone, that they cannot all be met together."""
        bp = self.blueprint
        head = f"the exam blueprint cannot be met by the banks of its {len(self.zones)} zones: "
        fresh = [(z, c) for z, cs in self.zones for c in cs if c.fresh]
        if self.fresh_needed:
            skills: dict[str, set[str]] = {}
            loose = 0
            for z, c in fresh:
                if c.skill is None:
                    loose += 1
                else:
                    skills.setdefault(c.skill, set()).add(z.chapter)
            slots = sum(min(z.draw, sum(c.fresh for c in cs)) for z, cs in self.zones)
            most = min(slots, len(skills) + loose)
            if most < self.fresh_needed:
                named = "; ".join(
                    f"{s} ({', '.join(sorted(b))})" for s, b in sorted(skills.items())
                )
                return head + (
                    f"every attempt needs {self.fresh_needed} fresh (parameterised) questions, "
                    f"but at most {most} can be drawn together"
                    + (
                        f" with no skill twice: their skills are {named}, and {loose} name no skill"
                        if bp.rules.unique_skills
                        else ""
                    )
                    + "; add parameterised questions (with other skills) to the zones' banks, "
                    "add zones for banks that have them, or lower rules.fresh"
                )
        forced = sum(max(0, z.draw - sum(not c.numeric for c in cs)) for z, cs in self.zones)
        if self.fresh_is_numeric:
            forced = max(forced, self.fresh_needed)
        if forced > self.numeric_cap:
            return head + (
                f"at least {forced} of its {bp.question_count} questions are numeric (the fresh "
                f"ones, and zones whose banks lack other questions) but rules.max_numeric_share "
                f"allows {self.numeric_cap}; add non-numeric questions or raise the share"
            )
        if self.min_objectives:
            reach = max_distinct(self.zones, None)
            if reach < self.min_objectives:
                return head + (
                    f"its zones can cover at most {reach} distinct objectives but "
                    f"rules.min_objectives asks {self.min_objectives}; add zones, or questions "
                    f"on other objectives to the zones' banks"
                )
        for part, low in self.part_minimums.items():
            reach = max_distinct(self.zones, part)
            if reach < low:
                tested = sorted({c.objective for _, cs in self.zones for c in cs if c.part == part})
                return head + (
                    f"part {part!r} needs {low} distinct objectives per attempt but its zones "
                    f"reach at most {reach} (the zones' banks test {len(tested)} of its "
                    f"objectives: {', '.join(tested) or 'none'}); add a zone for a bank with "
                    f"questions on this part, or lower its min_objectives"
                )
        return head + (
            f"each rule can be met alone, but no draw out of {FIT_TRIES} met them all together "
            f"(fresh {self.fresh_needed}, at most {self.numeric_cap} numeric, "
            f"{self.min_objectives} objectives, parts {self.part_minimums}); loosen one of them "
            f"or add zones"
        )


def max_distinct(zones, part: str | None) -> int:
    """The most distinct objectives (of ``part``, or of any part for None) the zones' slots can
    hold together: a maximum matching of slots to objectives (augmenting paths)."""
    slots = [
        sorted({c.objective for c in cs if c.objective and (part is None or c.part == part)})
        for z, cs in zones
        for _ in range(z.draw)
    ]
    holder: dict[str, int] = {}

    def place(slot: int, seen: set[str]) -> bool:
        for objective in slots[slot]:
            if objective in seen:
                continue
            seen.add(objective)
            if objective not in holder or place(holder[objective], seen):
                holder[objective] = slot
                return True
        return False

    return sum(place(i, set()) for i in range(len(slots)))


_PLANS: dict[tuple, tuple[object, tuple, Plan]] = {}
_PLANS_SIZE = 8
_PLANS_LOCK = threading.Lock()  # the exam server draws attempts in worker threads


def plan_for(blueprint, banks: dict) -> Plan:
    """The plan of ``blueprint`` over ``banks``, built once per pair (the cache holds both, so
    their ids stay theirs)."""
    held = tuple(banks.values())
    key = (id(blueprint), tuple(sorted(id(b) for b in held)))
    with _PLANS_LOCK:
        entry = _PLANS.get(key)
    if entry is None:
        entry = (blueprint, held, Plan(blueprint, banks))
        with _PLANS_LOCK:
            while len(_PLANS) >= _PLANS_SIZE:
                _PLANS.pop(next(iter(_PLANS)))
            entry = _PLANS.setdefault(key, entry)
    return entry[2]


def select(plan: Plan, rng: random.Random) -> list[list] | None:
    """The questions each zone of an attempt takes (lists in zone order, in the order picked):
    up to MAX_TRIES greedy passes with ``rng``, then the plan's fallback; None when nothing
    meets the rules (a blueprint not fitted to these banks)."""
    for _ in range(MAX_TRIES):
        picks = plan.greedy(rng)
        if picks is not None:
            break
    else:
        picks = plan.fallback()
        if picks is None:
            return None
    return [[c.question for c in zone_picks] for zone_picks in picks]
