"""What the practice pages print: the variants of each question shown with their answer keys, and
whether a drawn instance coincides with one of them (so its answer can be looked up).

The ``{quiz}`` and ``{quiz-all}`` directives print, for every question of every bank, the
instances drawn with ``printed_seeds(question)``: seeds ``0 .. PRINTED_VARIANTS - 1`` of a
parameterized question (a page may print fewer with ``:variants:``, never more), seed 0 of a
fixed one; each variant's key is in the page. The exam draws its fresh questions with
``PrintedVariants.coincides`` false, so the pages and the exam share one definition of what is
public. The notebook widget and the terminal draw a random seed when they run; nothing of theirs
is in the built pages.

An instance *coincides* with a printed variant when a learner who only reads the pages gets its
points: a variant of the same question with the same numbers (parameters) or the same prompt, a
variant of the same question whose answer, copied, is graded right for it (different numbers can
give the same answer), or a variant of another question with the same numbers or prompt whose
copied answer is graded right (two chapters asking the same computation).
"""

from __future__ import annotations

import functools
import threading
from collections import defaultdict
from dataclasses import dataclass

from nccl_course.quiz.grading import grade_key
from nccl_course.quiz.model import Question, QuestionInstance
from nccl_course.quiz.units import ResponseError, family_units, read_number, tolerance

PRINTED_VARIANTS = 5  # variants of a parameterized question a page prints, at most
WITNESS_SCAN = 4096  # seeds searched for an instance that is not printed, before giving up


def printed_seeds(question: Question, n_variants: int | None = None) -> list[int]:
    """The seeds of the variants of ``question`` that a practice page prints, with their keys
    (``n_variants`` of them, by default and at most PRINTED_VARIANTS)."""
    if n_variants is None:
        n_variants = PRINTED_VARIANTS
    if not 1 <= n_variants <= PRINTED_VARIANTS:
        raise ValueError(f"a page prints 1 to {PRINTED_VARIANTS} variants, not {n_variants}")
    return list(range(n_variants)) if question.parameterized else [0]


def params_fingerprint(params: dict) -> tuple:
    """The parameters as a hashable value that is equal for equal numbers (1 and 1.0 alike)."""

    def norm(v):
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, int | float):
            return float(v)
        return repr(v)

    return tuple(sorted((str(k), norm(v)) for k, v in params.items()))


def _copyable(inst: QuestionInstance):
    """What a learner copies from a printed variant: the answer, as text where indices would
    not carry over to another draw (choices and items are shuffled per seed)."""
    kind = inst.type
    if kind == "numeric":
        return (inst.answer, inst.key()["display"])
    if kind == "text":
        return tuple(inst.answers)
    if kind in ("single", "multiple"):
        return frozenset(c.text for c in inst.choices if c.correct)
    if kind == "ordering":
        return tuple(inst.items[i] for i in inst.order)
    if kind == "matching":
        return tuple((left, inst.right[m]) for left, m in zip(inst.left, inst.match, strict=True))
    return ()


def _responses(copied, inst: QuestionInstance) -> list:
    """The responses for ``inst`` that copying ``copied`` amounts to."""
    kind = inst.type
    if kind in ("numeric", "text"):
        return list(copied)
    if kind in ("single", "multiple"):
        picks = [i for i, c in enumerate(inst.choices) if c.text in copied]
        return picks if kind == "single" else ([picks] if picks else [])
    if kind == "ordering":
        if sorted(inst.items) != sorted(copied):
            return []
        return [[inst.items.index(text) for text in copied]]
    if kind == "matching":
        pairs = dict(copied)
        if not all(pairs.get(left) in inst.right for left in inst.left):
            return []
        return [[inst.right.index(pairs[left]) for left in inst.left]]
    return []


@functools.lru_cache(maxsize=65536)
def _read_copied(response, unit: str) -> float | None:
    # The copied answers are the printed variants' few: each exam draw compares ~100 of them
    # with its fresh instances, so each is read once per unit, not once per comparison.
    try:
        return read_number(response, unit, family_units(unit))
    except ResponseError:
        return None


def _numeric_scorer(inst: QuestionInstance):
    """``response -> bool``: whether ``grade_key(inst.key(), response)`` scores, without building
    the key (the same reading and tolerance as ``nccl_course.quiz.grading``)."""
    q = inst.question
    tol = tolerance(inst.answer, q.rel, q.abs, q.sig_figs)

    def scores(response) -> bool:
        value = _read_copied(response, q.unit)
        return value is not None and abs(value - inst.answer) <= tol

    return scores


@dataclass(frozen=True)
class PrintedVariant:
    uid: str
    type: str
    seed: int
    params: tuple  # params_fingerprint
    prompt: str
    copied: object


class PrintedVariants:
    """Every variant the practice pages print for ``banks`` (an iterable of Bank), indexed to
    tell whether a drawn instance coincides with one of them."""

    def __init__(self, banks):
        self.variants: list[PrintedVariant] = []
        self._by_uid: dict[str, list[PrintedVariant]] = defaultdict(list)
        self._by_params: dict[str, list[PrintedVariant]] = defaultdict(list)
        self._by_prompt: dict[str, list[PrintedVariant]] = defaultdict(list)
        # id(question) -> (question, witness seed); holding the question keeps its id its own
        self._witness: dict[int, tuple[Question, int | None]] = {}
        for bank in banks:
            for question in bank.questions:
                if not question.parameterized:
                    continue  # a fixed question is printed whole: lookup() says so
                for seed in printed_seeds(question):
                    inst = question.instantiate(seed)
                    variant = PrintedVariant(
                        uid=question.uid,
                        type=question.type,
                        seed=seed,
                        params=params_fingerprint(inst.params),
                        prompt=inst.prompt,
                        copied=_copyable(inst),
                    )
                    self.variants.append(variant)
                    self._by_uid[variant.uid].append(variant)
                    self._by_params[variant.params].append(variant)
                    self._by_prompt[variant.prompt].append(variant)

    def lookup(self, inst: QuestionInstance) -> bool:
        """Whether the pages give away the answer of ``inst``: a fixed question always (its key
        is printed), a parameterized one when it coincides with a printed variant."""
        return not inst.question.parameterized or self.coincides(inst)

    def coincides(self, inst: QuestionInstance) -> bool:
        """Whether ``inst`` coincides with a printed variant (see the module's docstring)."""
        uid = inst.question.uid
        params = params_fingerprint(inst.params)
        candidates = {
            id(v): v
            for v in (
                *self._by_uid.get(uid, ()),
                *self._by_params.get(params, ()),
                *self._by_prompt.get(inst.prompt, ()),
            )
        }
        scores = _numeric_scorer(inst) if inst.type == "numeric" else None
        key = None
        for variant in candidates.values():
            same_question = variant.uid == uid
            same_numbers = variant.params == params or variant.prompt == inst.prompt
            if same_question and same_numbers:
                return True
            if variant.type != inst.type:
                continue
            responses = _responses(variant.copied, inst)
            if scores is not None:
                if any(scores(r) for r in responses):
                    return True
                continue
            if key is None:
                key = inst.key()
            if any(grade_key(key, r).score > 0 for r in responses):
                return True
        return False

    def witness_seed(self, question: Question) -> int | None:
        """The first seed from ``PRINTED_VARIANTS`` on whose instance of ``question`` no page
        prints (None when none of WITNESS_SCAN seeds gives one: the question cannot be drawn
        fresh). The exam's last resort after its random redraws."""
        cached = self._witness.get(id(question))
        if cached is None:
            found = None
            if question.parameterized:
                for seed in range(PRINTED_VARIANTS, PRINTED_VARIANTS + WITNESS_SCAN):
                    if not self.coincides(question.instantiate(seed)):
                        found = seed
                        break
            cached = self._witness[id(question)] = (question, found)
        return cached[1]

    def can_be_fresh(self, question: Question) -> bool:
        """Parameterized, with draws that no page prints."""
        return question.parameterized and self.witness_seed(question) is not None


_CACHE: dict[tuple[int, ...], tuple[tuple, PrintedVariants]] = {}
_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()  # the exam server draws attempts in worker threads


def printed_variants(banks: dict) -> PrintedVariants:
    """``PrintedVariants`` of the banks (by chapter), built once per set of Bank objects (they
    are immutable; the cache holds them, so their ids stay theirs)."""
    held = tuple(banks.values())
    cache_key = tuple(sorted(id(b) for b in held))
    with _CACHE_LOCK:
        entry = _CACHE.get(cache_key)
        if entry is None:
            while len(_CACHE) >= _CACHE_SIZE:
                _CACHE.pop(next(iter(_CACHE)))
            entry = _CACHE[cache_key] = (held, PrintedVariants(held))
    return entry[1]
