"""Practice quizzes and exam questions: the bank format, validation, generators and grading.

The format is specified in quizzes/README.md. Renderers: the Sphinx directive
(``nccl_course.quiz.sphinx_directive``), the notebook widget (``nccl_course.quiz.widget``) and
the terminal (``nccl-course quiz take``). They all grade through ``grade``.
"""

from nccl_course.quiz import (  # noqa: F401  (each registers its generators)
    memory_generators,
    moe_dispatch_generators,
    network_generators,
    proxy_generators,
    reliability_generators,
    training_generators,
)
from nccl_course.quiz.banks import bank_paths, load_banks
from nccl_course.quiz.generators import GENERATORS, Draw
from nccl_course.quiz.grading import Grade, grade, grade_key, normalize_text
from nccl_course.quiz.model import TYPES, Bank, BankError, Choice, Question, QuestionInstance
from nccl_course.quiz.objectives import Objective, Objectives, load_objectives
from nccl_course.quiz.parsing import load_bank, validate_bank

__all__ = [
    "GENERATORS",
    "TYPES",
    "Bank",
    "BankError",
    "Choice",
    "Draw",
    "Grade",
    "Objective",
    "Objectives",
    "Question",
    "QuestionInstance",
    "bank_paths",
    "grade",
    "grade_key",
    "load_bank",
    "load_banks",
    "load_objectives",
    "normalize_text",
    "validate_bank",
]
