"""The question banks and the grader the server uses, from ``nccl_course.quiz``.

The banks are the ones the quiz package finds (``nccl_course.quiz.bank_paths``); the exam
blueprint lives in ``quizzes/exam/``, a subfolder that bank discovery never looks into. Each bank
is loaded on its own, so one broken bank does not take the whole exam down: the problem is
reported in ``QuizEngine.problems`` and that chapter's zone is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class QuizEngine:
    """The loaded banks (by chapter) and the grader."""

    banks: dict
    grade_key: object  # callable(key: dict, response) -> Grade
    problems: list = field(default_factory=list)

    @classmethod
    def load(cls, quizzes_dir, *, skip=()) -> QuizEngine:
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
        return cls(banks=banks, grade_key=quiz.grade_key, problems=problems)
