"""Static checks of the built HTML: no page loads a script, stylesheet, font or image from outside.

The book must work offline (no CDN). These tests read what the build wrote, every ``.html`` and
``.css`` file under ``_build/html``, rather than the configuration that should produce it: a
theme update or a new extension that adds a CDN ``<script>`` fails here even though
``_config.yml`` did not change. What counts as loading: ``src`` of scripts, images, frames and
media, ``srcset``, ``<object data>``, ``<link href>`` with a ``rel`` that fetches (stylesheet,
icon, preload, ...), the widget manager's ``data-jupyter-widgets-cdn``, and in CSS (``<style>``
blocks, ``style=`` attributes and stylesheets) ``@import`` and ``url()``. Hyperlinks (``<a href>``)
are not loads and are not checked.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

# A URL that leaves the machine: http(s):// or protocol-relative //, to a host that is not local.
EXTERNAL = re.compile(r"^\s*(?:https?:)?//(?!(?:127\.0\.0\.1|localhost)(?:[:/]|$))", re.IGNORECASE)

SRC_TAGS = set("script img iframe frame source audio video embed track input".split())
# <link rel=...> values that make the browser fetch the href.
LOADING_RELS = {
    "stylesheet",
    "icon",
    "apple-touch-icon",
    "mask-icon",
    "manifest",
    "preload",
    "prefetch",
    "modulepreload",
    "preconnect",
    "dns-prefetch",
}
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
CSS_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']?([^"')\s;]+)""", re.IGNORECASE)
CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]+)""", re.IGNORECASE)


def external_in_css(css: str) -> list[str]:
    """URLs outside the machine that CSS would fetch (@import, url()); comments are ignored."""
    css = CSS_COMMENT.sub("", css)
    found = CSS_IMPORT.findall(css) + CSS_URL.findall(css)
    return sorted({url for url in found if EXTERNAL.match(url)})


class _LoadScanner(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.loads: list[str] = []
        self._in_style = False

    def _add(self, tag: str, attr: str, url: str | None) -> None:
        if url and EXTERNAL.match(url):
            self.loads.append(f"<{tag} {attr}={url.strip()}>")

    def handle_starttag(self, tag, attrs):
        values = {name: value or "" for name, value in attrs}
        if tag in SRC_TAGS:
            self._add(tag, "src", values.get("src"))
        for candidate in values.get("srcset", "").split(","):
            self._add(tag, "srcset", candidate.strip().split(" ")[0])
        if tag == "object":
            self._add(tag, "data", values.get("data"))
        if tag == "link" and LOADING_RELS & set(values.get("rel", "").lower().split()):
            self._add(tag, "href", values.get("href"))
        self._add(tag, "data-jupyter-widgets-cdn", values.get("data-jupyter-widgets-cdn"))
        for url in external_in_css(values.get("style", "")):
            self.loads.append(f"<{tag} style=...url({url})>")
        self._in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self._in_style = False

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.loads.extend(f"<style> {url}" for url in external_in_css(data))


def external_loads(html: str) -> list[str]:
    """Every resource an HTML page would fetch from outside the machine."""
    scanner = _LoadScanner()
    scanner.feed(html)
    scanner.close()
    return scanner.loads


def _offenders(root: Path, pattern: str, scan) -> list[str]:
    offenders = []
    for path in sorted(root.rglob(pattern)):
        for load in scan(path.read_text(encoding="utf-8", errors="replace")):
            offenders.append(f"{path.relative_to(root)}: {load[:160]}")
    return offenders


def test_scanner_finds_every_kind_of_external_load():
    page = """<html><head>
    <script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>
    <link rel="stylesheet" href="//fonts.googleapis.com/css?family=Roboto">
    <link rel="preconnect" href="https://fonts.gstatic.com">
    <link rel="canonical" href="https://example.org/book/">
    <style>/* @import url('https://skip.example/in-a-comment.css'); */
      @import "https://a.example/x.css"; .x { background: url(http://b.example/y.png) }</style>
    <script src="_static/vendor/requirejs/require.js"></script>
    <script src="_static/vendor/html-manager/embed-amd.js"
            data-jupyter-widgets-cdn="https://cdn.jsdelivr.net/npm/"></script>
    <script src="http://127.0.0.1:8000/local.js"></script>
    </head><body>
    <a href="https://github.com/NVIDIA/nccl">a hyperlink is not a load</a>
    <img src="https://c.example/z.png" srcset="x.png 1x, https://d.example/z2.png 2x">
    <div style="background-image: url('https://e.example/bg.png')"></div>
    <iframe src="//f.example/embed"></iframe>
    </body></html>"""
    found = "\n".join(external_loads(page))
    for url in (
        "cdn.jsdelivr.net/npm/mathjax",
        "fonts.googleapis.com",
        "fonts.gstatic.com",
        "a.example/x.css",
        "b.example/y.png",
        "data-jupyter-widgets-cdn=https://cdn.jsdelivr.net/npm/",
        "c.example/z.png",
        "d.example/z2.png",
        "e.example/bg.png",
        "f.example/embed",
    ):
        assert url in found, f"{url} not reported:\n{found}"
    for url in ("example.org/book", "github.com", "127.0.0.1", "skip.example", "_static/vendor"):
        assert url not in found, f"{url} reported but it is not an external load:\n{found}"
    assert len(external_loads(page)) == 10


def test_no_page_loads_anything_external(built_book):
    pages = sorted(built_book.rglob("*.html"))
    assert pages, "no HTML pages were built"
    offenders = _offenders(built_book, "*.html", external_loads)
    assert offenders == [], "pages load from outside the book:\n" + "\n".join(offenders[:30])


def test_no_stylesheet_loads_anything_external(built_book):
    assert any(built_book.rglob("*.css")), "no stylesheets were built"
    offenders = _offenders(built_book, "*.css", external_in_css)
    assert offenders == [], "stylesheets load from outside the book:\n" + "\n".join(offenders[:30])


def test_vendored_javascript_is_in_the_build(built_book):
    for path in ("_static/vendor/mathjax/tex-chtml.js", "_static/vendor/uplot/uPlot.iife.min.js"):
        assert (built_book / path).is_file(), f"{path} missing from the build"


def _pages(root: Path) -> list[Path]:
    # Each edition's _static (English at the root, Turkish under tr/) holds theme templates.
    return [p for p in sorted(root.rglob("*.html")) if "_static" not in p.relative_to(root).parts]


def test_equations_are_numbered_per_page(built_book):
    # math_numfig is off: every page (a chapter) numbers its equations (1), (2), ... afresh
    numbered = {}
    for page in _pages(built_book):
        numbers = re.findall(r'class="eqno">\((\d+)\)', page.read_text(encoding="utf-8"))
        if numbers:
            numbered[page.relative_to(built_book).as_posix()] = [int(n) for n in numbers]
    assert len(numbered) >= 5, numbered
    for page, numbers in numbered.items():
        assert numbers == list(range(1, len(numbers) + 1)), (page, numbers)


def test_every_page_has_the_favicon_and_each_script_once(built_book):
    assert (built_book / "_static/favicon.svg").read_text().lstrip().startswith("<svg")
    for page in _pages(built_book):
        html = page.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in html.lower():
            continue  # the root index.html only redirects
        assert re.search(r'<link rel="icon" href="[./]*_static/favicon\.svg"', html), page
        scripts = re.findall(r"<script\b[^>]*>.*?</script>", html, flags=re.S)
        repeated = {s for s in scripts if scripts.count(s) > 1}
        assert not repeated, (page, sorted(repeated)[:2])
