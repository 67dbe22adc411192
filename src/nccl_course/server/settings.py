"""Configuration of the course server, gathered in one place.

Defaults: data in ``./.data``, which git ignores (the SQLite database ``course.db`` in WAL mode,
the issuer's keys and status list, the admin token, rendered certificates); the book from
``_build/html``; question banks from ``quizzes/`` and the exam blueprint from
``quizzes/exam/blueprint.yml`` (a subfolder, which bank discovery never takes for a bank).
``DATABASE_URL`` selects another database (e.g. ``postgresql://user@host/db``);
``NCCL_COURSE_ADMIN_TOKEN`` sets the admin token. ``NCCL_COURSE_RATE_LIMITS`` is ``off`` (no rate
limits) or rules replacing some defaults (``"register: 50/minute verify: 120/minute"``);
``NCCL_COURSE_TRUSTED_PROXIES`` lists proxies whose ``X-Forwarded-For`` names the client.
E-mail confirmation (``nccl_course.server.confirmations``) is on unless
``NCCL_COURSE_EMAIL_CONFIRMATION=off``; its mail goes through ``NCCL_COURSE_SMTP_HOST``,
``_SMTP_PORT``, ``_SMTP_SECURITY`` (``starttls``, ``tls`` or ``none``), ``_SMTP_USERNAME``,
``_SMTP_PASSWORD`` or ``_SMTP_PASSWORD_FILE`` and ``NCCL_COURSE_MAIL_FROM``
(``SMTP_ENV``). Without an SMTP host a development server prints each mail (and its link) to
its standard output, and a production server refuses to start.

The data folder is private (``nccl_course.store.private_files``): it is created with mode 0700,
and the first use of the settings (``resolved_database_url``, which the server calls first when
it starts) checks it, takes the group and other bits off whatever in it is open to other
users, logs each change, and refuses to go on if something cannot be changed.
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from nccl_course.i18n.interface import LOCALE_DIR
from nccl_course.store.data_dir import ADMIN_TOKEN_FILE, DATABASE_FILE
from nccl_course.store.db import sqlite_url
from nccl_course.store.private_files import make_private_dir, secure_tree

# Folders the server writes into, created private with the data folder (the issuer's keys:
# nccl_course.certs.issuer, whose revocation registry the server keeps in its database,
# nccl_course.issuing.status_registry; rendered certificates:
# nccl_course.store.data_dir.CERTIFICATE_DIR).
PRIVATE_SUBDIRS = ("certs", "certificates")
# The blueprint's place under the quizzes folder.
BLUEPRINT_FILE = Path("exam") / "blueprint.yml"
# Rate limits (nccl_course.server.ratelimit), per client address, in the notation of the limits
# library; a classroom behind one NAT shares an address: raise them for it.
DEFAULT_RATE_LIMITS = {
    "register": "20/minute;100/hour",
    "verify": "60/minute",
    "start": "20/minute",
    "admin": "30/minute",
    "admin_failed": "5/minute;20/hour",
    # Confirmation mails sent again (each one goes to a learner's mailbox).
    "resend": "3/minute;10/hour",
}
# A group (or NCCL_COURSE_RATE_LIMITS as a whole) set to one of these has no limit.
OFF = ("off", "none", "0", "false", "no", "disabled")
# How the server talks to its SMTP server: STARTTLS on a plain connection (port 587), TLS from
# the first byte ("implicit TLS", port 465, RFC 8314) or neither (a relay on the same host).
SMTP_PORTS = {"starttls": 587, "tls": 465, "none": 25}
# Settings field -> environment variable (Settings.from_env).
SMTP_ENV = {
    "smtp_host": "NCCL_COURSE_SMTP_HOST",
    "smtp_port": "NCCL_COURSE_SMTP_PORT",
    "smtp_security": "NCCL_COURSE_SMTP_SECURITY",
    "smtp_username": "NCCL_COURSE_SMTP_USERNAME",
    "smtp_password": "NCCL_COURSE_SMTP_PASSWORD",
    "mail_from": "NCCL_COURSE_MAIL_FROM",
}
SMTP_PASSWORD_FILE_ENV = "NCCL_COURSE_SMTP_PASSWORD_FILE"


@dataclass
class Settings:
    data_dir: Path = Path(".data")
    database_url: str | None = None
    book_dir: Path = Path("_build/html")
    quizzes_dir: Path = Path("quizzes")
    blueprint_path: Path | None = None
    # The address people use to reach the server; it names the did:web issuer and the URLs
    # written into credentials (verify page, status list).
    public_url: str = "http://127.0.0.1:8000"
    admin_token: str | None = None
    issuer_name: str = "nccl-course"
    # Production: refuse to start unless public_url is an https URL of a public host (the
    # credentials would otherwise name a did:web nobody else can resolve).
    production: bool = False
    # MathJax 3 (from npm, as the book ships it) for the math in questions; None: look in the
    # built book's _static/vendor/mathjax, then in node_modules/mathjax/es5.
    mathjax_dir: Path | None = None
    # Rate limits per group (DEFAULT_RATE_LIMITS; a group given here replaces its default),
    # and whether they apply at all ($NCCL_COURSE_RATE_LIMITS, serve --no-rate-limits).
    rate_limits: dict = field(default_factory=dict)
    rate_limits_enabled: bool = True
    # Addresses (or networks) of reverse proxies whose X-Forwarded-For names the client
    # ($NCCL_COURSE_TRUSTED_PROXIES, comma-separated); none by default.
    trusted_proxies: tuple = ()
    # A learner confirms their e-mail address before starting an attempt
    # ($NCCL_COURSE_EMAIL_CONFIRMATION=off, serve --no-email-confirmation: a closed class).
    email_confirmation: bool = True
    # The SMTP server for confirmation mails (SMTP_ENV); no host: print them (development).
    smtp_host: str | None = None
    smtp_port: int | None = None  # None: SMTP_PORTS[smtp_security]
    smtp_security: str = "starttls"
    smtp_username: str | None = None
    smtp_password: str | None = field(default=None, repr=False)  # never logged or passed on
    mail_from: str | None = None  # None: noreply@ the public host
    # The gettext catalogs (locales/LANG/LC_MESSAGES/): the interface's words and the quiz banks
    # in each language ($NCCL_COURSE_LOCALE_DIR); None: the repository's locales/.
    locale_dir: Path | None = None
    extra: dict = field(default_factory=dict)
    _data_dir_checked: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir).resolve()
        self.book_dir = Path(self.book_dir).resolve()
        self.quizzes_dir = Path(self.quizzes_dir).resolve()
        if self.blueprint_path is None:
            self.blueprint_path = self.quizzes_dir / BLUEPRINT_FILE
        self.blueprint_path = Path(self.blueprint_path).resolve()
        self.public_url = self.public_url.rstrip("/")
        self.locale_dir = Path(self.locale_dir or LOCALE_DIR).resolve()
        self.rate_limits = {**DEFAULT_RATE_LIMITS, **(self.rate_limits or {})}
        self.trusted_proxies = tuple(self.trusted_proxies or ())
        if self.production and self.local_test:
            raise ValueError(
                f"production mode needs --public-url https://YOUR.HOST (the address learners "
                f"and verifiers reach this server at); {self.public_url} names the issuer "
                f"{self.issuer_did}, which no one else can resolve, so its credentials could "
                "not be verified elsewhere"
            )
        self.smtp_security = (self.smtp_security or "starttls").strip().lower()
        if self.smtp_security not in SMTP_PORTS:
            raise ValueError(
                f"SMTP security {self.smtp_security!r}: use one of {', '.join(SMTP_PORTS)}"
            )
        self.smtp_port = int(self.smtp_port or SMTP_PORTS[self.smtp_security])
        if self.mail_from is None:
            self.mail_from = f"nccl-course <noreply@{urlsplit(self.public_url).hostname}>"
        if self.production and self.email_confirmation and not self.smtp_host:
            raise ValueError(
                "production mode confirms learners' e-mail addresses and needs an SMTP server: "
                "set NCCL_COURSE_SMTP_HOST (and NCCL_COURSE_SMTP_PORT, _SMTP_USERNAME, "
                "_SMTP_PASSWORD_FILE, NCCL_COURSE_MAIL_FROM as needed), or start with "
                "--no-email-confirmation (NCCL_COURSE_EMAIL_CONFIRMATION=off) for a closed class"
            )
        if self.mathjax_dir is None:
            for candidate in (
                self.book_dir / "_static" / "vendor" / "mathjax",
                Path("node_modules/mathjax/es5").resolve(),
            ):
                if (candidate / "tex-chtml.js").exists():
                    self.mathjax_dir = candidate
                    break

    @classmethod
    def from_env(cls, **overrides) -> Settings:
        """Settings with ``DATABASE_URL`` and ``NCCL_COURSE_ADMIN_TOKEN`` read from the
        environment unless given explicitly."""
        overrides.setdefault("database_url", os.environ.get("DATABASE_URL") or None)
        overrides.setdefault("admin_token", os.environ.get("NCCL_COURSE_ADMIN_TOKEN") or None)
        overrides.setdefault("locale_dir", os.environ.get("NCCL_COURSE_LOCALE_DIR") or None)
        if env_flag("NCCL_COURSE_PRODUCTION"):
            overrides["production"] = True
        limits = os.environ.get("NCCL_COURSE_RATE_LIMITS", "").strip()
        if limits.lower() in OFF:
            overrides["rate_limits_enabled"] = False
        elif limits and limits.lower() != "on" and not overrides.get("rate_limits"):
            overrides["rate_limits"] = parse_rules(limits)
        proxies = os.environ.get("NCCL_COURSE_TRUSTED_PROXIES", "")
        if proxies.strip() and not overrides.get("trusted_proxies"):
            overrides["trusted_proxies"] = tuple(p.strip() for p in proxies.split(",") if p.strip())
        confirmation = os.environ.get("NCCL_COURSE_EMAIL_CONFIRMATION", "").strip().lower()
        if confirmation in OFF and confirmation:
            overrides["email_confirmation"] = False
        for name, variable in SMTP_ENV.items():
            if overrides.get(name) is None and os.environ.get(variable, "").strip():
                value = os.environ[variable]
                overrides[name] = value if name == "smtp_password" else value.strip()
        password_file = os.environ.get(SMTP_PASSWORD_FILE_ENV, "").strip()
        if overrides.get("smtp_password") is None and password_file:
            try:
                text = Path(password_file).read_text(encoding="utf-8")
            except OSError as exc:
                raise ValueError(
                    f"{SMTP_PASSWORD_FILE_ENV}: cannot read {password_file}: {exc}"
                ) from None
            overrides["smtp_password"] = text.rstrip("\r\n")
        return cls(**{k: v for k, v in overrides.items() if v is not None})

    def prepare_data_dir(self) -> Path:
        """Create the data folder (mode 0700) or, the first time, check that it and
        everything in it is private (``secure_tree``: changes are logged; raises
        ``PrivateFileError`` naming the files and the ``chmod`` to run if some cannot be
        made private)."""
        if not self._data_dir_checked:
            make_private_dir(self.data_dir)
            secure_tree(self.data_dir)
            for name in PRIVATE_SUBDIRS:
                make_private_dir(self.data_dir / name)
            self._data_dir_checked = True
        return self.data_dir

    def resolved_database_url(self) -> str:
        self.prepare_data_dir()
        if self.database_url:
            return self.database_url
        return sqlite_url(self.data_dir / DATABASE_FILE)

    def resolved_admin_token(self) -> str:
        """The admin token: from settings/env, else one generated once into the data folder
        (mode 0600) and reused on every start."""
        if self.admin_token:
            return self.admin_token
        self.prepare_data_dir()
        path = self.data_dir / ADMIN_TOKEN_FILE
        if path.exists():
            token = path.read_text(encoding="utf-8").strip()
            if token:
                self.admin_token = token
                return token
        token = secrets.token_urlsafe(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
        self.admin_token = token
        return token

    @property
    def issuer_did(self) -> str:
        """did:web of the public host; a port is percent-encoded as the did:web spec says."""
        parts = urlsplit(self.public_url)
        host = parts.hostname or "localhost"
        if parts.port:
            host = f"{host}%3A{parts.port}"
        path = [p for p in parts.path.split("/") if p]
        return ":".join(["did", "web", host, *path])

    @property
    def local_test(self) -> bool:
        """True unless the public URL is https at a public host name: a did:web is resolved
        over https at its host, so a credential naming any other can only be checked here."""
        return is_local_test_url(self.public_url)

    @property
    def verify_url(self) -> str:
        return f"{self.public_url}/exam/verify"


def parse_rules(text: str) -> dict[str, str]:
    """``"register: 20/minute;100/hour verify: 60/minute"`` (groups separated by spaces,
    newlines or commas) -> ``{"register": "20/minute;100/hour", "verify": "60/minute"}``."""
    rules = {}
    pattern = r"([A-Za-z_]+)\s*[:=]\s*(.*?)(?=[\s,]+[A-Za-z_]+\s*[:=]|\Z)"
    for name, rule in re.findall(pattern, text.strip(), flags=re.S):
        rules[name.lower()] = rule.strip(" \t\n,;|")
    if text.strip() and not rules:
        raise ValueError(f"rate limits {text!r}: write GROUP: N/PERIOD;M/PERIOD ...")
    return rules


def env_flag(name: str) -> bool:
    """An environment variable set to 1/true/yes/on."""
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def is_local_test_url(url: str) -> bool:
    """Whether credentials issued at ``url`` can be checked only by this server: not https,
    or a host no one else reaches (localhost, a loopback, private or link-local address, a
    name without a dot)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme != "https" or not host:
        return True
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host
    return not address.is_global
