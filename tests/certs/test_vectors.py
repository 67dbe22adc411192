"""Interoperability: the W3C vc-di-eddsa eddsa-rdfc-2022 test vectors, stage by stage.

The vectors come from an independent implementation (see vectors/README.md). Our canonical
forms, hashes and signature must match them byte for byte (Ed25519 is deterministic), and our
verifier must accept their signed credential when their contexts are supplied.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from nccl_course.certs import eddsa, multibase, verify
from nccl_course.certs.canon import canonicalize
from nccl_course.certs.loader import OfflineDocumentLoader

VECTORS = Path(__file__).resolve().parent / "vectors"
RDFC = VECTORS / "eddsa-rdfc-2022"


def text(name: str) -> str:
    return (RDFC / name).read_text().strip()


def load(path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def loader():
    return OfflineDocumentLoader(VECTORS / "contexts")


@pytest.fixture(scope="module")
def key_pair():
    pair = load(VECTORS / "keyPair.json")
    seed = multibase.decode_ed25519_private(pair["privateKeyMultibase"])
    return pair, Ed25519PrivateKey.from_private_bytes(seed)


def test_key_pair_public_key_derives_from_the_private_key(key_pair):
    pair, private = key_pair
    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert multibase.encode_ed25519_public(raw) == pair["publicKeyMultibase"]
    assert multibase.decode_ed25519_public(pair["publicKeyMultibase"]) == raw


def test_canonical_document_matches(loader):
    nquads = canonicalize(load(VECTORS / "unsigned.json"), loader)
    assert nquads == text("canonDocDataInt.txt") + "\n"


def test_canonical_proof_config_matches(loader):
    nquads = canonicalize(load(RDFC / "proofConfigDataInt.json"), loader)
    assert nquads == text("proofCanonDataInt.txt") + "\n"


def test_hashes_match(loader):
    options = load(RDFC / "proofConfigDataInt.json")
    data = eddsa.hash_data(load(VECTORS / "unsigned.json"), options, loader)
    assert data.document_hash.hex() == text("docHashDataInt.txt")
    assert data.proof_config_hash.hex() == text("proofHashDataInt.txt")
    assert data.combined.hex() == text("combinedHashDataInt.txt")
    assert hashlib.sha256(data.canonical_document.encode()).hexdigest() == text(
        "docHashDataInt.txt"
    )


def test_signer_reproduces_the_published_proof_value(loader, key_pair):
    _, private = key_pair
    options = load(RDFC / "proofConfigDataInt.json")
    secured = eddsa.sign(
        load(VECTORS / "unsigned.json"),
        private,
        verification_method=options["verificationMethod"],
        created=options["created"],
        loader=loader,
    )
    assert multibase.decode_base58btc(secured["proof"]["proofValue"]).hex() == text(
        "sigHexDataInt.txt"
    )
    assert secured["proof"]["proofValue"] == text("sigBTC58DataInt.txt")
    assert secured == load(RDFC / "signedDataInt.json")


def published_trust() -> list[str]:
    """The published credential's issuer is a URL, not a DID: nothing ties its did:key signer
    to that URL, so both are pinned."""
    doc = load(RDFC / "signedDataInt.json")
    return [doc["issuer"], doc["proof"]["verificationMethod"].split("#")[0]]


def test_published_signed_credential_verifies_with_their_contexts():
    result = verify(
        load(RDFC / "signedDataInt.json"),
        trusted_issuers=published_trust(),
        extra_contexts=VECTORS / "contexts",
    )
    assert result.ok, result.reason
    assert [c.name for c in result.checks] == [
        "issuer",
        "schema",
        "key",
        "signature",
        "dates",
        "status",
    ]


def test_a_url_issuer_does_not_vouch_for_an_unpinned_did_key_signer():
    doc = load(RDFC / "signedDataInt.json")
    result = verify(doc, trusted_issuers=[doc["issuer"]], extra_contexts=VECTORS / "contexts")
    assert result.verdict == "CANNOT CHECK"
    assert result.check("key").status == "not checked"
    assert "is not a DID" in result.check("key").detail
    # The did:key resolves offline, so the signature is checked all the same.
    assert result.check("signature").status == "ok"
    assert result.reason.startswith("signature ok, issuer binding not checked: the issuer ")


@pytest.mark.parametrize("trusted", [None, ["did:web:course.example"]])
def test_a_did_key_signature_is_checked_whoever_is_trusted(trusted):
    doc = load(RDFC / "signedDataInt.json")
    result = verify(doc, trusted_issuers=trusted, extra_contexts=VECTORS / "contexts")
    assert result.check("signature").status == "ok", result.reason
    assert result.verdict == ("CANNOT CHECK" if trusted is None else "NOT VALID")
    doc["credentialSubject"]["alumniOf"] = "The School of Examplez"
    tampered = verify(doc, trusted_issuers=trusted, extra_contexts=VECTORS / "contexts")
    assert tampered.verdict == "NOT VALID"
    assert tampered.check("signature").status == "failed"
    assert tampered.check("signature").detail.startswith("signature does not match")


def test_published_credential_without_their_contexts_names_the_missing_url():
    result = verify(load(RDFC / "signedDataInt.json"), trusted_issuers=published_trust())
    assert not result.ok
    assert result.reason.startswith("schema: ")
    assert "https://www.w3.org/ns/credentials/examples/v2" in result.reason


def test_published_credential_with_one_changed_byte_fails():
    doc = load(RDFC / "signedDataInt.json")
    doc["credentialSubject"]["alumniOf"] = "The School of Examplez"
    result = verify(doc, trusted_issuers=published_trust(), extra_contexts=VECTORS / "contexts")
    assert not result.ok
    assert result.reason.startswith("signature: signature does not match")


def test_cli_verifies_the_published_credential_offline():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nccl_course",
            "cert",
            "verify",
            str(RDFC / "signedDataInt.json"),
            "--contexts",
            str(VECTORS / "contexts"),
            *[arg for did in published_trust() for arg in ("--issuer", did)],
            "--offline",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is True
    assert report["credential_id"] == "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33"
