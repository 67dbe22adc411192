"""The Turkish edition in Debian's chromium, offline: a practice quiz answered wrong and right
gives Turkish feedback, a numeric answer with a decimal comma is graded right, and the language
switcher leads to the same page in English and back."""

from __future__ import annotations

from pathlib import Path

from nccl_course.i18n.interface import translator
from nccl_course.quiz import load_bank
from nccl_course.quiz.translation import translate_bank

REPO = Path(__file__).resolve().parents[2]
INTRO_TR = translate_bank(load_bank(REPO / "quizzes" / "intro.yml"), "tr", REPO / "locales")
TR = translator("tr")
PAGE = "/book/quizzes/practice.html"
THEME_NOISE = "Got invalid theme mode"


def variant(page, qid: str, seed: int = 0):
    return page.locator(f"#nq-intro-{qid}-{seed}")


def check(v) -> str:
    v.locator(".nccl-quiz-check").click()
    return v.locator(".nccl-quiz-result").inner_text()


def first_words(markdown: str, n: int = 4) -> str:
    words = " ".join(markdown.replace("*", "").replace("`", "").split()[:n])
    return words.replace("\u2019", "'")


def text_of(locator) -> str:
    # Sphinx turns straight apostrophes into typographic ones (GPU'nun -> GPU’nun), and the
    # catalogs write them typographic: both sides are compared with straight ones.
    return locator.inner_text().replace("\u2019", "'")


def test_turkish_quiz_feedback_decimal_comma_and_switcher(offline_page, book_url):
    correct, not_quite = TR("Correct."), TR("Not quite.")
    assert correct != "Correct." and not_quite != "Not quite.", "interface.po lacks these"
    page = offline_page.page
    response = page.goto(book_url + "/tr" + PAGE)
    assert response is not None and response.ok, "the Turkish edition is not built"
    assert page.locator("html").get_attribute("lang") == "tr"
    page.wait_for_selector(".nccl-quiz-question")

    # A single-choice question: wrong, then right, each with its own Turkish feedback.
    inst = INTRO_TR.question("gather-shards-everywhere").instantiate(0)
    v = variant(page, "gather-shards-everywhere")
    right = inst.correct_response()
    wrong = next(i for i in range(len(inst.choices)) if i != right)
    assert first_words(inst.prompt) in text_of(v.locator(".nccl-quiz-prompt"))
    v.locator(f'input[value="{wrong}"]').check()
    assert check(v).startswith(not_quite)
    shown = v.locator(f'[data-fb="choice-{wrong}"]')
    assert shown.is_visible() and first_words(inst.choices[wrong].feedback) in text_of(shown)
    v.locator(f'input[value="{right}"]').check()
    assert check(v) == correct
    assert first_words(inst.choices[right].feedback) in text_of(
        v.locator(f'[data-fb="choice-{right}"]')
    )

    # A numeric answer with the Turkish decimal comma (answer 1.75, tolerance 0.005).
    v = variant(page, "busbw-factor-8")
    box = v.locator(".nccl-quiz-input")
    box.fill("1,754")
    assert check(v) == correct
    box.fill("1,76")
    assert check(v).startswith(not_quite)
    box.fill("bir buçuk")
    assert check(v).startswith(TR("Could not read the answer: {message}.").split("{")[0])

    # The switcher: the same page in English, and back.
    page.get_by_role("link", name="English").click()
    page.wait_for_load_state()
    assert page.url == book_url + PAGE
    assert page.locator("html").get_attribute("lang") == "en"
    page.get_by_role("link", name="Türkçe").click()
    page.wait_for_load_state()
    assert page.url == book_url + "/tr" + PAGE

    assert offline_page.external == [], offline_page.external
    errors = [e for e in offline_page.console_errors if not e.startswith(THEME_NOISE)]
    assert errors == [], errors
