"""A credential signed with a fresh key of one's own must not verify as the course's.

The verifier takes the set of trusted issuer DIDs and checks the issuer first, before any
JSON-LD processing; the result names the issuer the credential states and the key that signed.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone

import pytest

from nccl_course.certs import Issuer, verify
from nccl_course.certs.verify import (
    CANNOT_CHECK,
    CHECK_NAMES,
    FAILED,
    NOT_CHECKED,
    NOT_VALID,
    OK,
    VALID,
    FetchError,
)

ISSUER_ID = "did:web:127.0.0.1%3A8000"  # the conftest's issuer
VERIFY_URL = "http://127.0.0.1:8000/verify"
PASSED_AT = datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc)
LATER = PASSED_AT + timedelta(days=30)


@pytest.fixture(scope="module")
def mallory(tmp_path_factory) -> tuple[Issuer, dict]:
    """Mallory's own did:key issuer, named like the course, and a perfect score for Mallory."""
    forger = Issuer.load_or_create(
        tmp_path_factory.mktemp("mallory"), "did:key", "nccl-course", VERIFY_URL
    )
    forged = forger.issue(
        learner_name="Mallory",
        learner_email="mallory@example.org",
        exam_id="attempt-1",
        score=1.0,
        passed_at=PASSED_AT,
    )
    return forger, forged


def test_a_self_signed_did_key_credential_is_not_valid_and_names_its_issuer(issuer, mallory):
    forger, forged = mallory
    assert forged["issuer"]["name"] == "nccl-course"
    result = verify(
        forged,
        trusted_issuers=[ISSUER_ID],
        did_document=issuer.did_document(),
        status_list=forger.status_list_credential(),
        now=LATER,
    )
    assert result.verdict == NOT_VALID and not result.ok
    assert result.reason == (
        f"issuer: issued by {forger.issuer_id} (named 'nccl-course'), which is not a trusted "
        f"issuer (trusted: {ISSUER_ID})"
    )
    assert result.issuer == result.signer == forger.issuer_id
    assert result.issuer_name == "nccl-course"
    # A did:key resolves offline: its signature is still checked (intact, but not the course's).
    assert [(c.name, c.status) for c in result.checks] == [
        ("issuer", FAILED),
        ("schema", OK),
        ("key", OK),
        ("signature", OK),
        ("dates", NOT_CHECKED),
        ("status", NOT_CHECKED),
    ]


def test_a_tampered_did_key_credential_from_an_untrusted_issuer_reports_its_bad_signature(
    mallory,
):
    forged = copy.deepcopy(mallory[1])
    forged["credentialSubject"]["achievement"]["name"] = "Something else"
    result = verify(forged, trusted_issuers=[ISSUER_ID], now=LATER)
    assert result.verdict == NOT_VALID
    assert result.reason.startswith("issuer: issued by ")
    assert result.check("signature").status == FAILED


def test_the_same_credential_is_valid_only_for_a_verifier_that_trusts_that_key(mallory):
    # The signature itself is fine: trust, not cryptography, is what the forgery lacks.
    forger, forged = mallory
    result = verify(
        forged,
        trusted_issuers=[forger.issuer_id],
        status_list=forger.status_list_credential(),
        now=LATER,
    )
    assert result.verdict == VALID, result.reason


def test_the_issuer_is_checked_before_any_json_ld_processing(issuer, mallory, monkeypatch):
    from nccl_course.certs import eddsa

    def refuse(*args, **kwargs):
        raise AssertionError("JSON-LD processing ran for an untrusted issuer")

    monkeypatch.setattr(eddsa, "canonicalize", refuse)
    # A did:web key would have to be fetched: nothing runs after the issuer check fails.
    forged = copy.deepcopy(mallory[1])
    forged["issuer"]["id"] = "did:web:forger.example"
    forged["proof"]["verificationMethod"] = "did:web:forger.example#key-1"
    result = verify(forged, trusted_issuers=[ISSUER_ID], did_document=issuer.did_document())
    assert result.check("issuer").status == FAILED
    assert all(c.status == NOT_CHECKED for c in result.checks[1:])


def test_an_issuer_not_pinned_is_reported_not_checked(issuer, credential):
    result = verify(
        credential,
        did_document=issuer.did_document(),
        status_list=issuer.status_list_credential(),
        now=LATER,
    )
    assert result.verdict == CANNOT_CHECK and not result.ok
    assert result.check("issuer").status == NOT_CHECKED
    assert "not pinned" in result.check("issuer").detail
    assert all(c.status == OK for c in result.checks if c.name != "issuer")
    assert result.trusted_issuers is None


def test_earlier_dids_of_the_course_stay_trusted(issuer, credential):
    result = verify(
        credential,
        trusted_issuers=["did:web:old.example", ISSUER_ID],
        did_document=issuer.did_document(),
        status_list=issuer.status_list_credential(),
        now=LATER,
    )
    assert result.verdict == VALID
    assert result.trusted_issuers == ("did:web:127.0.0.1%3A8000", "did:web:old.example")


def test_the_issuer_claimed_and_the_key_used_must_agree(issuer, mallory):
    # Mallory names the course as issuer but signs with her own did:key: the issuer check
    # passes (the claim is the course) and the key check names the real signer.
    from nccl_course.certs import eddsa

    forger, forged = mallory
    claimed = {k: v for k, v in forged.items() if k != "proof"}
    claimed["issuer"] = {**claimed["issuer"], "id": ISSUER_ID}
    resigned = eddsa.sign(
        claimed,
        forger.current_key.private,
        verification_method=forger.verification_method(),
        created="2026-03-14T15:09:26Z",
    )
    result = verify(resigned, trusted_issuers=[ISSUER_ID], did_document=issuer.did_document())
    assert result.verdict == NOT_VALID
    assert result.check("key").status == FAILED
    assert forger.issuer_id in result.reason and result.signer == forger.issuer_id


def test_result_as_dict_is_json_with_every_check(issuer, credential):
    result = verify(
        credential,
        trusted_issuers=[ISSUER_ID],
        did_document=issuer.did_document(),
        now=LATER,
    )
    report = json.loads(json.dumps(result.as_dict()))
    assert report["verdict"] == CANNOT_CHECK and report["ok"] is False
    assert report["issuer"] == ISSUER_ID
    assert [c["name"] for c in report["checks"]] == list(CHECK_NAMES)
    assert {c["status"] for c in report["checks"]} <= {OK, FAILED, NOT_CHECKED}
    assert report["checks"][-1] == {
        "name": "status",
        "status": NOT_CHECKED,
        "detail": "the status list http://127.0.0.1:8000/credentials/status/1 was not supplied "
        "(and fetching is off)",
        "message": None,  # plain text: shown as written in every language
    }


def test_fetch_is_used_only_for_what_was_not_supplied(issuer, credential):
    asked = []
    documents = {
        "http://127.0.0.1:8000/.well-known/did.json": issuer.did_document(),
        "http://127.0.0.1:8000/credentials/status/1": issuer.status_list_credential(),
    }

    def fake_fetch(url):
        asked.append(url)
        return json.loads(json.dumps(documents[url]))

    result = verify(credential, trusted_issuers=[ISSUER_ID], now=LATER, fetch=fake_fetch)
    assert result.verdict == VALID, result.reason
    assert asked == list(documents)
    assert "(fetched)" in result.check("status").detail


def test_a_failed_fetch_is_not_checked_never_ok(credential):
    def broken(url):
        raise FetchError("connection refused")

    result = verify(credential, trusted_issuers=[ISSUER_ID], now=LATER, fetch=broken)
    assert result.verdict == CANNOT_CHECK
    for name in ("key", "signature", "status"):
        assert result.check(name).status == NOT_CHECKED
    assert "connection refused" in result.check("key").detail
    assert "connection refused" in result.check("status").detail
