"""Single-choice questions whose choices a generator computes: the *choose* kind.

A bank question of type ``single`` with a ``generator`` (and no ``choices``) asks the learner to
choose, for a situation the generator draws, what a model of the course says is best: a
parallel layout, an algorithm. The generator returns a :class:`ChoiceDraw`: the parameters that
fill the prompt, and the options, each with its own parameters (its modelled time, its memory),
exactly one of them correct. The options' texts and feedback are fixed English templates with
``{{name}}`` placeholders, so a catalog translates each once and the numbers are written as the
question's language writes them.

:class:`GeneratedChoiceQuestion` is the question class the bank parser makes for them; it is a
:class:`~nccl_course.quiz.model.Question` in every other respect (its key, grading, rendering and
the exam's fresh draws are those of a single-choice question).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from nccl_course.quiz import generators as _generators
from nccl_course.quiz.model import Choice, Question, QuestionInstance, fill_placeholders


@dataclass(frozen=True)
class Option:
    """One choice as a generator draws it: ``text`` and ``feedback`` are templates filled with
    the draw's parameters and this option's own ``params``."""

    text: str
    correct: bool
    feedback: str
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ChoiceDraw:
    """A choose question's draw: ``params`` fill the prompt; ``options`` in the generator's
    order (the question shuffles them), exactly one correct."""

    params: dict
    options: tuple[Option, ...]

    def __post_init__(self):
        correct = sum(o.correct for o in self.options)
        if correct != 1:
            raise ValueError(f"a choose draw has exactly one correct option, this one {correct}")

    def texts(self) -> list[str]:
        """What a learner reads as language: the options' templates, and parameters that are
        phrases (with a space)."""
        found = [t for o in self.options for t in (o.text, o.feedback)]
        values = [*self.params.values(), *(v for o in self.options for v in o.params.values())]
        found += [v for v in values if isinstance(v, str) and " " in v.strip()]
        return list(dict.fromkeys(found))


class GeneratedChoiceQuestion(Question):
    """A single-choice question whose choices its generator draws (see the module docstring)."""

    def draw(self, seed: int):
        """(rng after the draw, the generator's :class:`ChoiceDraw`) for ``seed``."""
        rng = self.rng(seed)
        drawn = _generators.resolve(self.generator)(rng, **self.options)
        if not isinstance(drawn, ChoiceDraw):
            raise TypeError(
                f"generator {self.generator!r} draws a {type(drawn).__name__}; a single-choice "
                "question needs one that draws its options (nccl_course.quiz.choose.ChoiceDraw): "
                "use type numeric for a generator of numbers"
            )
        return rng, drawn

    def instantiate(self, seed: int = 0) -> QuestionInstance:
        rng, drawn = self.draw(seed)

        def tr(value):
            return self.generated_text.get(value, value) if isinstance(value, str) else value

        params = {k: tr(v) for k, v in drawn.params.items()}

        def fill(text: str, values: dict = params) -> str:
            if not text or "{{" not in text:
                return text
            return _filled(text, tuple(values.items()), self.language)

        inst = self.new_instance(seed, params, fill)
        order = list(range(len(drawn.options)))
        rng.shuffle(order)
        for i in order:
            option = drawn.options[i]
            own = {**params, **{k: tr(v) for k, v in option.params.items()}}
            inst.choices.append(
                Choice(fill(tr(option.text), own), option.correct, fill(tr(option.feedback), own))
            )
        return inst


@functools.lru_cache(maxsize=16384)
def _filled(text: str, values: tuple, language: str) -> str:
    # A choose question's situations and options are few (the generators draw from short
    # lists), and the exam redraws such a question while it coincides with a printed one: the
    # same option texts and feedback are filled again and again with the same numbers.
    return fill_placeholders(text, dict(values), language)


def misplaced_keys(raw: dict) -> list[str]:
    """What a bank's choose question (``raw``, as YAML read it) holds that only written choices
    take."""
    errors = []
    if "choices" in raw:
        errors.append("give either 'choices' or a 'generator' that draws them, not both")
    if "shuffle" in raw:
        errors.append("a generator's choices are always shuffled: remove 'shuffle'")
    return errors


def drawn_choice_errors(inst: QuestionInstance) -> list[str]:
    """What is wrong with the choices a generator drew, by the rules of written choices."""
    errors = []
    if not 2 <= len(inst.choices) <= 8:
        errors.append(f"the generator drew {len(inst.choices)} choices, not 2 to 8")
    if sum(c.correct for c in inst.choices) != 1:
        errors.append("the generator's choices do not hold exactly one correct one")
    texts = [c.text for c in inst.choices]
    if len(set(texts)) != len(texts):
        errors.append("the generator drew two choices with the same text")
    return errors


__all__ = [
    "ChoiceDraw",
    "GeneratedChoiceQuestion",
    "Option",
    "drawn_choice_errors",
    "misplaced_keys",
]
