"""Learners: their identity and their key, as the exam's rules see them (no database).

A learner registers with a name and an email and gets a learner key, shown once; the server
keeps only its SHA-256 (``token_hash``). A name and an address are checked and normalised here
(``checked_identity``, ``normalise_email``) before anything stores them: a name is stored as it
prints (``nccl_course.i18n.names``), and one with nothing left to print is refused.

With e-mail confirmation on (``nccl_course.server.confirmations``), a registration first holds
a key that is not yet a learner's: every learner route then answers 403 ``email_unconfirmed``
(``unconfirmed``) until the link mailed to the address is opened. The look-ups that turn a key
into a learner, and an attempt id into *that learner's* attempt, are queries
(``nccl_course.store.queries``); registration is ``nccl_course.server.learners``.
"""

from __future__ import annotations

import hashlib
import unicodedata

from nccl_course.exam.errors import Forbidden, Invalid
from nccl_course.i18n.interface import N_
from nccl_course.i18n.names import has_visible_character, printable_text

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


def learner_json(learner) -> dict:
    """A learner (a stored row) as the API shows it."""
    return {"id": learner.public_id, "name": learner.name, "email": learner.email}


def checked_identity(name: str, email: str) -> tuple[str, str]:
    """A name fit to print and a normalised address, both fit to store; ``Invalid``
    otherwise. The name is :func:`nccl_course.i18n.names.printable_text` of what was typed (the
    rule every certificate applies again when it prints a name), and must keep something to
    read."""
    raw_name, email = name or "", normalise_email(email or "")
    if any(unicodedata.category(c) == "Cc" for c in raw_name + email):
        raise Invalid("bad_text", N_("a name and an email without control characters"))
    name = printable_text(raw_name)
    if not has_visible_character(name):
        raise Invalid(
            "bad_name",
            N_(
                "the name has nothing to print: type it with letters or digits (invisible "
                "characters such as byte-order or direction marks are removed)"
            ),
        )
    if len(name) > MAX_NAME_CHARS:
        raise Invalid("bad_name", N_("a name of 1 to {max} characters"), max=MAX_NAME_CHARS)
    if (
        not 3 <= len(email) <= MAX_EMAIL_CHARS
        or email.count("@") != 1
        or not all(email.split("@"))
        or any(c.isspace() for c in email)
    ):
        raise Invalid("bad_email", N_("an email address like name@example.org"))
    return name, email
