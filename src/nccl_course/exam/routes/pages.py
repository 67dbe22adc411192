"""Pages and files: the exam and verify pages, their static files and MathJax, and the built
book at ``/`` (mounted last by the app: it catches every path no other route takes)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from nccl_course.exam.routes.deps import NO_STORE
from nccl_course.exam.settings import Settings

STATIC = Path(__file__).resolve().parents[1] / "static"

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


@router.get("/exam")
@router.get("/exam/")
def exam_page():
    return FileResponse(STATIC / "exam.html", headers=NO_STORE)


@router.get("/exam/verify")
def verify_page():
    return FileResponse(STATIC / "verify.html", headers=NO_STORE)


def mount_static(app: FastAPI, settings: Settings) -> str | None:
    """Serve the pages' files (no CDN) and MathJax if there is a copy; returns MathJax's URL."""
    app.mount("/exam/static", StaticFiles(directory=str(STATIC)), name="exam-static")
    if settings.mathjax_dir and (Path(settings.mathjax_dir) / "tex-chtml.js").exists():
        app.mount("/exam/mathjax", StaticFiles(directory=str(settings.mathjax_dir)), name="mathjax")
        return "/exam/mathjax/tex-chtml.js"
    return None


class BookFiles(StaticFiles):
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
