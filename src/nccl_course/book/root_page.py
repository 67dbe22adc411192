"""The page at an edition's root (``index.html``): it sends the reader on to the first chapter.

Jupyter Book's table of contents writes it as a bare ``<meta http-equiv="Refresh">`` line when
the build ends and no ``index.html`` exists. A page without a language, a title or an icon makes
the browser ask the server for ``/favicon.ico`` (a 404 in the reader's console) and tells a
screen reader nothing. This extension writes the page first (``build-finished``, priority 400:
before the table of contents' handler at 500), as a whole document: the edition's language and
title, an icon that costs no request (``data:``: the page is left at once, and a request for
the book's icon would be cut short by the redirect), the redirect, and a link for a browser that
does not follow it.
"""

from __future__ import annotations

import html
from pathlib import Path

ROOT_PAGE = """<!doctype html>
<html lang="{language}">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="icon" href="data:,">
<meta http-equiv="Refresh" content="0; url={first}">
</head>
<body>
<p><a href="{first}">{title}</a></p>
</body>
</html>
"""


def root_page(language: str, title: str, first_page: str) -> str:
    """The root page's HTML for an edition in ``language`` whose first page is ``first_page``
    (a URL relative to the root)."""
    return ROOT_PAGE.format(
        language=html.escape(language, quote=True),
        title=html.escape(title),
        first=html.escape(first_page, quote=True),
    )


def write_root_page(app, exception) -> None:
    if exception is not None or app.builder.name != "html" or app.config.root_doc == "index":
        return
    page = root_page(
        app.config.language or "en",
        app.config.html_title or app.config.project,
        f"{app.config.root_doc}.html",
    )
    target = Path(app.outdir) / "index.html"
    if not target.exists() or target.read_text(encoding="utf-8") != page:
        target.write_text(page, encoding="utf-8")


def setup(app):
    app.connect("build-finished", write_root_page, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
