"""Finding the banks: which files of a quizzes folder are question banks, and loading them all.

A bank is ``quizzes/CHAPTER.yml``; names starting with ``_`` are not banks (the learning
objectives, ``quizzes/_objectives.yml``, are read by ``nccl_course.quiz.objectives``), and neither
is anything in a subfolder (the exam blueprint lives in ``quizzes/exam/`` for that reason).
Reading and validating one bank is ``nccl_course.quiz.parsing``.
"""

from __future__ import annotations

from pathlib import Path

from nccl_course.quiz.model import Bank, BankError
from nccl_course.quiz.objectives import folder_objectives
from nccl_course.quiz.parsing import parse_bank

BANK_DIR_NAME = "quizzes"


def find_bank_dir(start=None, name=BANK_DIR_NAME) -> Path:
    """The folder of question banks: ``name`` in ``start`` (default: the working directory) or
    the nearest folder above it that has one holding ``*.yml`` files (a page or notebook runs
    from its own folder; ``book/quizzes`` holds pages, not banks), else the source checkout's.
    An absolute ``name`` is returned as it is."""
    name = Path(name)
    if name.is_absolute():
        return name
    start = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (start, *start.parents):
        candidate = folder / name
        if candidate.is_dir() and any(candidate.glob("*.yml")):
            return candidate
    checkout = Path(__file__).resolve().parents[3] / name  # src/nccl_course/quiz -> repo root
    if checkout.is_dir():
        return checkout
    return start / name


def bank_paths(directory="quizzes") -> list[Path]:
    """The bank files in ``directory``: ``*.yml`` except names starting with ``_``, sorted by
    chapter id (subfolders are not searched)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory} is not a folder of question banks")
    return sorted(p for p in directory.glob("*.yml") if not p.name.startswith("_"))


def load_banks(directory="quizzes") -> dict[str, Bank]:
    """Every bank in ``directory``, by chapter id. Raises BankError listing every problem in
    every bank."""
    banks: dict[str, Bank] = {}
    paths = bank_paths(directory)
    # One read of the objectives for every bank of the folder.
    objectives, errors = folder_objectives(directory)
    if errors:
        raise BankError(errors)
    for path in paths:
        bank, errs = parse_bank(path, objectives)
        errors.extend(errs)
        if bank is not None and not errs:
            banks[bank.chapter] = bank
    if errors:
        raise BankError(errors)
    return banks
