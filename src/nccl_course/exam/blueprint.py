"""The exam blueprint (``quizzes/exam/blueprint.yml``) and the per-attempt draw of questions.

A blueprint lists zones, one per chapter, each saying how many questions to draw from that
chapter's bank (``quizzes/CHAPTER.yml``); an attempt's positions are numbered zone by zone, so
position ``j`` holds a question of the same chapter in every attempt (the item statistics,
``nccl_course.exam.item_stats``, rely on it). Zones whose bank does not exist are skipped and
reported in ``Blueprint.problems`` (the server logs them at start and shows them on
``/exam/api/exam``); a zone asking for more questions than its bank holds draws them all.

Optional ``rules`` say what the attempt as a whole must hold, whichever questions the zones
pick, and ``parts`` map the book's parts to chapter files:

- ``fresh``: at least this many parameterised questions drawn fresh (the zones' ``fresh``
  counts included);
- ``min_objectives``: at least this many distinct learning objectives (each question's
  ``objective``, ``quizzes/_objectives.yml``);
- ``unique_skills``: never two questions that name the same ``skill``;
- ``max_numeric_share``: at most floor(share x questions) numeric questions;
- each part's ``min_objectives``: at least this many distinct objectives whose chapter file
  matches one of the part's ``chapters`` patterns (``fnmatch``, like the globs of ``_toc.yml``).

``fit_to_banks`` reads the objectives file beside the banks, maps every objective to its part,
and refuses (``BlueprintError``) a blueprint whose zones' banks cannot meet the rules, saying
what is missing: too few parameterised questions with distinct skills, objectives a part's
zones never reach, numeric questions the zones cannot avoid, or no draw found that meets all
rules together. The draw is a random greedy pass over the zones' slots that picks, slot by slot,
a question that keeps every rule reachable (fresh picks first while the attempt still needs
them, then objectives of parts short of their minimum, new objectives before repeated ones);
a pass that gets stuck starts over with the same random stream, up to MAX_TRIES passes, and
then the attempt takes the selection ``fit_to_banks`` found (``Plan.fallback``): every attempt
meets every rule.

The draw is a pure function of the attempt's seed: the same seed gives the same questions, in
the same order, with the same parameters. Each question instance gets its own seed derived
from the attempt seed and its position, so parameterised questions get fresh numbers in every
attempt while the server can always rebuild exactly what a learner saw.

The practice pages show every bank's fixed questions with their answers (practice grades in the
browser), and a few variants of each parameterised question with theirs
(``nccl_course.quiz.printed``: the seeds the pages print). A zone's ``fresh: N`` makes N of its
draws parameterised questions, ``rules.fresh`` the attempt's, and every parameterised question
of an attempt is drawn *fresh*: an instance that coincides with a printed variant (same numbers,
same prompt, or an answer that copied from one is graded right) is redrawn with the next derived
seed, up to MAX_REDRAWS times, then from the question's first unprinted seed
(``PrintedVariants.witness_seed``); a question with no unprinted draw is never a fresh pick. So
in every attempt the look-up score (one point per question whose answer the pages give away) is
at most the blueprint's *look-up ceiling*, (questions - fresh) / questions: ``draw_questions``
checks it for each draw, and ``fit_to_banks`` reports a blueprint whose ceiling reaches the
pass mark.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import math
import random
import threading
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from nccl_course.quiz.objectives import folder_objectives
from nccl_course.quiz.printed import WITNESS_SCAN, PrintedVariants, printed_variants

# Redraws of an instance that coincides with a printed variant, before the question's witness
# seed. The densest bank question (8 possible draws, 5 printed) coincides ~2 times in 3, so 64
# redraws all fail about once in 10^12 attempts, and the witness covers even that.
MAX_REDRAWS = 64
# Greedy passes one attempt's draw makes before it takes the plan's fallback selection. On the
# course's blueprint about one pass in N gets stuck (tests/exam/test_blueprint_simulation.py
# prints the share), so 40 passes all get stuck practically never; each costs ~0.1 ms.
MAX_TRIES = 40
# Passes ``fit_to_banks`` makes (from a fixed seed) looking for one selection that meets every
# rule: the fallback of every draw, and the proof that the banks can satisfy the blueprint.
FIT_TRIES = 3000

_TOP_KEYS = {"exam", "zones", "rules", "parts"}
_RULE_KEYS = {"fresh", "min_objectives", "unique_skills", "max_numeric_share"}
_PART_KEYS = {"part", "chapters", "min_objectives"}


class BlueprintError(ValueError):
    """The blueprint file is missing or malformed, or the banks cannot satisfy it (the message
    says what to fix)."""


@dataclass(frozen=True)
class Zone:
    chapter: str
    draw: int
    title: str = ""
    fresh: int = 0  # how many of the draws must be parameterised (fresh numbers per attempt)


@dataclass(frozen=True)
class Rules:
    """What every attempt must hold as a whole (the module docstring); the defaults hold no
    rule, so a blueprint without ``rules`` draws zone by zone as it says."""

    fresh: int = 0  # parameterised questions drawn fresh, per attempt, zones' ``fresh`` included
    min_objectives: int = 0  # distinct learning objectives per attempt
    unique_skills: bool = False  # never two questions naming the same skill
    max_numeric_share: float = 1.0  # numeric questions / questions, at most


@dataclass(frozen=True)
class Part:
    """A part of the book: the chapter files its ``chapters`` patterns match (``fnmatch``,
    paths relative to the repository root, as in ``quizzes/_objectives.yml``)."""

    name: str
    chapters: tuple[str, ...]
    min_objectives: int = 0  # distinct objectives of this part per attempt

    def matches(self, chapter_file: str) -> bool:
        return any(fnmatch.fnmatchcase(chapter_file, p) for p in self.chapters)


@dataclass
class Blueprint:
    exam_id: str
    title: str
    time_limit_s: int
    max_attempts: int
    pass_score: float
    zones: list[Zone]
    achievement: dict = field(default_factory=dict)
    digest: str = ""
    problems: list[str] = field(default_factory=list)
    rules: Rules = field(default_factory=Rules)
    parts: list[Part] = field(default_factory=list)
    # objective id -> the name of its part; filled by fit_to_banks from the objectives file
    objective_parts: dict[str, str] = field(default_factory=dict)

    @property
    def question_count(self) -> int:
        return sum(z.draw for z in self.zones)

    @property
    def fresh_count(self) -> int:
        """Parameterised questions every attempt draws fresh: the zones' and the rules'."""
        return max(self.rules.fresh, sum(z.fresh for z in self.zones))

    @property
    def numeric_cap(self) -> int:
        """The most numeric questions an attempt may hold: floor(share x questions)."""
        return math.floor(self.rules.max_numeric_share * self.question_count + 1e-9)

    @property
    def lookup_ceiling(self) -> float:
        """The highest score reachable by looking answers up in the practice pages, in any draw:
        every question counts except the guaranteed fresh ones, which never coincide with a
        printed variant (``draw_questions`` checks each draw against it)."""
        total = self.question_count
        return (total - min(self.fresh_count, total)) / total if total else 0.0

    @property
    def has_rules(self) -> bool:
        """Whether anything beyond the zones' own counts constrains the draw."""
        r = self.rules
        return bool(
            r.fresh > sum(z.fresh for z in self.zones)
            or r.min_objectives
            or r.unique_skills
            or r.max_numeric_share < 1.0
            or any(p.min_objectives for p in self.parts)
        )


@dataclass(frozen=True)
class DrawnQuestion:
    position: int
    chapter: str
    question_id: str
    instance_seed: int
    instance: object  # nccl_course.quiz QuestionInstance
    # True when the practice pages give its answer away: a fixed question, or a parameterised
    # one none of whose draws is unprinted (never one of a zone's fresh picks).
    lookup: bool = False
    objective: str | None = None  # the learning objective the question names


def load_blueprint(path: Path) -> Blueprint:
    """Parse and check the blueprint file; raises BlueprintError with a one-line reason."""
    path = Path(path)
    if not path.exists():
        raise BlueprintError(f"no exam blueprint at {path}; create quizzes/exam/blueprint.yml")
    raw_text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(raw_text)
    except yaml.YAMLError as exc:
        raise BlueprintError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("exam"), dict):
        raise BlueprintError(f"{path}: expected a mapping with an 'exam' section")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise BlueprintError(
            f"{path}: unknown top-level keys {unknown}; a blueprint has {sorted(_TOP_KEYS)}"
        )
    exam = data["exam"]

    def need(key, kind):
        value = exam.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise BlueprintError(f"{path}: exam.{key} must be a {kind.__name__}")
        return value

    exam_id = need("id", str)
    title = need("title", str)
    minutes = need("time_limit_minutes", (int, float))
    max_attempts = need("max_attempts", int)
    pass_score = need("pass_score", (int, float))
    if minutes <= 0:
        raise BlueprintError(f"{path}: exam.time_limit_minutes must be positive")
    if max_attempts < 1:
        raise BlueprintError(f"{path}: exam.max_attempts must be at least 1")
    if not 0 < pass_score <= 1:
        raise BlueprintError(f"{path}: exam.pass_score is a fraction in (0, 1]")
    zones_raw = data.get("zones")
    if not isinstance(zones_raw, list) or not zones_raw:
        raise BlueprintError(f"{path}: 'zones' must be a non-empty list")
    zones: list[Zone] = []
    seen: set[str] = set()
    for i, z in enumerate(zones_raw):
        if not isinstance(z, dict) or not isinstance(z.get("chapter"), str):
            raise BlueprintError(f"{path}: zones[{i}] needs a 'chapter' (a bank name)")
        draw = z.get("draw")
        if not isinstance(draw, int) or isinstance(draw, bool) or draw < 1:
            raise BlueprintError(f"{path}: zones[{i}] ({z['chapter']}): 'draw' must be >= 1")
        if z["chapter"] in seen:
            raise BlueprintError(f"{path}: chapter {z['chapter']!r} appears in two zones")
        fresh = z.get("fresh", 0)
        if not isinstance(fresh, int) or isinstance(fresh, bool) or not 0 <= fresh <= draw:
            raise BlueprintError(
                f"{path}: zones[{i}] ({z['chapter']}): 'fresh' must be between 0 and 'draw'"
            )
        seen.add(z["chapter"])
        zones.append(
            Zone(chapter=z["chapter"], draw=draw, title=str(z.get("title", "")), fresh=fresh)
        )
    questions = sum(z.draw for z in zones)
    rules = _parse_rules(data.get("rules"), path, zones)
    parts = _parse_parts(data.get("parts"), path, questions)
    achievement = exam.get("achievement") or {}
    if not isinstance(achievement, dict):
        raise BlueprintError(f"{path}: exam.achievement must be a mapping")
    return Blueprint(
        exam_id=exam_id,
        title=title,
        time_limit_s=int(round(minutes * 60)),
        max_attempts=max_attempts,
        pass_score=float(pass_score),
        zones=zones,
        achievement=achievement,
        digest=hashlib.sha256(raw_text.encode("utf-8")).hexdigest(),
        rules=rules,
        parts=parts,
    )


def _count(value, where: str, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= high:
        raise BlueprintError(f"{where} must be a whole number from 0 to {high}, got {value!r}")
    return value


def _parse_rules(raw, path: Path, zones: list[Zone]) -> Rules:
    if raw is None:
        return Rules()
    if not isinstance(raw, dict):
        raise BlueprintError(f"{path}: 'rules' must be a mapping with {sorted(_RULE_KEYS)}")
    unknown = sorted(set(raw) - _RULE_KEYS)
    if unknown:
        raise BlueprintError(f"{path}: unknown rules {unknown}; the rules are {sorted(_RULE_KEYS)}")
    questions = sum(z.draw for z in zones)
    where = f"{path}: rules.%s (the exam draws {questions} questions)"
    fresh = _count(raw.get("fresh", 0), where % "fresh", questions)
    in_zones = sum(z.fresh for z in zones)
    if "fresh" in raw and fresh < in_zones:
        raise BlueprintError(
            f"{path}: rules.fresh is {fresh} but the zones' 'fresh' counts add up to {in_zones}; "
            f"rules.fresh counts the whole attempt, zones included: raise it to {in_zones} or more"
        )
    min_objectives = _count(raw.get("min_objectives", 0), where % "min_objectives", questions)
    unique = raw.get("unique_skills", False)
    if not isinstance(unique, bool):
        raise BlueprintError(f"{path}: rules.unique_skills must be true or false")
    share = raw.get("max_numeric_share", 1.0)
    if not isinstance(share, int | float) or isinstance(share, bool) or not 0 <= share <= 1:
        raise BlueprintError(f"{path}: rules.max_numeric_share is a fraction in [0, 1]")
    return Rules(fresh, min_objectives, unique, float(share))


def _parse_parts(raw, path: Path, questions: int) -> list[Part]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise BlueprintError(
            f"{path}: 'parts' must be a list of {{part, chapters, min_objectives}}"
        )
    parts: list[Part] = []
    for i, p in enumerate(raw):
        where = f"{path}: parts[{i}]"
        if not isinstance(p, dict) or not isinstance(p.get("part"), str) or not p["part"]:
            raise BlueprintError(f"{where} needs a 'part' (the part's name)")
        where = f"{where} ({p['part']})"
        unknown = sorted(set(p) - _PART_KEYS)
        if unknown:
            raise BlueprintError(
                f"{where}: unknown keys {unknown}; a part has {sorted(_PART_KEYS)}"
            )
        if any(q.name == p["part"] for q in parts):
            raise BlueprintError(f"{where}: the part is listed twice")
        chapters = p.get("chapters")
        if (
            not isinstance(chapters, list)
            or not chapters
            or not all(isinstance(c, str) and c for c in chapters)
        ):
            raise BlueprintError(
                f"{where}: 'chapters' must list the part's chapter files or patterns, "
                "e.g. [book/intro.md, book/start/*]"
            )
        low = _count(p.get("min_objectives", 0), f"{where}: 'min_objectives'", questions)
        parts.append(Part(p["part"], tuple(chapters), low))
    total = sum(p.min_objectives for p in parts)
    if total > questions:
        raise BlueprintError(
            f"{path}: the parts' min_objectives add up to {total}, more than the exam's "
            f"{questions} questions"
        )
    return parts


def fit_to_banks(blueprint: Blueprint, banks: dict) -> Blueprint:
    """Keep the zones whose chapter bank exists; record a problem line for each that does not
    (or that holds fewer questions than the zone draws, or fewer that can be drawn fresh than
    the zone's ``fresh``), and one when the look-up ceiling reaches the pass mark. Map every
    objective to its part, and raise BlueprintError, saying what is missing, when the zones'
    banks cannot meet the blueprint's rules."""
    zones: list[Zone] = []
    problems: list[str] = []
    printed = printed_variants(banks)
    for zone in blueprint.zones:
        bank = banks.get(zone.chapter)
        if bank is None:
            problems.append(
                f"zone '{zone.chapter}' skipped: no question bank quizzes/{zone.chapter}.yml"
            )
            continue
        available = len(bank.questions)
        if available == 0:
            problems.append(f"zone '{zone.chapter}' skipped: its bank has no questions")
            continue
        if available < zone.draw:
            problems.append(
                f"zone '{zone.chapter}' draws {zone.draw} but its bank holds {available}; "
                f"drawing {available}"
            )
            zone = Zone(
                chapter=zone.chapter,
                draw=available,
                title=zone.title,
                fresh=min(zone.fresh, available),
            )
        for q in bank.questions:
            if q.parameterized and not printed.can_be_fresh(q):
                problems.append(
                    f"question {q.uid}: none of its first {WITNESS_SCAN} draws differs from the "
                    f"variants the practice pages print; it is never a fresh pick (give its "
                    f"generator more values)"
                )
        parameterised = sum(1 for q in bank.questions if printed.can_be_fresh(q))
        if parameterised < zone.fresh:
            problems.append(
                f"zone '{zone.chapter}' wants {zone.fresh} fresh questions but its bank has "
                f"{parameterised} parameterised ones with unprinted draws; drawing {parameterised}"
            )
            zone = Zone(chapter=zone.chapter, draw=zone.draw, title=zone.title, fresh=parameterised)
        zones.append(zone)
    fitted = Blueprint(
        exam_id=blueprint.exam_id,
        title=blueprint.title,
        time_limit_s=blueprint.time_limit_s,
        max_attempts=blueprint.max_attempts,
        pass_score=blueprint.pass_score,
        zones=zones,
        achievement=blueprint.achievement,
        digest=blueprint.digest,
        problems=problems,
        rules=blueprint.rules,
        parts=blueprint.parts,
        objective_parts=_objective_parts(blueprint, banks, zones),
    )
    if zones and fitted.has_rules:
        _plan(fitted, banks).fallback()  # raises BlueprintError saying what the banks lack
    if zones and fitted.lookup_ceiling >= fitted.pass_score:
        # Reported like a missing bank (logged at start, shown on /exam/api/exam), not fatal:
        # a course may run a practice exam on purpose. The repository's exam is tested to pass.
        fitted.problems.append(
            f"the exam can be passed by looking answers up in the practice pages: without "
            f"computing anything a learner reaches {fitted.lookup_ceiling:.0%} >= the pass mark "
            f"{fitted.pass_score:.0%}; raise the zones' 'fresh' counts in the blueprint"
        )
    return fitted


def _objective_parts(blueprint: Blueprint, banks: dict, zones: list[Zone]) -> dict[str, str]:
    """objective id -> part name, from the objectives file beside the banks (the one their
    questions were checked against); {} for a blueprint without parts."""
    if not blueprint.parts:
        return {}
    folders = {b.path.parent for b in (banks.get(z.chapter) for z in zones) if b and b.path}
    objectives = None
    for folder in sorted(folders):
        objectives, errors = folder_objectives(folder)
        if errors:
            raise BlueprintError(f"the blueprint's parts need the objectives file: {errors[0]}")
        if objectives is not None:
            break
    if objectives is None:
        raise BlueprintError(
            "the blueprint has 'parts' but its banks have no objectives file (_objectives.yml "
            "beside them) to map their questions to the book's parts; add one, or remove 'parts'"
        )
    found: dict[str, str] = {}
    for chapter, listed in objectives.by_chapter().items():
        owners = [p.name for p in blueprint.parts if p.matches(chapter)]
        if len(owners) != 1:
            ids = ", ".join(o.id for o in listed[:3])
            where = "no part" if not owners else f"several parts ({', '.join(owners)})"
            raise BlueprintError(
                f"the chapter {chapter} (objectives {ids}...) is in {where} of the blueprint: "
                f"each chapter file must match the 'chapters' of exactly one part"
            )
        found.update((o.id, owners[0]) for o in listed)
    return found


@dataclass(
    frozen=True, eq=False
)  # compared by identity: comparing questions field by field is slow
class _Candidate:
    """A question of a zone's bank, with what the rules read of it."""

    question: object  # nccl_course.quiz Question
    skill: str | None  # None unless the rules make skills unique
    objective: str | None
    part: str | None
    numeric: bool
    fresh: bool  # parameterised with unprinted draws: drawn fresh


class _Plan:
    """The zones' candidates for one blueprint and one set of banks (built once, kept), the
    greedy pass that picks an attempt's questions, and the fallback selection."""

    def __init__(self, blueprint: Blueprint, banks: dict):
        self.blueprint = blueprint
        self.printed = printed_variants(banks)
        rules = blueprint.rules
        self.zones: list[tuple[Zone, tuple[_Candidate, ...]]] = []
        for zone in blueprint.zones:
            candidates = tuple(
                _Candidate(
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
        self._fallback: list[list[_Candidate]] | None = None
        self._lock = threading.Lock()

    def greedy(self, rng: random.Random) -> list[list[_Candidate]] | None:
        """One pass: slots in random order (a zone's compulsory fresh slots first), each taking
        a random one of the best questions that keep every rule reachable by the slots after
        it; None if a slot has none or the pass ends short of a rule."""
        compulsory = [s for s in self.slots if s[1]]
        rest = [s for s in self.slots if not s[1]]
        rng.shuffle(compulsory)
        rng.shuffle(rest)
        picks: list[list[_Candidate]] = [[] for _ in self.zones]
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
            best: list[_Candidate] = []
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

    def fallback(self) -> list[list[_Candidate]]:
        """A selection that meets every rule, found once by FIT_TRIES passes from a fixed seed;
        raises BlueprintError saying what the banks lack when there is none."""
        with self._lock:
            if self._fallback is None:
                rng = random.Random("nccl-course-exam:fallback")
                for _ in range(FIT_TRIES):
                    found = self.greedy(rng)
                    if found is not None:
                        self._fallback = found
                        break
                else:
                    raise BlueprintError(self.shortfall())
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
            reach = _max_distinct(self.zones, None)
            if reach < self.min_objectives:
                return head + (
                    f"its zones can cover at most {reach} distinct objectives but "
                    f"rules.min_objectives asks {self.min_objectives}; add zones, or questions "
                    f"on other objectives to the zones' banks"
                )
        for part, low in self.part_minimums.items():
            reach = _max_distinct(self.zones, part)
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


def _max_distinct(zones, part: str | None) -> int:
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


_PLANS: dict[tuple, tuple[Blueprint, tuple, _Plan]] = {}
_PLANS_SIZE = 8
_PLANS_LOCK = threading.Lock()  # the exam server draws attempts in worker threads


def _plan(blueprint: Blueprint, banks: dict) -> _Plan:
    """The plan of ``blueprint`` over ``banks``, built once per pair (the cache holds both, so
    their ids stay theirs)."""
    held = tuple(banks.values())
    key = (id(blueprint), tuple(sorted(id(b) for b in held)))
    with _PLANS_LOCK:
        entry = _PLANS.get(key)
    if entry is None:
        entry = (blueprint, held, _Plan(blueprint, banks))
        with _PLANS_LOCK:
            while len(_PLANS) >= _PLANS_SIZE:
                _PLANS.pop(next(iter(_PLANS)))
            entry = _PLANS.setdefault(key, entry)
    return entry[2]


def instance_seed(attempt_seed: int, position: int, redraw: int = 0) -> int:
    """A 63-bit seed for question ``position`` of an attempt (fits a signed BIGINT); ``redraw``
    numbers the seeds tried after one whose instance coincides with a printed variant."""
    tail = f":{redraw}" if redraw else ""
    digest = hashlib.sha256(f"nccl-course-exam:{attempt_seed}:{position}{tail}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def fresh_instance(question, attempt_seed: int, position: int, printed: PrintedVariants):
    """``(seed, instance, lookup)`` for question ``position`` of an attempt: the first derived
    seed whose instance coincides with no printed variant, else the question's witness seed;
    ``lookup`` is True only for a fixed question or one with no unprinted draw."""
    if not question.parameterized:
        seed = instance_seed(attempt_seed, position)
        return seed, question.instantiate(seed), True
    for redraw in range(MAX_REDRAWS):
        seed = instance_seed(attempt_seed, position, redraw)
        instance = question.instantiate(seed)
        if not printed.coincides(instance):
            return seed, instance, False
    witness = printed.witness_seed(question)
    if witness is not None:
        return witness, question.instantiate(witness), False
    seed = instance_seed(attempt_seed, position)  # every draw is printed: not a fresh question
    return seed, question.instantiate(seed), True


def lookup_share(drawn: list[DrawnQuestion]) -> float:
    """The share of an attempt's points that looking answers up in the practice pages gets."""
    return sum(d.lookup for d in drawn) / len(drawn) if drawn else 0.0


def select_questions(blueprint: Blueprint, banks: dict, rng: random.Random) -> list[list]:
    """The questions each zone of an attempt takes (lists in zone order), meeting the
    blueprint's rules: up to MAX_TRIES greedy passes with ``rng``, then the fallback selection
    (``_Plan.greedy``, ``_Plan.fallback``). Raises BlueprintError when nothing meets them (a
    blueprint not fitted to these banks)."""
    plan = _plan(blueprint, banks)
    for _ in range(MAX_TRIES):
        picks = plan.greedy(rng)
        if picks is not None:
            break
    else:
        picks = [list(p) for p in plan.fallback()]
    return [[c.question for c in zone_picks] for zone_picks in picks]


def draw_questions(blueprint: Blueprint, banks: dict, attempt_seed: int) -> list[DrawnQuestion]:
    """The questions of one attempt: zones in blueprint order, each zone's picks
    (``select_questions``: the zone's ``fresh`` among the parameterised questions with
    unprinted draws, and the rules) in random order, each instantiated with its own derived
    seed, redrawn while it coincides with a variant the practice pages print
    (``fresh_instance``). Raises RuntimeError if the look-up share of the draw exceeds the
    blueprint's look-up ceiling (the construction rules it out; the check keeps the guarantee
    from drifting)."""
    rng = random.Random(attempt_seed)
    printed = printed_variants(banks)
    drawn: list[DrawnQuestion] = []
    selection = select_questions(blueprint, banks, rng)
    for zone, picked in zip(blueprint.zones, selection, strict=True):
        rng.shuffle(picked)
        for question in picked:
            position = len(drawn)
            seed, instance, lookup = fresh_instance(question, attempt_seed, position, printed)
            drawn.append(
                DrawnQuestion(
                    position=position,
                    chapter=zone.chapter,
                    question_id=str(question.id),
                    instance_seed=seed,
                    instance=instance,
                    lookup=lookup,
                    objective=question.objective,
                )
            )
    if drawn and lookup_share(drawn) > blueprint.lookup_ceiling + 1e-12:
        raise RuntimeError(
            f"attempt {attempt_seed}: {lookup_share(drawn):.1%} of the points can be looked up, "
            f"above the blueprint's look-up ceiling {blueprint.lookup_ceiling:.1%}"
        )
    return drawn


def json_roundtrip(value):
    """What the database will give back for ``value`` (JSON columns), to store exactly that."""
    return json.loads(json.dumps(value))
