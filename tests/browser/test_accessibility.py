"""Accessibility in Debian's chromium: axe-core's WCAG 2.0/2.1 A and AA rules on every kind of
page the course has, in both editions, and every quiz answer kind by keyboard alone.

axe-core is the npm package pinned in package.json; the test reads it from node_modules and puts
it into the page itself (no CDN). The server sends a Content-Security-Policy that would refuse an
inline script, so only the browser context that runs axe bypasses it; the other browser tests
keep the policy. A violation fails the test with its rule id, impact, the selector of each
element and the rule's help page, so the message says what to fix and where.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nccl_course.quiz.keys import correct_response
from tests.support.server_process import ServerProcess

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
# The WCAG 2.0 and 2.1 success criteria at levels A and AA, as axe-core tags its rules.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
EDITIONS = {"en": "", "tr": "/tr"}
# Each page in the theme's light colours in both editions (the editions differ in text, labels
# and lang), and in its dark colours in English: the dark theme is the same stylesheet on the
# same markup in both editions, so its contrasts are those of the English page.
SCHEMES = [("en", "light"), ("tr", "light"), ("en", "dark")]

# One page of each kind the book has (paths under the edition's root). The practice quiz page,
# the largest, is checked whole once its questions are graded
# (test_graded_practice_questions_have_no_wcag_violations: every question, graded or not, in
# the light theme of each edition; in the dark theme the graded questions, whose verdicts only
# that page shows: the rest of its markup is the other questions', and the dark theme's
# stylesheet is checked whole on the pages below), so not here as loaded as well.
PRACTICE_PAGE = "book/quizzes/practice.html"
BOOK_PAGES = {
    "chapter with math": "book/algorithms/01-ring.html",
    "explorers": "book/algorithms/05-cost-model.html",
    "narration": "book/collectives/03-all-reduce.html",
    "mock exam": "book/quizzes/mock-exam.html",
    "progress": "book/quizzes/progress.html",
    "labs index": "labs/README.html",
}

# Elements the third-party theme writes (pydata-sphinx-theme, sphinx-book-theme, myst-nb), whose
# names the course's CSS cannot change: each is excused from one rule only, as (rule, CSS selector,
# why); every other rule still checks them, and the rule still checks every other element.
THIRD_PARTY = [
    (
        "label-content-name-mismatch",
        "button.search-button-field",
        "pydata-sphinx-theme's search button is named 'Search' and also shows its shortcut, "
        "Ctrl + K, which axe counts as label text missing from the name",
    ),
    (
        "label-content-name-mismatch",
        "button.theme-switch-button",
        "pydata-sphinx-theme's colour-mode button is named 'Color mode'; its icons' SVG titles "
        "(Light, Dark, System) count as visible text",
    ),
    (
        "label-content-name-mismatch",
        "details.hide > summary[aria-label]",
        "myst-nb's summary of a hidden code cell is named 'Toggle hidden content' and shows "
        "'Show code cell source'",
    ),
]

RUN_AXE = """async ([tags, excused, include]) => {
  const options = { runOnly: { type: "tag", values: tags }, elementRef: true };
  const result = await axe.run(include ? { include: [include] } : document, options);
  const isExcused = (rule, node) =>
    excused.some(([id, selector]) => id === rule && node.element && node.element.matches(selector));
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
    targets: v.nodes.filter((n) => !isExcused(v.id, n)).map((n) => n.target.join(" ")),
  })).filter((v) => v.targets.length > 0);
}"""

# Everything the page draws after load is drawn: MathJax has typeset, explorers are ready.
SETTLED = """() => {
  const math = !window.MathJax || !MathJax.startup || !MathJax.startup.promise
    ? Promise.resolve() : MathJax.startup.promise;
  return math.then(() => true);
}"""


def axe_source() -> str:
    if not AXE.exists():
        pytest.fail(f"{AXE} not found: run 'npm ci' in {REPO} (axe-core is a dev dependency)")
    return AXE.read_text(encoding="utf-8")


def violations(page, include: str | None = None) -> list[dict]:
    """axe-core's WCAG A/AA violations on the page as it is now (only in the elements that the
    CSS selector ``include`` matches, when given)."""
    page.add_script_tag(content=axe_source())
    excused = [[rule, selector] for rule, selector, _ in THIRD_PARTY]
    return page.evaluate(RUN_AXE, [WCAG_TAGS, excused, include])


def describe(found: list[dict]) -> str:
    lines = []
    for v in found:
        lines.append(
            f"{v['id']} ({v['impact']}, {len(v['targets'])} element(s)): {v['help']} - {v['helpUrl']}"
        )
        lines.extend(f"    {target}" for target in v["targets"])
    return "\n".join(lines)


def assert_accessible(page, where: str, include: str | None = None) -> None:
    found = violations(page, include)
    assert not found, f"{count(found)} accessibility violation(s) on {where}:\n{describe(found)}"


def count(found: list[dict]) -> int:
    """Failing elements, summed over rules."""
    return sum(len(v["targets"]) for v in found)


@pytest.fixture()
def axe_page(browser):
    """A page whose context bypasses the Content-Security-Policy, so axe can be injected."""
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    yield page
    context.close()


@pytest.mark.parametrize(("language", "scheme"), SCHEMES)
@pytest.mark.parametrize("kind", list(BOOK_PAGES))
def test_book_page_has_no_wcag_violations(browser, book_url, kind, language, scheme):
    """Each page in the theme's light and dark colours (the theme follows the browser's)."""
    context = browser.new_context(bypass_csp=True, color_scheme=scheme)
    page = context.new_page()
    try:
        url = f"{book_url}{EDITIONS[language]}/{BOOK_PAGES[kind]}"
        response = page.goto(url)
        assert response is not None and response.ok, f"{url} is not in the built book"
        page.wait_for_load_state("load")
        page.evaluate(SETTLED)
        if kind == "explorers":
            page.wait_for_selector('.nccl-explorer[data-ready="true"]', timeout=20_000)
        where = f"the {kind} page ({language}, {scheme} theme: {BOOK_PAGES[kind]})"
        assert_accessible(page, where)
    finally:
        context.close()


@pytest.fixture(scope="module")
def exam_server(tmp_path_factory):
    data = tmp_path_factory.mktemp("a11y-exam")
    with ServerProcess(data, quizzes=REPO / "quizzes", book=data / "no-book") as server:
        yield server


@pytest.mark.parametrize("language", list(EDITIONS))
def test_exam_pages_have_no_wcag_violations(axe_page, exam_server, language):
    """Each state of the exam page, then verify and confirm; every page is checked before the
    test fails, so the message lists them all."""
    page = axe_page
    base = exam_server.url
    found: dict[str, list[dict]] = {}
    page.goto(f"{base}/exam?lang={language}")
    page.wait_for_selector("#auth:not([hidden])")
    found["the exam's sign-in"] = violations(page)

    page.fill("#name", "Ada Lovelace")
    page.fill("#email", f"ada-{language}@example.org")
    page.click("#register")
    page.wait_for_selector("#home:not([hidden])")
    found["the exam's home, signed in"] = violations(page)

    page.click("#start")
    page.wait_for_selector("#attempt:not([hidden])")
    page.evaluate(SETTLED)
    found["the exam with an attempt open"] = violations(page)

    # submitted with nothing answered: the result lists every question as not answered
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#submit")
    page.wait_for_selector("#result:not([hidden])")
    page.evaluate(SETTLED)
    found["the exam's result"] = violations(page)

    page.goto(f"{base}/exam/verify?lang={language}")
    page.wait_for_selector("#verify")
    found["the verify page"] = violations(page)
    page.fill("#credential-text", '{"type": ["VerifiableCredential"]}')
    page.click("#verify")
    page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
    found["the verify page with a verdict"] = violations(page)

    page.goto(f"{base}/exam/confirm?lang={language}#token=not-a-real-token")
    page.wait_for_selector("#confirm")
    found["the confirm page"] = violations(page)
    page.click("#confirm")
    page.wait_for_selector("#message:not([hidden])")
    found["the confirm page with its message"] = violations(page)

    report = [f"{where} ({language}):\n{describe(v)}" for where, v in found.items() if v]
    assert not report, "accessibility violations:\n" + "\n".join(report)


@pytest.mark.parametrize("language", list(EDITIONS))
def test_mock_exam_graded_has_no_wcag_violations(axe_page, book_url, language):
    """The mock exam once submitted: every question's verdict and feedback, the score, and the
    tables by chapter and objective (the page as loaded is in BOOK_PAGES)."""
    page = axe_page
    url = f"{book_url}{EDITIONS[language]}/{BOOK_PAGES['mock exam']}"
    response = page.goto(url)
    assert response is not None and response.ok, f"{url} is not in the built book"
    page.wait_for_selector(".nccl-mock")
    page.evaluate(SETTLED)
    form = page.locator(".nccl-mock-form:visible").first
    # one question answered, the rest left blank: both kinds of verdict are shown
    form.locator(".nccl-mock-question input[type=radio]").first.check()
    form.locator(".nccl-mock-submit").click()
    form.locator(".nccl-mock-score").wait_for()
    page.evaluate(SETTLED)
    assert_accessible(page, f"the mock exam, submitted ({language})")


ADMIN_TOKEN = "a11y-admin-token"


@pytest.fixture(scope="module")
def stats_server(tmp_path_factory):
    """A server whose database holds a simulated class, with an admin token."""
    from tests.exam.conftest import write_quizzes
    from tests.support.simulated_class import class_database

    folder = tmp_path_factory.mktemp("a11y-stats")
    data, _ = class_database(folder / "data", learners=120, exam_id="test-exam")
    with ServerProcess(
        data,
        quizzes=write_quizzes(folder / "quizzes"),
        book=folder / "no-book",
        admin_token=ADMIN_TOKEN,
    ) as server:
        yield server


@pytest.mark.parametrize("language", list(EDITIONS))
def test_admin_stats_page_has_no_wcag_violations(axe_page, stats_server, language):
    """The admin's item statistics page: empty, refused (a wrong token), and with the tables."""
    page = axe_page
    found: dict[str, list[dict]] = {}
    page.goto(f"{stats_server.url}/exam/admin/stats?lang={language}")
    page.wait_for_selector("#admin-token")
    found["the stats page, before loading"] = violations(page)

    def show(token: str) -> None:
        page.fill("#admin-token", token)
        page.fill("#min-responses", "30")
        page.click("#load")

    show("not-the-token")
    page.wait_for_selector("#message.error")
    found["the stats page, refused"] = violations(page)
    show(ADMIN_TOKEN)
    page.wait_for_selector("#items tr >> nth=12")
    found["the stats page with the tables"] = violations(page)
    report = [f"{where} ({language}):\n{describe(v)}" for where, v in found.items() if v]
    assert not report, "accessibility violations:\n" + "\n".join(report)


# The id of the first shown variant of a choice question with two right choices or more.
TWO_RIGHT = """() => [...document.querySelectorAll(
    '.nccl-quiz-question[data-type="multiple"] .nccl-quiz-variant:not([hidden])')]
  .find((v) => JSON.parse(v.querySelector("script.nccl-quiz-key").textContent).correct.length > 1)
  .id"""


# The practice page's questions that show a verdict or a revealed answer.
VERDICTS = ("correct", "partial", "incorrect", "unreadable", "revealed")
GRADED_QUESTIONS = ".nccl-quiz-question:has({})".format(
    ", ".join(f".nccl-quiz-result.nccl-quiz-{v}" for v in VERDICTS)
)


def show_every_verdict(page) -> None:
    """Grade questions on the practice page so that each verdict and its feedback is shown: right,
    partly right, wrong, unreadable, and a revealed answer."""

    def variant(kind: str, nth: int = 0):
        question = page.locator(f'.nccl-quiz-question[data-type="{kind}"]').nth(nth)
        return question.locator(".nccl-quiz-variant:not([hidden])")

    def key_of(v) -> dict:
        return json.loads(v.locator("script.nccl-quiz-key").text_content())

    right = variant("single")
    right.locator(f'input[value="{correct_response(key_of(right))}"]').check()
    wrong = variant("single", 1)
    key = key_of(wrong)
    choice = next(i for i in range(key["n_choices"]) if i not in key["correct"])
    wrong.locator(f'input[value="{choice}"]').check()
    partly = page.locator(f"#{page.evaluate(TWO_RIGHT)}")
    partly.locator(f'input[value="{key_of(partly)["correct"][0]}"]').check()
    unreadable = variant("numeric")
    unreadable.locator(".nccl-quiz-input").fill("many")
    revealed = variant("text")
    for v in (right, wrong, partly, unreadable):
        v.locator(".nccl-quiz-check").click()
    revealed.locator(".nccl-quiz-reveal").click()
    shown = {v: page.locator(f".nccl-quiz-result.nccl-quiz-{v}").count() for v in VERDICTS}
    assert all(shown.values()), f"a verdict was not shown: {shown}"
    page.evaluate(SETTLED)


@pytest.mark.parametrize(("language", "scheme"), SCHEMES)
def test_graded_practice_questions_have_no_wcag_violations(browser, book_url, language, scheme):
    """The verdicts' colours and the feedback, on the theme's light and dark backgrounds."""
    context = browser.new_context(bypass_csp=True, color_scheme=scheme)
    page = context.new_page()
    try:
        url = f"{book_url}{EDITIONS[language]}/{PRACTICE_PAGE}"
        response = page.goto(url)
        assert response is not None and response.ok, f"{url} is not in the built book"
        page.evaluate(SETTLED)
        show_every_verdict(page)
        # axe takes seconds on the whole page (about 40,000 elements): whole in the light theme
        # of each edition, the graded questions in the dark one (see PRACTICE_PAGE)
        graded = None if scheme == "light" else GRADED_QUESTIONS
        where = f"the practice page, graded ({language}, {scheme} theme)"
        assert_accessible(page, where, graded)
    finally:
        context.close()


# The first question of each answer kind on the practice page, answered by keyboard alone.
FOCUSED = "(selector) => document.activeElement && document.activeElement.matches(selector)"
# How the focused element shows its focus: an outline or a ring (box shadow), or nothing.
FOCUS_RING = """() => {
  const s = getComputedStyle(document.activeElement);
  const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0;
  return outline || s.boxShadow !== "none" ? "" : document.activeElement.outerHTML.slice(0, 200);
}"""


def tab_to(page, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches ``selector`` (as a keyboard user would); the
    element must show that it has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED, selector):
            unmarked = page.evaluate(FOCUS_RING)
            assert not unmarked, f"the keyboard's focus is not visible on {unmarked}"
            return
    active = page.evaluate("document.activeElement.outerHTML.slice(0, 200)")
    raise AssertionError(f"{limit} presses of Tab never reached {selector}; focus is on {active}")


def press(page, key: str, times: int = 1) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def answer_by_keyboard(page, variant: str, key: dict) -> None:
    """Reach and set each control of the question in ``variant`` (a CSS selector) from the
    keyboard, then press its Check button."""
    response = correct_response(key)
    kind = key["type"]
    if kind == "single":
        # Tab enters the group on its first radio; an arrow key moves and selects.
        tab_to(page, f"{variant} .nccl-quiz-choices input")
        if response == 0:
            page.keyboard.press("Space")
        else:
            press(page, "ArrowDown", response)
    elif kind == "multiple":
        for choice in sorted(response):
            tab_to(page, f'{variant} .nccl-quiz-choices input[value="{choice}"]')
            page.keyboard.press("Space")
    elif kind in ("numeric", "text"):
        tab_to(page, f"{variant} .nccl-quiz-input")
        page.keyboard.type(repr(response) if kind == "numeric" else str(response))
    elif kind == "ordering":
        # Bring each item to its place with its own "move up" button, the focus staying on it.
        for place, item in enumerate(response):
            now = page.evaluate(
                "([v, item]) => [...document.querySelectorAll(`${v} .nccl-quiz-item`)]"
                ".findIndex((el) => el.dataset.index === String(item))",
                [variant, item],
            )
            if now > place:
                tab_to(page, f'{variant} .nccl-quiz-item[data-index="{item}"] .nccl-quiz-up')
                press(page, "Enter", now - place)
    elif kind == "matching":
        for row, right in enumerate(response):
            tab_to(page, f'{variant} tr[data-index="{row}"] select')
            press(page, "ArrowDown", right + 1)  # past the "choose" placeholder
    else:
        raise AssertionError(f"no keyboard answer for a {kind} question")
    tab_to(page, f"{variant} .nccl-quiz-check")
    page.keyboard.press("Enter")


def test_every_question_kind_can_be_answered_by_keyboard(browser, book_url):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{book_url}/{PRACTICE_PAGE}")
        page.wait_for_selector(".nccl-quiz-question")
        page.evaluate(SETTLED)
        kinds = ["single", "multiple", "numeric", "text", "ordering", "matching"]
        for kind in kinds:
            question = page.locator(f'.nccl-quiz-question[data-type="{kind}"]').first
            assert question.count() == 1, f"the practice page has no {kind} question"
            variant_id = question.locator(".nccl-quiz-variant:not([hidden])").get_attribute("id")
            variant = f"#{variant_id}"
            key = json.loads(page.locator(f"{variant} script.nccl-quiz-key").text_content())
            # the keyboard starts from the question's number, above its controls
            question.locator(".nccl-quiz-number").click()
            answer_by_keyboard(page, variant, key)
            result = page.locator(f"{variant} .nccl-quiz-result").inner_text()
            assert result == "Correct.", f"{kind} question {key['uid']} by keyboard: {result!r}"
    finally:
        context.close()


def answer_exam_question_by_keyboard(page, index: int, key: dict) -> None:
    """Reach and set the controls of exam question ``index`` from the keyboard; the page saves
    each answer by itself."""
    item = f'li.question[data-index="{index}"]'
    response = correct_response(key)
    kind = key["type"]
    if kind == "single":
        tab_to(page, f"{item} input")
        if response == 0:
            page.keyboard.press("Space")
        else:
            press(page, "ArrowDown", response)
    elif kind == "multiple":
        for choice in sorted(response):
            tab_to(page, f'{item} input[value="{choice}"]')
            page.keyboard.press("Space")
    elif kind in ("numeric", "text"):
        tab_to(page, f"{item} input.answer-input")
        page.keyboard.type(repr(response) if kind == "numeric" else str(response))
        page.keyboard.press("Tab")  # leaving the box saves it
    elif kind == "ordering":
        for place, chosen in enumerate(response):
            tab_to(page, f'{item} select[data-item="{chosen}"]')
            press(page, "ArrowDown", place + 1)  # past the "position..." placeholder
    elif kind == "matching":
        for row, right in enumerate(response):
            tab_to(page, f'{item} select[name="q{index}-left{row}"]')
            press(page, "ArrowDown", right + 1)
    else:
        raise AssertionError(f"no keyboard answer for a {kind} question")
    page.wait_for_selector(f'{item}[data-saved="yes"]', timeout=30_000)


def test_every_exam_question_kind_can_be_answered_by_keyboard(browser, exam_server):
    """The first question of each kind the attempt drew, reached with Tab and answered with keys;
    the server's stored key says what is right, each answer is saved and graded right. (The
    exam's controls are the browser's own; the practice-page test covers all six kinds.)"""
    from tests.browser.test_exam_flow import register_and_start, stored_keys

    context = browser.new_context()
    page = context.new_page()
    try:
        attempt_id = register_and_start(
            page, f"{exam_server.url}/exam", "Alan Turing", "keyboard@example.org"
        )
        keys = stored_keys(exam_server.data_dir / "course.db", attempt_id)
        first = {}
        for index, key in enumerate(keys):
            first.setdefault(key["type"], index)
        assert len(first) >= 2, f"the attempt drew questions of one kind only: {sorted(first)}"
        for index in first.values():
            page.locator(f'li.question[data-index="{index}"] .prompt').click()
            answer_exam_question_by_keyboard(page, index, keys[index])
        # the server graded the keyboard's answers as right
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#submit")
        page.wait_for_selector("#result:not([hidden])")
        for kind, index in first.items():
            feedback = page.locator(f'#feedback li.question[data-index="{index}"] .feedback')
            assert "right" in feedback.get_attribute("class"), f"{kind}: {feedback.inner_text()}"
    finally:
        context.close()
