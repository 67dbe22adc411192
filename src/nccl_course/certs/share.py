"""Sharing a credential: LinkedIn's "add to profile" link, and a baked PNG for wallets.

- :func:`linkedin_add_url`: LinkedIn's Add to Profile link for a certification
  (https://addtoprofile.linkedin.com/), which opens the member's "add licence or certification"
  form filled in: ``startTask=CERTIFICATION_NAME``, ``name``, ``organizationName``,
  ``issueYear``, ``issueMonth``, ``expirationYear``/``expirationMonth`` (only when the
  credential has ``validUntil``), ``certUrl`` (the verify page of this credential) and
  ``certId`` (the credential's id). Nothing is sent to LinkedIn until the member saves the form.
- :func:`bake_png`: Open Badges 3.0 section 5.3.1 "Baked badge" (PNG), from
  ``nccl_course.certs.baking``, which reads it back too. (Section 5.1: as a file, a credential
  with an embedded proof is its JSON with the extension ``.json``; section 5.2: served as a web
  resource its media type SHOULD be ``application/vc+ld+json``: :data:`CREDENTIAL_MEDIA_TYPE`.)
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlencode

from nccl_course.certs.baking import bake_png, extract_png
from nccl_course.certs.issuer import verify_link

LINKEDIN_ADD_TO_PROFILE = "https://www.linkedin.com/profile/add"
CREDENTIAL_MEDIA_TYPE = "application/vc+ld+json"
# Baking lives in certs.baking; sharing code and its callers reach it from here too.
__all__ = ["CREDENTIAL_MEDIA_TYPE", "bake_png", "extract_png", "linkedin_add_url"]


def _year_month(timestamp: str) -> tuple[int, int]:
    """Year and month (1-12) of an XML Schema dateTime such as ``2026-03-05T10:00:00Z``."""
    moment = datetime.fromisoformat(str(timestamp).replace("Z", "+00:00"))
    return moment.year, moment.month


def linkedin_add_url(credential: dict, verify_url: str) -> str:
    """LinkedIn's Add to Profile URL for ``credential`` (an OpenBadgeCredential).

    ``verify_url`` is the server's verify page; the link LinkedIn shows under the certification
    is :func:`nccl_course.certs.issuer.verify_link` of it for this credential's id."""
    subject = credential.get("credentialSubject") or {}
    achievement = subject.get("achievement") or {}
    issuer = credential.get("issuer")
    issuer_name = issuer.get("name", "") if isinstance(issuer, dict) else str(issuer or "")
    credential_id = str(credential["id"])
    year, month = _year_month(credential["validFrom"])
    params = {
        "startTask": "CERTIFICATION_NAME",
        "name": str(achievement.get("name", "")),
        "organizationName": issuer_name,
        "issueYear": str(year),
        "issueMonth": str(month),
    }
    if credential.get("validUntil"):
        end_year, end_month = _year_month(credential["validUntil"])
        params["expirationYear"] = str(end_year)
        params["expirationMonth"] = str(end_month)
    params["certUrl"] = verify_link(verify_url, credential_id)
    params["certId"] = credential_id
    return f"{LINKEDIN_ADD_TO_PROFILE}?{urlencode(params)}"
