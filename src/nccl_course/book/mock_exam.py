"""The ``{mock-exam}`` directive: a rehearsal of the certification exam, graded in the page.

Usage in a MyST page::

    ```{mock-exam}
    :forms: 3
    ```

Each *form* is one exam drawn like a real attempt: ``nccl_course.exam.blueprint.draw_questions``
picks the questions from the blueprint (``quizzes/exam/blueprint.yml``) with the form's fixed
seed (form 1 has seed 1, and so on), so the forms follow the blueprint's zones as the server's
attempts do. The *numbers* of each question are not the attempt's, though: a parameterised
question shows one of the variants the practice pages already print
(``nccl_course.quiz.printed.printed_seeds``), picked by the form's seed, so the page reveals no
instance that a real attempt could draw fresh. The forms are drawn when the book is built, not in
the browser: the draw is the blueprint module's, in Python, and one definition of it is kept;
the page only holds a few dozen printed variants per form instead of every bank's.

The questions are rendered like the practice quiz's (``QuizDirective``) but without its Check
buttons; ``static/nccl-mock-exam.js`` grades every answer with the practice quiz's grader
(``nccl_course/quiz/static/nccl-quiz.js``) once "Submit the mock exam" is pressed, and fills in the score against
the real pass mark and the per-chapter and per-objective tables this directive writes (with the
links to the chapters to revisit). The blueprint's time limit is shown with an optional clock that
nothing enforces.
"""

from __future__ import annotations

import html
import random
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from nccl_course.exam.blueprint import draw_questions, fit_to_banks, load_blueprint
from nccl_course.i18n.catalogs import load as load_catalog
from nccl_course.i18n.interface import N_
from nccl_course.i18n.interface import strings_script as page_strings
from nccl_course.quiz.banks import load_banks
from nccl_course.quiz.model import BankError, QuestionInstance
from nccl_course.quiz.objectives import Objectives, folder_objectives, normalize_text
from nccl_course.quiz.printed import printed_seeds
from nccl_course.quiz.sphinx_directive import QuizDirective
from nccl_course.sphinx_static import serve_static_folder, use_page_library

STATIC = Path(__file__).parent / "static"
JS_FILE = "nccl-mock-exam.js"
CSS_FILE = "nccl-mock-exam.css"
BLUEPRINT = Path("exam") / "blueprint.yml"  # under the bank folder (quizzes/)
DEFAULT_FORMS = 3
MAX_FORMS = 9  # each form adds a whole exam of questions to the page: keep its weight bounded
STRINGS_CLASS = "nccl-mock-strings"
# What static/nccl-mock-exam.js writes into the page (its S() calls); a translated page carries
# them in its language as JSON (<script class="nccl-mock-strings">).
PAGE_SCRIPT_STRINGS = (
    N_("{value} %"),
    N_("{minutes}:{seconds} left"),
    N_("Time is up: the real exam would end here. Finish and submit when you are ready."),
    N_("Not answered: score 0."),
    N_("Score: {points} of {total} points ({percent})."),
    N_("Passed: at or above the pass mark of {pass}."),
    N_("Not passed: below the pass mark of {pass}."),
    N_("revisit"),
)


def form_seed(number: int) -> int:
    """The attempt seed that form ``number`` (1, 2, ...) is drawn with."""
    return number


def mock_instances(blueprint, banks: dict, seed: int) -> list[tuple[str, str, int]]:
    """One form: ``(chapter, question id, printed seed)`` per question, in the exam's order.

    The questions are the ones ``draw_questions`` picks for an attempt with ``seed``; each
    parameterised one gets a variant the practice pages print (never the fresh instance the
    attempt would show), chosen by ``seed`` and the question's position."""
    form = []
    for drawn in draw_questions(blueprint, banks, seed):
        question = banks[drawn.chapter].question(drawn.question_id)
        pick = random.Random(f"nccl-course-mock:{seed}:{drawn.position}")
        form.append((drawn.chapter, drawn.question_id, pick.choice(printed_seeds(question))))
    return form


class MockExamDirective(QuizDirective):
    required_arguments = 0
    optional_arguments = 0
    has_content = False
    option_spec = {"forms": directives.positive_int}

    def run(self) -> list[nodes.Node]:
        bank_dir = self.bank_dir()
        blueprint_path = bank_dir / BLUEPRINT
        self.env.note_dependency(str(blueprint_path))
        # The forms are drawn here: a change of this module (the draw, the markup) re-reads the page.
        self.env.note_dependency(__file__)
        self.note_objectives(bank_dir)
        n_forms = self.options.get("forms", DEFAULT_FORMS)
        if n_forms > MAX_FORMS:
            raise self.error(f"mock-exam: at most {MAX_FORMS} forms, not {n_forms}")
        try:
            banks = load_banks(bank_dir)
            blueprint = fit_to_banks(load_blueprint(blueprint_path), banks)
        except (BankError, ValueError) as exc:
            raise self.error(f"mock-exam: {exc}") from None
        for bank in banks.values():
            if bank.path is not None:
                self.env.note_dependency(str(bank.path))
        objectives, _problems = folder_objectives(bank_dir)
        shown = {}  # chapter -> the bank in the page's language
        root = nodes.container(classes=["nccl-mock-wrapper"])
        self._raw(
            root,
            f'<div class="nccl-mock" data-pass="{blueprint.pass_score}" '
            f'data-time-limit="{blueprint.time_limit_s}">',
        )
        self._strings_script(root)
        if self.language != "en":
            self._raw(root, page_strings(self.language, PAGE_SCRIPT_STRINGS, STRINGS_CLASS))
        self._facts(root, blueprint, n_forms)
        for number in range(1, n_forms + 1):
            form = mock_instances(blueprint, banks, form_seed(number))
            for chapter, _qid, _seed in form:
                if chapter not in shown:
                    shown[chapter] = self.localized(banks[chapter])
            self._form(root, number, form, shown, objectives)
        self._raw(root, "</div>")
        return [root]

    # -- the parts of the page ------------------------------------------------------------

    def _facts(self, root: nodes.Element, blueprint, n_forms: int) -> None:
        minutes = round(blueprint.time_limit_s / 60)
        percent = self._(N_("{value} %"), value=f"{blueprint.pass_score * 100:g}")
        facts = self._(
            N_(
                "{count} questions; time limit {minutes} minutes (shown, not enforced); "
                "pass mark {percent}."
            ),
            count=blueprint.question_count,
            minutes=minutes,
            percent=percent,
        )
        radios = "".join(
            f'<label class="nccl-mock-form-choice"><input type="radio" name="nccl-mock-form" '
            f'value="{n}"{" checked" if n == 1 else ""}> '
            f"{html.escape(self._(N_('Form {number}'), number=n))}</label>"
            for n in range(1, n_forms + 1)
        )
        self._raw(
            root,
            f'<p class="nccl-mock-facts">{html.escape(facts)}</p>'
            f'<fieldset class="nccl-mock-forms"><legend>'
            f"{html.escape(self._(N_('Mock exam form')))}</legend>{radios}</fieldset>"
            f'<p class="nccl-mock-clock-line"><button type="button" class="nccl-mock-start">'
            f"{html.escape(self._(N_('Start the clock')))}</button> "
            f'<span class="nccl-mock-clock" role="timer"></span></p>',
        )

    def _form(self, root, number: int, form, banks: dict, objectives: Objectives | None) -> None:
        self._form_number = number
        hidden = "" if number == 1 else " hidden"
        self._raw(
            root,
            f'<section class="nccl-mock-form" data-form="{number}"{hidden} '
            f'aria-label="{html.escape(self._(N_("Form {number}"), number=number))}">',
        )
        total = len(form)
        for position, (chapter, qid, seed) in enumerate(form, start=1):
            question = banks[chapter].question(qid)
            self._raw(
                root,
                f'<section class="nccl-mock-question" data-chapter="{html.escape(chapter)}" '
                f'data-qid="{html.escape(qid)}" data-type="{question.type}" '
                f'data-objective="{html.escape(question.objective or "")}">'
                f'<p class="nccl-quiz-number">'
                f"{self._(N_('Question {number} of {total}'), number=position, total=total)}</p>",
            )
            self._variant(root, question.instantiate(seed), 0)
            self._raw(root, "</section>")
        self._raw(
            root,
            '<div class="nccl-mock-buttons">'
            f'<button type="button" class="nccl-mock-submit">'
            f"{html.escape(self._(N_('Submit the mock exam')))}</button> "
            f'<button type="button" class="nccl-mock-again" hidden>'
            f"{html.escape(self._(N_('Clear my answers and take this form again')))}</button>"
            '</div><div class="nccl-mock-result" hidden>'
            '<p class="nccl-mock-score" role="status" aria-live="polite" tabindex="-1"></p>',
        )
        self._breakdown(root, form, banks, objectives)
        self._raw(root, "</div></section>")

    def _breakdown(self, root, form, banks: dict, objectives: Objectives | None) -> None:
        chapters: dict[str, list] = {}
        by_objective: dict[str, list] = {}
        for chapter, qid, _seed in form:
            question = banks[chapter].question(qid)
            chapters.setdefault(chapter, []).append(question)
            if question.objective:
                by_objective.setdefault(question.objective, []).append(question)
        head = (
            f"<th scope='col'>{html.escape(self._(N_('Questions')))}</th>"
            f"<th scope='col'>{html.escape(self._(N_('Points')))}</th>"
            f"<th scope='col'>{html.escape(self._(N_('Score')))}</th>"
        )
        rows = []
        for chapter, questions in chapters.items():
            link = self._chapter_link(questions, objectives, banks[chapter].title)
            rows.append(
                f'<tr data-chapter="{html.escape(chapter)}"><th scope="row">{link}</th>'
                f'<td>{len(questions)}</td><td class="nccl-mock-points"></td>'
                '<td class="nccl-mock-percent"></td></tr>'
            )
        self._raw(
            root,
            f'<table class="nccl-mock-breakdown nccl-mock-by-chapter"><caption>'
            f"{html.escape(self._(N_('By chapter')))}</caption><thead><tr><th scope='col'>"
            f"{html.escape(self._(N_('Chapter')))}</th>{head}</tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table>",
        )
        if not by_objective:
            return
        rows = []
        for objective_id, questions in by_objective.items():
            text = objective_id
            if objectives is not None and objective_id in objectives:
                text = self._objective_text(objectives[objective_id])
            link = self._chapter_link(questions, objectives, text)
            rows.append(
                f'<tr data-objective="{html.escape(objective_id)}"><th scope="row">{link}</th>'
                f'<td>{len(questions)}</td><td class="nccl-mock-points"></td>'
                '<td class="nccl-mock-percent"></td></tr>'
            )
        self._raw(
            root,
            f'<table class="nccl-mock-breakdown nccl-mock-by-objective"><caption>'
            f"{html.escape(self._(N_('By learning objective')))}</caption><thead><tr>"
            f"<th scope='col'>{html.escape(self._(N_('Objective')))}</th>{head}</tr></thead>"
            "<tbody>" + "".join(rows) + "</tbody></table>",
        )

    # -- helpers --------------------------------------------------------------------------

    def variant_uid(self, inst: QuestionInstance) -> str:
        # Two forms may hold the same variant: the form's number keeps ids and radio names apart.
        return f"nm{self._form_number}-{super().variant_uid(inst)}"

    def _buttons(self, parent: nodes.Element, inst: QuestionInstance) -> None:
        # No Check, Show answer or New variant: the exam grades everything at once, on Submit.
        self._raw(parent, '<div class="nccl-quiz-result" role="status"></div>')

    def _key(self, inst: QuestionInstance) -> dict:
        # The key names its form: two forms may hold the same variant, and a page holds each
        # script once.
        return {**super()._key(inst), "form": self._form_number}

    def _chapter_link(self, questions, objectives: Objectives | None, text: str) -> str:
        """``text`` as a link to the chapter page the questions' objectives come from (plain
        text when they name none)."""
        docname = None
        for question in questions:
            if objectives is not None and question.objective in objectives:
                docname = str(Path(objectives[question.objective].chapter).with_suffix(""))
                break
        if docname is None or docname not in self.env.found_docs:
            return html.escape(text)
        uri = self.env.app.builder.get_relative_uri(self.env.docname, docname)
        return f'<a href="{html.escape(uri)}">{html.escape(text)}</a>'

    def _objective_text(self, objective) -> str:
        """The objective as its chapter words it, in the page's language: the chapter's own
        catalog holds the translated list item (the English where it has none)."""
        text = normalize_text(objective.text)
        if self.language == "en":
            return text
        chapter = str(Path(objective.chapter).with_suffix(""))
        path = Path(self.env.srcdir) / "locales" / self.language / "LC_MESSAGES" / f"{chapter}.po"
        if not path.is_file():
            return text
        self.env.note_dependency(str(path))
        wanted = normalize_text(objective.text)
        for message in _catalog(path):
            if message.id and not message.fuzzy and message.string:
                if normalize_text(str(message.id)) == wanted:
                    return normalize_text(message.string)
        return text


_CATALOGS: dict[Path, list] = {}


def _catalog(path: Path) -> list:
    if path not in _CATALOGS:
        _CATALOGS[path] = list(load_catalog(path))
    return _CATALOGS[path]


def setup(app: Sphinx) -> dict:
    app.setup_extension("nccl_course.quiz.sphinx_directive")  # the quiz's grader and styles
    app.add_directive("mock-exam", MockExamDirective)
    serve_static_folder(app, STATIC)
    use_page_library(app)
    app.add_js_file(JS_FILE)
    app.add_css_file(CSS_FILE)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
