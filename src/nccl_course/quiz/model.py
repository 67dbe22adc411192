"""The question data model: a bank's questions as written, and a question drawn for one seed.

``Question`` is one question of a bank (``Choice`` and ``Mistake`` are its parts), ``Bank`` a
chapter's questions in order, and ``QuestionInstance`` what ``Question.instantiate(seed)`` draws:
the parameters, the order things are shown in, and the learner's view (``public``). Reading a
bank from YAML is ``nccl_course.quiz.parsing``; finding the banks in quizzes/ is
``nccl_course.quiz.banks``; the answer key of an instance is ``nccl_course.quiz.keys``. The
format is specified in quizzes/README.md.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from nccl_course.i18n.catalog_numbers import spans
from nccl_course.i18n.numbers import format_number, localize_decimals
from nccl_course.quiz import generators as _generators
from nccl_course.quiz.exhibits import Exhibit
from nccl_course.quiz.units import (  # noqa: F401 (DEFAULT_DISPLAY_SIG_FIGS: public here too)
    DEFAULT_DISPLAY_SIG_FIGS,
    family_units,
    tolerance,
)

TYPES = ("single", "multiple", "numeric", "ordering", "matching", "text")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class BankError(ValueError):
    """A bank that does not follow quizzes/README.md; ``errors`` lists every problem found."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        super().__init__("\n".join(self.errors))


@dataclass(frozen=True)
class Choice:
    text: str
    correct: bool
    feedback: str


@dataclass(frozen=True)
class Mistake:
    answer: object
    feedback: str


@dataclass(frozen=True)
class Question:
    """One question as written in its bank. ``instantiate(seed)`` gives what a learner sees."""

    chapter: str
    id: str
    type: str
    prompt: str
    difficulty: int
    tags: tuple[str, ...]
    explanation: str = ""
    choices: tuple[Choice, ...] = ()
    shuffle: bool = True
    answer: float | None = None
    unit: str = ""
    rel: float = 0.0
    abs: float = 0.0
    sig_figs: int | None = None
    items: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    distractors: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    mistakes: tuple[Mistake, ...] = ()
    feedback_correct: str = ""
    feedback_incorrect: str = ""
    generator: str | None = None
    options: dict = field(default_factory=dict, hash=False, compare=False)
    # The learning objective the question tests (``CHAPTER/SLUG``), and the skill it shares
    # with other questions (``busbw-conversion``), both from quizzes/_objectives.yml; None
    # for banks in a folder without that file.
    objective: str | None = None
    skill: str | None = None
    # The language the text is in, and the translations of what a generator writes (its
    # mistakes' feedback, its descriptive parameters), English -> that language. Set by
    # nccl_course.quiz.translation.translate_bank; the answer and the draw never change.
    language: str = "en"
    generated_text: dict = field(default_factory=dict, hash=False, compare=False)
    # The log, program or trace the question is about (nccl_course.quiz.exhibits); None for
    # most questions.
    exhibit: Exhibit | None = None

    @property
    def uid(self) -> str:
        """``CHAPTER/id``: unique across all banks."""
        return f"{self.chapter}/{self.id}"

    @property
    def parameterized(self) -> bool:
        return self.generator is not None

    def rng(self, seed: int) -> random.Random:
        # A str seed is hashed with SHA-512 by random.Random: the same on every machine and run.
        return random.Random(f"{self.uid}#{int(seed)}")

    def new_instance(self, seed: int, params: dict, fill) -> QuestionInstance:
        """An instance for ``seed`` with ``params``, its prompt, explanation and feedback filled
        by ``fill`` (text -> text); the kind's own parts are added by the caller."""
        return QuestionInstance(
            question=self,
            seed=int(seed),
            params=params,
            prompt=fill(self.prompt),
            explanation=fill(self.explanation),
            feedback_correct=fill(self.feedback_correct),
            feedback_incorrect=fill(self.feedback_incorrect),
        )

    def instantiate(self, seed: int = 0) -> QuestionInstance:
        """Draw this question for ``seed``: parameters, answer, and the order things are shown."""
        rng = self.rng(seed)
        params: dict = {}
        answer = self.answer
        mistakes = [(m.answer, m.feedback) for m in self.mistakes]
        if self.generator is not None:
            draw = _generators.resolve(self.generator)(rng, **self.options)
            params = {
                k: self.generated_text.get(v, v) if isinstance(v, str) else v
                for k, v in draw.params.items()
            }
            answer = float(draw.answer)
            # A drawn mistake that lands inside the tolerance would be graded right anyway.
            tol = tolerance(answer, self.rel, self.abs, self.sig_figs)
            drawn: list[tuple[float, str]] = []
            for v, t in draw.mistakes:
                v = float(v)
                # keep the first of two mistakes that coincide for this draw
                clear = all(abs(v - w) > max(self.rel * abs(w), self.abs) for w, _ in drawn)
                if abs(v - answer) > tol and clear:
                    drawn.append((v, self.generated_text.get(t, t)))
            mistakes = drawn + mistakes

        def fill(text: str) -> str:
            return fill_placeholders(text, params, self.language)

        inst = self.new_instance(seed, params, fill)
        if self.type in ("single", "multiple"):
            order = list(range(len(self.choices)))
            if self.shuffle:
                rng.shuffle(order)
            inst.choices = [
                Choice(
                    fill(self.choices[i].text),
                    self.choices[i].correct,
                    fill(self.choices[i].feedback),
                )
                for i in order
            ]
        elif self.type == "numeric":
            inst.answer = answer
            inst.mistakes = [(float(v), fill(text)) for v, text in mistakes]
        elif self.type == "ordering":
            order = list(range(len(self.items)))
            _shuffle_not_identity(rng, order)
            inst.items = [fill(self.items[i]) for i in order]
            # position in the public list of the item that belongs at place 0, 1, ...
            inst.order = [order.index(i) for i in range(len(self.items))]
        elif self.type == "matching":
            rights = [r for _, r in self.pairs] + list(self.distractors)
            order = list(range(len(rights)))
            rng.shuffle(order)
            inst.left = [fill(left) for left, _ in self.pairs]
            inst.right = [fill(rights[i]) for i in order]
            inst.match = [order.index(i) for i in range(len(self.pairs))]
        elif self.type == "text":
            inst.answers = [fill(a) for a in self.answers]
            inst.mistakes = [(fill(str(v)), fill(text)) for v, text in mistakes]
        return inst


def _shuffle_not_identity(rng: random.Random, order: list[int]) -> None:
    """Shuffle so that the items are never shown already in the right order."""
    for _ in range(20):
        rng.shuffle(order)
        if order != sorted(order):
            return
    order.reverse()


def fill_placeholders(text: str, params: dict, language: str = "en") -> str:
    """Replace ``{{name}}`` with ``params[name]``: a number as ``language`` writes it
    (``nccl_course.i18n.numbers.format_number``: 1,5 and 26.214.400 in Turkish, ``1{,}5`` in
    math, six significant figures for a float), but as Python writes it inside code, which a
    learner may run. Unknown names raise KeyError."""
    if not text or "{{" not in text:  # most texts have no placeholder: skip reading its pieces
        return text

    def filler(where: str):
        def value(match: re.Match) -> str:
            v = params[match.group(1)]
            if where == "keep":
                return f"{v:g}" if isinstance(v, float) else str(v)
            if isinstance(v, bool) or not isinstance(v, int | float):
                # A value drawn as text ("1.75", "64 MiB"): its numbers as English writes them.
                return localize_decimals(str(v), language, math=where == "math")
            sig = 6 if isinstance(v, float) else None
            return format_number(v, language, sig_figs=sig, math=where == "math")

        return value

    return "".join(
        PLACEHOLDER_RE.sub(filler(kind), text[start:end]) for start, end, kind in _pieces(text)
    )


@functools.lru_cache(maxsize=8192)
def _pieces(text: str) -> tuple:
    # A bank's texts are few and filled again for every draw (each attempt's start): their
    # pieces are read once.
    return tuple(spans(text))


@dataclass
class QuestionInstance:
    """A question drawn for one seed: what the learner sees (``public``) and the key (``key``)."""

    question: Question
    seed: int
    params: dict
    prompt: str
    explanation: str
    feedback_correct: str
    feedback_incorrect: str
    choices: list[Choice] = field(default_factory=list)
    answer: float | None = None
    mistakes: list[tuple] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    right: list[str] = field(default_factory=list)
    match: list[int] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    @property
    def type(self) -> str:
        return self.question.type

    @property
    def id(self) -> str:
        return self.question.id

    def public(self, html: bool = False) -> dict:
        """JSON-safe view for the learner: no correctness flags, no answer, and no seed (with
        the public bank, a seed rebuilds the key). ``html=True`` adds ``prompt_html`` and
        ``*_html`` lists (markdown rendered, math left for MathJax)."""
        q = self.question
        data = {
            "id": q.id,
            "chapter": q.chapter,
            "uid": q.uid,
            "type": q.type,
            "prompt": self.prompt,
            "prompt_format": "markdown",
            "difficulty": q.difficulty,
            "tags": list(q.tags),
            "objective": q.objective,
            "skill": q.skill,
            "exhibit": q.exhibit.public() if q.exhibit is not None else None,
        }
        if q.type in ("single", "multiple"):
            data["choices"] = [c.text for c in self.choices]
        elif q.type == "numeric":
            data["unit"] = q.unit
            data["units"] = sorted(family_units(q.unit)) if q.unit else []
        elif q.type == "ordering":
            data["items"] = list(self.items)
        elif q.type == "matching":
            data["left"] = list(self.left)
            data["right"] = list(self.right)
        if html:
            from nccl_course.quiz.markup import markdown_html

            data["prompt_html"] = markdown_html(self.prompt)
            for name in ("choices", "items", "left", "right"):
                if name in data:
                    data[f"{name}_html"] = [markdown_html(t) for t in data[name]]
        return data

    # The key is built in nccl_course.quiz.keys, which reads an instance without importing this
    # module (imports go one way: model -> keys). The import is deferred so that this module,
    # the bottom of the quiz package, imports none of its siblings when loaded.
    def correct_response(self):
        """A response that scores 1, in the format of quizzes/README.md (for tests and demos)."""
        from nccl_course.quiz.keys import correct_response

        return correct_response(self.key())

    def key(self) -> dict:
        """The answer key, JSON-safe. Server-side only (the practice pages embed it, by design)."""
        from nccl_course.quiz.keys import answer_key

        return answer_key(self)


@dataclass(frozen=True)
class Bank:
    """A chapter's questions, in the order written."""

    chapter: str
    title: str
    questions: tuple[Question, ...]
    path: Path | None = None

    def question(self, qid: str) -> Question:
        for q in self.questions:
            if q.id == qid:
                return q
        raise KeyError(f"no question {qid!r} in bank {self.chapter!r}")

    def __len__(self) -> int:
        return len(self.questions)
