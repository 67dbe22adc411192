"""A link on every page to the same page in the book's other language, and hreflang links.

The English edition is the site root, the Turkish one its ``tr/`` folder
(``nccl_course.book.editions``); a page has the same name in both, so the link is the page's
own path, moved between the two roots. Search engines and screen readers learn the pairing from
``<link rel="alternate" hreflang>`` and the link's own ``hreflang`` and ``lang``.

The footer's author line is the page's language too: the theme writes "By" (its own catalog)
and the author's name as given; this extension gives the whole line from the interface catalog
(``_templates/author.html`` shows it), so that Turkish writes "Hazırlayan: nccl-course yazarları"
instead of a preposition in front of an English name.
"""

from __future__ import annotations

import html
import posixpath
from pathlib import Path

from sphinx.application import Sphinx

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.languages import ENDONYMS, LANGUAGES, SOURCE_LANGUAGE
from nccl_course.sphinx_static import serve_static_folder

_LABEL = {"en": "Language", "tr": "Dil"}
#: The book's author (``author`` in _config.yml), and the footer's line that names it.
AUTHORS = N_("The nccl-course authors")
AUTHOR_LINE = N_("By {author}")


def author_line(author: str, language: str) -> str:
    """The footer's author line in ``language`` ("By The nccl-course authors")."""
    tr = translator(language)
    return tr(AUTHOR_LINE, author=tr(author))


def edition_root(language: str) -> str:
    """The edition's folder relative to the site root ("" or "tr/")."""
    return "" if language == SOURCE_LANGUAGE else f"{language}/"


def other_page_url(pagename: str, here: str, there: str) -> str:
    """Relative URL from ``pagename`` in edition ``here`` to the same page in ``there``."""
    page_dir = posixpath.dirname(pagename)
    # Up to the site root: out of the page's folders, then out of the edition's folder.
    up = [".."] * (page_dir.count("/") + 1 if page_dir else 0)
    up += [".."] * edition_root(here).count("/")
    target = edition_root(there) + pagename + ".html"
    return posixpath.join(*up, target) if up else target


def switcher_html(pagename: str, language: str) -> str:
    links = []
    for other in LANGUAGES:
        if other == language:
            continue
        url = html.escape(other_page_url(pagename, language, other))
        links.append(
            f'<a class="nccl-language-link" href="{url}" hreflang="{other}" lang="{other}">'
            f"{ENDONYMS[other]}</a>"
        )
    label = html.escape(_LABEL.get(language, _LABEL["en"]))
    return f'<nav class="nccl-language-switch" aria-label="{label}">{"".join(links)}</nav>'


def _add(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    language = app.config.language or SOURCE_LANGUAGE
    if app.config.author:  # every page has the footer, the index too
        context["nccl_author_line"] = author_line(app.config.author, language)
    if "body" not in context:
        return
    context["body"] = switcher_html(pagename, language) + context["body"]
    alternates = "".join(
        f'<link rel="alternate" hreflang="{lang}" '
        f'href="{html.escape(other_page_url(pagename, language, lang))}">'
        for lang in LANGUAGES
    )
    context["metatags"] = context.get("metatags", "") + alternates


STATIC = Path(__file__).parent / "static"


def setup(app: Sphinx) -> dict:
    serve_static_folder(app, STATIC)
    app.connect("html-page-context", _add)
    app.add_css_file("nccl-language-switch.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
