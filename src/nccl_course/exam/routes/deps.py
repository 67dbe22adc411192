"""What the routes share: FastAPI dependencies and the JSON response they all send.

The dependencies are ``async`` so that FastAPI calls them on the event loop rather than in its
thread pool (they only read the request; the answer-save route is the server's hot path).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.responses import JSONResponse

from nccl_course.exam.batching import GroupCommitWriter
from nccl_course.exam.service import ExamService
from nccl_course.exam.settings import Settings

NO_STORE = {"Cache-Control": "no-store"}


def ok(body, status: int = 200) -> JSONResponse:
    """A JSON answer that no cache keeps (every answer carries a learner's own data)."""
    return JSONResponse(body, status_code=status, headers=NO_STORE)


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


# The learner key (the same header carries the admin token on admin routes).
LearnerToken = Annotated[str | None, Depends(bearer_token)]
BearerToken = Annotated[str | None, Depends(bearer_token)]
ServiceDep = Annotated[ExamService, Depends(get_service)]
WriterDep = Annotated[GroupCommitWriter, Depends(get_writer)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
