"""POST /exam/api/verify trusts only this server's own issuers: the current one and every
earlier one whose keys are in the data folder. Anything else is NOT VALID and says why, and
the answer never presents a failed credential's claims as verified."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from nccl_course.certs import Issuer, eddsa
from nccl_course.certs.did import did_key_from_public, did_key_method
from nccl_course.certs.loader import default_loader
from tests.support.exam_credentials import passed_credential, verdict


def resign(issuer: Issuer, credential: dict, **changes) -> dict:
    """The credential changed and signed again with the issuer's own key."""
    unsigned = {k: v for k, v in copy.deepcopy(credential).items() if k != "proof"}
    for name, value in changes.items():
        if value is None:
            unsigned.pop(name, None)
        else:
            unsigned[name] = value
    return eddsa.sign(
        unsigned,
        issuer.current_key.private,
        verification_method=issuer.verification_method(),
        created="2026-03-14T15:09:26Z",
        loader=default_loader(),
    )


def test_a_genuine_credential_shows_its_claims(client, learner, attempt_keys):
    credential = passed_credential(client, learner, attempt_keys)
    result = verdict(client, credential)
    assert result["ok"] is True and result["verdict"] == "VALID"
    assert result["summary"]["learner"] == "Ada Lovelace"
    assert result["unverified_claims"] is None


def test_forged_issuer_is_not_valid_and_its_claims_are_unverified(client, learner, attempt_keys):
    """A fresh did:key that calls itself the course, really signed: NOT VALID, and why."""
    credential = passed_credential(client, learner, attempt_keys)
    key = Ed25519PrivateKey.generate()
    did = did_key_from_public(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))
    unsigned = {k: v for k, v in credential.items() if k != "proof"}
    unsigned["issuer"] = {**unsigned["issuer"], "id": did, "name": "nccl-course"}
    forged = eddsa.sign(
        unsigned, key, verification_method=did_key_method(did), created="2026-03-14T15:09:26Z"
    )
    result = verdict(client, forged)
    assert result["ok"] is False and result["verdict"] == "NOT VALID"
    assert result["reason"].startswith(
        f"issuer: issued by {did} (named 'nccl-course'), which is not a trusted issuer"
    )
    assert result["summary"] is None  # never the learner and score as if true
    assert result["unverified_claims"]["learner"] == "Ada Lovelace"
    checks = {c["name"]: c["status"] for c in result["checks"]}
    # Its did:key resolves offline, so the signature is checked: intact, but not the course's.
    assert checks["issuer"] == "failed" and checks["signature"] == "ok"


def test_another_did_web_issuer_is_not_trusted(client, learner, attempt_keys, tmp_path):
    credential = passed_credential(client, learner, attempt_keys)
    elsewhere = Issuer.load_or_create(
        tmp_path / "elsewhere",
        "did:web:course.example.org",
        "nccl-course",
        "https://course.example.org/exam/verify",
    )
    issued = elsewhere.issue(
        learner_name="Mallory",
        learner_email="m@example.org",
        exam_id="test-exam",
        score=1.0,
        passed_at=datetime(2026, 3, 14, tzinfo=timezone.utc),
    )
    result = verdict(client, issued)
    assert result["verdict"] == "NOT VALID"
    assert (
        "issued by did:web:course.example.org (named 'nccl-course'), which is not a trusted"
        in (result["reason"])
    )
    assert credential["issuer"]["id"] in result["reason"]  # names the course's own DID


def test_status_entry_outside_the_issuers_own_list_is_not_valid(app, client, learner, attempt_keys):
    """Signed by this server's key, but pointing to a status list elsewhere (or to none):
    the revocation cannot be checked here, so it is NOT VALID (it used to be CANNOT CHECK,
    or VALID without a status entry)."""
    credential = passed_credential(client, learner, attempt_keys)
    issuer = app.state.service.desk.issuer
    entry = dict(credential["credentialStatus"])
    entry["statusListCredential"] = "https://elsewhere.example.org/status/1"
    entry["id"] = "https://elsewhere.example.org/status/1#" + entry["statusListIndex"]
    elsewhere = resign(issuer, credential, credentialStatus=entry)
    result = verdict(client, elsewhere)
    assert result["verdict"] == "NOT VALID", result
    assert result["reason"].startswith("status: the status entry points to")
    assert "elsewhere.example.org" in result["reason"]
    assert {c["name"]: c["status"] for c in result["checks"]}["signature"] == "ok"

    unlisted = resign(issuer, credential, credentialStatus=None)
    result = verdict(client, unlisted)
    assert result["verdict"] == "NOT VALID", result
    assert "no status entry" in result["reason"]


def test_earlier_keys_and_earlier_public_urls_still_verify(settings, client, learner, attempt_keys):
    """After a key rotation, and after the server moved to another --public-url (a new
    did:web issuer in the same data folder), credentials issued before still verify."""
    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings

    credential = passed_credential(client, learner, attempt_keys)
    old_did = credential["issuer"]["id"]
    client.app.state.service.desk.issuer.rotate()
    assert verdict(client, credential)["ok"] is True  # the old key stays in the DID document

    moved = Settings(
        data_dir=settings.data_dir,
        quizzes_dir=settings.quizzes_dir,
        book_dir=settings.book_dir,
        admin_token=settings.admin_token,
        public_url="https://course.example.org",
        email_confirmation=False,
    )
    app = create_app(moved)
    try:
        from fastapi.testclient import TestClient

        with TestClient(app) as other:
            assert app.state.service.desk.issuer.issuer_id == "did:web:course.example.org"
            result = verdict(other, credential)
            assert result["ok"] is True, result
            assert result["issuer"] == old_did
            assert old_did in result["trusted_issuers"]
            assert "did:web:course.example.org" in result["trusted_issuers"]
            # and by id: the stored credential of the earlier issuer
            by_id = other.post("/exam/api/verify", json={"id": credential["id"]}).json()
            assert by_id["ok"] is True
    finally:
        app.state.db.dispose()


def test_the_body_is_parsed_by_the_bounded_parser(client, learner, attempt_keys):
    """Duplicate keys, NaN and deep nesting are refused (422) before any verification;
    FastAPI's parser used to keep the last duplicate and verify what it got."""
    credential = passed_credential(client, learner, attempt_keys)
    text = json.dumps(credential)
    duplicate = text.replace('"validFrom"', '"validFrom": "2020-01-01T00:00:00Z", "validFrom"', 1)
    response = client.post("/exam/api/verify", content=duplicate.encode())
    assert response.status_code == 422 and "appears twice" in response.json()["detail"]
    nan = text.replace('"validFrom"', '"x": NaN, "validFrom"', 1)
    assert client.post("/exam/api/verify", content=nan.encode()).status_code == 422
    # the raw text verifies as such (no JSON round trip in between)
    raw = client.post("/exam/api/verify", content=text.encode()).json()
    assert raw["ok"] is True
    wrapped = client.post("/exam/api/verify", json={"credential": credential}).json()
    assert wrapped["ok"] is True


@pytest.mark.parametrize("field", ["credentialSubject", "issuer", "proof"])
def test_tampered_credentials_are_not_valid(client, learner, attempt_keys, field):
    credential = passed_credential(client, learner, attempt_keys)
    tampered = copy.deepcopy(credential)
    if field == "credentialSubject":
        tampered[field]["result"][0]["value"] = "55.0"
        tampered[field]["identifier"][0]["identityHash"] = "Mallory"
    elif field == "issuer":
        tampered[field]["name"] = "Another course"
    else:
        tampered[field]["proofValue"] = "z" + "1" * 87
    result = verdict(client, tampered)
    assert result["verdict"] == "NOT VALID" and result["summary"] is None
