"""Admin actions, with the admin token as bearer (``nccl-course exam revoke`` calls these).

The token is checked before the body is read: without it a request costs nothing more.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool

from nccl_course.server.routes.body import ADMIN_BODY, documented, read_object, text_field
from nccl_course.server.routes.deps import AdminToken, ServiceDep, ok

router = APIRouter(prefix="/exam/api/admin")

REVOCATION = {
    "type": "object",
    "properties": {
        "credential_id": {"type": "string", "minLength": 1, "maxLength": 200},
        "reason": {"type": "string", "maxLength": 2000},
    },
    "required": ["credential_id"],
}


@router.post("/revoke", openapi_extra=documented(REVOCATION))
async def revoke(request: Request, _admin: AdminToken, service: ServiceDep):
    """``{credential_id, reason}``: revoke a credential this server issued."""
    body = await read_object(request, ADMIN_BODY)
    credential_id = text_field(body, "credential_id", max_chars=200)
    reason = text_field(body, "reason", max_chars=2000, required=False)
    revoked = await run_in_threadpool(service.credentials.revoke, credential_id, reason)
    return ok(
        {
            "credential_id": revoked.credential_id,
            "revoked": True,
            "revoked_at": revoked.revoked_at.isoformat(),
        }
    )
