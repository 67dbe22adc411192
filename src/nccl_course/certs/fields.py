"""Reading an untrusted document's fields: each reader returns ``None`` (or ``[]``) for a
value of an unexpected type instead of trusting it, and :func:`short` quotes a value in a
message, cut short."""

from __future__ import annotations

import re

from nccl_course.certs import did as dids


def as_list(value: object) -> list:
    if isinstance(value, list):
        return value
    return [value] if value is not None else []


def issuer_id(credential: dict) -> str | None:
    issuer = credential.get("issuer")
    value = issuer.get("id") if isinstance(issuer, dict) else issuer
    return value if isinstance(value, str) else None


def issuer_name(credential: dict) -> str | None:
    issuer = credential.get("issuer")
    name = issuer.get("name") if isinstance(issuer, dict) else None
    return name if isinstance(name, str) else None


def signer(document: dict) -> str | None:
    proof = document.get("proof")
    method = proof.get("verificationMethod") if isinstance(proof, dict) else None
    return dids.did_of(method) if isinstance(method, str) else None


def is_uri(value: object) -> bool:
    return isinstance(value, str) and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$", value) is not None


def short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
