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


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_verifier(request: Request) -> VerifierPool:
    return request.app.state.verifier


async def get_limiter(request: Request) -> RateLimiter:
    return request.app.state.limiter


async def count_request(request: Request, group: str) -> None:
    """Count the request against ``group``'s limits for the client's address
    (``nccl_course.server.ratelimit``): 429 with ``Retry-After`` past a limit."""
    limiter: RateLimiter = request.app.state.limiter
    if limiter.enabled and limiter.rules.get(group):
        client = client_address(request, request.app.state.settings.trusted_proxies)
        await run_in_threadpool(limiter.hit, group, client)


def rate_limited(group: str):
    """A dependency that counts the request against ``group``'s limits (``count_request``)
    before the route does anything else."""

    async def check(request: Request) -> None:
        await count_request(request, group)

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
SettingsDep = Annotated[Settings, Depends(get_settings)]
VerifierDep = Annotated[VerifierPool, Depends(get_verifier)]
AdminToken = Annotated[None, Depends(admin_token)]
# Rate limits per client address, checked before anything else the route does.
VerifyLimit = Annotated[None, rate_limited("verify")]
ResendLimit = Annotated[None, rate_limited("resend")]
