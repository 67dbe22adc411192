"""The language a request is answered in: the pages, the mails and an attempt's questions.

In order: ``?lang=en|tr`` (a page that gets one sets the ``nccl_lang`` cookie, so the next page
keeps it); else that cookie; else the browser's ``Accept-Language``
(``nccl_course.i18n.interface.negotiate``); else English. An unknown ``?lang=`` is a 400 that
names the languages there are; an unknown cookie value is ignored. The exam page passes its
own language to the API as ``?lang=``, so what the server writes for it (questions, mails,
refusals) is in the language the learner reads.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from nccl_course.exam.errors import BadRequest
from nccl_course.i18n.interface import N_, negotiate
from nccl_course.i18n.languages import LANGUAGES

LANGUAGE_COOKIE = "nccl_lang"
COOKIE_MAX_AGE_S = 365 * 24 * 3600
#: What a response in the request's language depends on (for caches).
VARY = "Accept-Language, Cookie"


def given_language(value: str) -> str:
    """``?lang=`` as a course language ("tr", "TR" and "tr-TR" are Turkish); BadRequest (400)
    for any other."""
    language = value.strip().lower().split("-")[0]
    if language not in LANGUAGES:
        raise BadRequest(
            "unknown_language",
            N_("unknown language '{language}': use lang=en (English) or lang=tr (Turkish)"),
            language=value[:20],
        )
    return language


def request_language(request: Request) -> str:
    """The language of the answer to ``request`` (see the module's docstring)."""
    given = request.query_params.get("lang")
    if given is not None:
        return given_language(given)
    cookie = request.cookies.get(LANGUAGE_COOKIE)
    if cookie in LANGUAGES:
        return cookie
    return negotiate(request.headers.get("accept-language"))


def safe_language(request: Request) -> str:
    """``request_language``, or the browser's language when ``?lang=`` is unknown (the refusal
    of that very request is written in it)."""
    try:
        return request_language(request)
    except BadRequest:
        return negotiate(request.headers.get("accept-language"))


async def language_dependency(request: Request) -> str:
    return request_language(request)


#: A route's parameter: the request's language (400 for an unknown ``?lang=``).
Language = Annotated[str, Depends(language_dependency)]
