"""E-mail confirmation: a learner proves they read the address they registered with before
an attempt can start, and one address is one learner.

Registration (``register``) stores a *pending* registration (an ``EmailLink`` row) and
mails a link to the address; the answer is the same whether or not the address already
belongs to a learner (202, a key and a sentence), so it does not tell who is registered:

- a new address: the key the browser holds becomes the new learner's key when the link is
  opened (``confirm``); until then every learner route answers 403 ``email_unconfirmed``
  (``nccl_course.store.queries.find_learner``);
- an address a learner already has: the mail is a sign-in link instead. Opening it gives
  *the browser that opened it* a new key for that learner (the old key stops working), with
  their attempts: registering again never brings fresh attempts. The key of the browser that
  registered never becomes that learner's, so someone who types another person's address
  gains nothing.

A link's token is random (256 bits), only its SHA-256 is stored, it expires after
``LINK_LIFETIME`` and works once. ``resend`` mails a fresh link (the previous one stops
working) to the address of a pending registration or of a learner registered before
confirmation existed. Mail goes out (``nccl_course.server.mailer``) before the row that makes
its link valid is written: a failed send changes nothing, and the learner can try again.

A mail is written in the language of the request that sends it (the page's language: the exam
page passes it), and its link opens the confirm page in that language (``?lang=``); nothing of
it is stored.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from nccl_course.exam.clock import as_utc, utcnow
from nccl_course.exam.errors import Conflict, Gone, NotFound, Unauthenticated
from nccl_course.exam.learners import (
    checked_identity,
    learner_json,
    normalise_email,
    token_hash,
)
from nccl_course.i18n.interface import N_, translator
from nccl_course.server.mailer import Mailer
from nccl_course.store.db import Database
from nccl_course.store.models import EmailLink, Learner

LINK_LIFETIME = timedelta(hours=24)
# The page a link opens; the token follows '#', which browsers never send to a server (no
# access log or proxy sees it) and the page posts to CONFIRM_API.
CONFIRM_PAGE = "/exam/confirm"
CONFIRM_API = "/exam/api/confirm"

# Nothing the registering person typed but the address goes into a mail: the server mails
# addresses anyone may type, so a name could otherwise carry someone's message to a stranger.
CONFIRM_SUBJECT = N_("Confirm your e-mail address for the nccl-course exam")
CONFIRM_MAIL = N_(
    "Hello,\n\n"
    'someone (we hope you) registered this address for the exam of the course "Collective\n'
    'communication and NCCL". To confirm it, open this link within 24 hours and press the button:'
    "\n\n{link}\n\n"
    "If it was not you, ignore this mail: nothing happens without the link.\n"
)

SIGN_IN_SUBJECT = N_("Sign in to the nccl-course exam")
SIGN_IN_MAIL = N_(
    "Hello,\n\n"
    "someone (we hope you) registered again with this address for the exam of the course\n"
    '"Collective communication and NCCL". This address already has a learner record, with its\n'
    "attempts and certificates. To sign in to it in the browser where you open this link (within\n"
    "24 hours; your previous learner key stops working), press the button on this page:"
    "\n\n{link}\n\n"
    "If it was not you, ignore this mail: nothing happens without the link.\n"
)


class Confirmations:
    def __init__(self, db: Database, mailer: Mailer):
        self.db = db
        self.mailer = mailer
        self.public_url = mailer.settings.public_url

    def _tr(self, language: str):
        return translator(language, getattr(self.mailer.settings, "locale_dir", None))

    def register(self, name: str, email: str, language: str = "en") -> dict:
        """A pending registration: its key (for the browser) and a link mailed to ``email``
        in ``language``."""
        name, email = checked_identity(name, email)
        with self.db.read() as session:
            owner = session.scalar(select(Learner).where(Learner.email == email))
        key = secrets.token_urlsafe(32)
        link = EmailLink(
            purpose="register",
            email=email,
            name=name,
            key_hash=token_hash(key),
            learner_id=owner.id if owner else None,
        )
        self._mail_and_store(link, language)
        return {
            "token": key,
            "email": email,
            "confirmation": "sent",
            "detail": self._tr(language)(
                N_("we sent a link to {email}: open it to go on (it works for 24 hours)"),
                email=email,
            ),
        }

    def resend(self, key: str | None, language: str = "en") -> dict:
        """A fresh link, in ``language``, for the registration or learner this key belongs
        to."""
        if not key:
            raise Unauthenticated("no_token", N_("sign in first (register to get a learner key)"))
        hashed = token_hash(key)
        with self.db.read() as session:
            learner = session.scalar(select(Learner).where(Learner.token_hash == hashed))
            if learner is not None:
                if learner.email_confirmed_at is not None:
                    raise Conflict("already_confirmed", N_("your e-mail address is confirmed"))
                if normalise_email(learner.email) != learner.email:
                    raise Conflict(
                        "duplicate_email",
                        N_(
                            "another learner record holds this address: register again with it "
                            "to get a sign-in link to that one"
                        ),
                    )
                where = (EmailLink.learner_id == learner.id, EmailLink.purpose == "confirm")
                fresh = EmailLink(
                    purpose="confirm", email=learner.email, name=learner.name, learner_id=learner.id
                )
            else:
                where = (EmailLink.key_hash == hashed, EmailLink.purpose == "register")
                fresh = None
            link = session.scalar(
                select(EmailLink).where(*where, EmailLink.used_at.is_(None)).limit(1)
            )
        if link is None and fresh is None:
            raise Unauthenticated("bad_token", N_("unknown learner key: register or sign in again"))
        link = link or fresh
        self._mail_and_store(link, language)
        return {
            "email": link.email,
            "confirmation": "sent",
            "detail": self._tr(language)(
                N_("we sent a new link to {email}; earlier links no longer work"),
                email=link.email,
            ),
        }

    def _mail_and_store(self, link: EmailLink, language: str = "en") -> None:
        """Mail a new link for ``link`` (a new or a detached row) in ``language``, then store
        it."""
        token = secrets.token_urlsafe(32)
        # The confirm page opens in the mail's language (English needs no parameter).
        query = "" if language == "en" else f"?lang={language}"
        url = f"{self.public_url}{CONFIRM_PAGE}{query}#{token}"
        tr = self._tr(language)
        if link.purpose == "register" and link.learner_id is not None:
            subject, body = SIGN_IN_SUBJECT, SIGN_IN_MAIL
        else:
            subject, body = CONFIRM_SUBJECT, CONFIRM_MAIL
        self.mailer.send(link.email, tr(subject), tr(body, link=url), language)
        now = utcnow()
        fields = {
            "token_hash": token_hash(token),
            "created_at": now,
            "expires_at": now + LINK_LIFETIME,
        }
        with self.db.write() as session:
            if link.id is None:
                session.add(link)
                for name, value in fields.items():
                    setattr(link, name, value)
                return
            # A link renewed while another request used it stays used (no fresh link).
            renewed = session.execute(
                update(EmailLink)
                .where(EmailLink.id == link.id, EmailLink.used_at.is_(None))
                .values(**fields)
            ).rowcount
        if not renewed:
            raise Conflict("link_used", N_("your registration was confirmed meanwhile: reload"))

    def confirm(self, token: str) -> dict:
        """Open a link: confirm the address; for a sign-in link, a new key for its learner."""
        for _ in range(2):
            try:
                return self._confirm_once(token)
            except IntegrityError:
                continue  # another link for the same new address was opened at the same time
        raise Conflict("busy", N_("another confirmation is in progress; try again"))

    def _confirm_once(self, token: str) -> dict:
        now = utcnow()
        with self.db.write() as session:
            link = session.scalar(
                select(EmailLink).where(EmailLink.token_hash == token_hash(token or ""))
            )
            if link is None:
                raise NotFound(
                    "unknown_link",
                    N_(
                        "this link is not valid: it may be cut short or mistyped, or a newer "
                        "link was sent since; the exam page can send a new one"
                    ),
                )
            if link.used_at is not None:
                raise Conflict(
                    "link_used",
                    N_("this link was already used: the address is confirmed; go to the exam page"),
                )
            if as_utc(link.expires_at) < now:
                raise Gone(
                    "link_expired",
                    N_(
                        "this link has expired (links work for 24 hours): open the exam page "
                        "and have a new one sent"
                    ),
                )
            link.used_at = now
            learner = None
            if link.learner_id is not None:
                learner = session.get(Learner, link.learner_id)
            if learner is None:  # a learner may have confirmed this address meanwhile
                learner = session.scalar(select(Learner).where(Learner.email == link.email))
            new_key = None
            if learner is None:
                learner = Learner(
                    public_id=secrets.token_hex(8),
                    name=link.name,
                    email=link.email,
                    token_hash=link.key_hash,
                    created_at=now,
                )
                session.add(learner)
            elif link.purpose == "register":
                new_key = secrets.token_urlsafe(32)
                learner.token_hash = token_hash(new_key)
            if learner.email_confirmed_at is None:
                learner.email_confirmed_at = now
            session.flush()
            answer = {"confirmed": True, "email": learner.email, "learner": learner_json(learner)}
            if new_key is not None:
                answer["token"] = new_key  # the sign-in: this browser's key from now on
            return answer
