"""The exam blueprint (``quizzes/exam/blueprint.yml``) and the per-attempt draw of questions.

A blueprint lists zones, one per chapter, each saying how many questions to draw from that
chapter's bank (``quizzes/CHAPTER.yml``); an attempt's positions are numbered zone by zone, so
position ``j`` holds a question of the same chapter in every attempt (the item statistics,
``nccl_course.exam.item_stats``, rely on it). Zones whose bank does not exist are skipped and
reported in ``Blueprint.problems`` (the server logs them at start and shows them on
``/exam/api/exam``); a zone asking for more questions than its bank holds draws them all.

Optional ``rules`` say what every attempt holds as a whole: at least ``fresh`` parameterised
questions drawn fresh (zones' ``fresh`` included), at least ``min_objectives`` distinct learning
objectives (``quizzes/_objectives.yml``), never two questions of one ``skill``
(``unique_skills``), at most floor(``max_numeric_share`` x questions) numeric ones; ``parts``
name the book's parts by chapter-file patterns (``fnmatch``, like ``_toc.yml``'s globs), each
with the distinct objectives an attempt holds at least (``min_objectives``).

``fit_to_banks`` reads the objectives file beside the banks, maps every objective to its part,
and refuses (``BlueprintError``) a blueprint whose zones' banks cannot meet the rules, saying
what is missing. Which questions each zone takes is ``nccl_course.exam.selection``'s: a random
greedy pass that keeps every rule reachable, bounded retries, and a fallback selection found
when the blueprint is fitted, so every attempt meets every rule.

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
from dataclasses import dataclass, field
from pathlib import Path

from nccl_course import yaml_text
from nccl_course.exam.selection import plan_for, select
from nccl_course.quiz.objectives import folder_objectives
from nccl_course.quiz.printed import WITNESS_SCAN, PrintedVariants, printed_variants

# Redraws of an instance that coincides with a printed variant, before the question's witness
# seed. The densest bank question (8 possible draws, 5 printed) coincides ~2 times in 3, so 64
# redraws all fail about once in 10^12 attempts, and the witness covers even that.
MAX_REDRAWS = 64

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
    objective_parts: dict[str, str] = field(default_factory=dict)  # id -> part (fit_to_banks)

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
        data = yaml_text.safe_load(raw_text)
    except yaml_text.YAMLError as exc:
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
        plan = plan_for(fitted, banks)
        if plan.fallback() is None:
            raise BlueprintError(plan.shortfall())
    if zones and fitted.lookup_ceiling >= fitted.pass_score:
        # Reported like a missing bank (logged at start, shown on /exam/api/exam), not fatal:
        # a course may run a practice exam on purpose. The repository's exam is tested to pass.
        fitted.problems.append(
            f"the exam can be passed by looking answers up in the practice pages: without "
            f"computing anything a learner reaches {fitted.lookup_ceiling:.0%} >= the pass mark "
            f"{fitted.pass_score:.0%}; raise rules.fresh or the zones' 'fresh' counts"
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


def draw_questions(blueprint: Blueprint, banks: dict, attempt_seed: int) -> list[DrawnQuestion]:
    """The questions of one attempt: zones in blueprint order, each zone's picks
    (``nccl_course.exam.selection``: the zone's ``fresh`` among the parameterised questions with
    unprinted draws, and the rules) in random order, each instantiated with its own derived
    seed, redrawn while it coincides with a variant the practice pages print
    (``fresh_instance``). Raises RuntimeError if the look-up share of the draw exceeds the
    blueprint's look-up ceiling (the construction rules it out; the check keeps the guarantee
    from drifting)."""
    rng = random.Random(attempt_seed)
    printed = printed_variants(banks)
    drawn: list[DrawnQuestion] = []
    plan = plan_for(blueprint, banks)
    selection = select(plan, rng)
    if selection is None:
        raise BlueprintError(plan.shortfall())
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
