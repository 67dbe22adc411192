"""Every screen of the Turkish edition is Turkish: Debian's chromium visits each page of the
built Turkish book (the progress page last, after the visits), the exam in Turkish screen by
screen (sign-up, home, an attempt of the course's real exam, its result) and the verify page
(with the verdicts of a valid credential, a foreign one and a text that is not JSON), takes the
visible text outside code, commands, formulas, references and the glossary's English column, and
finds no English sentence by the rule of ``nccl_course.i18n.english_text`` beyond its
allow-list (``locales/tr/english_allowed.txt``).

One browser, one server (the course's, with the real quiz banks, serving the built book at ``/``
and the exam pages), and one ``page.evaluate`` per screen."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from nccl_course.book.language_switch import AUTHORS, author_line
from nccl_course.i18n.english_text import allowed_sentences, english_sentences
from tests.browser.test_exam_flow import answer, stored_keys
from tests.browser.test_verify_page import foreign_credential
from tests.conftest import LOCAL_URLS
from tests.exam.conftest import Learner
from tests.support.exam_credentials import passed_attempt
from tests.support.server_process import ServerProcess

REPO = Path(__file__).resolve().parents[2]
ALLOWED = allowed_sentences(REPO / "locales" / "tr" / "english_allowed.txt")
PROGRESS = "book/quizzes/progress.html"

# The visible text of a page, block by block, outside what stays as written (code, commands,
# keys, formulas, references, footnotes, text marked translate="no"). Hidden elements are
# skipped: what a reader does not see is read when it is shown (the verify page's verdicts).
VISIBLE_BLOCKS = """() => {
  const SKIP = "script, style, noscript, template, code, pre, kbd, samp, var, svg, math,"
    + " mjx-container, .math, .MathJax, .highlight, .bibliography, .citation, .footnote,"
    + " .footnote-list, [role=doc-bibliography], [role=doc-endnotes], [translate=no]";
  const BLOCK = "p, li, h1, h2, h3, h4, h5, h6, td, th, dt, dd, caption, figcaption, button,"
    + " label, summary, legend, option, blockquote, div, section, article, aside, nav,"
    + " header, footer, main, form, table, ul, ol, dl, details, body";
  // A table column headed "English" (the glossary's, "İngilizce" in Turkish) holds the English
  // terms on purpose.
  const englishCells = new Set();
  for (const table of document.querySelectorAll("table")) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    const column = heads.findIndex((head) => head === "English" || head === "İngilizce");
    if (column < 0) continue;
    for (const row of table.querySelectorAll("tbody tr")) {
      if (row.cells[column]) englishCells.add(row.cells[column]);
    }
  }
  const blocks = new Map();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !node.data.trim() || parent.closest(SKIP)) continue;
    if (englishCells.has(parent.closest("td"))) continue;
    if (!parent.checkVisibility({ visibilityProperty: true })) continue;
    const block = parent.closest(BLOCK) || document.body;
    blocks.set(block, (blocks.get(block) || "") + node.data);
  }
  return [document.title, ...blocks.values()];
}"""


def edition_pages(book: Path) -> list[str]:
    """The Turkish edition's pages (relative URLs), the progress page last: it shows what the
    visits before it recorded."""
    root = book / "tr"
    pages = [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*.html"))
        if not p.relative_to(root).parts[0].startswith("_")
    ]
    if not pages:
        pytest.fail("the Turkish edition is not built: run 'make book'")
    pages.remove(PROGRESS)
    return [*pages, PROGRESS]


@pytest.fixture(scope="module")
def server(built_book, tmp_path_factory):
    folder = tmp_path_factory.mktemp("crawl")
    with ServerProcess(folder / "data", quizzes=REPO / "quizzes", book=built_book) as running:
        yield running


def own_credential(server) -> dict:
    """A credential the server issues to a learner who passed (through the API)."""
    with httpx.Client(base_url=server.url, timeout=60) as client:
        learner = Learner(client, name="Ayşe Yılmaz", email="ayse@example.org")
        result = passed_attempt(
            learner, lambda attempt: stored_keys(server.data_dir / "course.db", attempt)
        )
        url = f"/exam/api/attempts/{result['id']}/credential"
        return client.get(url, headers=learner.headers).json()


def test_no_english_sentence_on_a_turkish_screen(browser, server, built_book, tmp_path):
    """Every screen; on failure, each English sentence with its screen."""
    context = browser.new_context(locale="tr-TR")
    page = context.new_page()
    # Requests beyond the server fail at once (the browser resolves no other host) and are
    # recorded; the pages share the browser's cache, as a reader's do.
    external: list[str] = []

    def record_external(request):
        if not request.url.startswith((server.url, *LOCAL_URLS)):
            external.append(request.url)

    page.on("request", record_external)
    found: dict[str, list[str]] = {}
    screens = 0
    # What a reader's console and network tab would show as a problem on each Turkish page
    # (tests/browser/test_every_page.py checks the English pages the same way).
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda error: problems.append(f"pageerror: {error}"))
    page.on(
        "response",
        lambda r: r.status >= 400 and problems.append(f"http {r.status}: {r.url}"),
    )
    problems_by_page: dict[str, list[str]] = {}

    def read(screen: str) -> None:
        nonlocal screens
        screens += 1
        blocks = page.evaluate(VISIBLE_BLOCKS)
        english = english_sentences(blocks, ALLOWED)
        if english:
            found[screen] = english

    for rel in edition_pages(built_book):
        problems.clear()
        response = page.goto(f"{server.url}/tr/{rel}")
        assert response is not None and response.ok, rel
        assert page.locator("html").get_attribute("lang") == "tr", rel
        lab_done = page.locator(".nccl-progress-lab-done")
        if lab_done.count():
            lab_done.first.check()  # its note appears
        page.wait_for_load_state("load")
        read(rel)
        if problems:
            problems_by_page[rel] = list(problems)
        if rel == PROGRESS:  # its columns and the lab checkbox, named as the page shows them
            shown = page.locator("article").inner_text()
            named = [t for t in ("Visited", "Practice quiz", "Mark this lab done") if t in shown]
            assert named == [], f"the progress page names {named} in English"

    # The footer's author line as Turkish writes it (the theme would write "Tarafından ..."),
    # on a page and on the index, which Sphinx writes without a body.
    for rel in (PROGRESS, "genindex.html"):
        page.goto(f"{server.url}/tr/{rel}")
        footer = page.locator(".component-author").first.inner_text().strip()
        assert footer == author_line(AUTHORS, "tr") != author_line(AUTHORS, "en"), (rel, footer)

    # The exam in Turkish, screen by screen: sign-up, home, an attempt, its result.
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{server.url}/exam?lang=tr")
    page.wait_for_selector("#auth:not([hidden])")
    read("/exam")
    page.fill("#name", "Ayşe Yılmaz")
    page.fill("#email", "ayse.exam@example.org")
    page.click("#register")
    page.wait_for_selector("#home:not([hidden])")
    read("/exam (home)")
    page.click("#start")
    page.wait_for_selector("#attempt:not([hidden])")
    read("/exam (attempt)")
    attempt = page.evaluate("state.attempt.id")
    for index, key in enumerate(stored_keys(server.data_dir / "course.db", attempt)):
        answer(page, index, key)
    page.click("#submit")
    page.wait_for_selector("#result:not([hidden])")
    read("/exam (result)")

    page.goto(f"{server.url}/exam/verify?lang=tr")
    read("/exam/verify")
    for name, text in (
        ("valid", json.dumps(own_credential(server))),
        ("foreign", json.dumps(foreign_credential(tmp_path / "elsewhere"))),
        ("not JSON", "{"),
    ):
        page.evaluate("() => { document.querySelector('#verdict').textContent = ''; }")
        page.fill("#credential-text", text)
        page.click("#verify")
        page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
        read(f"/exam/verify ({name})")
    context.close()

    assert external == [], external
    assert problems_by_page == {}, "problems on Turkish pages:\n" + "\n".join(
        f"{rel}: {items}" for rel, items in problems_by_page.items()
    )
    count = sum(len(s) for s in found.values())
    listing = "\n".join(f"{screen}:\n  " + "\n  ".join(s) for screen, s in found.items())
    assert not found, f"{count} English sentences on {len(found)} of {screens} screens:\n{listing}"


def test_the_rule_finds_the_english_edition_english(browser, server):
    """The same extraction on the English edition's first page finds English: the crawl above
    passes because the Turkish screens are Turkish, not because nothing is read."""
    page = browser.new_page()
    page.goto(f"{server.url}/book/intro.html")
    assert len(english_sentences(page.evaluate(VISIBLE_BLOCKS))) > 10
    page.close()
