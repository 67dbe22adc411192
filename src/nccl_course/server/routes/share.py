"""Sharing a credential: ``GET /exam/api/credentials/{credential_id}/share``.

Answers ``{"credential_id", "verify_url", "linkedin_url"}`` for a credential this server issued
and has not revoked: the verify page of the credential and LinkedIn's Add to Profile link
(``nccl_course.certs.share.linkedin_add_url``). It holds nothing the verify page does not already
show for that id (no learner data at all), so it needs no learner key; it counts against the
verification rate limit. ``static/share.js`` puts the links on the result and verify pages.
"""

from __future__ import annotations

from fastapi import APIRouter

from nccl_course.certs.issuer import verify_link
from nccl_course.certs.share import linkedin_add_url
from nccl_course.exam.errors import Invalid
from nccl_course.server.api_models import ShareLinks, refusals
from nccl_course.server.routes.cors import public
from nccl_course.server.routes.deps import ServiceDep, VerifyLimit, ok

router = APIRouter(prefix="/exam/api")


@router.get(
    "/credentials/{credential_id}/share",
    response_model=ShareLinks,
    responses=refusals(404, 422, 429),
)
def share(credential_id: str, _limit: VerifyLimit, service: ServiceDep):
    """The verify page and LinkedIn's Add to Profile link of one credential."""
    if not 0 < len(credential_id) <= 200:
        raise Invalid("bad_id", "a credential id such as urn:uuid:...")
    document = service.credentials.shareable(credential_id)
    verify_url = service.desk.settings.verify_url
    body = {
        "credential_id": credential_id,
        "verify_url": verify_link(verify_url, credential_id),
        "linkedin_url": linkedin_add_url(document, verify_url),
    }
    return public(ok(body))
