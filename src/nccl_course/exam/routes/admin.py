"""Admin actions, with the admin token as bearer (``nccl-course exam revoke`` calls these)."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from nccl_course.exam.errors import Forbidden
from nccl_course.exam.routes.deps import BearerToken, ServiceDep, SettingsDep, ok

router = APIRouter(prefix="/exam/api/admin")


class Revocation(BaseModel):
    credential_id: str
    reason: str = ""


async def authorized_revocation(
    body: Revocation, token: BearerToken, settings: SettingsDep
) -> Revocation:
    """The revocation, once its sender has shown the admin token. The body is validated
    first: a malformed request is refused as such, whoever sends it."""
    given = token or ""
    if not secrets.compare_digest(given.encode(), settings.resolved_admin_token().encode()):
        raise Forbidden("forbidden", "the admin token is required")
    return body


@router.post("/revoke")
def revoke(revocation: Annotated[Revocation, Depends(authorized_revocation)], service: ServiceDep):
    revoked = service.credentials.revoke(revocation.credential_id, revocation.reason)
    return ok(
        {
            "credential_id": revoked.credential_id,
            "revoked": True,
            "revoked_at": revoked.revoked_at.isoformat(),
        }
    )
