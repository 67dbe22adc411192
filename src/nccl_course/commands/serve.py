"""``nccl-course serve``: the course server (the built book at /, the exam under /exam)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from nccl_course.store.data_dir import default_data_dir


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the course server: the book at http://HOST:PORT/, the exam at /exam",
        description=(
            "Run the course server with uvicorn: the HTML book from _build/html at /, the "
            "server-graded exam at /exam, the credential verify page at /exam/verify and the "
            "issuer's DID document at /.well-known/did.json. Build the book first with "
            "'make book'. Data (SQLite database in WAL mode, issuer keys, admin token) goes "
            "in --data-dir unless --database-url or DATABASE_URL names another database. "
            "Learners confirm their e-mail address (a link mailed at registration) before an "
            "attempt can start; the mail goes through the SMTP server named by "
            "NCCL_COURSE_SMTP_HOST, NCCL_COURSE_SMTP_PORT, NCCL_COURSE_SMTP_SECURITY (starttls, "
            "the default, port 587; tls, port 465; or none), NCCL_COURSE_SMTP_USERNAME, "
            "NCCL_COURSE_SMTP_PASSWORD or NCCL_COURSE_SMTP_PASSWORD_FILE, and "
            "NCCL_COURSE_MAIL_FROM. Without NCCL_COURSE_SMTP_HOST the mails and their links are "
            "printed to standard output (development); --production refuses to start."
        ),
    )
    _add_site_options(
        parser.add_argument_group("where the server listens and how learners reach it")
    )
    _add_data_options(parser.add_argument_group("what it serves and where it keeps data"))
    _add_policy_options(parser.add_argument_group("how it runs the exam"))
    parser.set_defaults(func=run)


def _add_site_options(group) -> None:
    group.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    group.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    group.add_argument(
        "--public-url",
        default=None,
        help="the URL learners use to reach the server; names the did:web issuer "
        "(default http://HOST:PORT: development, whose credentials say they are local tests)",
    )
    group.add_argument(
        "--production",
        action="store_true",
        default=None,
        help="refuse to start unless --public-url is https://PUBLIC.HOST, so that every "
        "credential can be verified elsewhere, and, with e-mail confirmation on, unless "
        "NCCL_COURSE_SMTP_HOST names an SMTP server (also NCCL_COURSE_PRODUCTION=1)",
    )
    group.add_argument(
        "--trust-proxy",
        action="append",
        default=None,
        metavar="ADDRESS",
        help="a reverse proxy's address (or network) whose X-Forwarded-For names the client, "
        "for the rate limits (repeatable; also NCCL_COURSE_TRUSTED_PROXIES; default none)",
    )


def _add_data_options(group) -> None:
    group.add_argument(
        "--book", type=Path, default=Path("_build/html"), help="built book folder (_build/html)"
    )
    group.add_argument(
        "--data-dir",
        type=Path,
        default=default_data_dir(),
        help="folder for the database, issuer keys and admin token (default ./.data)",
    )
    group.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL, e.g. postgresql://user@host/db (default: $DATABASE_URL, else "
        "SQLite in the data folder)",
    )
    group.add_argument(
        "--quizzes", type=Path, default=Path("quizzes"), help="question banks folder (quizzes)"
    )
    group.add_argument(
        "--blueprint",
        type=Path,
        default=None,
        help="exam blueprint (default: QUIZZES/exam/blueprint.yml)",
    )


def _add_policy_options(group) -> None:
    group.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes (default 1). With more than one, use PostgreSQL "
        "(--database-url): every worker, and every host on the same database and a copy of "
        "the data folder, shares the answers, credentials and status lists through it",
    )
    group.add_argument(
        "--no-rate-limits",
        action="store_true",
        help="no rate limits (also NCCL_COURSE_RATE_LIMITS=off); by default registration, "
        "verification, starting an attempt and the admin routes are limited per client "
        "address, counted in the database (shared by workers and hosts)",
    )
    group.add_argument(
        "--no-email-confirmation",
        action="store_true",
        help="learners start attempts without confirming their e-mail address, and an address "
        "registered twice is refused (409), for a closed class (also "
        "NCCL_COURSE_EMAIL_CONFIRMATION=off)",
    )
    group.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )


def run(args) -> int:
    import logging

    from nccl_course.exam.blueprint import BlueprintError
    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings

    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    book = args.book.resolve()
    if not (book / "index.html").exists():
        print(
            f"warning: no built book in {book}; / shows a page saying to run 'make book'",
            file=sys.stderr,
        )
    try:
        settings = Settings.from_env(
            data_dir=args.data_dir,
            database_url=args.database_url,
            book_dir=book,
            quizzes_dir=args.quizzes,
            blueprint_path=args.blueprint,
            public_url=args.public_url or f"http://{args.host}:{args.port}",
            production=getattr(args, "production", None),
            rate_limits_enabled=False if getattr(args, "no_rate_limits", False) else None,
            trusted_proxies=tuple(args.trust_proxy) if getattr(args, "trust_proxy", None) else None,
            email_confirmation=False if getattr(args, "no_email_confirmation", False) else None,
        )
    except ValueError as exc:  # production without an https public URL or SMTP, a bad limit
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if settings.local_test:
        print(local_test_notice(settings), file=sys.stderr, flush=True)
    if settings.email_confirmation and not settings.smtp_host:
        print(mail_notice(), file=sys.stderr, flush=True)
    if args.workers > 1:
        return _run_workers(args, settings)
    try:
        app = create_app(settings)
    except BlueprintError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a database that cannot be reached or migrated
        print(f"error: cannot start the course server: {exc}", file=sys.stderr)
        return 1
    token_note = (
        "from NCCL_COURSE_ADMIN_TOKEN"
        if os.environ.get("NCCL_COURSE_ADMIN_TOKEN")
        else f"in {settings.data_dir / 'admin-token'}"
    )
    print(
        f"Serving the course at http://{args.host}:{args.port}/ and the exam at "
        f"http://{args.host}:{args.port}/exam (admin token {token_note}; Ctrl-C stops)",
        flush=True,
    )
    try:
        return _listen(app, args)
    finally:
        app.state.db.dispose()


def _run_workers(args, settings) -> int:
    """``--workers N``: this process migrates the database and creates the keys and the admin
    token (``prepare``), then uvicorn starts N worker processes that build their own app from
    an import string (``create_worker_app``) and only load what this process created."""

    from nccl_course.exam.blueprint import BlueprintError, load_blueprint
    from nccl_course.server.app import WORKER_SETTINGS_ENV, prepare, worker_settings_json

    try:
        if settings.resolved_database_url().startswith("sqlite"):
            print(
                "warning: several workers on SQLite share one writer lock; use PostgreSQL "
                "(--database-url) to scale out",
                file=sys.stderr,
            )
        load_blueprint(settings.blueprint_path)  # a bad blueprint: one line, before workers
        prepare(settings)
    except BlueprintError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        print(f"error: cannot start the course server: {exc}", file=sys.stderr)
        return 1
    os.environ[WORKER_SETTINGS_ENV] = worker_settings_json(settings)
    print(
        f"Serving the course at http://{args.host}:{args.port}/ with {args.workers} workers "
        "(Ctrl-C stops)",
        flush=True,
    )
    return _listen(
        "nccl_course.server.app:create_worker_app", args, factory=True, workers=args.workers
    )


def _listen(app, args, **options) -> int:
    """Run uvicorn on ``--host``/``--port``; 1 with a one-line error if it cannot listen."""
    import uvicorn

    try:
        # Keep idle connections longer than uvicorn's 5 s default: browsers and load
        # balancers reuse them, and a server closing one just as a client reuses it makes that
        # request fail.
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            access_log=False,
            timeout_keep_alive=75,
            # uvicorn would rewrite the client address from X-Forwarded-For on connections from
            # 127.0.0.1 by default; the rate limits read that header themselves, and only from
            # the proxies named with --trust-proxy.
            proxy_headers=False,
            **options,
        )
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0


def local_test_notice(settings) -> str:
    """What ``serve`` prints at start in development (no https public URL)."""
    return (
        f"note: development server: its certificates are for local testing only. They name "
        f"the issuer {settings.issuer_did}, which no one else can resolve, and say "
        f"'(local test, not verifiable elsewhere)'. To issue credentials others can verify, "
        f"start with --public-url https://YOUR.HOST (and --production to insist on it)."
    )


def mail_notice() -> str:
    """What ``serve`` prints at start with e-mail confirmation on and no SMTP server."""
    return (
        "note: no SMTP server (NCCL_COURSE_SMTP_HOST): confirmation mails, with the link a "
        "learner opens to confirm their address, are printed to standard output. Set "
        "NCCL_COURSE_SMTP_HOST to send them, or start with --no-email-confirmation."
    )
