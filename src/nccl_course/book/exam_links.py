"""Where the book links the course server's pages: the exam (``/exam/``) and the credential
verify page (``/exam/verify``), in the pages and in the sidebar's navigation.

By default the book is served by the course server itself (``nccl-course serve`` serves the
book at ``/``), so the links are relative to the site's root and reach the server whatever its
name. A book hosted apart from the server (GitHub Pages, a university web server) is built with
the server's address, ``NCCL_COURSE_EXAM_URL=https://exam.example.org make book`` (or Sphinx's
``nccl_exam_url``), and every link to a server path then names that server.

The pages link the server's paths in HTML (``<a href="/exam/">``: MyST would take a Markdown
link to ``/exam/verify`` for a cross-reference); this extension moves them onto the server's
address when one is set, after translation, so both editions keep one link text to translate.
"""

from __future__ import annotations

import html
import os
import re
from urllib.parse import urlsplit

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ConfigError

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.languages import SOURCE_LANGUAGE

#: The environment variable ``make book`` reads the exam server's address from.
EXAM_URL_ENV = "NCCL_COURSE_EXAM_URL"
#: The server's pages the book links (nccl_course.server.routes.pages serves them).
EXAM_PATH = "/exam/"
VERIFY_PATH = "/exam/verify"

#: The sidebar part naming the server's pages, as (caption, [(title, path)]).
NAV_CAPTION = N_("Course server")
NAV_PAGES = ((N_("The exam"), EXAM_PATH), (N_("Verify a credential"), VERIFY_PATH))

# An href (quoted either way) to a path of the course server: /exam, /exam/..., /exam?...
_SERVER_HREF = re.compile(r"""(\bhref=)(["'])(/exam(?:[/?#][^"']*)?)\2""")


def normalise_exam_url(url: str) -> str:
    """The exam server's origin without a trailing slash ("" keeps links root-relative).

    Raises ``ValueError`` naming what is wrong for anything but ``http(s)://HOST[:PORT]``.
    """
    url = url.strip().rstrip("/")
    if not url:
        return ""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"the exam server's address {url!r} is not an http(s) URL: give its origin, "
            f"e.g. {EXAM_URL_ENV}=https://exam.example.org"
        )
    if parts.path or parts.query or parts.fragment:
        raise ValueError(
            f"the exam server's address {url!r} has a path, query or fragment: give its origin "
            f"only (the server serves the exam at {EXAM_PATH} of its own domain), "
            f"e.g. {EXAM_URL_ENV}=https://exam.example.org"
        )
    return url


def server_href(base: str, path: str) -> str:
    """The link to the server path ``path`` for a book built with exam server ``base``."""
    return base + path


def rewrite_server_links(markup: str, base: str) -> str:
    """``markup`` with every href to a server path moved onto ``base`` (unchanged if "")."""
    if not base:
        return markup
    return _SERVER_HREF.sub(lambda m: f"{m[1]}{m[2]}{server_href(base, m[3])}{m[2]}", markup)


def nav_html(base: str, language: str) -> str:
    """The sidebar part listing the server's pages, in ``language``, like a toctree part."""
    tr = translator(language)
    items = "".join(
        f'<li class="toctree-l1"><a class="reference external" '
        f'href="{html.escape(server_href(base, path))}">{html.escape(tr(title))}</a></li>'
        for title, path in NAV_PAGES
    )
    caption = html.escape(tr(NAV_CAPTION))
    return (
        f'<p aria-level="2" class="caption nccl-exam-links" role="heading">'
        f'<span class="caption-text">{caption}</span></p>'
        f'<ul class="nav bd-sidenav nccl-exam-links">{items}</ul>'
    )


def _read_exam_url(app: Sphinx, config) -> None:
    raw = config.nccl_exam_url or os.environ.get(EXAM_URL_ENV, "")
    try:
        config.nccl_exam_url = normalise_exam_url(raw)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc


def _rewrite_page(app: Sphinx, doctree, docname: str) -> None:
    base = app.config.nccl_exam_url
    if not base:
        return
    for node in doctree.findall(nodes.raw):
        if "html" in node.get("format", "").split():
            text = rewrite_server_links(node.astext(), base)
            node.children = [nodes.Text(text)]
            node.rawsource = text


def _add_nav(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    generate = context.get("generate_toctree_html")
    if generate is None:  # a theme without pydata's sidebar
        return
    extra = nav_html(app.config.nccl_exam_url, app.config.language or SOURCE_LANGUAGE)

    def with_server_pages(kind: str, *args, **kwargs):
        out = generate(kind, *args, **kwargs)
        # the theme hands the template a BeautifulSoup tree, which renders as its HTML
        return str(out) + extra if kind == "sidebar" else out

    context["generate_toctree_html"] = with_server_pages


def setup(app: Sphinx) -> dict:
    # "html": a new address writes every page again (the env var is read at config time).
    app.add_config_value("nccl_exam_url", "", "html", types=[str])
    app.connect("config-inited", _read_exam_url)
    app.connect("doctree-resolved", _rewrite_page)
    # After the theme's own handler, which puts generate_toctree_html in the context.
    app.connect("html-page-context", _add_nav, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
