"""Admin actions, with the admin token as bearer (``nccl-course exam revoke`` calls these).

The token is checked before the body is read: without it a request costs nothing more.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool

from nccl_course.server.api_models import RevocationRequest, Revoked, refusals
from nccl_course.server.routes.body import ADMIN_BODY, documented, read_model
from nccl_course.server.routes.deps import AdminToken, ServiceDep, ok

router = APIRouter(prefix="/exam/api/admin")


@router.post(
    "/revoke",
    response_model=Revoked,
    responses=refusals(403, 404, 413, 422, 429),
    openapi_extra=documented(RevocationRequest),
)
async def revoke(request: Request, _admin: AdminToken, service: ServiceDep):
    """``{credential_id, reason}``: revoke a credential this server issued."""
    body = await read_model(request, ADMIN_BODY, RevocationRequest)
    credential_id, reason = body.credential_id, body.reason or ""
    revoked = await run_in_threadpool(service.credentials.revoke, credential_id, reason)
    return ok(
        {
            "credential_id": revoked.credential_id,
            "revoked": True,
            "revoked_at": revoked.revoked_at.isoformat(),
        }
    )
