"""Request bodies, bounded before anything expensive: each route that takes a body reads it
here, after its cheap checks (the learner key or the admin token), within its own limits.

``read_body`` refuses a body larger than the route's limit by its ``Content-Length`` before
reading a byte, and stops reading a body sent without one as soon as it passes the limit
(413 either way). ``read_json`` then parses it with the bounded parser of
``nccl_course.certs.bounds`` (nesting depth checked without recursion, then the text, refusing
NaN, Infinity, out-of-range numbers and duplicate keys) and refuses strings that are not
Unicode text (lone surrogates): 422, with a sentence saying what is wrong. FastAPI's own body
parsing accepts NaN and Infinity and reads any size, so no route lets FastAPI read its body:
``read_model`` validates the parsed object against the route's request model
(``nccl_course.server.api_models``) and turns the first problem into a 422 in the project's
own shape (``missing_field``, ``bad_field``), and ``documented`` puts the model in the
OpenAPI document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypeVar

from fastapi import Request
from pydantic import BaseModel, ValidationError

from nccl_course.certs.bounds import CredentialFormatError, Limits, parse_json
from nccl_course.exam.errors import Invalid, TooLarge

Model = TypeVar("Model", bound=BaseModel)


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


async def read_model(request: Request, limit: BodyLimit, model: type[Model]) -> Model:
    """The request's JSON object (``read_object``) validated against ``model``; Invalid
    (422) with the first problem otherwise."""
    body = await read_object(request, limit)
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise invalid_field(exc, model) from None


def invalid_field(exc: ValidationError, model: type[BaseModel]) -> Invalid:
    """The first problem of ``exc`` as the API says it: ``missing_field`` or ``bad_field``,
    with a sentence that names the field."""
    error = exc.errors(include_url=False)[0]
    name = str(error["loc"][0]) if error["loc"] else "body"
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "missing":
        return Invalid("missing_field", f"the field {name!r} is required")
    if kind == "string_type":
        return Invalid("bad_field", f"the field {name!r} must be a string")
    if kind == "string_too_long":
        limit = ctx["max_length"]
        return Invalid("bad_field", f"the field {name!r} is at most {limit:,} characters")
    if kind == "string_too_short":
        limit = ctx["min_length"]
        return Invalid("bad_field", f"the field {name!r} is at least {limit:,} characters")
    if kind == "extra_forbidden":
        return Invalid("bad_field", f"the field {name!r} is not expected here")
    field = model.model_fields.get(name)
    what = field.description if field is not None and field.description else error["msg"]
    return Invalid("bad_field", f"the field {name!r} is not valid: {what}")


def documented(model: type[BaseModel]) -> dict:
    """``openapi_extra`` for a route that reads its JSON body itself: the body it takes, for
    the API's schema (FastAPI does not parse it; the app adds ``model`` to the document's
    components: ``nccl_course.server.api_models.add_request_schemas``)."""
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


def _too_large(limit: BodyLimit, this: str) -> TooLarge:
    return TooLarge(
        "body_too_large",
        f"{limit.what} is at most {limit.max_bytes:,} bytes of JSON; {this}",
    )
