"""The issuer: key files, DID documents, rotation, status lists, identity hashing, issuing."""

from __future__ import annotations

import hashlib
import json
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from nccl_course.certs import Issuer, hash_identity, identity_matches, learner_name, verify
from nccl_course.certs.did import did_web_url
from nccl_course.certs.multibase import b58decode, b58encode, decode_ed25519_public
from nccl_course.certs.statuslist import (
    MIN_ENTRIES,
    bit_at,
    decode_bitstring,
    encode_bitstring,
    set_indices,
)

ISSUER_ID = "did:web:127.0.0.1%3A8000"
VERIFY_URL = "http://127.0.0.1:8000/verify"
PASSED_AT = datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc)
# The Bitstring Status List specification's example: an all-zero list of 131,072 entries.
SPEC_EMPTY_LIST = "uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA"


def issue(issuer: Issuer, email: str = "ada@example.org", **kwargs) -> dict:
    args = dict(
        learner_name="Ada Lovelace",
        learner_email=email,
        exam_id="attempt-1",
        score=0.85,
        passed_at=PASSED_AT,
    )
    args.update(kwargs)
    return issuer.issue(**args)


@pytest.fixture
def fresh(tmp_path) -> Issuer:
    return Issuer.load_or_create(tmp_path, ISSUER_ID, "Test Issuer", VERIFY_URL)


def test_base58_known_values():
    # Leading zero bytes are '1's; 0x00 0x00 0x01 -> "112".
    assert b58encode(b"\0\0\x01") == "112"
    assert b58encode(b"hello world") == "StV1DL6CwTryKyV"
    assert b58decode("StV1DL6CwTryKyV") == b"hello world"


def test_key_files_are_private_and_outside_the_repo(fresh, tmp_path):
    keys = fresh.folder / "keys"
    assert stat.S_IMODE(keys.stat().st_mode) == 0o700
    files = list(keys.glob("key-*.json"))
    assert [f.name for f in files] == ["key-1.json"]
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert str(tmp_path) in str(files[0])
    assert stat.S_IMODE((fresh.folder / "registry.sqlite").stat().st_mode) == 0o600


def test_reopening_keeps_the_same_key(fresh, tmp_path):
    again = Issuer.load_or_create(tmp_path, ISSUER_ID, "Test Issuer", VERIFY_URL)
    assert again.did_document() == fresh.did_document()


def test_did_document_shape(fresh):
    doc = fresh.did_document()
    assert doc["id"] == ISSUER_ID
    assert doc["@context"][0] == "https://www.w3.org/ns/did/v1"
    (method,) = doc["verificationMethod"]
    assert method["id"] == f"{ISSUER_ID}#key-1"
    assert method["type"] == "Multikey"
    assert method["controller"] == ISSUER_ID
    assert method["publicKeyMultibase"].startswith("z6Mk")
    assert len(decode_ed25519_public(method["publicKeyMultibase"])) == 32
    assert doc["assertionMethod"] == [method["id"]]
    assert fresh.did_document_url == "http://127.0.0.1:8000/.well-known/did.json"


def test_did_web_urls():
    assert did_web_url("did:web:example.com") == "https://example.com/.well-known/did.json"
    assert did_web_url("did:web:example.com%3A8443:u:alice") == (
        "https://example.com:8443/u/alice/did.json"
    )


def test_rotation_keeps_old_credentials_verifiable(fresh):
    old = issue(fresh)
    fresh.rotate()
    new = issue(fresh, email="bob@example.org")
    assert old["proof"]["verificationMethod"] == f"{ISSUER_ID}#key-1"
    assert new["proof"]["verificationMethod"] == f"{ISSUER_ID}#key-2"
    doc = fresh.did_document()
    assert [m["id"] for m in doc["verificationMethod"]] == [
        f"{ISSUER_ID}#key-1",
        f"{ISSUER_ID}#key-2",
    ]
    status = fresh.status_list_credential()
    assert status["proof"]["verificationMethod"] == f"{ISSUER_ID}#key-2"
    for credential in (old, new):
        result = verify(
            credential, trusted_issuers=[ISSUER_ID], did_document=doc, status_list=status
        )
        assert result.ok, result.reason
    key_files = sorted((fresh.folder / "keys").glob("key-*.json"))
    assert [stat.S_IMODE(f.stat().st_mode) for f in key_files] == [0o600, 0o600]


def test_rotation_made_by_another_process_is_picked_up(fresh, tmp_path):
    Issuer.load_or_create(tmp_path, ISSUER_ID, "Test Issuer", VERIFY_URL).rotate()
    assert issue(fresh)["proof"]["verificationMethod"] == f"{ISSUER_ID}#key-2"


def test_did_key_issuer(tmp_path):
    issuer = Issuer.load_or_create(tmp_path, "did:key", "Key Issuer", VERIFY_URL)
    assert issuer.issuer_id.startswith("did:key:z6Mk")
    credential = issue(issuer)
    assert credential["issuer"]["id"] == issuer.issuer_id
    method = credential["proof"]["verificationMethod"]
    assert method == f"{issuer.issuer_id}#{issuer.issuer_id.split(':')[2]}"
    doc = issuer.did_document()
    assert doc["id"] == issuer.issuer_id
    assert [m["id"] for m in doc["verificationMethod"]] == doc["assertionMethod"] == [method]
    assert doc["verificationMethod"][0]["publicKeyMultibase"] == issuer.issuer_id.split(":")[2]
    # did:key needs no DID document: the key is in the identifier.
    result = verify(
        credential,
        trusted_issuers=[issuer.issuer_id],
        status_list=issuer.status_list_credential(),
    )
    assert result.ok, result.reason
    with pytest.raises(ValueError, match="did:key issuer cannot rotate"):
        issuer.rotate()
    again = Issuer.load_or_create(tmp_path, issuer.issuer_id, "Key Issuer", VERIFY_URL)
    assert again.issuer_id == issuer.issuer_id


def test_unknown_did_key_is_refused(tmp_path):
    with pytest.raises(ValueError, match="does not hold"):
        Issuer.load_or_create(
            tmp_path, "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2", "x", VERIFY_URL
        )


def test_other_identifiers_are_refused(tmp_path):
    with pytest.raises(ValueError, match="did:web or did:key"):
        Issuer.load_or_create(tmp_path, "https://issuer.example", "x", VERIFY_URL)


def test_identity_hash_is_salted_sha256_of_the_address(fresh):
    credential = issue(fresh, email="  Ada@Example.ORG ")
    ident = credential["credentialSubject"]["identifier"][0]
    assert ident["type"] == "IdentityObject"
    assert ident["identityType"] == "emailAddress"
    assert ident["hashed"] is True
    salt = ident["salt"]
    assert len(salt) == 32
    expected = "sha256$" + hashlib.sha256(("ada@example.org" + salt).encode()).hexdigest()
    assert ident["identityHash"] == expected == hash_identity("ada@example.org", salt)
    assert identity_matches(credential, "ADA@example.org")
    assert not identity_matches(credential, "eve@example.org")
    assert "ada@example.org" not in json.dumps(credential).lower()
    assert learner_name(credential) == "Ada Lovelace"


def test_two_credentials_for_one_learner_have_different_hashes(fresh):
    a, b = issue(fresh), issue(fresh)
    ha = a["credentialSubject"]["identifier"][0]["identityHash"]
    hb = b["credentialSubject"]["identifier"][0]["identityHash"]
    assert ha != hb
    assert a["id"] != b["id"]


def test_open_badge_fields(fresh):
    c = issue(fresh, exam_id="attempt-77", score=0.9125)
    assert c["@context"] == [
        "https://www.w3.org/ns/credentials/v2",
        "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json",
    ]
    assert c["type"] == ["VerifiableCredential", "OpenBadgeCredential"]
    assert c["id"].startswith("urn:uuid:")
    assert c["issuer"] == {
        "id": ISSUER_ID,
        "type": ["Profile"],
        "name": "Test Issuer",
        "url": "http://127.0.0.1:8000",
    }
    assert c["validFrom"] == "2026-03-14T15:09:26Z"
    assert "validUntil" not in c
    achievement = c["credentialSubject"]["achievement"]
    assert achievement["type"] == ["Achievement"]
    assert {"id", "name", "description", "criteria"} <= set(achievement)
    assert c["credentialSubject"]["result"][0]["value"] == "91.2"
    evidence = c["evidence"][0]
    assert evidence["type"] == ["Evidence"]
    assert "attempt-77" in evidence["name"] and "91.2 %" in evidence["description"]
    assert "2026-03-14T15:09:26Z" in evidence["description"]
    proof = c["proof"]
    assert proof["type"] == "DataIntegrityProof"
    assert proof["cryptosuite"] == "eddsa-rdfc-2022"
    assert proof["proofPurpose"] == "assertionMethod"
    assert len(b58decode(proof["proofValue"][1:])) == 64


def test_custom_achievement(fresh):
    achievement = {
        "id": "https://courses.example/achievements/advanced",
        "type": ["Achievement"],
        "name": "Advanced NCCL",
        "description": "Tuning NCCL on multi-node clusters.",
        "criteria": {"narrative": "Pass the advanced exam."},
    }
    c = issue(fresh, achievement=achievement)
    assert c["credentialSubject"]["achievement"] == achievement
    assert c["name"] == "Advanced NCCL"
    assert "resultDescription" not in c["credentialSubject"]["result"][0]
    result = verify(
        c,
        trusted_issuers=[ISSUER_ID],
        did_document=fresh.did_document(),
        status_list=fresh.status_list_credential(),
    )
    assert result.ok, result.reason


@pytest.mark.parametrize("score", [-0.1, 1.01, 85.0])
def test_score_must_be_a_fraction(fresh, score):
    with pytest.raises(ValueError, match="fraction"):
        issue(fresh, score=score)


def test_naive_datetime_is_utc(fresh):
    c = issue(fresh, passed_at=datetime(2026, 1, 2, 3, 4, 5))
    assert c["validFrom"] == "2026-01-02T03:04:05Z"
    c = issue(fresh, passed_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2))))
    assert c["validFrom"] == "2026-01-02T01:04:05Z"


def test_status_entry_and_list(fresh):
    c = issue(fresh)
    entry = c["credentialStatus"]
    assert entry["type"] == "BitstringStatusListEntry"
    assert entry["statusPurpose"] == "revocation"
    assert entry["statusListCredential"] == "http://127.0.0.1:8000/credentials/status/1"
    index = int(entry["statusListIndex"])
    assert entry["id"] == f"http://127.0.0.1:8000/credentials/status/1#{index}"
    status = fresh.status_list_credential()
    assert status["id"] == entry["statusListCredential"]
    assert status["type"] == ["VerifiableCredential", "BitstringStatusListCredential"]
    assert status["issuer"] == ISSUER_ID
    subject = status["credentialSubject"]
    assert subject["type"] == "BitstringStatusList"
    assert subject["statusPurpose"] == "revocation"
    bits = decode_bitstring(subject["encodedList"])
    assert len(bits) * 8 == MIN_ENTRIES == 131_072
    assert bit_at(bits, index) == 0
    fresh.revoke(c)
    fresh.revoke(c["id"])  # idempotent
    bits = decode_bitstring(fresh.status_list_credential()["credentialSubject"]["encodedList"])
    assert set_indices(bits) == [index]
    assert fresh.is_revoked(c["id"])


def test_status_list_is_stable_between_changes(fresh):
    issue(fresh)
    assert fresh.status_list_credential() == fresh.status_list_credential()


def test_revoking_an_unknown_credential_fails(fresh):
    with pytest.raises(LookupError, match="was not issued by this issuer"):
        fresh.revoke("urn:uuid:00000000-0000-0000-0000-000000000000")


def test_bitstring_matches_the_spec_layout_and_example():
    spec = decode_bitstring(SPEC_EMPTY_LIST)
    assert len(spec) == 16_384 and not any(spec)
    ours = decode_bitstring(encode_bitstring([]))
    assert ours == spec
    # Index 0 is the left-most bit of the first byte.
    raw = decode_bitstring(encode_bitstring([0, 9, MIN_ENTRIES - 1]))
    assert raw[0] == 0x80 and raw[1] == 0x40 and raw[-1] == 0x01
    assert set_indices(raw) == [0, 9, MIN_ENTRIES - 1]
    with pytest.raises(ValueError):
        encode_bitstring([MIN_ENTRIES])


ISSUE_MANY = """
import json, sys
from datetime import datetime, timezone
from pathlib import Path
from nccl_course.certs import Issuer
issuer = Issuer.load_or_create(Path(sys.argv[1]), sys.argv[2], "Test Issuer", sys.argv[3])
out = []
for i in range(int(sys.argv[4])):
    c = issuer.issue(learner_name="P", learner_email=f"p{i}@example.org", exam_id="e",
                     score=0.8, passed_at=datetime.now(timezone.utc))
    out.append([c["id"], c["credentialStatus"]["statusListIndex"]])
print(json.dumps(out))
"""


def test_two_processes_never_share_a_status_index(tmp_path):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", ISSUE_MANY, str(tmp_path), ISSUER_ID, VERIFY_URL, "15"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    pairs = []
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        pairs += json.loads(out)
    assert len(pairs) == 30
    assert len({index for _, index in pairs}) == 30
    issuer = Issuer.load_or_create(tmp_path, ISSUER_ID, "Test Issuer", VERIFY_URL)
    # Both processes used the same (single) key: creation is locked.
    assert len(issuer.did_document()["verificationMethod"]) == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a.pop("criteria"), "lacks criteria"),
        (lambda a: a.update(type=["Badge"]), "must include 'Achievement'"),
        (lambda a: a.update(id="advanced"), "must be a URI"),
        (lambda a: a.update(criteria={}), "criteria needs an id or a narrative"),
    ],
)
def test_a_malformed_achievement_is_refused_before_an_index_is_taken(fresh, change, message):
    achievement = {
        "id": "https://courses.example/achievements/advanced",
        "type": ["Achievement"],
        "name": "Advanced NCCL",
        "description": "Tuning NCCL on multi-node clusters.",
        "criteria": {"narrative": "Pass the advanced exam."},
    }
    change(achievement)
    with pytest.raises(ValueError, match=message):
        issue(fresh, achievement=achievement)
    assert fresh.status_lists() == [1]  # nothing allocated


def test_an_achievement_with_an_undefined_term_gives_its_index_back(fresh):
    achievement = {
        "id": "https://courses.example/achievements/advanced",
        "type": ["Achievement"],
        "name": "Advanced NCCL",
        "description": "Tuning NCCL on multi-node clusters.",
        "criteria": {"narrative": "Pass the advanced exam."},
        "difficulty": "hard",
    }
    with pytest.raises(ValueError, match="'difficulty' is not defined"):
        issue(fresh, achievement=achievement)
    assert fresh.registry.count() == 0


def test_a_key_file_open_to_others_is_refused(fresh, tmp_path):
    key = fresh.folder / "keys" / "key-1.json"
    key.chmod(0o644)
    with pytest.raises(PermissionError, match="chmod 600"):
        Issuer.load_or_create(tmp_path, ISSUER_ID, "Test Issuer", VERIFY_URL)
