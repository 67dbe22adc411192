"""The mock exam page in the built book, both editions, in Debian's chromium, offline.

A learner takes form 2 by keyboard alone: some questions right, some wrong, one left blank;
nothing is graded before "Submit the mock exam"; then every question shows its verdict, the
score is the one Python's grader gives for the same answers against the blueprint's pass mark,
and the per-chapter and per-objective tables hold each row's points, with the rows below the
pass mark marked and linking to their chapter. The form's questions are the blueprint's draw
(``nccl_course.book.mock_exam.mock_instances``), each a variant the practice pages print.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.book.mock_exam import BLUEPRINT, form_seed, mock_instances
from nccl_course.exam.blueprint import fit_to_banks, load_blueprint
from nccl_course.i18n.interface import translator
from nccl_course.i18n.numbers import localize_decimals
from nccl_course.quiz import grade
from nccl_course.quiz.banks import load_banks
from nccl_course.quiz.printed import printed_seeds

REPO = Path(__file__).resolve().parents[2]
BANKS = load_banks(REPO / "quizzes")
EXAM = fit_to_banks(load_blueprint(REPO / "quizzes" / BLUEPRINT), BANKS)
FORM = 2
PAGES = {"en": "/book/quizzes/mock-exam.html", "tr": "/tr/book/quizzes/mock-exam.html"}
THEME_NOISE = "Got invalid theme mode"  # pydata-sphinx-theme, on a first visit


def plan():
    """``[(instance, response or None)]`` for the form: every third question wrong, the fifth
    left blank, the rest right."""
    out = []
    for position, (chapter, qid, seed) in enumerate(mock_instances(EXAM, BANKS, form_seed(FORM))):
        inst = BANKS[chapter].question(qid).instantiate(seed)
        if position == 4:
            out.append((inst, None))
        elif position % 3 == 0:
            out.append((inst, wrong_response(inst)))
        else:
            out.append((inst, right_response(inst)))
    return out


def right_response(inst):
    kind = inst.type
    if kind == "single":
        return next(i for i, c in enumerate(inst.choices) if c.correct)
    if kind == "multiple":
        return [i for i, c in enumerate(inst.choices) if c.correct]
    if kind == "numeric":
        return repr(inst.answer)
    if kind == "text":
        return inst.answers[0]
    if kind == "ordering":
        return list(inst.order)
    return list(inst.match)  # matching


def wrong_response(inst):
    kind = inst.type
    if kind == "single":
        return next(i for i, c in enumerate(inst.choices) if not c.correct)
    if kind == "multiple":
        return [next(i for i, c in enumerate(inst.choices) if not c.correct)]
    if kind == "numeric":
        return repr(inst.answer * 7 + 3)
    if kind == "text":
        return "no such answer"
    if kind == "ordering":
        order = list(inst.order)
        return order[1:] + order[:1]
    n = len(inst.right)
    return [(m + 1) % n for m in inst.match]  # matching


def answer(page, question, inst, response, language) -> None:
    """Give ``response`` with the keyboard: focus a control, then keys (a number as the page's
    language writes it: Turkish reads "28.125" as twenty-eight thousand)."""
    keys = page.keyboard
    kind = inst.type
    if kind in ("single", "multiple"):
        for index in [response] if kind == "single" else response:
            question.locator(f'input[value="{index}"]').focus()
            keys.press("Space")
    elif kind in ("numeric", "text"):
        question.locator(".nccl-quiz-input").focus()
        keys.type(localize_decimals(response, language) if kind == "numeric" else response)
    elif kind == "ordering":
        # Bring each wanted item up to its place with its "move up" button.
        for place, wanted in enumerate(response):
            items = question.locator(".nccl-quiz-order > .nccl-quiz-item")
            now = [int(items.nth(i).get_attribute("data-index")) for i in range(items.count())]
            item = question.locator(f'.nccl-quiz-item[data-index="{wanted}"]')
            item.locator(".nccl-quiz-up").focus()
            for _ in range(now.index(wanted) - place):
                keys.press("Enter")
    else:  # matching: option 0 is "choose…", option j + 1 is right[j]
        for row, pick in enumerate(response):
            select = question.locator(".nccl-quiz-select").nth(row)
            select.focus()
            for _ in range(pick + 1):
                keys.press("ArrowDown")
            assert select.input_value() == str(pick), (inst.question.uid, row)


@pytest.mark.parametrize("language", ["en", "tr"])
def test_take_the_mock_exam(offline_page, book_url, language):
    page = offline_page.page
    response = page.goto(book_url + PAGES[language])
    assert response is not None and response.ok, f"{PAGES[language]} is not in the built book"
    tr = translator(language)
    page.wait_for_selector(".nccl-mock")

    # Pick the form with the keyboard: the radio group's arrow keys.
    page.locator('input[name="nccl-mock-form"][value="1"]').focus()
    page.keyboard.press("ArrowRight")
    form = page.locator(f'.nccl-mock-form[data-form="{FORM}"]')
    assert form.is_visible() and not page.locator('.nccl-mock-form[data-form="1"]').is_visible()

    answers = plan()
    questions = form.locator(".nccl-mock-question")
    assert questions.count() == len(answers) == EXAM.question_count
    for n, (inst, given) in enumerate(answers):
        question = questions.nth(n)
        assert question.get_attribute("data-qid") == inst.question.id
        variant = question.locator(".nccl-quiz-variant")
        assert int(variant.get_attribute("data-seed")) in printed_seeds(inst.question)
        assert question.locator(".nccl-quiz-check").count() == 0  # no grading before Submit
        if given is not None:
            answer(page, question, inst, given, language)
    assert form.locator(".nccl-quiz-result").evaluate_all(
        "boxes => boxes.every(b => b.textContent === '')"
    )
    assert not form.locator(".nccl-mock-result").is_visible()

    form.locator(".nccl-mock-submit").focus()
    page.keyboard.press("Enter")
    score_box = form.locator(".nccl-mock-score")
    score_box.wait_for()

    # Every question is graded as Python grades the same answer; a blank one scores 0.
    expected = [0.0 if given is None else grade(inst, given).score for inst, given in answers]
    assert 0 < sum(expected) < len(expected)
    shown = [float(questions.nth(n).get_attribute("data-score")) for n in range(len(answers))]
    assert shown == pytest.approx(expected)
    results = form.locator(".nccl-quiz-result")
    assert results.nth(1).inner_text() == tr("Correct.")
    assert results.nth(4).inner_text() == tr("Not answered: score 0.")
    assert tr("Not quite.") in results.nth(0).inner_text() or expected[0] > 0

    share = sum(expected) / len(expected)
    assert float(form.get_attribute("data-score")) == pytest.approx(share)
    assert form.get_attribute("data-passed") == str(share >= EXAM.pass_score).lower()
    verdict = "Passed: at or above the pass mark of {pass}."
    if share < EXAM.pass_score:
        verdict = "Not passed: below the pass mark of {pass}."
    percent = tr("{value} %", value=f"{EXAM.pass_score * 100:.0f}")
    assert tr(verdict).format(**{"pass": percent}) in score_box.inner_text()
    assert page.evaluate("document.activeElement.classList.contains('nccl-mock-score')")

    # The tables: each row's points are the sum over its questions, weak rows link to revisit.
    by_chapter: dict[str, list[float]] = {}
    by_objective: dict[str, list[float]] = {}
    for (inst, _), score in zip(answers, expected, strict=True):
        by_chapter.setdefault(inst.question.chapter, []).append(score)
        by_objective.setdefault(inst.question.objective, []).append(score)
    for attribute, table in (("data-chapter", by_chapter), ("data-objective", by_objective)):
        rows = form.locator(f"table.nccl-mock-breakdown tr[{attribute}]")
        assert rows.count() == len(table)
        for i in range(rows.count()):
            row = rows.nth(i)
            scores = table[row.get_attribute(attribute)]
            points = row.locator(".nccl-mock-points").inner_text().replace(",", ".")
            assert float(points) == pytest.approx(sum(scores), abs=0.005)
            weak = sum(scores) / len(scores) < EXAM.pass_score
            assert ("nccl-mock-weak" in (row.get_attribute("class") or "")) == weak
            if weak:
                assert tr("revisit") in row.locator(".nccl-mock-percent").inner_text()
                href = row.locator("th a").get_attribute("href")
                assert href and href.endswith(".html") and not href.startswith("http"), href
                target = page.evaluate("href => new URL(href, location.href).href", href)
                assert page.request.get(target).ok, target

    # Again: the answers and verdicts are cleared, and Submit is back.
    form.locator(".nccl-mock-again").focus()
    page.keyboard.press("Enter")
    assert not form.locator(".nccl-mock-result").is_visible()
    assert form.locator(".nccl-mock-submit").is_visible()
    assert form.locator("input:checked").count() == 0
    assert form.locator(".nccl-quiz-result").evaluate_all(
        "boxes => boxes.every(b => b.textContent === '')"
    )

    # The clock shows the blueprint's limit counting down.
    page.locator(".nccl-mock-start").focus()
    page.keyboard.press("Enter")
    minutes = EXAM.time_limit_s // 60
    clock = page.locator(".nccl-mock-clock").inner_text()
    assert clock.split(":")[0] in (str(minutes), str(minutes - 1)), clock

    assert offline_page.external == [], offline_page.external
    errors = [e for e in offline_page.console_errors if not e.startswith(THEME_NOISE)]
    assert errors == [], errors
