"""Fixtures shared by the whole suite: free ports, the built book, an offline browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.launcher import free_port

REPO = Path(__file__).resolve().parents[1]
BOOK_HTML = REPO / "_build" / "html"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Resolve no host name but 127.0.0.1's: a request beyond this machine fails at once (the
    # tests record it when it starts). Blocking through Playwright's request routing instead
    # would turn the browser's cache off: every page would load and compile the site's scripts
    # anew, as no reader's browser does.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
# What a page may load: this machine, and what needs no network.
LOCAL_URLS = ("http://127.0.0.1", "file://", "data:", "blob:", "about:")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The HTML book; the test command builds it before pytest runs."""
    if not (BOOK_HTML / "index.html").exists():
        pytest.fail("the book is not built: run 'make book' (make test does it before pytest)")
    return BOOK_HTML


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium driven by Playwright; never a browser Playwright downloads.

    Module-scoped: Playwright's sync API keeps an asyncio loop running in this thread while it
    is open, and later tests that call asyncio.run() (the exam's load and crash tests) would
    fail if it stayed open for the whole session."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class OfflinePage:
    """A page whose requests to anything but 127.0.0.1 (or file://, data:, blob:) are recorded
    in ``external``, so a test can assert the page never tried the network; they fail at once
    (``CHROMIUM_ARGS`` resolves no other host). Console errors go to ``console_errors``."""

    def __init__(self, page):
        self.page = page
        self.external: list[str] = []
        self.console_errors: list[str] = []
        page.on("request", self._request)
        page.on("console", self._console)

    def _request(self, request):
        if not request.url.startswith(LOCAL_URLS):
            self.external.append(request.url)

    def _console(self, msg):
        # A browser asks a page without an icon for /favicon.ico of its own accord; the small
        # sites some tests build have none (the course's pages name theirs).
        where = (msg.location or {}).get("url", "")
        if msg.type == "error" and not where.endswith("/favicon.ico"):
            self.console_errors.append(msg.text)


@pytest.fixture()
def offline_page(browser):
    context = browser.new_context()
    page = context.new_page()
    wrapped = OfflinePage(page)
    yield wrapped
    context.close()


@pytest.fixture()
def port() -> int:
    return free_port()


@pytest.fixture(scope="session")
def book_url(built_book):
    """The built book served over HTTP on 127.0.0.1 from a thread, for browser tests."""
    import functools
    import http.server
    import threading

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(QuietHandler, directory=str(built_book))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
