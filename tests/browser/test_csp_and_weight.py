"""The course through the real server in Debian's chromium, under its Content-Security-Policy:
every kind of page in both editions (a chapter with math, narration and a quiz, the explorers,
the notebooks' in-page controls, an animation, the practice quiz, the progress page, search, the exam, verify, confirm and a
credential's share page) works and reports no violation, neither in the console nor as a
``securitypolicyviolation`` event; a script injected into a page is refused (so the check sees
violations at all). No page's policy allows eval. Then the weight of a first and a second chapter, with the browser cache on,
from the bytes the network actually carried (CDP ``Network.loadingFinished``)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from nccl_course.quiz.keys import correct_response
from nccl_course.server.content_policy import BookPolicies
from tests.browser import test_animation as animation
from tests.browser.test_exam_flow import stored_keys
from tests.support.server_process import ServerProcess

REPO = Path(__file__).resolve().parents[2]
EDITIONS = {"en": "", "tr": "/tr"}
CHAPTER = "/book/collectives/01-broadcast.html"  # math, narration, quizzes
SECOND_CHAPTER = "/book/collectives/02-reduce.html"
FIRST_VIEW_LIMIT_BYTES = 1_500_000
SECOND_VIEW_LIMIT_BYTES = 300_000

# Playwright's wait_for_function is given functions ("() => ..."): a bare expression would be
# run by eval(), which the policy refuses.
# Installed before any script of a page: every violation the browser reports to the page is
# handed to the test (an exposed binding, which the policy does not govern).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.reportViolation([e.documentURI, e.violatedDirective, e.blockedURI,
                          e.sourceFile + ":" + e.lineNumber, e.sample].join(" | "));
});
"""

ANY_SLIDER_MOVED = "sel => [...document.querySelectorAll(sel)].some(s => s.value !== '0')"
# The notebooks whose in-page controls were ipywidgets: the book shows course explorers there.
NOTEBOOKS_WITH_CONTROLS = ("00-first-look", "60-cost-model-explorer")
EXPLORER_READY = "() => document.querySelector('.nccl-explorer[data-ready=\"true\"]') !== null"
SUMMARY_IS_NOT = (
    "old => { const p = document.querySelector('.nccl-explorer-summary');"
    " return p !== null && p.textContent !== old; }"
)


def change_ranks_and_see_the_answer_change(page) -> None:
    """Pick another rank count in the page's first explorer; its summary (the fastest
    algorithm's time for that many ranks) must change."""
    page.wait_for_function(EXPLORER_READY, timeout=30_000)
    summary = page.locator(".nccl-explorer-summary").first
    before = summary.text_content()
    ranks = page.locator(".nccl-explorer select[data-control='ranks']").first
    chosen = ranks.input_value()
    other = next(v for v in ranks.locator("option").all_inner_texts() if v.strip() != chosen)
    ranks.select_option(other.strip())
    page.wait_for_function(SUMMARY_IS_NOT, arg=before, timeout=10_000)
    assert f" {other.strip()} " in summary.text_content(), (other, summary.text_content())


@pytest.fixture(scope="module")
def server(built_book, tmp_path_factory):
    data = tmp_path_factory.mktemp("csp") / "data"
    with ServerProcess(data, quizzes=REPO / "quizzes", book=built_book) as running:
        yield running


class Watch:
    """A browser context whose pages report CSP violations (events and console lines)."""

    def __init__(self, browser):
        self.context = browser.new_context()
        self.violations: list[str] = []
        self.context.expose_binding(
            "reportViolation", lambda source, text: self.violations.append(text)
        )
        self.context.add_init_script(REPORT_VIOLATIONS)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("dialog", lambda dialog: dialog.accept())

    def _console(self, msg):
        if "Content Security Policy" in msg.text or "Content-Security-Policy" in msg.text:
            self.violations.append(f"console: {self.page.url} | {msg.text}")

    def open(self, url: str):
        """Open ``url``; its policy allows no inline script but by digest, and no eval."""
        response = self.page.goto(url, wait_until="load")
        assert response is not None and response.ok, url
        policy = response.headers.get("content-security-policy", "")
        script_src = next(d for d in policy.split(";") if d.strip().startswith("script-src"))
        assert "'unsafe-inline'" not in script_src, url
        assert "'unsafe-eval'" not in script_src, url
        assert "frame-ancestors 'none'" in policy, url
        return self.page

    def settle(self):
        self.page.wait_for_load_state("networkidle")
        self.page.wait_for_timeout(300)  # late callbacks (MathJax, widget views) report here


def exercise_book(watch: Watch, base: str) -> None:
    page = watch.open(base + CHAPTER)
    page.wait_for_selector("mjx-container", state="attached", timeout=30_000)
    # the theme's full-screen button is an inline handler, allowed by its digest
    page.locator("button[onclick]").first.click()
    page.locator(".nccl-narration-controls button").first.click()
    page.wait_for_function(
        "() => document.querySelector('.nccl-narration-player audio').currentTime > 0.3",
        timeout=15_000,
    )
    quiz = page.locator(".nccl-quiz-question").first
    quiz.locator(".nccl-quiz-check").click()
    watch.settle()

    page = watch.open(base + "/book/algorithms/05-cost-model.html")  # the explorers
    page.wait_for_function(
        "() => document.querySelector('.nccl-explorer[data-ready=\"true\"]') !== null",
        timeout=30_000,
    )
    control = page.locator(".nccl-explorer select[data-control]").first
    control.select_option(index=1)
    watch.settle()

    for notebook in NOTEBOOKS_WITH_CONTROLS:  # no kernel
        page = watch.open(f"{base}/notebooks/{notebook}.html")
        change_ranks_and_see_the_answer_change(page)
        watch.settle()

    # matplotlib's player: inline scripts and onclick/oninput handlers, allowed by digest
    page = watch.open(f"{base}/{animation.PAGE}")
    page.wait_for_function(animation.FIRST_FRAME_SHOWN, arg=animation.IMG, timeout=15_000)
    # (a translated page holds the figure in each language and shows its own)
    play = "div.animation button[onclick$='.play_animation()'] >> visible=true"
    page.locator(play).first.click()
    page.wait_for_function(ANY_SLIDER_MOVED, arg=animation.SLIDER, timeout=15_000)
    watch.settle()

    page = watch.open(base + "/book/quizzes/practice.html")
    page.wait_for_selector(".nccl-quiz-question")
    watch.settle()

    page = watch.open(base + "/book/quizzes/progress.html")
    page.wait_for_selector('.nccl-progress[data-state="ready"]')
    watch.settle()

    page = watch.open(base + "/search.html?q=ring")
    page.wait_for_selector("#search-results", state="attached")
    watch.settle()


def passed_credential_id(url: str, data_dir: Path, language: str) -> str:
    """A learner registers, passes and gets a credential through the API; its id. One learner
    per edition: the module's server refuses an address registered twice (409)."""
    email = f"ada.{language}@example.org"
    with httpx.Client(base_url=url, timeout=60) as client:
        registered = client.post(
            "/exam/api/register", json={"name": "Ada Lovelace", "email": email}
        ).json()
        headers = {"Authorization": f"Bearer {registered['token']}"}
        attempt = client.post("/exam/api/attempts", headers=headers).json()
        keys = stored_keys(data_dir / "course.db", attempt["id"])
        for question, key in zip(attempt["questions"], keys, strict=True):
            url_path = f"/exam/api/attempts/{attempt['id']}/answers/{question['index']}"
            saved = client.put(url_path, headers=headers, json={"response": correct_response(key)})
            assert saved.status_code == 200, saved.text
        result = client.post(f"/exam/api/attempts/{attempt['id']}/submit", headers=headers)
        assert result.json()["passed"] is True
        credential = client.get(f"/exam/api/attempts/{attempt['id']}/credential", headers=headers)
        return credential.json()["id"]


def exercise_exam(watch: Watch, url: str, language: str, credential_id: str) -> None:
    lang = f"?lang={language}"
    page = watch.open(f"{url}/exam/{lang}")
    page.wait_for_selector("#auth:not([hidden])")
    page.fill("#name", "Grace Hopper")
    page.fill("#email", f"grace.{language}@example.org")
    page.click("#register")
    page.wait_for_selector("#home:not([hidden])")
    page.click("#start")
    page.wait_for_selector("#questions li.question")
    watch.settle()

    page = watch.open(f"{url}/exam/verify{lang}")
    page.fill("#credential-text", '{"not": "a credential"}')
    page.click("#verify")
    page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
    watch.settle()

    page = watch.open(f"{url}/exam/confirm{lang}#not-a-real-token")
    page.click("#confirm")
    page.wait_for_function("() => document.querySelector('#message').textContent.length > 0")
    watch.settle()

    page = watch.open(f"{url}/exam/verify{lang}&id={credential_id}")  # the share page
    page.locator("#share a.share-linkedin").wait_for()  # offered for a valid credential only
    watch.settle()


@pytest.mark.parametrize("language", list(EDITIONS))
def test_every_kind_of_page_runs_under_the_policy(browser, server, language):
    watch = Watch(browser)
    try:
        exercise_book(watch, server.url + EDITIONS[language])
        credential_id = passed_credential_id(server.url, server.data_dir, language)
        exercise_exam(watch, server.url, language, credential_id)
        assert watch.violations == [], "\n".join(sorted(set(watch.violations)))

        # A script injected into a page is refused and reported: the check above can see one.
        page = watch.open(server.url + EDITIONS[language] + CHAPTER)
        page.evaluate(
            "() => { const s = document.createElement('script');"
            " s.textContent = 'window.injected = true'; document.body.appendChild(s); }"
        )
        page.wait_for_timeout(300)
        assert page.evaluate("window.injected") is None
        assert any("script-src" in v for v in watch.violations), watch.violations
    finally:
        watch.context.close()


def test_no_page_of_either_edition_allows_eval(built_book):
    policies = BookPolicies(built_book)
    pages = [key for edition in policies.headers.values() for key in edition]
    for notebook in NOTEBOOKS_WITH_CONTROLS:
        for prefix in EDITIONS.values():
            assert f"{prefix.lstrip('/')}/notebooks/{notebook}.html".lstrip("/") in pages
    assert len(pages) > 100, len(pages)
    allowing = [key for key in pages if b"unsafe-eval" in policies.for_path("/" + key)]
    assert allowing == [], allowing


def transferred_bytes(page, cdp, url: str) -> tuple[int, dict[str, int]]:
    """Open ``url`` and let it settle; the bytes received for it (headers and bodies as they
    came over the network; 0 for what the cache served) in all and per URL."""
    sizes: dict[str, int] = {}
    urls: dict[str, str] = {}

    def sent(event):
        urls[event["requestId"]] = event["request"]["url"]

    def finished(event):
        where = urls.get(event["requestId"], event["requestId"])
        sizes[where] = sizes.get(where, 0) + int(event["encodedDataLength"])

    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.loadingFinished", finished)
    response = page.goto(url, wait_until="load")
    assert response is not None and response.ok, url
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)
    cdp.remove_listener("Network.requestWillBeSent", sent)
    cdp.remove_listener("Network.loadingFinished", finished)
    return sum(sizes.values()), sizes


def test_a_first_and_a_second_chapter_are_light(browser, server):
    context = browser.new_context()  # no routing: Playwright turns the cache off for that
    try:
        page = context.new_page()
        hosts = []
        page.on("request", lambda request: hosts.append(request.url.split("/")[2]))
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        first, first_sizes = transferred_bytes(page, cdp, server.url + CHAPTER)
        second, second_sizes = transferred_bytes(page, cdp, server.url + SECOND_CHAPTER)
        heaviest = sorted(first_sizes.items(), key=lambda item: -item[1])[:5]
        print(f"\nfirst chapter: {first / 1e6:.3f} MB transferred in {len(first_sizes)} requests")
        for where, size in heaviest:
            print(f"  {size / 1e3:8.1f} kB  {where.removeprefix(server.url)}")
        print(f"second chapter: {second / 1e6:.3f} MB in {len(second_sizes)} requests")
        assert set(hosts) == {server.url.split("/")[2]}
        assert first <= FIRST_VIEW_LIMIT_BYTES, heaviest
        assert second <= SECOND_VIEW_LIMIT_BYTES, sorted(second_sizes.items(), key=lambda i: -i[1])
    finally:
        context.close()
