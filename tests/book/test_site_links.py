"""The built book links the course server's pages relative to the site's root, so a book
hosted on any address reaches its own exam and verify pages: no link outside code samples may
point at this machine (127.0.0.1, localhost), in either edition."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

LOCAL_HOSTS = {"127.0.0.1", "localhost", "0.0.0.0", "::1"}
# links inside these elements are code samples or their output, not navigation
CODE_ELEMENTS = {"pre", "code", "script", "style"}


class LinkCollector(HTMLParser):
    """The href of every <a> outside code elements."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        if tag in CODE_ELEMENTS:
            self._depth += 1
        elif tag == "a" and not self._depth:
            href = dict(attrs).get("href")
            if href:
                self.links.append(href)

    def handle_endtag(self, tag):
        if tag in CODE_ELEMENTS and self._depth:
            self._depth -= 1


def links_of(html: str) -> list[str]:
    collector = LinkCollector()
    collector.feed(html)
    return collector.links


def local_links(html: str) -> list[str]:
    return [h for h in links_of(html) if (urlsplit(h).hostname or "") in LOCAL_HOSTS]


def test_the_collector_skips_code_and_finds_local_links():
    page = (
        '<p><a href="http://127.0.0.1:8000/exam/">x</a> <a href="/exam/">y</a></p>'
        '<pre><a href="http://localhost:8000/">in code</a></pre>'
        '<a href="https://localhost/verify">z</a>'
    )
    assert links_of(page) == ["http://127.0.0.1:8000/exam/", "/exam/", "https://localhost/verify"]
    assert local_links(page) == ["http://127.0.0.1:8000/exam/", "https://localhost/verify"]


def test_no_built_page_links_to_this_machine(built_book):
    found = {}
    for page in sorted(built_book.rglob("*.html")):
        bad = local_links(page.read_text(encoding="utf-8", errors="replace"))
        if bad:
            found[str(page.relative_to(built_book))] = bad
    assert not found, f"links to this machine (use a link relative to the site): {found}"


@pytest.mark.parametrize("edition", ["", "tr/"])
def test_the_certification_page_links_the_exam_and_verify_pages(built_book, edition):
    page = built_book / edition / "book" / "quizzes" / "certification.html"
    links = links_of(page.read_text(encoding="utf-8"))
    assert "/exam/" in links and "/exam/verify" in links
