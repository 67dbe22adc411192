"""The book's links to the course server's exam and verify pages: relative to the site's root
by default (the server serves the book), on the server's address when the book is built with
NCCL_COURSE_EXAM_URL (a book hosted apart from the server), and named in the sidebar's
navigation of both editions."""

from __future__ import annotations

from pathlib import Path

import pytest
from sphinx.application import Sphinx

from nccl_course.book.exam_links import (
    EXAM_URL_ENV,
    normalise_exam_url,
    rewrite_server_links,
)
from tests.book.test_site_links import links_of

PAGE = """\
# Certification

Open the <a href="/exam/">exam page</a>, or check a file on the
<a href='/exam/verify'>verify page</a>. The <a href="/exam">bare path</a> too, but not
<a href="/examples/">another page</a> nor [a chapter](other.md).

```html
<a href="/exam/">in a code sample</a>
```
"""


def build(tmp_path: Path, language: str = "en", exam_url: str | None = None) -> Path:
    """A two-page book with the extension, built to HTML; returns the output folder."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text(PAGE + "\n```{toctree}\nother\n```\n")
    (src / "other.md").write_text("# Other\n\nText.\n")
    # myst_nb as in the book: a process that loads myst_parser on its own first leaves later
    # myst_nb builds in the same test process without a markdown parser.
    conf = [
        'extensions = ["myst_nb", "nccl_course.book.exam_links"]',
        'html_theme = "sphinx_book_theme"',
        f"language = {language!r}",
    ]
    if exam_url is not None:
        conf.append(f"nccl_exam_url = {exam_url!r}")
    (src / "conf.py").write_text("\n".join(conf) + "\n")
    out = tmp_path / "html"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None)
    app.build()
    return out


def sidebar_links(page: str) -> list[str]:
    """The links of the sidebar's course-server part."""
    start = page.index('<ul class="nav bd-sidenav nccl-exam-links">')
    return links_of(page[start : page.index("</ul>", start)])


def test_default_links_are_relative_to_the_site_root(tmp_path, monkeypatch):
    monkeypatch.delenv(EXAM_URL_ENV, raising=False)
    out = build(tmp_path)
    page = (out / "index.html").read_text(encoding="utf-8")
    links = links_of(page)
    assert {"/exam/", "/exam/verify", "/exam", "/examples/"} <= set(links)
    assert sidebar_links(page) == ["/exam/", "/exam/verify"]
    assert sidebar_links((out / "other.html").read_text(encoding="utf-8")) == [
        "/exam/",
        "/exam/verify",
    ]


def test_the_environment_variable_moves_every_server_link(tmp_path, monkeypatch):
    monkeypatch.setenv(EXAM_URL_ENV, "https://exam.example.org/")
    out = build(tmp_path)
    page = (out / "index.html").read_text(encoding="utf-8")
    links = links_of(page)
    assert "https://exam.example.org/exam/" in links
    assert "https://exam.example.org/exam/verify" in links
    assert "https://exam.example.org/exam" in links
    assert not {"/exam/", "/exam/verify", "/exam"} & set(links)
    # not a server path, and not a link outside code samples: left alone
    assert "/examples/" in links
    # the code sample shows the path as written
    assert '<span class="s">"/exam/"</span>' in page
    assert sidebar_links(page) == [
        "https://exam.example.org/exam/",
        "https://exam.example.org/exam/verify",
    ]


def test_the_sidebar_speaks_turkish_in_the_turkish_edition(tmp_path, monkeypatch):
    monkeypatch.delenv(EXAM_URL_ENV, raising=False)
    out = build(tmp_path, language="tr", exam_url="https://exam.example.org")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "Kurs sunucusu" in page and "Belge doğrulama" in page and ">Sınav<" in page
    assert sidebar_links(page) == [
        "https://exam.example.org/exam/",
        "https://exam.example.org/exam/verify",
    ]


@pytest.mark.parametrize(
    "given, origin",
    [
        ("", ""),
        ("  ", ""),
        ("https://exam.example.org/", "https://exam.example.org"),
        ("http://10.0.0.5:8000", "http://10.0.0.5:8000"),
    ],
)
def test_an_origin_is_accepted(given, origin):
    assert normalise_exam_url(given) == origin


@pytest.mark.parametrize(
    "given, says",
    [
        ("exam.example.org", "not an http"),
        ("ftp://exam.example.org", "not an http"),
        ("https://exam.example.org/course", "has a path"),
        ("https://exam.example.org/?x=1", "has a path"),
    ],
)
def test_anything_else_is_refused_with_what_to_give(given, says):
    with pytest.raises(ValueError, match=says) as caught:
        normalise_exam_url(given)
    assert f"{EXAM_URL_ENV}=https://" in str(caught.value)


def test_a_bad_address_stops_the_build(tmp_path, monkeypatch):
    from sphinx.errors import ConfigError

    monkeypatch.setenv(EXAM_URL_ENV, "exam.example.org")
    with pytest.raises(ConfigError, match="not an http"):
        build(tmp_path)


def test_rewrite_touches_server_paths_only():
    markup = (
        '<a href="/exam/">a</a><a href=\'/exam/verify\'>b</a><a href="/exam?x">c</a>'
        '<a href="/examples/">d</a><a href="exam/">e</a><img src="/exam/x.png">'
    )
    assert rewrite_server_links(markup, "") == markup
    assert rewrite_server_links(markup, "https://e.org") == (
        "<a href=\"https://e.org/exam/\">a</a><a href='https://e.org/exam/verify'>b</a>"
        '<a href="https://e.org/exam?x">c</a><a href="/examples/">d</a><a href="exam/">e</a>'
        '<img src="/exam/x.png">'
    )


@pytest.mark.parametrize("edition", ["", "tr/"])
def test_the_built_book_names_both_server_pages_in_its_navigation(built_book, edition):
    for name in ("book/intro.html", "book/quizzes/certification.html"):
        page = (built_book / edition / name).read_text(encoding="utf-8")
        links = sidebar_links(page)
        assert len(links) == 2 and links[0].endswith("/exam/") and links[1].endswith("/exam/verify")
