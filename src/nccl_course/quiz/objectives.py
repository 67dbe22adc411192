"""The course's learning objectives as data, and the questions that test them.

Every chapter's "Learning objectives" list is copied, item by item, into ``quizzes/_objectives.yml``
where each objective gets a stable id, ``CHAPTER/SLUG`` (``all-reduce/define-and-draw``), and,
where several objectives or questions exercise the same computation, a ``skill``
(``busbw-conversion``). Every question of a bank names the objective it tests (``objective:``)
and may name a skill (``skill:``); ``nccl_course.quiz.parsing`` checks both against this file.
The file starts with ``_`` so that bank discovery (``nccl_course.quiz.banks``) never takes it
for a bank. The format is specified in quizzes/README.md.

The chapters stay the source of an objective's wording: ``chapter_objectives`` reads the list
out of a chapter's markdown, and the tests compare it with this file after ``normalize_text``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from nccl_course import yaml_text
from nccl_course.quiz.model import ID_RE, BankError

OBJECTIVES_FILE = "_objectives.yml"
#: ``CHAPTER/SLUG``: both parts like a question id (lower case, digits and ``-``).
OBJECTIVE_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*$")
# The admonition that opens every chapter's list (MyST colon fence).
_ADMONITION_RE = re.compile(r"^:::\{admonition\}\s+Learning objectives\s*$")
_TOP_KEYS = {"skills", "chapters"}
_OBJECTIVE_KEYS = {"id", "text", "skill", "questions_pending"}


@dataclass(frozen=True)
class Objective:
    """One learning objective of one chapter."""

    id: str
    chapter: str  # the chapter's markdown file, relative to the repository root
    text: str  # as the chapter words it (markdown), without the list's trailing ';' or '.'
    skill: str | None = None
    # True while no question tests it yet: the coverage test counts and prints these.
    questions_pending: bool = False

    @property
    def chapter_slug(self) -> str:
        return self.id.split("/", 1)[0]


@dataclass(frozen=True)
class Objectives:
    """Every objective by id (in chapter order), and the skills by name with their meaning."""

    objectives: dict[str, Objective]
    skills: dict[str, str]
    path: Path | None = None

    def __contains__(self, objective_id: object) -> bool:
        return objective_id in self.objectives

    def __getitem__(self, objective_id: str) -> Objective:
        return self.objectives[objective_id]

    def __len__(self) -> int:
        return len(self.objectives)

    def by_chapter(self) -> dict[str, list[Objective]]:
        """The objectives of each chapter file, in the chapter's order."""
        chapters: dict[str, list[Objective]] = {}
        for objective in self.objectives.values():
            chapters.setdefault(objective.chapter, []).append(objective)
        return chapters

    def pending(self) -> list[Objective]:
        return [o for o in self.objectives.values() if o.questions_pending]


def objectives_path(bank_dir) -> Path:
    """Where the objectives of the banks in ``bank_dir`` are: ``bank_dir/_objectives.yml``."""
    return Path(bank_dir) / OBJECTIVES_FILE


def folder_objectives(bank_dir) -> tuple[Objectives | None, list[str]]:
    """The objectives of the banks in ``bank_dir`` (None where the folder has no objectives
    file: its banks' questions then name none), and the problems of that file."""
    path = objectives_path(bank_dir)
    if not path.is_file():
        return None, []
    return parse_objectives(path)


def parse_objectives(path) -> tuple[Objectives | None, list[str]]:
    """Read and check an objectives file; returns (objectives or None, every problem found).
    Each problem names the file and, where it applies, the chapter and the objective id."""
    path = Path(path)
    where = str(path)
    try:
        raw = yaml_text.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, [f"{where}: file not found"]
    except yaml.YAMLError as exc:
        return None, [f"{where}: not valid YAML: {exc}"]
    if not isinstance(raw, dict):
        return None, [f"{where}: the top level must be a mapping with 'skills' and 'chapters'"]
    errors: list[str] = []
    unknown = set(raw) - _TOP_KEYS
    if unknown:
        errors.append(f"{where}: unknown top-level keys {sorted(unknown)}")
    skills = raw.get("skills") or {}
    if not isinstance(skills, dict) or not all(
        isinstance(k, str) and ID_RE.match(k) and isinstance(v, str) and v.strip()
        for k, v in skills.items()
    ):
        errors.append(
            f"{where}: 'skills' must map each skill (lower case, digits and '-') to a sentence "
            "saying what it is"
        )
        skills = {}
    chapters = raw.get("chapters")
    if not isinstance(chapters, dict) or not chapters:
        errors.append(f"{where}: 'chapters' must map each chapter file to its objectives")
        chapters = {}
    objectives: dict[str, Objective] = {}
    for chapter, entries in chapters.items():
        at = f"{where}: chapter {chapter!r}"
        if not isinstance(entries, list) or not entries:
            errors.append(f"{at}: must list the chapter's objectives, in the chapter's order")
            continue
        slugs = set()
        for index, entry in enumerate(entries):
            objective = _parse_objective(
                entry, str(chapter), skills, f"{at}, objective #{index + 1}", errors
            )
            if objective is None:
                continue
            if objective.id in objectives:
                errors.append(f"{at}: objective {objective.id!r} is listed twice")
                continue
            slugs.add(objective.chapter_slug)
            objectives[objective.id] = objective
        if len(slugs) > 1:
            errors.append(
                f"{at}: its objectives' ids start with different chapters {sorted(slugs)}"
            )
    owners: dict[str, str] = {}
    for objective in objectives.values():
        owner = owners.setdefault(objective.chapter_slug, objective.chapter)
        if owner != objective.chapter:
            errors.append(
                f"{where}: the id prefix {objective.chapter_slug!r} is used by two chapters, "
                f"{owner} and {objective.chapter}"
            )
    return Objectives(objectives=objectives, skills=dict(skills), path=path), errors


def _parse_objective(entry, chapter: str, skills: dict, at: str, errors: list[str]):
    if not isinstance(entry, dict):
        errors.append(f"{at}: must be a mapping with 'id' and 'text'")
        return None
    unknown = set(entry) - _OBJECTIVE_KEYS
    if unknown:
        errors.append(f"{at}: unknown keys {sorted(unknown)}")
    oid = entry.get("id")
    if not isinstance(oid, str) or not OBJECTIVE_ID_RE.match(oid):
        errors.append(f"{at}: 'id' must be CHAPTER/SLUG in lower case, digits and '-'; got {oid!r}")
        return None
    text = entry.get("text")
    if not isinstance(text, str) or not text.strip():
        errors.append(f"{at} ({oid}): 'text' must be the objective as the chapter words it")
        return None
    skill = entry.get("skill")
    if skill is not None and skill not in skills:
        errors.append(f"{at} ({oid}): skill {skill!r} is not one of the file's 'skills'")
        skill = None
    pending = entry.get("questions_pending", False)
    if not isinstance(pending, bool):
        errors.append(f"{at} ({oid}): 'questions_pending' must be true or false")
        pending = False
    return Objective(oid, chapter, " ".join(text.split()), skill, pending)


def load_objectives(path) -> Objectives:
    """Load and check an objectives file; raises BankError listing every problem."""
    objectives, errors = parse_objectives(path)
    if errors or objectives is None:
        raise BankError(errors)
    return objectives


def chapter_objectives(markdown: str) -> list[str]:
    """The items of a chapter's "Learning objectives" admonition, each on one line (a list
    item's continuation lines joined with single spaces); [] when the chapter has none."""
    items: list[str] = []
    inside = False
    for line in markdown.splitlines():
        if not inside:
            inside = bool(_ADMONITION_RE.match(line.strip()))
            continue
        stripped = line.strip()
        if stripped.startswith(":::"):
            break
        if stripped.startswith("- "):
            items.append(stripped[2:].strip())
        elif stripped and items and line[:1].isspace():
            items[-1] += " " + stripped
    return items


def normalize_text(text: str) -> str:
    """An objective's wording for comparison: markdown emphasis and code marks removed, runs
    of whitespace as one space, the list's trailing punctuation dropped."""
    text = text.replace("`", "").replace("*", "")
    return " ".join(text.split()).rstrip(" ;.,")


def questions_by_objective(objectives: Objectives, banks: dict) -> dict[str, list[str]]:
    """For every objective id, the uids (``CHAPTER/id``) of the questions that name it, in bank
    order; an objective that no question names maps to []."""
    found: dict[str, list[str]] = {oid: [] for oid in objectives.objectives}
    for bank in banks.values():
        for q in bank.questions:
            if q.objective in found:
                found[q.objective].append(q.uid)
    return found
