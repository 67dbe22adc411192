"""Static checks of the built HTML: no page loads a script, stylesheet or font from outside."""

from __future__ import annotations

import re

EXTERNAL_LOAD = re.compile(
    r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](?:https?:)?//(?!127\.0\.0\.1|localhost)[^"']+["'][^>]*>""",
    re.IGNORECASE,
)


def _loads_resource(tag: str) -> bool:
    # <link rel="..."> loads something only for stylesheets, icons, preloads and modules;
    # plain hyperlinks (<a>) are fine and are not matched at all.
    if tag.lower().startswith("<link"):
        return bool(re.search(r"rel=[\"'](stylesheet|icon|preload|modulepreload)", tag, re.I))
    return True


def test_no_page_loads_anything_external(built_book):
    offenders = []
    pages = sorted(built_book.rglob("*.html"))
    assert pages, "no HTML pages were built"
    for page in pages:
        for tag in EXTERNAL_LOAD.findall(page.read_text(encoding="utf-8", errors="replace")):
            if _loads_resource(tag):
                offenders.append(f"{page.relative_to(built_book)}: {tag[:160]}")
    assert offenders == [], "pages load from outside the book:\n" + "\n".join(offenders[:20])


def test_vendored_javascript_is_in_the_build(built_book):
    for path in (
        "_static/vendor/requirejs/require.js",
        "_static/vendor/html-manager/embed-amd.js",
        "_static/vendor/mathjax/tex-chtml.js",
    ):
        assert (built_book / path).is_file(), f"{path} missing from the build"
