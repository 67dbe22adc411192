"""The notebook quiz (ipywidgets), driven by setting values and clicking, without a kernel."""

from __future__ import annotations

from pathlib import Path

from nccl_course.quiz import load_bank
from nccl_course.quiz.markup import markdown_html
from nccl_course.quiz.widget import show_quiz

REPO = Path(__file__).resolve().parents[2]
INTRO = load_bank(REPO / "quizzes" / "intro.yml")


def widget_for(box, qid):
    return next(q for q in box.questions if q.question.id == qid)


def test_markdown_keeps_math_for_mathjax():
    out = markdown_html("Time $a<b$ and $$x^2$$ with `code`")
    assert "$a&lt;b$" in out and "$$x^2$$" in out and "<code>code</code>" in out


def test_single_choice_right_and_wrong():
    box = show_quiz("intro", seed=4, bank_dir=REPO / "quizzes")
    assert len(box.questions) == len(INTRO.questions)
    qw = widget_for(box, "gather-shards-everywhere")
    right = qw.inst.correct_response()
    qw.controls[0].value = str((right + 1) % 4 + 1)
    qw.check.click()
    assert "Not quite." in qw.feedback.value
    qw.controls[0].value = str(right + 1)
    qw.check.click()
    assert "Correct." in qw.feedback.value and "FSDP" in qw.feedback.value


def test_numeric_with_units_and_new_variant():
    box = show_quiz("intro", seed=4, bank_dir=REPO / "quizzes")
    qw = widget_for(box, "allreduce-time-busbw")
    qw.controls[0].value = f"{qw.inst.answer / 1e3:.6g} s"
    qw.check.click()
    assert "Correct." in qw.feedback.value
    first = qw.inst.key()
    qw.new.click()
    assert qw.seed == 5 and qw.inst.key() != first and qw.feedback.value == ""
    qw.controls[0].value = f"{qw.inst.answer * 1.5:.6g}"
    qw.check.click()
    assert "Not quite." in qw.feedback.value


def test_multiple_ordering_matching_text():
    box = show_quiz("intro", seed=1, bank_dir=REPO / "quizzes")
    qw = widget_for(box, "nccl-call-semantics")
    qw.controls[qw.inst.correct_response()[0]].value = True
    assert qw.on_check().score == 0.5
    qw = widget_for(box, "ring-allreduce-order")
    for place, item in enumerate(qw.inst.order):
        qw.controls[place].value = str(item + 1)
    assert qw.on_check().correct
    qw = widget_for(box, "collective-for-training-step")
    for i, j in enumerate(qw.inst.match):
        qw.controls[i].value = j
    assert qw.on_check().correct
    qw = widget_for(box, "cpu-backend-name")
    qw.controls[0].value = "gloo"
    assert qw.on_check().correct
    qw.controls[0].value = ""
    assert qw.on_check() is None and "first" in qw.feedback.value


def test_public_html_view():
    inst = INTRO.question("chunked-ring-large-tensor").instantiate(0)
    public = inst.public(html=True)
    assert public["prompt_html"].startswith("<p>")
    assert len(public["choices_html"]) == len(public["choices"])
    assert any("$n/p$" in c for c in public["choices_html"])
    assert "prompt_html" not in inst.public()
