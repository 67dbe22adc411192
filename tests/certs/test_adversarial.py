"""Adversarial credentials: each must fail verification at the right check, for the right reason."""

from __future__ import annotations

import copy
import gzip
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from nccl_course.certs import Issuer, eddsa, multibase, verify
from nccl_course.certs.canon import CanonicalizationError, canonicalize
from nccl_course.certs.did import did_key_from_public, did_key_method
from nccl_course.certs.statuslist import decode_bitstring
from nccl_course.certs.verify import CANNOT_CHECK, CHECK_NAMES, FAILED, NOT_CHECKED, NOT_VALID, OK

ISSUER_ID = "did:web:127.0.0.1%3A8000"
VERIFY_URL = "http://127.0.0.1:8000/verify"
PASSED_AT = datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc)
LATER = PASSED_AT + timedelta(days=30)


def check(result, name: str, reason_start: str):
    """The result failed at check ``name`` (after all earlier checks passed) with that reason;
    the later checks were not run."""
    assert result.verdict == NOT_VALID and not result.ok
    assert [c.name for c in result.checks] == list(CHECK_NAMES)
    failed = [c for c in result.checks if c.status == FAILED]
    assert [c.name for c in failed] == [name], result.checks
    position = CHECK_NAMES.index(name)
    assert all(c.status == OK for c in result.checks[:position]), result.checks
    assert all(c.status == NOT_CHECKED for c in result.checks[position + 1 :])
    assert result.reason.startswith(f"{name}: {reason_start}"), result.reason


def run(issuer, credential, **kwargs):
    kwargs.setdefault("trusted_issuers", [ISSUER_ID])
    kwargs.setdefault("did_document", issuer.did_document())
    kwargs.setdefault("status_list", issuer.status_list_credential())
    kwargs.setdefault("now", LATER)
    return verify(credential, **kwargs)


def resign(credential: dict, private: Ed25519PrivateKey, method: str) -> dict:
    return eddsa.sign(
        credential, private, verification_method=method, created="2026-03-14T15:09:26Z"
    )


def test_untouched_credential_verifies(issuer, credential):
    result = run(issuer, credential)
    assert result.ok, result.reason
    assert [(c.name, c.status) for c in result.checks] == [
        ("issuer", OK),
        ("schema", OK),
        ("key", OK),
        ("signature", OK),
        ("dates", OK),
        ("status", OK),
    ]
    assert result.issuer == ISSUER_ID and result.signer == ISSUER_ID


def test_one_changed_byte_in_the_subject(issuer, credential):
    names = credential["credentialSubject"]["identifier"]
    assert names[1]["identityHash"] == "Ada Lovelace"
    names[1]["identityHash"] = "Ada Lovelacf"
    check(run(issuer, credential), "signature", "signature does not match")


def test_one_changed_byte_in_the_email_hash(issuer, credential):
    ident = credential["credentialSubject"]["identifier"][0]
    digest = ident["identityHash"]
    ident["identityHash"] = digest[:-1] + ("0" if digest[-1] != "0" else "1")
    check(run(issuer, credential), "signature", "signature does not match")


def test_changed_score(issuer, credential):
    credential["credentialSubject"]["result"][0]["value"] = "95.0"
    check(run(issuer, credential), "signature", "signature does not match")


@pytest.mark.parametrize("where", ["top", "subject", "achievement"])
def test_an_added_undefined_property(issuer, credential, where):
    # The vendored VC 2.0 context has no @vocab, so a JSON-LD processor would silently drop an
    # undefined term and the signature would still match; safe mode refuses it instead.
    target = {
        "top": credential,
        "subject": credential["credentialSubject"],
        "achievement": credential["credentialSubject"]["achievement"],
    }[where]
    target["honours"] = "summa cum laude"
    check(run(issuer, credential), "signature", "property 'honours' is not defined")


@pytest.mark.parametrize(
    ("where", "name", "value"),
    [
        ("top", "description", "Awarded with honours."),
        ("subject", "creditsEarned", 5.0),
        ("achievement", "humanCode", "NCCL-101"),
    ],
)
def test_an_added_defined_property(issuer, credential, where, name, value):
    target = {
        "top": credential,
        "subject": credential["credentialSubject"],
        "achievement": credential["credentialSubject"]["achievement"],
    }[where]
    assert name not in target
    target[name] = value
    check(run(issuer, credential), "signature", "signature does not match")


def test_an_added_type(issuer, credential):
    credential["type"].append("EndorsementCredential")
    check(run(issuer, credential), "signature", "signature does not match")


def test_an_alias_type_is_the_same_statement(issuer, credential):
    # OB 3.0.3 maps AchievementCredential to the same IRI as OpenBadgeCredential: the RDF
    # dataset, hence the signed data, is unchanged.
    credential["type"].append("AchievementCredential")
    assert run(issuer, credential).ok


def test_safe_mode_rejects_a_property_no_context_defines():
    doc = {"@context": {"name": "https://schema.org/name"}, "name": "x", "undefinedThing": 1}
    with pytest.raises(CanonicalizationError, match="undefinedThing|not defined"):
        canonicalize(doc)


def test_a_wrong_cryptosuite(issuer, credential):
    credential["proof"]["cryptosuite"] = "eddsa-jcs-2022"
    check(run(issuer, credential), "signature", "unsupported cryptosuite 'eddsa-jcs-2022'")


def test_a_wrong_proof_type(issuer, credential):
    credential["proof"]["type"] = "Ed25519Signature2020"
    check(run(issuer, credential), "signature", "proof type is 'Ed25519Signature2020'")


@pytest.mark.parametrize("length", [63, 65, 32])
def test_a_proof_value_of_the_wrong_length(issuer, credential, length):
    signature = multibase.decode_base58btc(credential["proof"]["proofValue"])
    forged = (signature * 2)[:length]
    credential["proof"]["proofValue"] = multibase.encode_base58btc(forged)
    result = run(issuer, credential)
    value = credential["proof"]["proofValue"]
    if len(value) > 89:
        # More base58 characters than any 64-byte value needs: refused before decoding.
        check(result, "signature", f"proofValue has {len(value)} characters")
    else:
        check(result, "signature", f"proofValue decodes to {length} bytes")


def test_a_proof_value_that_is_not_base58btc(issuer, credential):
    credential["proof"]["proofValue"] = "u" + credential["proof"]["proofValue"][1:]
    check(run(issuer, credential), "signature", "proofValue is not multibase base58btc")


def test_a_signature_by_a_key_not_in_the_did_document(issuer, credential):
    stranger = Ed25519PrivateKey.generate()
    forged = resign(credential, stranger, f"{ISSUER_ID}#key-99")
    check(
        run(issuer, forged),
        "key",
        f"the key {ISSUER_ID}#key-99 is not in the issuer's DID document",
    )


def test_a_signature_by_another_key_under_the_issuers_key_id(issuer, credential):
    stranger = Ed25519PrivateKey.generate()
    forged = resign(credential, stranger, issuer.verification_method())
    check(run(issuer, forged), "signature", "signature does not match")


def test_a_did_key_signature_claiming_a_did_web_issuer(issuer, credential):
    stranger = Ed25519PrivateKey.generate()
    raw = stranger.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    method = did_key_method(did_key_from_public(raw))
    forged = resign(credential, stranger, method)
    check(run(issuer, forged), "key", f"verification method {method} is not a key of the issuer")


def test_another_issuers_did_document(issuer, credential, tmp_path):
    other = Issuer.load_or_create(
        tmp_path, "did:web:evil.example", "Evil", "https://evil.example/v"
    )
    result = run(issuer, credential, did_document=other.did_document())
    check(result, "key", "the DID document given is for 'did:web:evil.example'")


def test_did_web_without_its_did_document_is_not_checked(issuer, credential):
    # Without the DID document the key cannot be checked: CANNOT CHECK, not INVALID, and no
    # guessed address to fetch it from.
    result = verify(credential, trusted_issuers=[ISSUER_ID], now=LATER)
    assert result.verdict == CANNOT_CHECK
    key = result.check("key")
    assert key.status == NOT_CHECKED
    assert f"the DID document of {ISSUER_ID} was not supplied" in key.detail
    assert "https://" not in key.detail
    assert result.check("signature").status == NOT_CHECKED


def test_before_valid_from(issuer, credential):
    result = run(issuer, credential, now=PASSED_AT - timedelta(seconds=1))
    check(result, "dates", "not yet valid: validFrom 2026-03-14T15:09:26Z is after now")


def test_after_valid_until(issuer):
    expiring = issuer.issue(
        learner_name="Alan Turing",
        learner_email="alan@example.org",
        exam_id="attempt-18",
        score=0.9,
        passed_at=PASSED_AT,
        valid_until=PASSED_AT + timedelta(days=365),
    )
    assert expiring["validUntil"] == "2027-03-14T15:09:26Z"
    day_364 = PASSED_AT + timedelta(days=364)
    # The status list of that day: a list signed today is stale by then.
    assert run(
        issuer, expiring, now=day_364, status_list=issuer.status_list_credential(now=day_364)
    ).ok
    result = run(issuer, expiring, now=PASSED_AT + timedelta(days=366))
    check(result, "dates", "expired: validUntil 2027-03-14T15:09:26Z is before now")


def test_a_changed_valid_from_breaks_the_proof_first(issuer, credential):
    credential["validFrom"] = "2020-01-01T00:00:00Z"
    check(run(issuer, credential), "signature", "signature does not match")


def test_a_revoked_credential(issuer):
    doomed = issuer.issue(
        learner_name="Mallory",
        learner_email="mallory@example.org",
        exam_id="attempt-19",
        score=0.7,
        passed_at=PASSED_AT,
    )
    before = issuer.status_list_credential()
    assert run(issuer, doomed, status_list=before).ok
    issuer.revoke(doomed["id"])
    index = int(doomed["credentialStatus"]["statusListIndex"])
    result = run(issuer, doomed, status_list=issuer.status_list_credential())
    check(
        result,
        "status",
        f"revoked: bit {index} of status list {doomed['credentialStatus']['statusListCredential']}",
    )
    # The old list (published before the revocation) still says valid: freshness matters.
    assert run(issuer, doomed, status_list=before).ok


def test_a_tampered_status_list(issuer, credential):
    status_list = issuer.status_list_credential()
    bits = bytearray(decode_bitstring(status_list["credentialSubject"]["encodedList"]))
    index = int(credential["credentialStatus"]["statusListIndex"])
    bits[index // 8] |= 0x80 >> (index % 8)  # "revoke" without the issuer's key
    status_list["credentialSubject"]["encodedList"] = multibase.encode_base64url(
        gzip.compress(bytes(bits))
    )
    result = run(issuer, credential, status_list=status_list)
    check(result, "status", "status list http://127.0.0.1:8000/credentials/status/1: its proof")
    assert "signature does not match" in result.reason


def test_a_status_list_of_another_url_leaves_revocation_unchecked(issuer, credential):
    status_list = issuer.status_list_credential(2)
    result = run(issuer, credential, status_list=status_list)
    assert result.verdict == CANNOT_CHECK
    assert result.check("status").status == NOT_CHECKED
    assert result.check("status").detail.startswith("the status list supplied is")


def test_a_status_list_signed_by_another_issuer(issuer, credential, tmp_path):
    other = Issuer.load_or_create(tmp_path, "did:web:evil.example", "Evil", VERIFY_URL)
    status_list = other.status_list_credential()
    result = run(issuer, credential, status_list=status_list)
    check(result, "status", "status list http://127.0.0.1:8000/credentials/status/1: issued by")


def test_a_missing_proof(issuer, credential):
    del credential["proof"]
    check(run(issuer, credential), "schema", "the credential has no proof")


def test_a_missing_issuer(issuer, credential):
    del credential["issuer"]
    check(run(issuer, credential), "issuer", "the credential names no issuer")


@pytest.mark.parametrize("name", ["credentialSubject", "type", "@context"])
def test_a_missing_required_property(issuer, credential, name):
    del credential[name]
    check(run(issuer, credential), "schema", f"required property {name!r} is missing")


@pytest.mark.parametrize("name", ["id", "name", "validFrom"])
def test_open_badge_without_a_required_property(issuer, credential, name):
    del credential[name]
    check(run(issuer, credential), "schema", f"Open Badges 3.0 requires {name!r}")


def test_open_badge_subject_without_its_type(issuer, credential):
    credential["credentialSubject"]["type"] = ["CredentialSubject"]
    check(run(issuer, credential), "schema", "credentialSubject.type does not include")


def test_a_malformed_identity_hash(issuer, credential):
    credential["credentialSubject"]["identifier"][0]["identityHash"] = "sha256$abc"
    check(run(issuer, credential), "schema", "identityHash 'sha256$abc'")


def test_vc1_context_first(issuer, credential):
    credential["@context"][0] = "https://www.w3.org/2018/credentials/v1"
    check(run(issuer, credential), "schema", "the first @context must be")


def test_an_unknown_context_is_named_and_never_fetched(issuer, credential):
    credential["@context"].append("https://attacker.example/context.jsonld")
    result = run(issuer, credential)
    check(result, "schema", "JSON-LD context https://attacker.example/context.jsonld is not")


def test_no_network_during_verification(issuer, credential, monkeypatch):
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError("network used")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert run(issuer, credential).ok


def test_the_checks_run_in_the_documented_order_and_stop_at_the_first_failure(issuer, credential):
    credential["proof"]["cryptosuite"] = "nope"
    result = run(issuer, credential, now=PASSED_AT - timedelta(days=1))
    assert [(c.name, c.status) for c in result.checks] == [
        ("issuer", OK),
        ("schema", OK),
        ("key", OK),
        ("signature", FAILED),
        ("dates", NOT_CHECKED),
        ("status", NOT_CHECKED),
    ]


def test_mutating_the_fixture_copy_does_not_leak(signed, issuer):
    assert run(issuer, copy.deepcopy(signed)).ok


def test_paths_of_vectors_exist():
    assert (Path(__file__).parent / "vectors" / "README.md").exists()


def test_a_status_list_that_is_too_short(issuer, credential):
    from nccl_course.certs.statuslist import encode_bitstring

    status_list = issuer.status_list_credential()
    del status_list["proof"]
    status_list["credentialSubject"]["encodedList"] = encode_bitstring([], length=8 * 1024)
    key = issuer.current_key.private
    resigned = eddsa.sign(
        status_list,
        key,
        verification_method=issuer.verification_method(),
        created="2026-03-14T15:09:26Z",
    )
    result = run(issuer, credential, status_list=resigned)
    check(
        result,
        "status",
        "status list http://127.0.0.1:8000/credentials/status/1: the list has 8192",
    )
