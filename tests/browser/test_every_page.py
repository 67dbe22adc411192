"""Every page of the built book's English edition loads in chromium with no JavaScript error, no
failed request and no request beyond 127.0.0.1: a reader sees no broken widget, missing font or
404 (the Turkish pages: tests/browser/test_turkish_crawl.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.conftest import CHROMIUM_ARGS, LOCAL_URLS

# Folders of the build that hold assets, not pages a reader opens (in each edition).
NOT_PAGES = ("_static", "_sources", "_images", "jupyter_execute")
# The Turkish edition's pages are visited by tests/browser/test_turkish_crawl.py, which records
# the same problems on each of them while it reads their text.
TRANSLATED_EDITIONS = ("tr",)


def book_pages(html_root: Path) -> list[str]:
    """Every HTML page of the English edition, as paths relative to the build's root, sorted."""
    pages = []
    for path in html_root.rglob("*.html"):
        relative = path.relative_to(html_root)
        if set(relative.parts) & set(NOT_PAGES) or relative.parts[0] in TRANSLATED_EDITIONS:
            continue
        pages.append(relative.as_posix())
    return sorted(pages)


class ProblemRecorder:
    """Records, for one browser tab, what a reader's console and network tab would show as a
    problem: console errors, uncaught exceptions, responses >= 400, requests that failed, and
    requests to anything but 127.0.0.1 (which fail: ``CHROMIUM_ARGS`` resolves no other host).
    ``take()`` hands over what was recorded since the last call (one page's problems)."""

    def __init__(self, page):
        self.problems: list[tuple[str, str]] = []  # (kind, detail)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(("pageerror", str(error))))
        page.on("request", self._request)
        page.on("response", self._response)
        page.on("requestfailed", self._failed)

    def take(self) -> list[tuple[str, str]]:
        found, self.problems = self.problems, []
        return found

    def _request(self, request):
        if not request.url.startswith(LOCAL_URLS):
            self.problems.append(("external", request.url))

    def _console(self, msg):
        if msg.type == "error":
            where = msg.location.get("url", "") if msg.location else ""
            self.problems.append(("console", f"{msg.text} [{where}]"))

    def _response(self, response):
        if response.status >= 400:
            self.problems.append((f"http {response.status}", response.url))

    def _failed(self, request):
        # ERR_ABORTED: the browser cancelled the request itself (the tab went on to the next page
        # before a late fetch such as the icon's ended); a missing or broken file fails otherwise.
        if request.failure == "net::ERR_ABORTED":
            return
        if request.url.startswith("http://127.0.0.1"):  # external ones are already recorded
            self.problems.append(("requestfailed", f"{request.url} ({request.failure})"))


async def visit(tab, url: str) -> list[tuple[str, str]]:
    """Open ``url`` in ``tab`` (a page and its recorder), let its scripts settle, return the
    problems seen. A tab goes from page to page as a reader's does: its cache and its renderer
    process stay (a new tab per page would start a renderer each time). A problem that a page
    reports after its visit ended is not lost: it is counted with the tab's next page."""
    page, recorder = tab
    await page.goto(url, wait_until="load", timeout=60_000)
    await page.wait_for_load_state("networkidle", timeout=60_000)
    await page.wait_for_timeout(300)  # late callbacks (MathJax, widget views) report here
    return recorder.take()


# Pages open this many at a time: most of a visit is waiting for the network to go idle (and the
# late callbacks), which overlaps well: 6 tabs take 24 s alone where 3 take 29 s.
AT_ONCE = 6


def visit_all(urls: list[str]) -> dict[str, list[tuple[str, str]]]:
    """The problems of every URL, visited ``AT_ONCE`` at a time by a chromium of its own.

    Playwright's async API runs in a thread of its own: the module's ``browser`` fixture keeps
    the sync API's event loop running in the test's thread, where ``asyncio.run`` cannot start.
    """
    import asyncio
    import threading

    from playwright.async_api import async_playwright

    from tests.conftest import CHROMIUM

    async def run() -> dict[str, list[tuple[str, str]]]:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = await browser.new_context()  # one cache, as a reader's tabs share
            free: asyncio.Queue = asyncio.Queue()
            for _ in range(AT_ONCE):
                page = await context.new_page()
                free.put_nowait((page, ProblemRecorder(page)))

            async def one(url: str) -> list[tuple[str, str]]:
                tab = await free.get()
                try:
                    return await visit(tab, url)
                finally:
                    free.put_nowait(tab)

            found = await asyncio.gather(*(one(url) for url in urls))
            await browser.close()
        return dict(zip(urls, found, strict=True))

    result: dict = {}

    def work() -> None:
        try:
            result["found"] = asyncio.run(run())
        except BaseException as exc:  # re-raised in the test's thread
            result["error"] = exc

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["found"]


def test_book_pages_are_found(built_book):
    pages = book_pages(built_book)
    assert "book/intro.html" in pages and "notebooks/00-first-look.html" in pages
    assert not any("_static/" in p for p in pages)
    for page in pages:
        assert (built_book / page).exists(), f"{page} is not in the build"


def test_every_page_loads_without_errors(built_book, book_url):
    pages = book_pages(built_book)
    assert len(pages) > 20, pages
    seen = visit_all([f"{book_url}/{page}" for page in pages])
    found = {page: seen[f"{book_url}/{page}"] for page in pages}
    found = {page: problems for page, problems in found.items() if problems}
    counts = Counter(kind for problems in found.values() for kind, _ in problems)
    report = "\n".join(
        f"{page}:\n" + "\n".join(f"  {kind}: {detail}" for kind, detail in problems)
        for page, problems in found.items()
    )
    assert not found, f"problems per kind {dict(counts)} on {len(found)} pages:\n{report}"


def test_the_favicon_is_served(book_url, browser):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{book_url}/book/intro.html")
        href = page.eval_on_selector('link[rel="icon"]', "link => link.href")
        response = page.request.get(href)
        assert response.status == 200 and href.endswith("/_static/favicon.svg")
        assert response.text().lstrip().startswith("<svg")
    finally:
        context.close()


def test_the_visit_catches_a_load_from_elsewhere_and_a_missing_file(tmp_path):
    """The checks above can fail: a page that loads a script from another host and an image
    that is not there is reported with both problems."""
    import functools
    import http.server
    import threading

    (tmp_path / "page.html").write_text(
        "<!doctype html><html><head><script src='https://cdn.example.org/lib.js'></script>"
        "</head><body><img src='missing.png' alt='x'></body></html>"
    )

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/page.html"
        kinds = {kind: detail for kind, detail in visit_all([url])[url]}
    finally:
        server.shutdown()
        server.server_close()
    assert kinds.get("external") == "https://cdn.example.org/lib.js", kinds
    assert kinds.get("http 404", "").endswith("/missing.png"), kinds
