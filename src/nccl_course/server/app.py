"""The course server: the built book at ``/``, the exam under ``/exam``, issuer metadata.

Routes (JSON unless said otherwise; learner routes take ``Authorization: Bearer LEARNER_KEY``;
the routers are in ``nccl_course.server.routes``):

- ``GET /exam`` exam page, ``GET /exam/verify`` verify page (HTML, no CDN; in the request's
  language, ``?lang=en|tr``)
- ``GET /exam/api/exam`` the exam's rules and the zones in use (plus any blueprint problems)
- ``POST /exam/api/register`` ``{name, email}`` -> ``{learner, token}`` (the key is shown once);
  with e-mail confirmation on (the default) 202 ``{token, email, confirmation, detail}`` and a
  link mailed to the address (``nccl_course.server.confirmations``)
- ``POST /exam/api/resend`` mail the link again; ``POST /exam/api/confirm`` ``{token}`` open it
  (``GET /exam/confirm#TOKEN`` is the page the link opens)
- ``GET /exam/api/me`` the learner and their attempts
- ``POST /exam/api/attempts`` start (or resume) an attempt (drawn in the request's language)
- ``GET /exam/api/attempts/{id}`` the attempt (questions and saved answers; result once closed)
- ``PUT /exam/api/attempts/{id}/answers/{index}`` ``{response}`` save one answer
- ``POST /exam/api/attempts/{id}/submit`` close and grade (idempotent)
- ``GET /exam/api/attempts/{id}/credential`` the signed credential (JSON download)
- ``GET /exam/api/attempts/{id}/certificate.pdf`` / ``.png`` the printable certificate (the
  PNG with the credential baked in, Open Badges 3.0 section 5.3, for wallets that import images)
- ``GET /exam/api/credentials/{credential_id}/share`` the verify link and LinkedIn's Add to
  Profile link of an issued, unrevoked credential
- ``POST /exam/api/verify`` a credential (or ``{credential}``, or ``{id}``) -> ``{verdict,
  ok, reason, checks, summary, unverified_claims}``: VALID only for this server's own issuers
  and status lists; verified in a worker process under a CPU-time cap
  (``nccl_course.issuing.verifier``)
- ``POST /exam/api/admin/revoke`` ``{credential_id, reason}`` with the admin token
- ``GET /exam/api/health`` liveness and the database in use
- ``GET /exam/api/ready`` readiness: the database answers (200 with its schema revision) or
  not (503)
- ``GET /.well-known/did.json`` the issuer's DID document (did:web)
- ``GET /credentials/status/N`` the issuer's status list credential(s)

A refusal is ``{"error": CODE, "detail": SENTENCE}`` with the HTTP status of its kind
(``HTTP_STATUS``): the service raises ``nccl_course.exam.errors.ExamError`` and only this module
knows about status codes. The sentence is in the request's language
(``nccl_course.server.routes.language``: ``?lang=``, the ``nccl_lang`` cookie, ``Accept-Language``);
an unknown ``?lang=`` is a 400. A request FastAPI itself refuses (a path parameter of the wrong
type) gets the same shape, 422. Bodies are bounded per route before they are parsed
(``nccl_course.server.routes.body``: 413 past the limit, 422 for what is not JSON). Registration,
verification, starting an attempt, resending a confirmation link and the admin routes are
rate-limited per client address
before their bodies are read (``nccl_course.server.ratelimit``: 429 with ``Retry-After``).
Every body, request and answer, is a model of ``nccl_course.server.api_models``, which
``app.openapi()`` describes (the public server does not serve the document).
"""

from __future__ import annotations

import contextlib
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from nccl_course.exam.banks import QuizEngine
from nccl_course.exam.blueprint import fit_to_banks, load_blueprint
from nccl_course.exam.errors import ExamError, RateLimited
from nccl_course.i18n.interface import translator
from nccl_course.i18n.languages import LANGUAGES
from nccl_course.issuing.credentials import CredentialDesk
from nccl_course.issuing.verifier import VerifierPool
from nccl_course.server.api_models import with_request_schemas
from nccl_course.server.content_policy import BookPolicies
from nccl_course.server.mailer import Mailer
from nccl_course.server.ratelimit import RateLimiter
from nccl_course.server.routes import (
    admin,
    attempts,
    credentials,
    email,
    item_stats,
    pages,
    share,
    status,
)
from nccl_course.server.routes.deps import NO_STORE
from nccl_course.server.routes.language import safe_language
from nccl_course.server.security_headers import SecurityHeaders
from nccl_course.server.service import ExamService
from nccl_course.server.settings import Settings
from nccl_course.store.batching import GroupCommitWriter
from nccl_course.store.db import Database

log = logging.getLogger("nccl_course.exam")

# The HTTP status of each kind of refusal (nccl_course.exam.errors).
HTTP_STATUS = {
    "bad_request": 400,
    "invalid": 422,
    "too_large": 413,
    "unauthenticated": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "gone": 410,
    "unavailable": 503,
    "rate_limited": 429,
}


async def exam_error(request: Request, exc: ExamError) -> JSONResponse:
    headers = dict(NO_STORE)
    if isinstance(exc, RateLimited):
        headers["Retry-After"] = str(exc.retry_after)
    detail = exc.message
    language = safe_language(request)
    if language != "en":
        settings = getattr(request.app.state, "settings", None)
        tr = translator(language, getattr(settings, "locale_dir", None))
        detail = tr(exc.template, **exc.fields)
    return JSONResponse(
        {"error": exc.code, "detail": detail},
        status_code=HTTP_STATUS[exc.kind],
        headers=headers,
    )


async def request_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's own refusals (a path parameter of the wrong type) in the same shape."""
    problems = []
    for error in exc.errors()[:5]:
        where = " ".join(str(part) for part in error.get("loc", ()))
        problems.append(f"{where}: {error.get('msg', 'invalid')}"[:200])
    return JSONResponse(
        {"error": "bad_request", "detail": "; ".join(problems) or "invalid request"},
        status_code=HTTP_STATUS["invalid"],
        headers=NO_STORE,
    )


# Worker processes (``nccl-course serve --workers N``) build their app from the settings the
# parent process wrote here as JSON (``create_worker_app``).
WORKER_SETTINGS_ENV = "NCCL_COURSE_WORKER_SETTINGS"


def prepare(settings: Settings) -> None:
    """What only one process should do, before worker processes start: migrate the database,
    create the admin token and the issuer's first key, import an old ``registry.sqlite``."""
    db = Database(settings.resolved_database_url())
    try:
        db.upgrade()
        settings.resolved_admin_token()
        CredentialDesk(settings, db, create_keys=True)
    finally:
        db.dispose()


def worker_settings_json(settings: Settings) -> str:
    """The settings for ``create_worker_app`` (every field but the admin token, which workers
    read as the parent did: from the environment or the data folder)."""
    import dataclasses
    import json
    from pathlib import Path

    out = {}
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        # The admin token and the SMTP password are read again by each worker, as the parent
        # read them (environment, files), never passed on in the environment.
        if not f.init or f.name in ("admin_token", "smtp_password", "extra") or value is None:
            continue
        out[f.name] = str(value) if isinstance(value, Path) else value
    return json.dumps(out)


def create_worker_app() -> FastAPI:
    """The app of one worker process (a uvicorn factory): settings from
    ``$NCCL_COURSE_WORKER_SETTINGS``; keys are loaded, never created (``prepare`` made them)."""
    import json
    import os

    raw = os.environ.get(WORKER_SETTINGS_ENV)
    if not raw:
        raise RuntimeError(
            f"{WORKER_SETTINGS_ENV} is not set: start workers with nccl-course serve"
        )
    return create_app(Settings.from_env(**json.loads(raw)), create_keys=False)


def create_app(settings: Settings | None = None, *, create_keys: bool = True) -> FastAPI:
    """Build the app: migrate the database to the newest schema (rows are kept), load the
    blueprint and the banks, open the issuer. Problems with banks are logged, not fatal.

    Every process on one database shares everything through it (answers, credentials, the
    status-list registry) and through the data folder (keys, admin token); each has its own
    group-commit writer and verifier pool. ``create_keys=False`` (worker processes): the
    issuer's keys must exist already."""
    settings = settings or Settings.from_env()
    db = Database(settings.resolved_database_url())
    db.upgrade()
    settings.resolved_admin_token()  # generated into the data folder on the first start

    engine = QuizEngine.load(
        settings.quizzes_dir, skip=[settings.blueprint_path], locale_dir=settings.locale_dir
    )
    blueprint = fit_to_banks(load_blueprint(settings.blueprint_path), engine.banks)
    desk = CredentialDesk(settings, db, create_keys=create_keys)
    mailer = Mailer(settings) if settings.email_confirmation else None
    service = ExamService(db, blueprint, engine, desk, mailer=mailer)
    if mailer is not None and mailer.prints:
        log.warning(
            "e-mail confirmation is on and no SMTP server is set (NCCL_COURSE_SMTP_HOST): "
            "confirmation mails and their links are printed to standard output"
        )
    for line in service.problems:
        log.warning("exam: %s", line)
    for language in LANGUAGES:  # translate the banks now, and say which stay in English
        for line in engine.problems_for(language):
            log.warning("exam (%s): %s", language, line)
    writer = GroupCommitWriter(service.answers)
    limiter = RateLimiter(db, settings.rate_limits, enabled=settings.rate_limits_enabled)
    verifier = VerifierPool()  # worker processes start on the first verification

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        yield
        writer.close()  # answers already queued are committed and acknowledged first
        verifier.close()
        limiter.refusals.flush()  # refusals counted since the last log line

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
    app.state.writer = writer
    app.state.verifier = verifier
    app.state.limiter = limiter
    app.add_exception_handler(ExamError, exam_error)
    app.add_exception_handler(RequestValidationError, request_error)
    policies = BookPolicies(settings.book_dir)  # each book page's script digests
    app.add_middleware(SecurityHeaders, production=settings.production, policies=policies)

    app.include_router(pages.router)
    app.state.mathjax_url = pages.mount_static(app, settings)
    app.include_router(attempts.router)
    app.include_router(email.router)
    app.include_router(credentials.router)
    app.include_router(share.router)
    app.include_router(admin.router)
    app.include_router(item_stats.router)
    app.include_router(status.router)
    pages.mount_book(app, settings)  # last: it catches every other path
    with_request_schemas(app)  # the bodies the routes read themselves, in app.openapi()
    return app


__all__ = ["create_app", "create_worker_app", "prepare", "worker_settings_json"]
