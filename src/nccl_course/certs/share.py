"""Sharing a credential: LinkedIn's "add to profile" link, and a baked PNG for wallets.

- :func:`linkedin_add_url`: LinkedIn's Add to Profile link for a certification
  (https://addtoprofile.linkedin.com/), which opens the member's "add licence or certification"
  form filled in: ``startTask=CERTIFICATION_NAME``, ``name``, ``organizationName``,
  ``issueYear``, ``issueMonth``, ``expirationYear``/``expirationMonth`` (only when the
  credential has ``validUntil``), ``certUrl`` (the verify page of this credential) and
  ``certId`` (the credential's id). Nothing is sent to LinkedIn until the member saves the form.
- :func:`bake_png`: Open Badges 3.0 section 5.3.1 "Baked badge" (PNG): the credential's JSON,
  with its embedded proof, in one uncompressed ``iTXt`` chunk with the keyword
  ``openbadgecredential`` (https://www.imsglobal.org/spec/ob/v3p0#baking). A wallet or backpack
  that imports images extracts the credential from it; the signature still verifies because the
  JSON is the signed document, unchanged. (Section 5.1: as a file, a credential with an embedded
  proof is its JSON with the extension ``.json``; section 5.2: served as a web resource its media
  type SHOULD be ``application/vc+ld+json``: :data:`CREDENTIAL_MEDIA_TYPE`.)
"""

from __future__ import annotations

import struct
import zlib
from datetime import datetime
from urllib.parse import urlencode

from nccl_course.certs.issuer import verify_link

LINKEDIN_ADD_TO_PROFILE = "https://www.linkedin.com/profile/add"
CREDENTIAL_MEDIA_TYPE = "application/vc+ld+json"
PNG_KEYWORD = b"openbadgecredential"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


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


def _chunks(png: bytes):
    """``(offset, type, data)`` of each chunk of a PNG datastream."""
    if not png.startswith(PNG_SIGNATURE):
        raise ValueError("not a PNG file (no PNG signature)")
    offset = len(PNG_SIGNATURE)
    while offset + 12 <= len(png):
        (length,) = struct.unpack(">I", png[offset : offset + 4])
        kind = png[offset + 4 : offset + 8]
        yield offset, kind, png[offset + 8 : offset + 8 + length]
        offset += 12 + length


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def bake_png(png: bytes, credential_json: str) -> bytes:
    """``png`` with ``credential_json`` baked in (OB 3.0 section 5.3.1): one uncompressed iTXt
    chunk, keyword ``openbadgecredential``, empty language tag and translated keyword, just
    before IEND. A chunk already there is replaced (the spec allows at most one)."""
    text = credential_json.encode("utf-8")
    # keyword NUL, compression flag 0, method 0, language tag "" NUL, translated keyword "" NUL
    itxt = _chunk(b"iTXt", PNG_KEYWORD + b"\x00\x00\x00" + b"\x00" + b"\x00" + text)
    out = bytearray(PNG_SIGNATURE)
    for offset, kind, data in _chunks(png):
        if kind == b"iTXt" and data.split(b"\x00", 1)[0] == PNG_KEYWORD:
            continue
        if kind == b"IEND":
            out += itxt
        out += png[offset : offset + 12 + len(data)]
    return bytes(out)


def extract_png(png: bytes) -> str | None:
    """The credential JSON baked into ``png``, or None (OB 3.0 section 5.3.1.2: the first iTXt
    chunk with the keyword ``openbadgecredential``)."""
    for _offset, kind, data in _chunks(png):
        if kind != b"iTXt":
            continue
        keyword, rest = data.split(b"\x00", 1)
        if keyword != PNG_KEYWORD:
            continue
        compressed = rest[0]
        _language, _translated, text = rest[2:].split(b"\x00", 2)
        return (zlib.decompress(text) if compressed else text).decode("utf-8")
    return None
