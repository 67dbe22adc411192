"""Pages and files: the exam, verify and confirm pages, their static files and MathJax, and the
built book at ``/`` (mounted last by the app: it catches every path no other route takes).

The pages are served in the request's language (``nccl_course.server.routes.language``): the
English HTML in ``static/`` is translated on the server (``nccl_course.i18n.html_pages``) with
the interface catalog, carries the strings its scripts show in that language, and links to
itself in the other language. The files under ``/exam/static/`` are served as they are, and
the course's browser library (``nccl_course.sphinx_static.PAGE_LIBRARY``, the same file the book
serves) under ``/exam/lib/``.
"""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse

from nccl_course.exam.errors import BadRequest
from nccl_course.i18n import html_pages
from nccl_course.i18n.interface import N_, script_strings, translator
from nccl_course.i18n.languages import ENDONYMS, LANGUAGES
from nccl_course.i18n.numbers import decimal_separator
from nccl_course.server.assets import Assets
from nccl_course.server.routes.deps import NO_STORE
from nccl_course.server.routes.language import (
    COOKIE_MAX_AGE_S,
    LANGUAGE_COOKIE,
    VARY,
    request_language,
    safe_language,
)
from nccl_course.server.settings import Settings
from nccl_course.sphinx_static import PAGE_LIBRARY_DIR

STATIC = Path(__file__).resolve().parents[1] / "static"
STATIC_URL = "/exam/static/"
LIBRARY_URL = "/exam/lib/"
#: Where the scripts a page loads are: URL prefix -> folder.
SCRIPT_FOLDERS = {STATIC_URL: STATIC, LIBRARY_URL: PAGE_LIBRARY_DIR}
SWITCH_LABEL = N_("Language")

BAD_LANGUAGE_PAGE = """<!doctype html>
<html lang="{language}"><head><meta charset="utf-8"><title>400</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<p>{message}</p>
<p><a href="?lang=en" hreflang="en" lang="en">English</a> /
<a href="?lang=tr" hreflang="tr" lang="tr">Türkçe</a></p>
</body></html>
"""

MISSING_BOOK_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Book not built</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>The book is not built yet</h1>
<p>The server looks for the HTML book in <code>{book}</code>, which has no
<code>index.html</code>. Run <code>make book</code> in the repository, then reload this page.</p>
<p>The exam works without the book: <a href="/exam">go to the exam</a>.</p>
</body></html>
"""

router = APIRouter(include_in_schema=False)


def page_scripts_strings(source: str) -> list[str]:
    """The ``S("...")`` strings of the scripts (ours: ``SCRIPT_FOLDERS``) that a page loads."""
    found: dict[str, None] = {}
    for src in html_pages.script_sources(source):
        for url, folder in SCRIPT_FOLDERS.items():
            path = folder / src[len(url) :]
            if src.startswith(url) and path.is_file():
                found.update(dict.fromkeys(script_strings(path.read_text(encoding="utf-8"))))
    return list(found)


def book_root(settings: Settings, language: str) -> str:
    """The book's first page in ``language``: its edition's folder when it is built."""
    if language != "en" and (Path(settings.book_dir) / language / "index.html").is_file():
        return f"/{language}/"
    return "/"


def translated_page(request: Request, filename: str, language: str) -> str:
    settings: Settings = request.app.state.settings
    source = (STATIC / filename).read_text(encoding="utf-8")
    tr = translator(language, settings.locale_dir)
    strings = {} if language == "en" else tr.table(page_scripts_strings(source))
    others = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    links = {
        lang: (ENDONYMS[lang], "?" + urlencode([*others, ("lang", lang)])) for lang in LANGUAGES
    }
    return html_pages.translate_page(
        source,
        language,
        tr,
        strings=html_pages.strings_script(language, decimal_separator(language), strings),
        switch=html_pages.language_switch(language, links, tr(SWITCH_LABEL)),
        hrefs={"/": book_root(settings, language)},
    )


def page(request: Request, filename: str) -> HTMLResponse:
    """``static/FILENAME`` in the request's language; 400 for an unknown ``?lang=``."""
    headers = {**NO_STORE, "Vary": VARY}
    try:
        language = request_language(request)
    except BadRequest as exc:
        shown = safe_language(request)
        tr = translator(shown, request.app.state.settings.locale_dir)
        message = html.escape(tr(exc.template, **exc.fields))
        body = BAD_LANGUAGE_PAGE.format(language=shown, message=message)
        return HTMLResponse(body, status_code=400, headers=headers)
    body = translated_page(request, filename, language)
    response = HTMLResponse(body, headers={**headers, "Content-Language": language})
    if "lang" in request.query_params:  # the next page (and the mailed link) keeps it
        response.set_cookie(
            LANGUAGE_COOKIE, language, max_age=COOKIE_MAX_AGE_S, path="/", samesite="lax"
        )
    return response


@router.get("/exam", response_class=HTMLResponse)
@router.get("/exam/", response_class=HTMLResponse)
def exam_page(request: Request):
    return page(request, "exam.html")


@router.get("/exam/verify", response_class=HTMLResponse)
def verify_page(request: Request):
    return page(request, "verify.html")


def mount_static(app: FastAPI, settings: Settings) -> str | None:
    """Serve the pages' files (no CDN) and MathJax if there is a copy; returns MathJax's URL."""
    app.mount("/exam/static", Assets(directory=str(STATIC)), name="exam-static")
    app.mount("/exam/lib", Assets(directory=str(PAGE_LIBRARY_DIR)), name="exam-lib")
    if settings.mathjax_dir and (Path(settings.mathjax_dir) / "tex-chtml.js").exists():
        app.mount("/exam/mathjax", Assets(directory=str(settings.mathjax_dir)), name="mathjax")
        return "/exam/mathjax/tex-chtml.js"
    return None


class BookFiles(Assets):
    """The built book; a page that says "run make book" while it does not exist."""

    def __init__(self, directory: Path):
        super().__init__(directory=str(directory), html=True, check_dir=False)
        self.book = Path(directory)

    async def __call__(self, scope, receive, send):
        # Checked per request, so a book built while the server runs appears without a restart.
        if not (self.book / "index.html").exists():
            page = HTMLResponse(MISSING_BOOK_PAGE.format(book=self.book), status_code=503)
            await page(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def mount_book(app: FastAPI, settings: Settings) -> None:
    app.mount("/", BookFiles(settings.book_dir), name="book")
