"""The ``{quiz}`` directive: a chapter's practice quiz as HTML + JavaScript, graded in the page.

Usage in a MyST page::

    ```{quiz} all-reduce
    ```

The argument is the chapter id (the file stem in quizzes/). Every prompt, choice and feedback is
parsed as MyST markdown (so math and code render as in the rest of the book); each answer key goes
into the page as JSON without feedback text, and static/nccl-quiz.js grades with the same rules
as ``nccl_course.quiz.grading``. Parameterized questions get several pre-drawn variants and a
"New variant" button that shows the next one. Which variants a page prints is
``nccl_course.quiz.printed.printed_seeds`` (the exam draws around them; ``:variants:`` may print
fewer, never more). No kernel, no server, no network.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.interface import catalog_path as interface_catalog_path
from nccl_course.i18n.interface import strings_script as page_strings
from nccl_course.i18n.numbers import decimal_separator
from nccl_course.quiz.banks import bank_paths, find_bank_dir
from nccl_course.quiz.exhibits import KIND_LABELS, exhibit_html
from nccl_course.quiz.grading import IN_PLACE, PAIRS_RIGHT
from nccl_course.quiz.model import BankError, QuestionInstance
from nccl_course.quiz.objectives import objectives_path
from nccl_course.quiz.parsing import load_bank
from nccl_course.quiz.printed import PRINTED_VARIANTS, printed_seeds
from nccl_course.quiz.translation import MissingTranslation, catalog_path, translate_bank
from nccl_course.quiz.units import AMBIGUOUS_NUMBER
from nccl_course.sphinx_static import serve_static_folder, use_page_library

STATIC = Path(__file__).parent / "static"
JS_FILE = "nccl-quiz.js"
CSS_FILE = "nccl-quiz.css"
DEFAULT_VARIANTS = PRINTED_VARIANTS
_KEY_TEXT_FIELDS = ("explanation", "feedback", "choice_feedback")
# A quiz's wrapper node lists its questions as "chapter/question-id" under this attribute, for
# extensions that need to know which questions a page holds (nccl_course.book.progress).
QUESTIONS_ATTRIBUTE = "nccl_quiz_questions"
# What static/nccl-quiz.js writes into the page; a translated page carries these in its language
# as JSON (<script id="nccl-quiz-strings">), and the script falls back to the English keys.
PAGE_SCRIPT_STRINGS = (
    N_("Could not read the answer: {message}."),
    N_("Choose or type an answer first."),
    N_("Correct."),
    N_("Partly right: score {score}."),
    N_("Not quite."),
    IN_PLACE,
    PAIRS_RIGHT,
    N_("Answer: {answer}"),
    N_("expected a number without a unit, e.g. {example}"),
    N_("expected a number, optionally with a unit ({units}); a bare number is read in {unit}"),
    N_("expected a number, or a number with a unit such as '{example}'"),
    N_("expected a finite number"),
    AMBIGUOUS_NUMBER,
    N_("expected an index from 0 to {last}, got {value}"),
    N_("expected a list of indices"),
)


def page_key(inst: QuestionInstance) -> dict:
    """The key the page's JavaScript grades with: ``key()`` without texts (those are in the DOM)."""
    key = {k: v for k, v in inst.key().items() if k not in _KEY_TEXT_FIELDS}
    if "mistakes" in key:
        key["mistakes"] = [{k: v for k, v in m.items() if k != "feedback"} for m in key["mistakes"]]
    return key


def _json_for_script(data: dict) -> str:
    # "</" would end the <script> element early; "<\/" is the same JSON string.
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def _plain(text: str) -> str:
    """Text for places that cannot hold markup (a <select>'s options): math and code without
    their delimiters."""
    text = re.sub(r"\$+([^$]+)\$+", r"\1", text)
    text = re.sub(r"`([^`]+)`", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _phrase(text: str) -> str:
    """A choice, item or match as Markdown that stays one paragraph: a leading "7. " (Turkish for
    "line 7" is "7. satır") would otherwise start a numbered list and lose its number."""
    return re.sub(r"^(\s*\d+)([.)])(\s)", r"\1\\\2\3", text)


def _variants_option(argument: str) -> int:
    """``:variants: N``, 1 <= N <= PRINTED_VARIANTS: the exam treats that many as printed."""
    n = directives.positive_int(argument)
    if n > PRINTED_VARIANTS:
        raise ValueError(
            f"at most {PRINTED_VARIANTS}: the exam draws its fresh questions around the variants "
            f"nccl_course.quiz.printed.printed_seeds gives, and a page printing more would give "
            f"exam answers away"
        )
    return n


def bank_dir_for(env) -> Path:
    """``nccl_quiz_dir`` under the book root; for a page built alone (whose confdir is its own
    folder) the nearest folder above that has it."""
    return find_bank_dir(env.app.confdir, env.config.nccl_quiz_dir)


def _bank_names(env) -> tuple[str, ...]:
    try:
        return tuple(p.name for p in bank_paths(bank_dir_for(env)))
    except FileNotFoundError:
        return ()


class QuizDirective(SphinxDirective):
    required_arguments = 1
    optional_arguments = 0
    has_content = False
    option_spec = {
        "variants": _variants_option,
        "title": directives.unchanged,
        # Comma-separated tags: show only the bank's questions with at least one of them, so
        # several pages can share one bank without repeating the whole quiz.
        "tags": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        chapter = self.arguments[0].strip()
        bank_dir = self.bank_dir()
        path = bank_dir / f"{chapter}.yml"
        if not path.exists():
            known = ", ".join(p.stem for p in bank_paths(bank_dir))
            raise self.error(f"quiz: no bank {path} for chapter {chapter!r}; known: {known}")
        self.env.note_dependency(str(path))
        self.note_objectives(bank_dir)
        try:
            bank = self.localized(load_bank(path))
        except BankError as exc:
            raise self.error(f"quiz: invalid bank {path}:\n{exc}") from None
        questions = bank.questions
        if self.options.get("tags"):
            wanted = {t.strip() for t in self.options["tags"].split(",") if t.strip()}
            questions = [q for q in bank.questions if wanted & set(q.tags)]
            if not questions:
                raise self.error(
                    f"quiz: no question in {path} has any of the tags {sorted(wanted)}"
                )
        n_variants = self.options.get("variants", DEFAULT_VARIANTS)
        root = nodes.container(classes=["nccl-quiz-wrapper"])
        self.render_bank(root, bank, n_variants, self.options.get("title"), questions)
        return [root]

    def render_bank(
        self, root: nodes.Element, bank, n_variants: int, title: str | None, questions=None
    ) -> None:
        chapter = bank.chapter
        questions = bank.questions if questions is None else questions
        root[QUESTIONS_ATTRIBUTE] = list(root.get(QUESTIONS_ATTRIBUTE, [])) + [
            f"{chapter}/{q.id}" for q in questions
        ]
        self._raw(root, f'<div class="nccl-quiz" data-chapter="{html.escape(chapter)}">')
        self._strings_script(root)
        if title:
            self._raw(root, f'<p class="nccl-quiz-title">{html.escape(title)}</p>')
        for number, question in enumerate(questions, start=1):
            seeds = printed_seeds(question, n_variants)
            self._raw(
                root,
                f'<section class="nccl-quiz-question" data-qid="{question.id}" '
                f'data-type="{question.type}" data-variants="{len(seeds)}" data-current="0">'
                f'<p class="nccl-quiz-number">'
                f"{self._(N_('Question {number} of {total}'), number=number, total=len(questions))}"
                f'<span class="nccl-quiz-difficulty" title="{self._(N_("difficulty"))}">'
                f"{'●' * question.difficulty}{'○' * (3 - question.difficulty)}</span></p>",
            )
            for index, seed in enumerate(seeds):
                self._variant(root, question.instantiate(seed), index)
            self._raw(root, "</section>")
        self._raw(root, "</div>")

    # -- helpers -------------------------------------------------------------------------

    def bank_dir(self) -> Path:
        return bank_dir_for(self.env)

    def note_objectives(self, bank_dir: Path) -> None:
        """Banks are checked against the objectives beside them: a change there re-reads the
        page."""
        if objectives_path(bank_dir).is_file():
            self.env.note_dependency(str(objectives_path(bank_dir)))

    @property
    def language(self) -> str:
        return self.env.config.language or "en"

    def localized(self, bank):
        """``bank`` in the page's language; English, with a warning, where a text is missing."""
        if self.language == "en":
            return bank
        locale_dir = Path(self.env.srcdir) / "locales"
        self.env.note_dependency(str(catalog_path(locale_dir, self.language, bank.chapter)))
        # The page's buttons and messages come from the interface catalog: re-read the page
        # when it changes.
        self.env.note_dependency(str(interface_catalog_path(self.language)))
        try:
            return translate_bank(bank, self.language, locale_dir)
        except MissingTranslation as exc:
            from sphinx.util import logging

            logging.getLogger(__name__).warning(
                "quiz %s has no %s text for:\n%s\n(translate it in the catalog; see "
                "CONTRIBUTING.md, 'Translations')",
                bank.chapter,
                self.language,
                exc,
                location=(self.env.docname, self.lineno),
            )
            return bank

    def _(self, text: str, **fields) -> str:
        return translator(self.language)(text, **fields)

    def _strings_script(self, root: nodes.Element) -> None:
        # Once per page: the script reads the first table, and a page may hold many quizzes.
        if self.language == "en":
            return
        document = self.state.document
        if document.get("nccl_quiz_strings"):
            return
        document["nccl_quiz_strings"] = True
        script = page_strings(
            self.language,
            PAGE_SCRIPT_STRINGS,
            "nccl-quiz-strings",
            decimal=decimal_separator(self.language),
        )
        self._raw(root, script)

    def _raw(self, parent: nodes.Element, markup: str) -> None:
        parent += nodes.raw("", markup, format="html")

    def _md(self, parent: nodes.Element, text: str, classes: list[str]) -> None:
        box = nodes.container(classes=classes)
        self.state.nested_parse(StringList(text.strip().splitlines()), self.content_offset, box)
        # A quiz is translated as a bank (nccl_course.quiz.translation), before its numbers are
        # drawn; the page's catalog must not collect each drawn variant as a sentence of its own.
        for node in box.findall(nodes.TextElement):
            node["translatable"] = False
        parent += box

    def _feedback(self, parent: nodes.Element, name: str, text: str) -> None:
        if not text.strip():
            return
        self._raw(parent, f'<div class="nccl-quiz-fb" data-fb="{html.escape(name)}" hidden>')
        self._md(parent, text, ["nccl-quiz-fb-text"])
        self._raw(parent, "</div>")

    def variant_uid(self, inst: QuestionInstance) -> str:
        """The id of a variant's element, and the name of its inputs: unique in the page."""
        return f"nq-{inst.question.chapter}-{inst.question.id}-{inst.seed}"

    def _variant(self, parent: nodes.Element, inst: QuestionInstance, index: int) -> None:
        q = inst.question
        uid = self.variant_uid(inst)
        hidden = " hidden" if index else ""
        self._raw(
            parent,
            f'<div class="nccl-quiz-variant" data-seed="{inst.seed}" id="{uid}"{hidden}>',
        )
        if q.exhibit is not None:
            label = self._(KIND_LABELS[q.exhibit.kind])
            self._raw(parent, exhibit_html(q.exhibit, label, f"{uid}-exhibit"))
        self._md(parent, inst.prompt, ["nccl-quiz-prompt"])
        self._raw(parent, '<div class="nccl-quiz-answer">')
        answer = {
            "single": self._choices,
            "multiple": self._choices,
            "numeric": self._numeric,
            "text": self._text,
            "ordering": self._ordering,
            "matching": self._matching,
        }.get(q.type)
        if answer is not None:
            answer(parent, inst, uid)
        self._raw(parent, "</div>")
        self._buttons_feedback_and_key(parent, inst)

    def _choices(self, parent: nodes.Element, inst: QuestionInstance, uid: str) -> None:
        q = inst.question
        kind = "radio" if q.type == "single" else "checkbox"
        self._raw(parent, '<ol class="nccl-quiz-choices">')
        for i, choice in enumerate(inst.choices):
            # MathJax draws math as a picture with MathML beside it, which not every screen
            # reader or checker reads as a name: a choice with math also names its input in text.
            name = f' aria-label="{html.escape(_plain(choice.text))}"' if "$" in choice.text else ""
            self._raw(
                parent,
                f'<li class="nccl-quiz-choice" data-index="{i}"><label>'
                f'<input type="{kind}" name="{uid}" value="{i}"{name}>',
            )
            self._md(parent, _phrase(choice.text), ["nccl-quiz-choice-text"])
            self._raw(parent, "</label>")
            self._feedback(parent, f"choice-{i}", choice.feedback)
            self._raw(parent, "</li>")
        self._raw(parent, "</ol>")

    def _numeric(self, parent: nodes.Element, inst: QuestionInstance, uid: str) -> None:
        q = inst.question
        unit = html.escape(q.unit)
        label = self._(N_("Answer")) if q.unit else self._(N_("Answer (a number)"))
        self._raw(
            parent,
            f'<label class="nccl-quiz-numeric">{label}: '
            f'<input type="text" inputmode="decimal" class="nccl-quiz-input" '
            f'autocomplete="off" spellcheck="false"> <span class="nccl-quiz-unit">{unit}'
            "</span></label>",
        )

    def _text(self, parent: nodes.Element, inst: QuestionInstance, uid: str) -> None:
        self._raw(
            parent,
            f'<label class="nccl-quiz-text">{self._(N_("Answer"))}: <input type="text" '
            'class="nccl-quiz-input" autocomplete="off" spellcheck="false"></label>',
        )

    def _ordering(self, parent: nodes.Element, inst: QuestionInstance, uid: str) -> None:
        self._raw(parent, '<ol class="nccl-quiz-order">')
        for i, item in enumerate(inst.items):
            self._raw(
                parent,
                f'<li class="nccl-quiz-item" data-index="{i}">'
                '<span class="nccl-quiz-move">'
                f'<button type="button" class="nccl-quiz-up" aria-label="{self._(N_("move up"))}">'
                "▲</button>"
                '<button type="button" class="nccl-quiz-down" '
                f'aria-label="{self._(N_("move down"))}">▼</button></span>',
            )
            self._md(parent, _phrase(item), ["nccl-quiz-item-text"])
            self._raw(parent, "</li>")
        self._raw(parent, "</ol>")

    def _matching(self, parent: nodes.Element, inst: QuestionInstance, uid: str) -> None:
        options = "".join(
            f'<option value="{j}">{html.escape(_plain(r))}</option>'
            for j, r in enumerate(inst.right)
        )
        self._raw(parent, '<table class="nccl-quiz-matching"><tbody>')
        for i, left in enumerate(inst.left):
            self._raw(parent, f'<tr data-index="{i}"><td>')
            self._md(parent, _phrase(left), ["nccl-quiz-left"])
            self._raw(
                parent,
                '</td><td><select class="nccl-quiz-select" '
                f'aria-label="{self._(N_("match for item {number}"), number=i + 1)}">'
                f'<option value="">{self._(N_("choose…"))}</option>{options}</select></td></tr>',
            )
        self._raw(parent, "</tbody></table>")

    def _buttons_feedback_and_key(self, parent: nodes.Element, inst: QuestionInstance) -> None:
        self._buttons(parent, inst)
        self._feedback(parent, "correct", inst.feedback_correct)
        self._feedback(parent, "incorrect", inst.feedback_incorrect)
        for i, (_, text) in enumerate(inst.mistakes):
            self._feedback(parent, f"mistake:{i}", text)
        self._feedback(parent, "explanation", inst.explanation)
        self._raw(
            parent,
            f'<script type="application/json" class="nccl-quiz-key">'
            f"{_json_for_script(self._key(inst))}</script></div>",
        )

    def _key(self, inst: QuestionInstance) -> dict:
        """What the page's script grades this variant with."""
        return page_key(inst)

    def _buttons(self, parent: nodes.Element, inst: QuestionInstance) -> None:
        """Check, Show answer and New variant, then the verdict's live region."""
        q = inst.question
        buttons = f'<button type="button" class="nccl-quiz-check">{self._(N_("Check"))}</button>'
        if q.type in ("numeric", "text"):
            buttons += (
                ' <button type="button" class="nccl-quiz-reveal">'
                f"{self._(N_('Show answer'))}</button>"
            )
        if q.parameterized:
            buttons += (
                f' <button type="button" class="nccl-quiz-new">{self._(N_("New variant"))}</button>'
            )
        self._raw(
            parent,
            f'<div class="nccl-quiz-buttons">{buttons}</div>'
            '<div class="nccl-quiz-result" role="status" aria-live="polite"></div>',
        )


class AllQuizzesDirective(QuizDirective):
    """``{quiz-all}``: every bank in quizzes/, one after the other, each under a rubric."""

    required_arguments = 0

    def run(self) -> list[nodes.Node]:
        bank_dir = self.bank_dir()
        self.env.nccl_quiz_all_docs = getattr(self.env, "nccl_quiz_all_docs", set())
        self.env.nccl_quiz_all_docs.add(self.env.docname)
        self.env.nccl_quiz_bank_names = _bank_names(self.env)
        n_variants = self.options.get("variants", DEFAULT_VARIANTS)
        out: list[nodes.Node] = []
        try:
            paths = bank_paths(bank_dir)
        except FileNotFoundError as exc:
            raise self.error(f"quiz-all: {exc}") from None
        self.note_objectives(bank_dir)
        for path in paths:
            self.env.note_dependency(str(path))
            try:
                bank = self.localized(load_bank(path))
            except BankError as exc:
                raise self.error(f"quiz-all: invalid bank {path}:\n{exc}") from None
            target = nodes.target("", "", ids=[f"quiz-{bank.chapter}"])
            count = self._(N_("{count} questions"), count=len(bank.questions))
            heading = nodes.rubric(text=f"{bank.title} ({count})")
            root = nodes.container(classes=["nccl-quiz-wrapper"])
            self.render_bank(root, bank, n_variants, None)
            out += [target, heading, root]
        return out


def _outdated(app: Sphinx, env, added, changed, removed) -> list[str]:
    # A page showing every bank must be re-read when a bank file appears or disappears (edits
    # of a bank are caught by note_dependency).
    if getattr(env, "nccl_quiz_bank_names", None) == _bank_names(env):
        return []
    return sorted(getattr(env, "nccl_quiz_all_docs", set()))


def _purge(app: Sphinx, env, docname: str) -> None:
    getattr(env, "nccl_quiz_all_docs", set()).discard(docname)


def _merge(app: Sphinx, env, docnames, other) -> None:
    env.nccl_quiz_all_docs = getattr(env, "nccl_quiz_all_docs", set()) | getattr(
        other, "nccl_quiz_all_docs", set()
    )
    if hasattr(other, "nccl_quiz_bank_names"):
        env.nccl_quiz_bank_names = other.nccl_quiz_bank_names


def setup(app: Sphinx) -> dict:
    app.add_config_value("nccl_quiz_dir", "quizzes", "env")
    app.add_directive("quiz", QuizDirective)
    app.add_directive("quiz-all", AllQuizzesDirective)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    serve_static_folder(app, STATIC)
    use_page_library(app)  # its script uses the library: S(), onReady()
    app.add_js_file(JS_FILE)
    app.add_css_file(CSS_FILE)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
