"""Credentials: the learner's download (JSON and printable certificate) and verification.

``POST /exam/api/verify`` reads at most 65 KiB (``VERIFY_BODY``), parses it with the bounded
parser, and hands the credential's JSON text to ``nccl_course.certs.verify.verify`` in a worker
process (``nccl_course.issuing.verifier``: a hard CPU-time cap, the event loop stays free). Only
this server's own issuers are trusted (``CredentialDesk.verification_plan``); the answer gives
the credential's claims as ``summary`` only when it is VALID, else as ``unverified_claims``.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, Response

from nccl_course.certs.credential import shown_achievement
from nccl_course.certs.result import is_revoked, localized_result
from nccl_course.certs.share import bake_png
from nccl_course.exam.errors import Invalid, NotFound
from nccl_course.i18n.interface import N_, translator
from nccl_course.issuing.credentials import VerificationPlan, credential_summary
from nccl_course.server.api_models import Credential, Verification, VerifyRequest, refusals
from nccl_course.server.routes.body import VERIFY_BODY, documented, parse_body, read_body
from nccl_course.server.routes.deps import (
    NO_STORE,
    CredentialJSON,
    LearnerToken,
    ServiceDep,
    VerifierDep,
    VerifyLimit,
    ok,
)
from nccl_course.server.routes.language import Language

router = APIRouter(prefix="/exam/api")


BINARY = {"schema": {"type": "string", "format": "binary"}}
CERTIFICATE_ANSWERS = {
    200: {
        "description": "the certificate (the PNG with the signed credential baked in)",
        "content": {"application/pdf": BINARY, "image/png": BINARY},
    },
    **refusals(401, 404, 409, 422),
}


@router.get(
    "/attempts/{attempt_id}/credential",
    response_model=Credential,
    response_class=CredentialJSON,
    responses=refusals(401, 404, 409, 422),
)
def credential(attempt_id: str, token: LearnerToken, service: ServiceDep):
    """The signed credential of a passed attempt, as a JSON download."""
    issued = service.credentials.for_attempt(token, attempt_id)
    # Open Badges 3.0 sections 5.1 and 5.2: a .json file, media type application/vc+ld+json.
    return CredentialJSON(
        issued.document,
        headers={
            **NO_STORE,
            "Content-Disposition": 'attachment; filename="nccl-course-credential.json"',
        },
    )


@router.get(
    "/attempts/{attempt_id}/certificate.{fmt}",
    response_class=Response,
    responses=CERTIFICATE_ANSWERS,
)
def certificate(attempt_id: str, fmt: str, token: LearnerToken, service: ServiceDep):
    """The printable certificate, ``.pdf`` or ``.png``, in the language of the attempt."""
    if fmt not in ("pdf", "png"):
        raise NotFound("bad_format", N_("certificates come as .pdf or .png"))
    issued = service.credentials.for_attempt(token, attempt_id)
    language = service.credentials.attempt_language(attempt_id)
    path = service.desk.render(issued.document, fmt, language)
    if fmt == "png":
        # The signed credential baked in (OB 3.0 section 5.3.1): the image is also a badge a
        # wallet or backpack can import.
        text = json.dumps(issued.document, ensure_ascii=False, separators=(",", ":"))
        return Response(
            bake_png(path.read_bytes(), text),
            media_type="image/png",
            headers={
                **NO_STORE,
                "Content-Disposition": 'attachment; filename="nccl-course-certificate.png"',
            },
        )
    return FileResponse(
        path,
        media_type="application/pdf",
        filename=f"nccl-course-certificate.{fmt}",
        headers=NO_STORE,
    )


def credential_to_verify(data: bytes, service) -> tuple[dict, bytes]:
    """The credential in a verify request and its JSON text: the body itself,
    ``{"credential": {...}}``, or ``{"id": "urn:uuid:..."}`` for one this server issued."""
    body = parse_body(data, VERIFY_BODY)
    if not isinstance(body, dict):
        raise Invalid("not_a_credential", N_("send a credential: a JSON object"))
    if "credential" in body and "@context" not in body:
        credential = body["credential"]
        if not isinstance(credential, dict):
            raise Invalid(
                "not_a_credential", N_("'credential' must be the credential, a JSON object")
            )
        return credential, json.dumps(credential, ensure_ascii=False).encode("utf-8")
    if set(body) == {"id"}:
        credential_id = body["id"]
        if not isinstance(credential_id, str) or not 0 < len(credential_id) <= 200:
            raise Invalid("bad_id", N_("'id' must be a credential id such as urn:uuid:..."))
        credential = service.credentials.stored(credential_id)
        return credential, json.dumps(credential, ensure_ascii=False).encode("utf-8")
    return body, data


def plan_verification(data: bytes, service) -> tuple[dict, bytes, VerificationPlan]:
    credential, text = credential_to_verify(data, service)
    return credential, text, service.desk.verification_plan(credential)


@router.post(
    "/verify",
    response_model=Verification,
    responses=refusals(404, 413, 422, 429, 503),
    openapi_extra=documented(VerifyRequest),
)
async def verify(
    _limit: VerifyLimit,
    request: Request,
    service: ServiceDep,
    verifier: VerifierDep,
    language: Language,
):
    """Verify a pasted/uploaded credential, ``{"credential": {...}}``, or
    ``{"id": "urn:uuid:..."}`` for a credential this server issued (the certificate's QR
    code links to the verify page with that id). The reason and the checks' details are in
    the request's language (the verify page passes its own), the claims as the credential
    states them, except the course's own achievement, which is named in that language."""
    data = await read_body(request, VERIFY_BODY)
    credential, text, plan = await run_in_threadpool(plan_verification, data, service)
    raw = await verifier.run("verify", text, plan.options)
    if "format_error" in raw:
        raise Invalid(
            "malformed_credential",
            N_("malformed credential: {error}"),
            error=raw["format_error"],
        )
    tr = translator(language, getattr(request.app.state.settings, "locale_dir", None))
    concluded = service.desk.conclude(plan, raw)
    result = {**localized_result(concluded, tr), "revoked": is_revoked(concluded)}
    claims = credential_summary(credential)
    if claims and claims.get("achievement"):
        claims["achievement"] = shown_achievement(claims["achievement"], tr)
    result["summary"] = claims if result["ok"] else None
    result["unverified_claims"] = None if result["ok"] else claims
    return ok(result)
