"""Request bodies, bounded before anything expensive: each route that takes a body reads it
here, after its cheap checks (the learner key or the admin token), within its own limits.

``read_body`` refuses a body larger than the route's limit by its ``Content-Length`` before
reading a byte, and stops reading a body sent without one as soon as it passes the limit
(413 either way). ``read_json`` then parses it with the bounded parser of
``nccl_course.certs.bounds`` (nesting depth checked without recursion, then the text, refusing
NaN, Infinity, out-of-range numbers and duplicate keys) and refuses strings that are not
Unicode text (lone surrogates): 422, with a sentence saying what is wrong. FastAPI's own body
parsing accepts NaN and Infinity and reads any size, so no route declares a body model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from fastapi import Request

from nccl_course.certs.bounds import CredentialFormatError, Limits, parse_json
from nccl_course.exam.errors import Invalid, TooLarge


@dataclass(frozen=True)
class BodyLimit:
    """What one route accepts: ``what`` names the body in messages."""

    what: str
    max_bytes: int
    max_depth: int = 8
    max_values: int = 1024
    max_objects: int = 32

    @property
    def limits(self) -> Limits:
        return Limits(
            max_bytes=self.max_bytes,
            max_depth=self.max_depth,
            max_values=self.max_values,
            max_objects=self.max_objects,
        )


KIB = 1024
# An answer is at most 4 KiB of JSON (nccl_course.exam.answers.MAX_RESPONSE_BYTES) inside
# {"response": ...}: 8 KiB leaves room for escapes and whitespace.
ANSWER_BODY = BodyLimit("an answer", 8 * KIB, max_values=2048)
REGISTER_BODY = BodyLimit("a registration", 4 * KIB, max_depth=4, max_values=64)
CONFIRM_BODY = BodyLimit("a confirmation", 1 * KIB, max_depth=4, max_values=16)
ADMIN_BODY = BodyLimit("an admin request", 4 * KIB, max_depth=4, max_values=64)
# A credential is at most 64 KiB, 32 levels deep (nccl_course.certs.bounds.DEFAULT_LIMITS);
# the body may wrap it in {"credential": ...}: one more level and 1 KiB more.
VERIFY_BODY = BodyLimit(
    "a credential to verify", 65 * KIB, max_depth=33, max_values=8193, max_objects=513
)


async def read_body(request: Request, limit: BodyLimit) -> bytes:
    """The request's body, refused with 413 past ``limit.max_bytes`` (by its Content-Length
    before reading, else as soon as the bytes read pass the limit)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise Invalid("bad_content_length", "Content-Length is not a number") from None
        if size > limit.max_bytes:
            raise _too_large(limit, f"this one has {size:,}")
    # The ASGI messages themselves (the route is the body's only reader): a client that goes
    # away mid-body is a refusal like any other, not an error in the server's log.
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise Invalid("disconnected", "the connection closed before the whole body came")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit.max_bytes:
            raise _too_large(limit, "this one is larger")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def parse_body(data: bytes, limit: BodyLimit) -> object:
    """``data`` parsed within ``limit``; Invalid (422) with the reason otherwise."""
    if not data.strip():
        raise Invalid("empty_body", f"the request has no body: send {limit.what} as JSON")
    try:
        value = parse_json(data, limit.limits, what="request body")
    except CredentialFormatError as exc:
        raise Invalid("bad_json", exc.what) from None
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise Invalid(
            "bad_unicode", "the request body holds a string that is not Unicode text"
        ) from None
    return value


async def read_json(request: Request, limit: BodyLimit) -> object:
    """Read (``read_body``) and parse (``parse_body``) the request's JSON body."""
    return parse_body(await read_body(request, limit), limit)


async def read_object(request: Request, limit: BodyLimit) -> dict:
    """The request's JSON body, which must be an object."""
    value = await read_json(request, limit)
    if not isinstance(value, dict):
        raise Invalid("bad_body", f"send {limit.what} as a JSON object")
    return value


def text_field(
    body: dict, name: str, *, max_chars: int, required: bool = True, default: str = ""
) -> str:
    """``body[name]`` as a string of at most ``max_chars``; Invalid otherwise."""
    if name not in body or body[name] is None:
        if required:
            raise Invalid("missing_field", f"the field {name!r} is required")
        return default
    value = body[name]
    if not isinstance(value, str):
        raise Invalid("bad_field", f"the field {name!r} must be a string")
    if len(value) > max_chars:
        raise Invalid("bad_field", f"the field {name!r} is at most {max_chars:,} characters")
    return value


def documented(schema: dict) -> dict:
    """``openapi_extra`` for a route that reads its JSON body itself: the body it takes, for
    the API's schema (FastAPI does not parse it)."""
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def _too_large(limit: BodyLimit, this: str) -> TooLarge:
    return TooLarge(
        "body_too_large",
        f"{limit.what} is at most {limit.max_bytes:,} bytes of JSON; {this}",
    )
