"""The course server: the built book at ``/``, the exam under ``/exam``, issuer metadata.

Routes (JSON unless said otherwise; learner routes take ``Authorization: Bearer LEARNER_KEY``):

- ``GET /exam`` exam page, ``GET /exam/verify`` verify page (HTML, no CDN)
- ``GET /exam/api/exam`` the exam's rules and the zones in use (plus any blueprint problems)
- ``POST /exam/api/register`` ``{name, email}`` -> ``{learner, token}`` (the key is shown once)
- ``GET /exam/api/me`` the learner and their attempts
- ``POST /exam/api/attempts`` start (or resume) an attempt
- ``GET /exam/api/attempts/{id}`` the attempt (questions and saved answers; result once closed)
- ``PUT /exam/api/attempts/{id}/answers/{index}`` ``{response}`` save one answer
- ``POST /exam/api/attempts/{id}/submit`` close and grade (idempotent)
- ``GET /exam/api/attempts/{id}/credential`` the signed credential (JSON download)
- ``GET /exam/api/attempts/{id}/certificate.pdf`` / ``.png`` the printable certificate
- ``POST /exam/api/verify`` a credential (or ``{credential}``) -> ``{ok, reason, checks}``
- ``POST /exam/api/admin/revoke`` ``{credential_id, reason}`` with the admin token
- ``GET /.well-known/did.json`` the issuer's DID document (did:web)
- ``GET /credentials/status/N`` the issuer's status list credential(s)
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, Header, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from nccl_course.exam.batching import GroupCommitWriter
from nccl_course.exam.blueprint import BlueprintError, fit_to_banks, load_blueprint
from nccl_course.exam.db import Database
from nccl_course.exam.service import ExamError, ExamService, QuizEngine
from nccl_course.exam.settings import Settings

log = logging.getLogger("nccl_course.exam")
STATIC = Path(__file__).resolve().parent / "static"
NO_STORE = {"Cache-Control": "no-store"}

MISSING_BOOK_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Book not built</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>The book is not built yet</h1>
<p>The server looks for the HTML book in <code>{book}</code>, which has no
<code>index.html</code>. Run <code>make book</code> in the repository, then reload this page.</p>
<p>The exam works without the book: <a href="/exam">go to the exam</a>.</p>
</body></html>
"""


class Registration(BaseModel):
    name: str
    email: str


class AnswerBody(BaseModel):
    response: Any = None


class Revocation(BaseModel):
    credential_id: str
    reason: str = ""


def credential_summary(credential: dict) -> dict:
    """What a person checking a credential wants to read, taken from the document itself."""
    subject = credential.get("credentialSubject") if isinstance(credential, dict) else None
    subject = subject if isinstance(subject, dict) else {}
    name = None
    for ident in subject.get("identifier") or []:
        if isinstance(ident, dict) and ident.get("identityType") == "name":
            name = ident.get("identityHash")
    achievement = subject.get("achievement") if isinstance(subject.get("achievement"), dict) else {}
    results = subject.get("result") or [{}]
    issuer = credential.get("issuer")
    return {
        "learner": name,
        "achievement": achievement.get("name"),
        "issuer": issuer.get("name") if isinstance(issuer, dict) else issuer,
        "valid_from": credential.get("validFrom"),
        "score_percent": results[0].get("value") if isinstance(results[0], dict) else None,
    }


def bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
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


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app: migrate the database to the newest schema (rows are kept), load the
    blueprint and the banks, open the issuer. Problems with banks are logged, not fatal."""
    settings = settings or Settings.from_env()
    db = Database(settings.resolved_database_url())
    db.upgrade()
    admin_token = settings.resolved_admin_token()

    engine = QuizEngine.load(settings.quizzes_dir, skip=[settings.blueprint_path])
    blueprint = fit_to_banks(load_blueprint(settings.blueprint_path), engine.banks)
    problems = engine.problems + blueprint.problems
    for line in problems:
        log.warning("exam: %s", line)

    desk = None
    try:
        from nccl_course.exam.credentials import CredentialDesk

        desk = CredentialDesk(settings)
    except ImportError as exc:  # the certs package is missing in this checkout
        problems.append(f"credentials disabled: {exc}")
        log.warning("exam: credentials disabled: %s", exc)
    service = ExamService(db, blueprint, engine, issuer=desk)
    writer = GroupCommitWriter(service)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        yield
        writer.close()  # answers already queued are committed and acknowledged first

    app = FastAPI(
        title="nccl-course server",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.db = db
    app.state.service = service
    app.state.desk = desk
    app.state.writer = writer

    @app.exception_handler(ExamError)
    async def _exam_error(_request: Request, exc: ExamError):
        return JSONResponse(
            {"error": exc.code, "detail": exc.message}, status_code=exc.status, headers=NO_STORE
        )

    def ok(body, status: int = 200) -> JSONResponse:
        return JSONResponse(body, status_code=status, headers=NO_STORE)

    # ---- pages ----------------------------------------------------------------------------
    @app.get("/exam", include_in_schema=False)
    @app.get("/exam/", include_in_schema=False)
    def exam_page():
        return FileResponse(STATIC / "exam.html", headers=NO_STORE)

    @app.get("/exam/verify", include_in_schema=False)
    def verify_page():
        return FileResponse(STATIC / "verify.html", headers=NO_STORE)

    app.mount("/exam/static", StaticFiles(directory=str(STATIC)), name="exam-static")
    mathjax = None
    if settings.mathjax_dir and (Path(settings.mathjax_dir) / "tex-chtml.js").exists():
        app.mount("/exam/mathjax", StaticFiles(directory=str(settings.mathjax_dir)), name="mathjax")
        mathjax = "/exam/mathjax/tex-chtml.js"

    # ---- exam API -------------------------------------------------------------------------
    @app.get("/exam/api/health")
    def health():
        return ok({"ok": True, "database": db.engine.dialect.name})

    @app.get("/exam/api/exam")
    def exam_info():
        return ok(
            {
                "id": blueprint.exam_id,
                "title": blueprint.title,
                "time_limit_s": blueprint.time_limit_s,
                "max_attempts": blueprint.max_attempts,
                "pass_score": blueprint.pass_score,
                "question_count": blueprint.question_count,
                "zones": [{"chapter": z.chapter, "draw": z.draw} for z in blueprint.zones],
                "problems": problems,
                "credentials": desk is not None,
                "mathjax": mathjax,
            }
        )

    @app.post("/exam/api/register")
    def register(body: Registration):
        learner, token = service.register(body.name, body.email)
        return ok(
            {
                "learner": {"id": learner.public_id, "name": learner.name, "email": learner.email},
                "token": token,
            },
            201,
        )

    @app.get("/exam/api/me")
    def me(authorization: str | None = Header(default=None)):
        return ok(service.overview(bearer(authorization)))

    @app.post("/exam/api/attempts")
    def start(authorization: str | None = Header(default=None)):
        return ok(service.start(bearer(authorization)), 201)

    @app.get("/exam/api/attempts/{attempt_id}")
    def attempt(attempt_id: str, authorization: str | None = Header(default=None)):
        return ok(service.view(bearer(authorization), attempt_id))

    @app.put("/exam/api/attempts/{attempt_id}/answers/{index}")
    async def save_answer(
        attempt_id: str,
        index: int,
        body: AnswerBody,
        authorization: str | None = Header(default=None),
    ):
        ack = await writer.save_async(bearer(authorization), attempt_id, index, body.response)
        return ok(ack)

    @app.post("/exam/api/attempts/{attempt_id}/submit")
    def submit(attempt_id: str, authorization: str | None = Header(default=None)):
        return ok(service.submit(bearer(authorization), attempt_id))

    @app.get("/exam/api/attempts/{attempt_id}/credential")
    def credential(attempt_id: str, authorization: str | None = Header(default=None)):
        issued = service.credential_for(bearer(authorization), attempt_id)
        return JSONResponse(
            issued.document,
            headers={
                **NO_STORE,
                "Content-Disposition": 'attachment; filename="nccl-course-credential.json"',
            },
            media_type="application/json",
        )

    @app.get("/exam/api/attempts/{attempt_id}/certificate.{fmt}")
    def certificate(attempt_id: str, fmt: str, authorization: str | None = Header(default=None)):
        if fmt not in ("pdf", "png"):
            raise ExamError(404, "bad_format", "certificates come as .pdf or .png")
        issued = service.credential_for(bearer(authorization), attempt_id)
        path = desk.render(issued.document, fmt)
        return FileResponse(
            path,
            media_type="application/pdf" if fmt == "pdf" else "image/png",
            filename=f"nccl-course-certificate.{fmt}",
            headers=NO_STORE,
        )

    @app.post("/exam/api/verify")
    def verify(body: Annotated[Any, Body()]):
        """Verify a pasted/uploaded credential, ``{"credential": {...}}``, or
        ``{"id": "urn:uuid:..."}`` for a credential this server issued (the certificate's QR
        code links to the verify page with that id)."""
        if desk is None:
            raise ExamError(503, "no_issuer", "this server cannot verify credentials")
        if isinstance(body, dict) and isinstance(body.get("credential"), dict):
            body = body["credential"]
        elif isinstance(body, dict) and set(body) == {"id"} and isinstance(body["id"], str):
            body = service.stored_credential(body["id"])
        if not isinstance(body, dict):
            raise ExamError(422, "not_a_credential", "send a credential: a JSON object")
        result = desk.verify(body)
        result["summary"] = credential_summary(body)
        return ok(result)

    @app.post("/exam/api/admin/revoke")
    def revoke(body: Revocation, authorization: str | None = Header(default=None)):
        given = bearer(authorization) or ""
        if not secrets.compare_digest(given.encode(), admin_token.encode()):
            raise ExamError(403, "forbidden", "the admin token is required")
        if desk is None:
            raise ExamError(503, "no_issuer", "this server cannot revoke credentials")
        revoked = service.revoke(body.credential_id, body.reason)
        return ok(
            {
                "credential_id": revoked.credential_id,
                "revoked": True,
                "revoked_at": revoked.revoked_at.isoformat(),
            }
        )

    # ---- issuer metadata ------------------------------------------------------------------
    @app.get("/.well-known/did.json")
    def did_document():
        if desk is None:
            raise ExamError(404, "no_issuer", "this server has no issuer")
        return JSONResponse(desk.did_document(), media_type="application/did+json")

    @app.get("/credentials/status/{list_number}")
    def status_list(list_number: int):
        if desk is None or list_number not in desk.status_list_numbers():
            raise ExamError(404, "no_status_list", f"no status list {list_number}")
        return JSONResponse(
            desk.status_list_credential(list_number),
            headers=NO_STORE,
            media_type="application/vc+ld+json",
        )

    # ---- the book (last: it catches every other path) -------------------------------------
    app.mount("/", BookFiles(settings.book_dir), name="book")
    return app


__all__ = ["create_app", "BlueprintError"]
