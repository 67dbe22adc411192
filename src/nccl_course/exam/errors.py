"""Refusals of the exam service, by meaning.

The service says *why* it refuses (a ``kind``: the request is invalid, the learner is not
signed in, the thing does not exist, the attempt's state forbids it...), a stable ``code`` the
page can branch on, and a sentence for the learner. It knows nothing of HTTP: the app maps each
kind to a status code in one exception handler (``nccl_course.server.app``).

A sentence the learner reads is a template marked with ``N_`` (so that the interface catalog
has it), its ``{fields}`` given as keywords: ``Conflict("attempt_limit", template, used=2,
max=3)``. ``message`` is the English; the app's handler shows ``template`` in the request's
language (``nccl_course.i18n.interface``). A sentence without fields is shown as it is, and
translated when the catalog has it.
"""

from __future__ import annotations

from typing import ClassVar


class ExamError(Exception):
    """A refusal: a ``kind`` (set by each subclass), a stable ``code`` and a message."""

    kind: ClassVar[str] = "unavailable"

    def __init__(self, code: str, message: str, **fields):
        self.code = code
        self.template = message
        self.fields = fields
        self.message = message.format(**fields) if fields else message
        super().__init__(self.message)


class BadRequest(ExamError):
    """A request parameter the server does not know (``?lang=xx``)."""

    kind = "bad_request"


class Invalid(ExamError):
    """The request is malformed (a bad name, email, response or credential)."""

    kind = "invalid"


class TooLarge(ExamError):
    """The request carries more than the server accepts."""

    kind = "too_large"


class Unauthenticated(ExamError):
    """No learner key, or one the server does not know."""

    kind = "unauthenticated"


class Forbidden(ExamError):
    """Known or not, the caller may not do this (admin actions)."""

    kind = "forbidden"


class NotFound(ExamError):
    """No such thing for this caller (an attempt, a question, a credential...)."""

    kind = "not_found"


class Conflict(ExamError):
    """Refused by the current state: the attempt is closed, time is up, the limit is reached."""

    kind = "conflict"


class Gone(ExamError):
    """It existed but is no longer usable (an expired confirmation link)."""

    kind = "gone"


class Unavailable(ExamError):
    """The server cannot do it now (no questions, shutting down, a failed batch: retry)."""

    kind = "unavailable"


class RateLimited(ExamError):
    """Too many requests of one kind from one address (``nccl_course.server.ratelimit``): wait
    ``retry_after`` seconds (the answer's ``Retry-After``)."""

    kind = "rate_limited"

    def __init__(self, code: str, message: str, *, retry_after: int = 60, **fields):
        super().__init__(code, message, **fields)
        self.retry_after = retry_after
