"""The ``eddsa-rdfc-2022`` Data Integrity cryptosuite (W3C Data Integrity EdDSA Cryptosuites v1.0).

Signing (spec sections 3.2.x, as implemented here):

1. the *proof configuration* is the proof options (``type``, ``cryptosuite``, ``created``,
   ``verificationMethod``, ``proofPurpose``) with the document's ``@context``; it is
   canonicalized with RDFC-1.0;
2. the unsecured document (no ``proof``) is canonicalized with RDFC-1.0;
3. hash data = SHA-256(canonical proof configuration) || SHA-256(canonical document): 64 bytes;
4. the Ed25519 signature of the hash data (64 bytes, deterministic) is the ``proofValue``,
   multibase base58btc (``z...``).

Verification recomputes the hash data from the document and the proof minus ``proofValue``.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from nccl_course.certs.canon import canonicalize
from nccl_course.certs.loader import OfflineDocumentLoader
from nccl_course.certs.multibase import (
    MultibaseError,
    base58_length,
    decode_base58btc,
    encode_base58btc,
)

PROOF_TYPE = "DataIntegrityProof"
CRYPTOSUITE = "eddsa-rdfc-2022"
SIGNATURE_BYTES = 64


class ProofError(ValueError):
    """A proof is malformed or does not verify; the message says which and why."""


@dataclass(frozen=True)
class HashData:
    """The intermediate values of one signing or verification, for tests and teaching."""

    canonical_proof_config: str
    canonical_document: str
    proof_config_hash: bytes
    document_hash: bytes

    @property
    def combined(self) -> bytes:
        return self.proof_config_hash + self.document_hash


def hash_data(
    unsecured_document: dict, proof_options: dict, loader: OfflineDocumentLoader | None = None
) -> HashData:
    """Canonicalize and hash a document (without ``proof``) and its proof options."""
    if "proof" in unsecured_document:
        raise ValueError("hash_data takes the unsecured document, without 'proof'")
    config = {k: v for k, v in proof_options.items() if k not in ("proofValue", "@context")}
    if "@context" in unsecured_document:
        config["@context"] = unsecured_document["@context"]
    canonical_config = canonicalize(config, loader)
    canonical_document = canonicalize(unsecured_document, loader)
    return HashData(
        canonical_proof_config=canonical_config,
        canonical_document=canonical_document,
        proof_config_hash=hashlib.sha256(canonical_config.encode("utf-8")).digest(),
        document_hash=hashlib.sha256(canonical_document.encode("utf-8")).digest(),
    )


def sign(
    document: dict,
    private_key: Ed25519PrivateKey,
    *,
    verification_method: str,
    created: str,
    proof_purpose: str = "assertionMethod",
    loader: OfflineDocumentLoader | None = None,
) -> dict:
    """A copy of ``document`` with a ``DataIntegrityProof`` (eddsa-rdfc-2022) added.

    ``created`` is an XML Schema dateTime string (e.g. ``2023-02-24T23:36:38Z``).
    """
    unsecured = {k: v for k, v in document.items() if k != "proof"}
    options = {
        "type": PROOF_TYPE,
        "cryptosuite": CRYPTOSUITE,
        "created": created,
        "verificationMethod": verification_method,
        "proofPurpose": proof_purpose,
    }
    data = hash_data(unsecured, options, loader)
    signature = private_key.sign(data.combined)
    secured = copy.deepcopy(unsecured)
    secured["proof"] = {**options, "proofValue": encode_base58btc(signature)}
    return secured


def check_proof_shape(proof: object) -> dict:
    """The proof as a dict if its type, cryptosuite and proofValue are acceptable; else ProofError."""
    if not isinstance(proof, dict):
        raise ProofError("'proof' must be a single JSON object")
    if proof.get("type") != PROOF_TYPE:
        raise ProofError(f"proof type is {proof.get('type')!r}; expected {PROOF_TYPE!r}")
    if proof.get("cryptosuite") != CRYPTOSUITE:
        raise ProofError(
            f"unsupported cryptosuite {proof.get('cryptosuite')!r}; expected {CRYPTOSUITE!r}"
        )
    for field in ("verificationMethod", "proofPurpose", "proofValue"):
        if not isinstance(proof.get(field), str) or not proof.get(field):
            raise ProofError(f"proof has no {field}")
    signature_bytes(proof["proofValue"])
    return proof


def signature_bytes(proof_value: str) -> bytes:
    """Decode a proofValue; it must be multibase base58btc of exactly 64 bytes.

    Its length is checked before decoding (base58 decoding is quadratic in the length).
    """
    if not isinstance(proof_value, str):
        raise ProofError("proofValue must be a string")
    longest = 1 + base58_length(SIGNATURE_BYTES)
    if len(proof_value) > longest:
        raise ProofError(
            f"proofValue has {len(proof_value):,} characters; an Ed25519 signature in "
            f"multibase base58btc has at most {longest}"
        )
    try:
        signature = decode_base58btc(proof_value, max_bytes=SIGNATURE_BYTES)
    except MultibaseError as exc:
        raise ProofError(f"proofValue is not multibase base58btc: {exc}") from None
    if len(signature) != SIGNATURE_BYTES:
        raise ProofError(
            f"proofValue decodes to {len(signature)} bytes; an Ed25519 signature has "
            f"{SIGNATURE_BYTES}"
        )
    return signature


def verify_proof(
    secured_document: dict,
    public_key: Ed25519PublicKey,
    loader: OfflineDocumentLoader | None = None,
) -> HashData:
    """Check the document's eddsa-rdfc-2022 proof with ``public_key``; ProofError if it fails."""
    proof = check_proof_shape(secured_document.get("proof"))
    signature = signature_bytes(proof["proofValue"])
    options = {k: v for k, v in proof.items() if k != "proofValue"}
    unsecured = {k: v for k, v in secured_document.items() if k != "proof"}
    if "@context" in options:
        # The proof's contexts must be a prefix of the document's (same values, same order).
        proof_ctx = options["@context"]
        proof_ctx = proof_ctx if isinstance(proof_ctx, list) else [proof_ctx]
        doc_ctx = unsecured.get("@context")
        doc_ctx = doc_ctx if isinstance(doc_ctx, list) else [doc_ctx]
        if doc_ctx[: len(proof_ctx)] != proof_ctx:
            raise ProofError("the proof's @context does not start the document's @context")
    data = hash_data(unsecured, options, loader)
    try:
        public_key.verify(signature, data.combined)
    except InvalidSignature:
        raise ProofError(
            "signature does not match: the credential was changed after signing, or was "
            "signed by another key"
        ) from None
    return data
