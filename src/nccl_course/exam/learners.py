"""Learners and what their key opens.

A learner registers with a name and an email and gets a learner key, shown once; the server
keeps only its SHA-256. Every learner request carries the key, and the lookups below are the
one place that turns it into a learner and, with an attempt id, into *that learner's* attempt:
another learner's attempt is "not found", never "forbidden", so ids reveal nothing.

With e-mail confirmation on (``nccl_course.exam.confirmations``), a registration first holds
a key that is not yet a learner's: every learner route then answers 403 ``email_unconfirmed``
(``unconfirmed``) until the link mailed to the address is opened.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from nccl_course.exam.db import Database
from nccl_course.exam.errors import Conflict, Forbidden, Invalid, NotFound, Unauthenticated
from nccl_course.exam.models import Attempt, EmailLink, Learner, utcnow
from nccl_course.i18n.interface import N_

MAX_NAME_CHARS = 200
MAX_EMAIL_CHARS = 320


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def normalise_email(email: str) -> str:
    """The form in which an address is stored and compared: without surrounding spaces, all
    in lower case. RFC 5321 (section 2.4) lets a mail server treat the part before the @ as
    case-sensitive, but it also asks senders not to rely on that, and the mail providers
    learners use ignore case; lower-casing the whole address keeps "Ada@X.org" and
    "ada@x.org" from being two learners with two sets of attempts. Nothing else (dots, +tags)
    is removed: those are a provider's conventions, not the standard's."""
    return email.strip().lower()


def unconfirmed(email: str) -> Forbidden:
    """The refusal while an address is not confirmed (403, code ``email_unconfirmed``)."""
    return Forbidden(
        "email_unconfirmed",
        N_(
            "confirm your e-mail address first: open the link we sent to {email}. No mail? Look "
            "in the spam folder, or have it sent again (the exam page's 'Send the link again', "
            "POST /exam/api/resend)."
        ),
        email=email,
    )


def find_learner(session, token: str | None) -> Learner:
    """The learner whose key this is; Unauthenticated if there is no key or it is unknown,
    Forbidden (``unconfirmed``) if it is the key of a registration not confirmed yet."""
    if not token:
        raise Unauthenticated("no_token", N_("sign in first (register to get a learner key)"))
    hashed = token_hash(token)
    learner = session.scalar(select(Learner).where(Learner.token_hash == hashed))
    if learner is None:
        pending = session.scalar(
            select(EmailLink.email).where(
                EmailLink.key_hash == hashed,
                EmailLink.purpose == "register",
                EmailLink.used_at.is_(None),
            )
        )
        if pending is not None:
            raise unconfirmed(pending)
        raise Unauthenticated("bad_token", N_("unknown learner key: register or sign in again"))
    return learner


def find_attempt(session, learner: Learner, attempt_id: str, *, lock=False) -> Attempt:
    """The learner's attempt with this public id (row-locked if ``lock``); NotFound if the
    attempt does not exist or belongs to someone else."""
    query = select(Attempt).where(Attempt.public_id == attempt_id, Attempt.learner_id == learner.id)
    if lock:
        query = query.with_for_update()
    attempt = session.scalar(query)
    if attempt is None:
        raise NotFound("no_attempt", N_("no such attempt for this learner"))
    return attempt


def learner_json(learner: Learner) -> dict:
    return {"id": learner.public_id, "name": learner.name, "email": learner.email}


class Learners:
    def __init__(self, db: Database):
        self.db = db
        # Hashes of keys known to be valid, so routes can check the key before reading a body
        # without a query each time. Learners are never deleted; a key is replaced only when
        # its learner signs in again through a mailed link, and then the service's own look-up
        # (find_learner, after the body is read) refuses the old one.
        self._known_hashes: set[str] = set()

    def is_known(self, token: str) -> bool:
        """Whether a learner key was already seen valid (no database access)."""
        return token_hash(token) in self._known_hashes

    def authenticate(self, token: str | None) -> None:
        """Unauthenticated unless ``token`` is a learner's key (one query, then remembered)."""
        if token and self.is_known(token):
            return
        with self.db.read() as session:
            find_learner(session, token)
        if len(self._known_hashes) > 100_000:
            self._known_hashes.clear()
        self._known_hashes.add(token_hash(token))

    def register(self, name: str, email: str) -> tuple[Learner, str]:
        """A new learner and their key (the only time the key exists outside the browser);
        registration without e-mail confirmation (``nccl_course.exam.confirmations``
        otherwise)."""
        name, email = checked_identity(name, email)
        token = secrets.token_urlsafe(32)
        learner = Learner(
            public_id=secrets.token_hex(8),
            name=name,
            email=email,
            token_hash=token_hash(token),
            created_at=utcnow(),
        )
        try:
            with self.db.write() as session:
                session.add(learner)
        except IntegrityError:
            raise Conflict(
                "already_registered",
                N_("this email is already registered: sign in with the learner key you were given"),
            ) from None
        return learner, token


def checked_identity(name: str, email: str) -> tuple[str, str]:
    """A name and a normalised address fit to store; ``Invalid`` otherwise."""
    name = (name or "").strip()
    email = normalise_email(email or "")
    if not name or len(name) > MAX_NAME_CHARS:
        raise Invalid("bad_name", N_("a name of 1 to {max} characters"), max=MAX_NAME_CHARS)
    if any(unicodedata.category(c) == "Cc" for c in name + email):
        raise Invalid("bad_text", N_("a name and an email without control characters"))
    if (
        not 3 <= len(email) <= MAX_EMAIL_CHARS
        or email.count("@") != 1
        or not all(email.split("@"))
        or any(c.isspace() for c in email)
    ):
        raise Invalid("bad_email", N_("an email address like name@example.org"))
    return name, email
