"""Public metadata: the server's health and the issuer's DID document and status lists,
which verifiers anywhere fetch to check a credential."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from nccl_course.exam.errors import NotFound
from nccl_course.exam.routes.deps import NO_STORE, ServiceDep, ok

router = APIRouter()


@router.get("/exam/api/health")
async def health(service: ServiceDep):
    """On the event loop (no thread): it answers while threads and workers are busy."""
    return ok({"ok": True, "database": service.db.engine.dialect.name})


@router.get("/.well-known/did.json")
def did_document(service: ServiceDep):
    """The issuer's DID document (did:web)."""
    return JSONResponse(service.desk.did_document(), media_type="application/did+json")


@router.get("/credentials/status/{list_number}")
def status_list(list_number: int, service: ServiceDep):
    """One of the issuer's status list credentials (revocations)."""
    if list_number not in service.desk.status_list_numbers():
        raise NotFound("no_status_list", f"no status list {list_number}")
    return JSONResponse(
        service.desk.status_list_credential(list_number),
        headers=NO_STORE,
        media_type="application/vc+ld+json",
    )
