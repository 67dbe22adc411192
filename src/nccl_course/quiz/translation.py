"""The quiz banks in other languages: one gettext catalog per bank, and banks translated by it.

Every text a learner reads in a bank (prompt, choices, per-choice and per-mistake feedback,
items, pairs, explanation, an exhibit's caption, the bank's title) is a message whose context is the question's id,
so that the same English in two questions may be translated apart and a missing translation is
named by file and id. What a generator writes (its mistakes' feedback, descriptive parameters
such as a machine's description) is collected by drawing the question, under the context
``ID (generated)``. Answers, tolerances, generators and an exhibit's text (a log or a program)
are never translated: a translation cannot change what is graded.

A text question's accepted answers are one message under the context ``ID (answers)``: the
English answers joined by `` | ``. Its translation lists the answers accepted in the language,
in the same way (``broadcast | yayın``); they are accepted *in addition to* the English ones, so
a translation can add the language's names of things but never take an English answer away.
The entry starts as the English (``nccl_course.i18n.catalogs.prefill``), and a catalog that
lacks it yet accepts the English only.

Templates go to ``_build/gettext/quizzes/CHAPTER.pot`` (beside the book's, so that
``sphinx-intl update`` merges both); catalogs live in ``locales/LANG/LC_MESSAGES/quizzes/``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from nccl_course.i18n.catalogs import ANSWERS_CONTEXT_SUFFIX, Problem, load, message_problems
from nccl_course.quiz import generators as _generators
from nccl_course.quiz.choose import ChoiceDraw
from nccl_course.quiz.model import Bank, Choice, Mistake, Question

#: Draws per parameterized question when collecting what its generator writes. Every
#: generator's texts are fixed sentences chosen by the draw; 64 draws find all of them (1000
#: find no more, checked when this was written; tests/i18n checks it again).
GENERATED_TEXT_SEEDS = 64
TITLE_CONTEXT = "bank title"
CATALOG_SUBDIR = "quizzes"


def _generated_context(qid: str) -> str:
    return f"{qid} (generated)"


#: Between two accepted answers in an ``ID (answers)`` message.
ANSWER_SEPARATOR = " | "


def _answers_context(qid: str) -> str:
    return f"{qid}{ANSWERS_CONTEXT_SUFFIX}"


def answers_message(q: Question) -> str | None:
    """The ``ID (answers)`` message of a text question (None for other questions)."""
    return ANSWER_SEPARATOR.join(q.answers) if q.type == "text" and q.answers else None


def accepted_answers(q: Question, translation: str) -> tuple[str, ...]:
    """The English answers of ``q`` and those its translation lists, each once, English first."""
    listed = [a.strip() for a in translation.split(ANSWER_SEPARATOR.strip())]
    return tuple(dict.fromkeys([*q.answers, *(a for a in listed if a)]))


def _question_texts(q: Question) -> list[str]:
    texts = [q.prompt, q.explanation, q.feedback_correct, q.feedback_incorrect]
    for c in q.choices:
        texts += [c.text, c.feedback]
    texts += list(q.items)
    for left, right in q.pairs:
        texts += [left, right]
    texts += list(q.distractors)
    texts += [m.feedback for m in q.mistakes]
    if q.exhibit is not None:
        texts.append(q.exhibit.caption)  # the exhibit's text itself is never translated
    return [t for t in texts if t and t.strip()]


def generated_texts(q: Question, seeds: int = GENERATED_TEXT_SEEDS) -> list[str]:
    """What ``q``'s generator writes over ``seeds`` draws that a learner reads as language:
    mistakes' feedback, a choose question's option templates, and parameters that are phrases
    (a preset's description)."""
    if q.generator is None:
        return []
    found: dict[str, None] = {}
    gen = _generators.resolve(q.generator)
    for seed in range(seeds):
        draw = gen(q.rng(seed), **q.options)
        if isinstance(draw, ChoiceDraw):
            found.update(dict.fromkeys(draw.texts()))
            continue
        for _value, text in draw.mistakes:
            found[text] = None
        for value in draw.params.values():
            if isinstance(value, str) and " " in value.strip():
                found[value] = None
    return list(found)


def template(bank: Bank) -> Catalog:
    """The bank's messages, in bank order, as a gettext template."""
    catalog = Catalog(project=f"nccl-course quiz {bank.chapter}", charset="utf-8")
    catalog.add(bank.title, context=TITLE_CONTEXT)
    for q in bank.questions:
        for text in _question_texts(q):
            catalog.add(text, context=q.id)
        for text in generated_texts(q):
            catalog.add(text, context=_generated_context(q.id))
        if answers_message(q) is not None:
            catalog.add(answers_message(q), context=_answers_context(q.id))
    return catalog


def write_templates(banks: dict[str, Bank], pot_dir: Path) -> list[Path]:
    """Write one ``CHAPTER.pot`` per bank under ``pot_dir/quizzes``; returns the paths."""
    out = pot_dir / CATALOG_SUBDIR
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for chapter, bank in sorted(banks.items()):
        path = out / f"{chapter}.pot"
        with path.open("wb") as f:
            write_po(f, template(bank), width=0, omit_header=False)
        paths.append(path)
    return paths


def catalog_path(locale_dir: Path, language: str, chapter: str) -> Path:
    return locale_dir / language / "LC_MESSAGES" / CATALOG_SUBDIR / f"{chapter}.po"


class MissingTranslation(LookupError):
    """A bank's text with no current translation; ``problems`` names each by file and id."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        lines = [p.describe() for p in problems[:20]]
        if len(problems) > 20:
            lines.append(f"... and {len(problems) - 20} more")
        super().__init__("\n".join(lines))


def translate_bank(bank: Bank, language: str, locale_dir: Path) -> Bank:
    """``bank`` in ``language``, from ``locale_dir``'s catalog; the same ids, answers and draws.

    English is returned as it is. Raises MissingTranslation naming every text that has no
    translated, non-fuzzy entry, or whose translation lost math, code or placeholders.
    """
    if language == "en":
        return bank
    path = catalog_path(locale_dir, language, bank.chapter)
    shown = str(path)
    if not path.exists():
        raise MissingTranslation([Problem(shown, "", None, "missing catalog")])
    catalog = load(path)
    problems: list[Problem] = []

    def tr(text: str, context: str) -> str:
        if not text or not text.strip():
            return text
        message = catalog.get(text, context=context)
        if message is None:
            problems.append(Problem(shown, text, context, "untranslated"))
            return text
        found = message_problems(message)
        for kind, detail in found:
            problems.append(Problem(shown, text, context, kind, detail))
        return text if found else message.string

    def answers(q: Question) -> tuple[str, ...]:
        english = answers_message(q)
        message = catalog.get(english, context=_answers_context(q.id)) if english else None
        if message is None or not message.string:  # not merged yet: the English answers only
            return q.answers
        return accepted_answers(q, tr(english, _answers_context(q.id)))

    questions = []
    for q in bank.questions:
        c = q.id
        generated = {t: tr(t, _generated_context(c)) for t in generated_texts(q)}
        questions.append(
            dataclasses.replace(
                q,
                prompt=tr(q.prompt, c),
                explanation=tr(q.explanation, c),
                feedback_correct=tr(q.feedback_correct, c),
                feedback_incorrect=tr(q.feedback_incorrect, c),
                choices=tuple(
                    Choice(tr(x.text, c), x.correct, tr(x.feedback, c)) for x in q.choices
                ),
                items=tuple(tr(x, c) for x in q.items),
                pairs=tuple((tr(a, c), tr(b, c)) for a, b in q.pairs),
                distractors=tuple(tr(x, c) for x in q.distractors),
                mistakes=tuple(Mistake(m.answer, tr(m.feedback, c)) for m in q.mistakes),
                exhibit=(
                    dataclasses.replace(q.exhibit, caption=tr(q.exhibit.caption, c))
                    if q.exhibit is not None
                    else None
                ),
                answers=answers(q),
                language=language,
                generated_text=generated,
            )
        )
    title = tr(bank.title, TITLE_CONTEXT)
    if problems:
        raise MissingTranslation(problems)
    return dataclasses.replace(bank, title=title, questions=tuple(questions))


def bank_problems(bank: Bank, language: str, locale_dir: Path) -> list[Problem]:
    """Every text of ``bank`` without a current ``language`` translation (empty when complete)."""
    try:
        translate_bank(bank, language, locale_dir)
    except MissingTranslation as exc:
        return exc.problems
    return []
