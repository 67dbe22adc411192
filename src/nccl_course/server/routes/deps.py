"""What the routes share: FastAPI dependencies and the JSON response they all send.

The dependencies are ``async`` so that FastAPI calls them on the event loop rather than in its
thread pool (they only read the request; the answer-save route is the server's hot path).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response

from nccl_course.certs.share import CREDENTIAL_MEDIA_TYPE
from nccl_course.issuing.verifier import VerifierPool
from nccl_course.server.admin_access import check_admin_token
from nccl_course.server.ratelimit import RateLimiter, client_address
from nccl_course.server.service import ExamService
from nccl_course.server.settings import Settings
from nccl_course.store.batching import GroupCommitWriter

NO_STORE = {"Cache-Control": "no-store"}


def ok(body, status: int = 200) -> JSONResponse:
    """A JSON answer that no cache keeps (every answer carries a learner's own data)."""
    return JSONResponse(body, status_code=status, headers=NO_STORE)


def ok_encoded(content: bytes, status: int = 200) -> Response:
    """``ok`` for a body already encoded as JSON bytes."""
    return Response(content, status_code=status, headers=NO_STORE, media_type="application/json")


class CredentialJSON(JSONResponse):
    """A verifiable credential as JSON (Open Badges 3.0 sections 5.1 and 5.2)."""

    media_type = CREDENTIAL_MEDIA_TYPE


def bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


async def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The token of ``Authorization: Bearer TOKEN``; None without one (the service then
    refuses the request, so a missing and a wrong key give the same kind of answer)."""
    return bearer(authorization)


async def get_service(request: Request) -> ExamService:
    return request.app.state.service


async def get_writer(request: Request) -> GroupCommitWriter:
    return request.app.state.writer


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_verifier(request: Request) -> VerifierPool:
    return request.app.state.verifier


async def signed_in_token(
    token: Annotated[str | None, Depends(bearer_token)],
    service: Annotated[ExamService, Depends(get_service)],
) -> str:
    """The learner key, checked against the database before the route reads its body: a
    request without a valid key costs one lookup (none once the key is known), never the
    parsing of its body. Unauthenticated (401) otherwise."""
    if token and service.learners.is_known(token):
        return token
    await run_in_threadpool(service.learners.authenticate, token)
    return token


async def get_limiter(request: Request) -> RateLimiter:
    return request.app.state.limiter


def rate_limited(group: str):
    """A dependency that counts the request against ``group``'s limits for the client's
    address (``nccl_course.server.ratelimit``) before the route does anything else: 429 with
    ``Retry-After`` past a limit."""

    async def check(request: Request) -> None:
        limiter: RateLimiter = request.app.state.limiter
        if limiter.enabled and limiter.rules.get(group):
            client = client_address(request, request.app.state.settings.trusted_proxies)
            await run_in_threadpool(limiter.hit, group, client)

    return Depends(check)


async def admin_token(
    request: Request,
    token: Annotated[str | None, Depends(bearer_token)],
    settings: Annotated[Settings, Depends(get_settings)],
    limiter: Annotated[RateLimiter, Depends(get_limiter)],
) -> None:
    """The admin token, checked before the route reads its body (``server.admin_access``):
    the right token always gets in; a wrong one is Forbidden (403), or RateLimited (429) once
    its address has spent the ``admin_failed`` limit."""
    client = client_address(request, settings.trusted_proxies)
    expected = settings.resolved_admin_token()
    await run_in_threadpool(check_admin_token, token, expected, limiter, client)


# The learner key (the same header carries the admin token on admin routes).
LearnerToken = Annotated[str | None, Depends(bearer_token)]
BearerToken = Annotated[str | None, Depends(bearer_token)]
ServiceDep = Annotated[ExamService, Depends(get_service)]
WriterDep = Annotated[GroupCommitWriter, Depends(get_writer)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
VerifierDep = Annotated[VerifierPool, Depends(get_verifier)]
# A learner key already checked (401 before the body is read).
SignedInToken = Annotated[str, Depends(signed_in_token)]
AdminToken = Annotated[None, Depends(admin_token)]
# Rate limits per client address, checked before anything else the route does.
RegisterLimit = Annotated[None, rate_limited("register")]
VerifyLimit = Annotated[None, rate_limited("verify")]
StartLimit = Annotated[None, rate_limited("start")]
ResendLimit = Annotated[None, rate_limited("resend")]
