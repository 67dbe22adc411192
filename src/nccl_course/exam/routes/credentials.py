"""Credentials: the learner's download (JSON and printable certificate) and verification."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import FileResponse, JSONResponse

from nccl_course.exam.credentials import credential_summary
from nccl_course.exam.errors import Invalid, NotFound
from nccl_course.exam.routes.deps import NO_STORE, LearnerToken, ServiceDep, ok

router = APIRouter(prefix="/exam/api")


@router.get("/attempts/{attempt_id}/credential")
def credential(attempt_id: str, token: LearnerToken, service: ServiceDep):
    """The signed credential of a passed attempt, as a JSON download."""
    issued = service.credentials.for_attempt(token, attempt_id)
    return JSONResponse(
        issued.document,
        headers={
            **NO_STORE,
            "Content-Disposition": 'attachment; filename="nccl-course-credential.json"',
        },
        media_type="application/json",
    )


@router.get("/attempts/{attempt_id}/certificate.{fmt}")
def certificate(attempt_id: str, fmt: str, token: LearnerToken, service: ServiceDep):
    """The printable certificate, ``.pdf`` or ``.png``."""
    if fmt not in ("pdf", "png"):
        raise NotFound("bad_format", "certificates come as .pdf or .png")
    issued = service.credentials.for_attempt(token, attempt_id)
    path = service.desk.render(issued.document, fmt)
    return FileResponse(
        path,
        media_type="application/pdf" if fmt == "pdf" else "image/png",
        filename=f"nccl-course-certificate.{fmt}",
        headers=NO_STORE,
    )


@router.post("/verify")
def verify(body: Annotated[Any, Body()], service: ServiceDep):
    """Verify a pasted/uploaded credential, ``{"credential": {...}}``, or
    ``{"id": "urn:uuid:..."}`` for a credential this server issued (the certificate's QR
    code links to the verify page with that id)."""
    if isinstance(body, dict) and isinstance(body.get("credential"), dict):
        body = body["credential"]
    elif isinstance(body, dict) and set(body) == {"id"} and isinstance(body["id"], str):
        body = service.credentials.stored(body["id"])
    if not isinstance(body, dict):
        raise Invalid("not_a_credential", "send a credential: a JSON object")
    result = service.desk.verify(body)
    result["summary"] = credential_summary(body)
    return ok(result)
