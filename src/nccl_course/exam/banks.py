"""The question banks and the grader the server uses, from ``nccl_course.quiz``.

The banks are the ones the quiz package finds (``nccl_course.quiz.bank_paths``); the exam
blueprint lives in ``quizzes/exam/``, a subfolder that bank discovery never looks into. Each bank
is loaded on its own, so one broken bank does not take the whole exam down: the problem is
reported in ``QuizEngine.problems`` and that chapter's zone is skipped.

An attempt is drawn in one language (``banks_for``): each bank translated by its catalog under
``locale_dir`` (``nccl_course.quiz.translation.translate_bank``: the same ids, answers and
draws; numeric keys read a decimal comma in Turkish). A bank whose catalog is missing or
incomplete is drawn in English, and ``problems_for(language)`` says so; the translated banks
are made once per language and kept.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class QuizEngine:
    """The loaded banks (by chapter) and the grader."""

    banks: dict
    grade_key: object  # callable(key: dict, response) -> Grade
    problems: list = field(default_factory=list)
    # The catalogs' folder (locales/); None: the repository's (nccl_course.i18n.interface).
    locale_dir: Path | None = None
    _translated: dict = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def load(cls, quizzes_dir, *, skip=(), locale_dir=None) -> QuizEngine:
        """Every bank in ``quizzes_dir`` but the files in ``skip`` (a blueprint given on the
        command line may sit among the banks)."""
        from nccl_course import quiz

        skip = {Path(p).resolve() for p in skip}
        banks, problems = {}, []
        directory = Path(quizzes_dir)
        try:
            paths = quiz.bank_paths(directory)
        except FileNotFoundError:
            paths = []
        if not paths:
            problems.append(f"no question banks in {directory}")
        for path in (p for p in paths if p.resolve() not in skip):
            try:
                bank = quiz.load_bank(path)
            except (quiz.BankError, OSError) as exc:
                problems.append(f"bank {path.name} skipped: {exc}")
                continue
            banks[bank.chapter] = bank
        return cls(banks=banks, grade_key=quiz.grade_key, problems=problems, locale_dir=locale_dir)

    def _translate(self, language: str) -> tuple[dict, list[str]]:
        from nccl_course.i18n.interface import LOCALE_DIR
        from nccl_course.quiz.translation import MissingTranslation, translate_bank

        locale_dir = Path(self.locale_dir or LOCALE_DIR)
        banks, problems = {}, []
        for chapter, bank in self.banks.items():
            try:
                banks[chapter] = translate_bank(bank, language, locale_dir)
            except MissingTranslation as exc:
                banks[chapter] = bank
                first = exc.problems[0] if exc.problems else None
                if first is not None and first.kind == "missing catalog":
                    why = f"there is no catalog {first.catalog}"
                else:
                    example = f", e.g. {first.describe()}" if first else ""
                    why = f"{len(exc.problems)} texts have no current translation{example}"
                problems.append(
                    f"bank {chapter} is drawn in English for {language} attempts: {why}"
                )
        return banks, problems

    def banks_for(self, language: str) -> dict:
        """The banks (by chapter) in ``language``; a bank without a complete translation stays
        in English (``problems_for`` names it). Made once per language."""
        if language == "en":
            return self.banks
        with self._lock:
            if language not in self._translated:
                self._translated[language] = self._translate(language)
            return self._translated[language][0]

    def problems_for(self, language: str) -> list[str]:
        """Why some banks are drawn in English for ``language`` (empty when none are)."""
        if language == "en":
            return []
        self.banks_for(language)
        return list(self._translated[language][1])
