"""Practice quizzes in a notebook, as ipywidgets: ``show_quiz("all-reduce")``.

Graded in the kernel by ``nccl_course.quiz.grade`` (the same function the exam server uses);
prompts and feedback are markdown turned into HTML with the math left for MathJax.
"""

from __future__ import annotations

import html
import random
from pathlib import Path

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.numbers import format_number
from nccl_course.quiz.banks import find_bank_dir
from nccl_course.quiz.exhibits import KIND_LABELS, exhibit_html
from nccl_course.quiz.grading import grade
from nccl_course.quiz.markup import markdown_html
from nccl_course.quiz.model import Bank, Question
from nccl_course.quiz.parsing import load_bank
from nccl_course.quiz.translation import translate_bank


class QuestionWidget:
    """One question: prompt, answer controls, Check (and New variant) buttons, feedback."""

    def __init__(self, question: Question, seed: int, number: int, total: int):
        import ipywidgets as w

        self.question = question
        self.seed = seed
        self.number = number
        self.total = total
        self.box = w.VBox(layout=w.Layout(border="1px solid #ccc", padding="6px", margin="6px 0"))
        self.render()

    def render(self) -> None:
        import ipywidgets as w

        q = self.question
        self.inst = q.instantiate(self.seed)
        inst = self.inst
        tr = self.tr = translator(q.language)
        header = "<b>{}</b>".format(
            tr(N_("Question {number} of {total}"), number=self.number, total=self.total)
        )
        parts = [header]
        if q.exhibit is not None:
            label = tr(KIND_LABELS[q.exhibit.kind])
            parts.append(exhibit_html(q.exhibit, label, f"exhibit-{q.chapter}-{q.id}-{self.seed}"))
        parts.append(markdown_html(inst.prompt))
        self.controls: list = []
        if q.type in ("single", "multiple"):
            items = "".join(f"<li>{markdown_html(c.text)}</li>" for c in inst.choices)
            # numbered like the terminal and the grader's feedback ("Choice 2 ...")
            parts.append(f"<ol>{items}</ol>")
            letters = [str(i + 1) for i in range(len(inst.choices))]
            if q.type == "single":
                self.controls = [w.RadioButtons(options=letters, value=None)]
            else:
                self.controls = [w.Checkbox(description=letter, indent=False) for letter in letters]
        elif q.type in ("numeric", "text"):
            placeholder = f"answer in {q.unit}" if q.type == "numeric" and q.unit else "answer"
            self.controls = [w.Text(placeholder=placeholder)]
        elif q.type == "ordering":
            items = "".join(f"<li>{markdown_html(t)}</li>" for t in inst.items)
            parts.append(f"<ol>{items}</ol>")
            numbers = [str(i + 1) for i in range(len(inst.items))]
            self.controls = [
                w.Dropdown(
                    options=numbers, value=None, description=tr(N_("place {number}"), number=p + 1)
                )
                for p in range(len(inst.items))
            ]
        elif q.type == "matching":
            options = [(r, j) for j, r in enumerate(inst.right)]
            self.controls = [
                w.Dropdown(options=options, value=None, description=f"{i + 1}.")
                for i in range(len(inst.left))
            ]
            lefts = "".join(f"<li>{markdown_html(t)}</li>" for t in inst.left)
            parts.append(f"<ol>{lefts}</ol>")
        self.check = w.Button(description=tr(N_("Check")), button_style="primary")
        self.check.on_click(lambda _b: self.on_check())
        buttons = [self.check]
        if q.parameterized:
            self.new = w.Button(description=tr(N_("New variant")))
            self.new.on_click(lambda _b: self.on_new())
            buttons.append(self.new)
        self.feedback = w.HTMLMath(value="")
        self.box.children = [
            w.HTMLMath(value="\n".join(parts)),
            *self.controls,
            w.HBox(buttons),
            self.feedback,
        ]

    def response(self):
        q = self.question
        if q.type == "single":
            value = self.controls[0].value
            return None if value is None else int(value) - 1
        if q.type == "multiple":
            return [i for i, c in enumerate(self.controls) if c.value]
        if q.type in ("numeric", "text"):
            return self.controls[0].value
        values = [c.value for c in self.controls]
        if any(v is None for v in values):
            return None
        if q.type == "ordering":
            return [int(v) - 1 for v in values]
        return values

    def on_check(self):
        response = self.response()
        if response is None or response == "" or response == []:
            self.feedback.value = f"<i>{self.tr(N_('Choose or type an answer first.'))}</i>"
            return None
        result = grade(self.inst, response)
        tr = self.tr
        if result.correct:
            verdict = f'<b style="color:#2e7d32">{tr(N_("Correct."))}</b>'
        elif result.score > 0:
            score = format_number(result.score, tr.language, digits=2)
            verdict = f'<b style="color:#a85300">{tr(N_("Partly right: score {score}."), score=score)}</b>'
        else:
            verdict = f'<b style="color:#c62828">{tr(N_("Not quite."))}</b>'
        self.feedback.value = verdict + markdown_html(result.feedback)
        return result

    def on_new(self) -> None:
        self.seed += 1
        self.render()


def quiz_widgets(bank: Bank, seed: int | None = None) -> list[QuestionWidget]:
    """One QuestionWidget per question of ``bank``."""
    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    n = len(bank.questions)
    return [QuestionWidget(q, seed, i, n) for i, q in enumerate(bank.questions, start=1)]


def show_quiz(chapter: str, seed: int | None = None, bank_dir=None, lang: str = "en"):
    """The practice quiz of ``chapter`` as a VBox: make it a cell's last expression to show it.
    ``lang="tr"`` shows it in Turkish (numeric answers then accept a decimal comma)."""
    import ipywidgets as w

    folder = Path(bank_dir) if bank_dir else find_bank_dir()
    bank = translate_bank(load_bank(folder / f"{chapter}.yml"), lang, folder.parent / "locales")
    questions = quiz_widgets(bank, seed)
    title = w.HTML(value=f"<h3>{html.escape(bank.title)}</h3>")
    box = w.VBox([title, *(q.box for q in questions)])
    box.questions = questions
    return box
