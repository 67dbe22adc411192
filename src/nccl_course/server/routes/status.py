"""Public metadata: the server's health and the issuer's DID document and status lists,
which verifiers anywhere fetch to check a credential.

Two probes for monitoring: ``/exam/api/health`` (liveness: the process answers; on the event
loop, so it answers while every thread is busy) and ``/exam/api/ready`` (readiness: the
database answers a query and has a schema; 503 when it does not).
"""

from __future__ import annotations

import logging

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from nccl_course.exam.errors import NotFound
from nccl_course.server.api_models import (
    DidDocument,
    Health,
    NotReady,
    Ready,
    StatusListCredential,
    refusals,
)
from nccl_course.server.routes.cors import public
from nccl_course.server.routes.deps import NO_STORE, CredentialJSON, ServiceDep, ok

log = logging.getLogger("nccl_course.exam")
router = APIRouter()


class DidJSON(JSONResponse):
    """A DID document (did:web)."""

    media_type = "application/did+json"


@router.get("/exam/api/health", response_model=Health)
async def health(service: ServiceDep):
    """On the event loop (no thread): it answers while threads and workers are busy."""
    return ok({"ok": True, "database": service.db.engine.dialect.name})


@router.get(
    "/exam/api/ready",
    response_model=Ready,
    responses={503: {"model": NotReady, "description": "the database does not answer"}},
)
def ready(service: ServiceDep):
    """200 when the database answers (its dialect and schema revision), else 503. A plain
    function: FastAPI runs it in a thread, since the query may wait on the database."""
    try:
        with service.db.read() as session:
            revision = session.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except Exception as exc:  # any failure of the database is "not ready"
        log.warning("readiness check: the database does not answer: %s", exc)
        return ok(
            {
                "ok": False,
                "error": "database_unavailable",
                "detail": "the database does not answer",
            },
            status=503,
        )
    return ok({"ok": True, "database": service.db.engine.dialect.name, "schema": revision})


@router.get("/.well-known/did.json", response_model=DidDocument, response_class=DidJSON)
def did_document(service: ServiceDep):
    """The issuer's DID document (did:web)."""
    return public(DidJSON(service.desk.did_document()))


@router.get(
    "/credentials/status/{list_number}",
    response_model=StatusListCredential,
    response_class=CredentialJSON,
    responses=refusals(404, 422),
)
def status_list(list_number: int, service: ServiceDep):
    """One of the issuer's status list credentials (revocations)."""
    if list_number not in service.desk.status_list_numbers():
        raise NotFound("no_status_list", f"no status list {list_number}")
    return public(
        CredentialJSON(service.desk.status_list_credential(list_number), headers=NO_STORE)
    )
