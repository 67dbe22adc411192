"""DIDs the issuer uses: ``did:key`` (Ed25519) and ``did:web``, and key lookup in DID documents.

- ``did:key:z6Mk...``: the identifier *is* the public key (multicodec ed25519-pub, base58btc);
  its one verification method is ``did:key:z6Mk...#z6Mk...``.
- ``did:web:host%3Aport:path``: the DID document lives at
  ``https://host:port/path/did.json`` (``/.well-known/did.json`` without a path); a verifier
  offline gets it as a file. Keys are ``Multikey`` verification methods.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from nccl_course.certs.loader import DID_V1, MULTIKEY_V1
from nccl_course.certs.multibase import (
    MultibaseError,
    decode_ed25519_public,
    encode_ed25519_public,
)

_WEB_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?")
_WEB_SEGMENT = re.compile(r"(?!\.{1,2}$)[A-Za-z0-9._~-]{1,200}")


class KeyResolutionError(ValueError):
    """No usable key for a verification method: unknown, not authorised, or malformed."""


class DidDocumentMissing(KeyResolutionError):
    """The key can only be found in a DID document that was not supplied: not checked."""

    def __init__(self, method_id: str, did: str):
        self.method_id = method_id
        self.did = did
        super().__init__(
            f"the DID document of {did} was not supplied, so its key {method_id} "
            "cannot be looked up"
        )


def did_key_from_public(raw_public: bytes) -> str:
    return "did:key:" + encode_ed25519_public(raw_public)


def did_key_method(did: str) -> str:
    """The verification method id of a did:key: the DID, '#', the multibase key."""
    return f"{did}#{did.split(':', 2)[2]}"


def did_web_url(did: str) -> str:
    """The HTTPS URL where a did:web DID document is published (did:web method spec)."""
    if not did.startswith("did:web:"):
        raise ValueError(f"{did} is not a did:web identifier")
    parts = [unquote(p) for p in did[len("did:web:") :].split(":")]
    host, path = parts[0], parts[1:]
    # Only a port may be percent-encoded in the host ('%3A'); anything else ('%2F', '%40')
    # would make the URL point somewhere the DID does not name.
    if not _WEB_HOST.fullmatch(host):
        raise ValueError(f"{did} does not name a valid host for did:web")
    if any(not _WEB_SEGMENT.fullmatch(segment) for segment in path):
        raise ValueError(f"{did} has a path segment that is not allowed in did:web")
    return f"https://{host}/" + ("/".join(path) + "/did.json" if path else ".well-known/did.json")


def did_of(method_id: str) -> str:
    return method_id.split("#", 1)[0]


def did_document(did: str, public_keys: list[tuple[str, bytes]]) -> dict:
    """A DID document listing ``public_keys`` (fragment, raw Ed25519 key) as Multikey methods.

    Every key stays an ``assertionMethod``: credentials signed before a rotation keep verifying.
    """
    methods = [
        {
            "id": f"{did}#{fragment}",
            "type": "Multikey",
            "controller": did,
            "publicKeyMultibase": encode_ed25519_public(raw),
        }
        for fragment, raw in public_keys
    ]
    return {
        "@context": [DID_V1, MULTIKEY_V1],
        "id": did,
        "verificationMethod": methods,
        "assertionMethod": [m["id"] for m in methods],
    }


def _as_list(value: object) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _public_key(multibase: object, method_id: str) -> Ed25519PublicKey:
    try:
        raw = decode_ed25519_public(multibase)  # type: ignore[arg-type]
    except MultibaseError as exc:
        raise KeyResolutionError(f"verification method {method_id}: {exc}") from None
    return Ed25519PublicKey.from_public_bytes(raw)


def resolve_key(
    method_id: str,
    *,
    issuer: str | None,
    did_doc: dict | None,
    purpose: str = "assertionMethod",
) -> Ed25519PublicKey:
    """The Ed25519 key of ``method_id``, checked against the issuer's DID.

    A did:key method resolves from its own identifier. Any other method must be listed in the
    DID document, under ``purpose``, and the document must be the issuer's. When the issuer is
    a DID the method must belong to it: a valid signature by someone else's key is not the
    issuer's signature.
    """
    if not isinstance(method_id, str) or not method_id.startswith("did:"):
        raise KeyResolutionError(f"verification method {str(method_id)[:200]!r} is not a DID URL")
    method_did = did_of(method_id)
    if issuer and issuer.startswith("did:") and method_did != issuer:
        raise KeyResolutionError(
            f"verification method {method_id} is not a key of the issuer {issuer}"
        )
    if method_did.startswith("did:key:"):
        if method_id != did_key_method(method_did):
            raise KeyResolutionError(f"{method_id} is not a did:key verification method")
        return _public_key(method_did.split(":", 2)[2], method_id)
    if did_doc is None:
        raise DidDocumentMissing(method_id, method_did)
    if not isinstance(did_doc, dict):
        raise KeyResolutionError("the DID document given is not a JSON object")
    if did_doc.get("id") != method_did:
        raise KeyResolutionError(
            f"the DID document given is for {str(did_doc.get('id'))[:200]!r}, not {method_did}"
        )
    authorised = _as_list(did_doc.get(purpose))
    authorised_ids = {
        a if isinstance(a, str) else a.get("id") for a in authorised if isinstance(a, (str, dict))
    }
    if method_id not in authorised_ids:
        raise KeyResolutionError(
            f"the key {method_id} is not in the issuer's DID document under {purpose}"
        )
    candidates = _as_list(did_doc.get("verificationMethod"))
    candidates += [a for a in authorised if isinstance(a, dict)]
    for method in candidates:
        if isinstance(method, dict) and method.get("id") == method_id:
            if method.get("controller") != method_did:
                raise KeyResolutionError(f"{method_id} is controlled by {method.get('controller')}")
            if method.get("type") != "Multikey":
                raise KeyResolutionError(
                    f"{method_id} has type {method.get('type')!r}; only Multikey is supported"
                )
            return _public_key(method.get("publicKeyMultibase"), method_id)
    raise KeyResolutionError(f"the key {method_id} is not in the issuer's DID document")
