"""The practice-quiz page in the built book, in Debian's chromium, offline.

Right and wrong answers show their own feedback; numeric answers are accepted inside the
tolerance (in any unit of the family) and rejected outside; "New variant" swaps the numbers;
the page's grader agrees with Python's; and the page never touches the network.
"""

from __future__ import annotations

from pathlib import Path

from nccl_course.quiz import grade_key, load_bank
from nccl_course.quiz.sphinx_directive import page_key

REPO = Path(__file__).resolve().parents[2]
INTRO = load_bank(REPO / "quizzes" / "intro.yml")
PAGE = "/book/quizzes/practice.html"
# pydata-sphinx-theme logs this with console.error on a first visit (no stored theme choice).
THEME_NOISE = "Got invalid theme mode"


def test_practice_quiz_page(offline_page, book_url):
    """One page load (the page holds every bank, and MathJax typesets it all), then each check."""
    page = offline_page.page
    response = page.goto(book_url + PAGE)
    assert response is not None and response.ok, f"{PAGE} is not in the built book"
    page.wait_for_selector(".nccl-quiz-question")
    for check_fn in CHECKS:
        check_fn(page)
    assert offline_page.external == [], offline_page.external
    errors = [e for e in offline_page.console_errors if not e.startswith(THEME_NOISE)]
    assert errors == [], errors


def variant(page, qid: str, seed: int = 0):
    return page.locator(f"#nq-intro-{qid}-{seed}")


def check(v):
    v.locator(".nccl-quiz-check").click()
    return v.locator(".nccl-quiz-result").inner_text()


def first_words(markdown: str, n: int = 5) -> str:
    return " ".join(markdown.replace("*", "").split()[:n])


def text_of(locator) -> str:
    # Sphinx turns straight quotes into typographic ones.
    return locator.inner_text().replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')


def check_single_choice_shows_the_feedback_of_the_choice(quiz):
    inst = INTRO.question("gather-shards-everywhere").instantiate(0)
    v = variant(quiz, "gather-shards-everywhere")
    right = inst.correct_response()
    wrong = next(i for i in range(len(inst.choices)) if i != right)
    v.locator(f'input[value="{wrong}"]').check()
    assert check(v).startswith("Not quite")
    shown = v.locator(f'[data-fb="choice-{wrong}"]')
    assert shown.is_visible()
    assert first_words(inst.choices[wrong].feedback) in text_of(shown)
    assert not v.locator(f'[data-fb="choice-{right}"]').is_visible()

    v.locator(f'input[value="{right}"]').check()
    assert check(v) == "Correct."
    assert v.locator(f'[data-fb="choice-{right}"]').is_visible()
    right_fb = v.locator(f'[data-fb="choice-{right}"]')
    assert first_words(inst.choices[right].feedback) in text_of(right_fb)
    assert not shown.is_visible()


def check_numeric_tolerance_mistakes_and_units(quiz):
    v = variant(quiz, "busbw-factor-8")
    box = v.locator(".nccl-quiz-input")
    box.fill("1.754")  # answer 1.75, abs tolerance 0.005
    assert check(v) == "Correct."
    assert v.locator('[data-fb="correct"]').is_visible()
    box.fill("1.76")
    assert check(v).startswith("Not quite")
    assert v.locator('[data-fb="incorrect"]').is_visible()
    assert not v.locator('[data-fb="correct"]').is_visible()
    box.fill("0.875")  # the all-gather factor: a named mistake
    assert check(v).startswith("Not quite")
    assert "all-gather" in v.locator('[data-fb="mistake:0"]').inner_text()
    box.fill("7 ms")
    assert "Could not read" in check(v)


def check_parameterized_numeric_and_new_variant(quiz):
    question = INTRO.question("allreduce-time-busbw")  # unit ms, rel tolerance 0.02
    for seed in (0, 1):
        inst = question.instantiate(seed)
        v = variant(quiz, "allreduce-time-busbw", seed)
        assert v.is_visible()
        assert inst.params["size"] in v.locator(".nccl-quiz-prompt").inner_text()
        box = v.locator(".nccl-quiz-input")
        box.fill(f"{inst.answer * 1.015:.6g}")
        assert check(v) == "Correct."
        box.fill(f"{inst.answer * 1.03:.6g}")
        assert check(v).startswith("Not quite")
        box.fill(f"{inst.answer / 1e3:.6g} s")
        assert check(v) == "Correct."
        v.locator(".nccl-quiz-new").click()
        assert not v.is_visible()
    assert variant(quiz, "allreduce-time-busbw", 2).is_visible()


def check_multiple_select_partial_credit(quiz):
    inst = INTRO.question("nccl-call-semantics").instantiate(0)
    v = variant(quiz, "nccl-call-semantics")
    right = inst.correct_response()
    v.locator(f'input[value="{right[0]}"]').check()
    assert check(v) == "Partly right: score 0.50."
    assert v.locator(f'[data-fb="choice-{right[1]}"]').is_visible()  # the missed one
    v.locator(f'input[value="{right[1]}"]').check()
    assert check(v) == "Correct."


def check_ordering_matching_and_text(quiz):
    inst = INTRO.question("ring-allreduce-order").instantiate(0)
    v = variant(quiz, "ring-allreduce-order")
    assert check(v).startswith("Not quite")  # shown shuffled, never already in order
    # bubble the items into the right order with the up buttons
    for target_pos, item in enumerate(inst.order):
        for _ in range(len(inst.order)):
            items = v.locator(".nccl-quiz-item")
            current = [int(items.nth(i).get_attribute("data-index")) for i in range(items.count())]
            if current.index(item) == target_pos:
                break
            v.locator(f'.nccl-quiz-item[data-index="{item}"] .nccl-quiz-up').click()
    assert check(v) == "Correct."

    inst = INTRO.question("collective-for-training-step").instantiate(0)
    v = variant(quiz, "collective-for-training-step")
    selects = v.locator(".nccl-quiz-select")
    for i in range(len(inst.match)):
        selects.nth(i).select_option(str(inst.match[(i + 1) % len(inst.match)]))
    assert "0 of 4 pairs are right" in check(v)
    for i, j in enumerate(inst.match):
        selects.nth(i).select_option(str(j))
    assert check(v) == "Correct."

    v = variant(quiz, "cpu-backend-name")
    v.locator(".nccl-quiz-input").fill("NCCL")
    assert check(v).startswith("Not quite")
    assert v.locator('[data-fb="mistake:1"]').is_visible()
    v.locator(".nccl-quiz-input").fill(" Gloo")
    v.locator(".nccl-quiz-input").press("Enter")
    assert v.locator(".nccl-quiz-result").inner_text() == "Correct."


def check_page_grader_matches_python(quiz):
    cases = []
    for question in INTRO.questions:
        inst = question.instantiate(0)
        key = inst.key()
        responses = [inst.correct_response()]
        if question.type == "numeric":
            a, tol = key["answer"], key["tol"]
            responses += [a + 0.99 * tol, a + 1.01 * tol, f"{a * 1000!r} us", "x"]
        cases.append((page_key(inst), responses, [grade_key(key, r) for r in responses]))
    for pkey, responses, grades in cases:
        for response, g in zip(responses, grades, strict=True):
            js = quiz.evaluate("([k, r]) => window.NcclQuiz.gradeKey(k, r)", [pkey, response])
            assert (js["score"], js["outcome"]) == (g.score, g.outcome), (pkey["uid"], response)


def check_math_is_typeset_locally(quiz):
    # MathJax comes from the book's own _static/vendor; a prompt's math becomes mjx-container.
    prompt = variant(quiz, "chunked-ring-large-tensor")
    math = prompt.locator(".nccl-quiz-choice-text mjx-container").first
    math.wait_for(state="attached", timeout=20000)
    assert math.is_visible()


def check_exhibits_are_labelled_focusable_and_scroll(quiz):
    """An exhibit is a region named by its caption, its lines numbered as the choices name
    them; it takes the keyboard focus, and a long log scrolls inside it with the arrow keys."""
    program = quiz.locator("#nq-debugging-dbg-prog-rank0-allreduce-0 pre.nccl-exhibit-text")
    caption = "Program: run on 2 ranks (the launcher has initialised the process group)"
    region = quiz.get_by_role("region", name=caption)
    assert region.count() >= 1
    lines = program.inner_text().split("\n")
    assert lines[0] == " 1  import torch" and lines[7] == " 8          dist.all_reduce(loss)"
    log = quiz.locator("#nq-debugging-dbg-log-watchdog-odd-op-0 pre.nccl-exhibit-text")
    log.evaluate("el => el.closest('.nccl-quiz-variant').scrollIntoView()")
    log.focus()
    assert log.evaluate("el => document.activeElement === el")
    assert log.evaluate("el => el.scrollWidth > el.clientWidth"), "the long log does not scroll"
    assert log.evaluate("el => getComputedStyle(el).overflowX") == "auto"
    for _ in range(5):
        quiz.keyboard.press("ArrowRight")
    quiz.wait_for_function("el => el.scrollLeft > 0", arg=log.element_handle(), timeout=5_000)


CHECKS = [
    check_exhibits_are_labelled_focusable_and_scroll,
    check_single_choice_shows_the_feedback_of_the_choice,
    check_numeric_tolerance_mistakes_and_units,
    check_parameterized_numeric_and_new_variant,
    check_multiple_select_partial_credit,
    check_ordering_matching_and_text,
    check_page_grader_matches_python,
    check_math_is_typeset_locally,
]
