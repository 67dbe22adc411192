"""Status lists carry their lifetime (``validUntil``, and ``ttl`` in milliseconds in the
credentialSubject, Bitstring Status List v1.0) and the verifier holds them to it: a saved list
past its lifetime no longer vouches for a credential (CANNOT CHECK), though it still proves a
revocation."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from nccl_course.certs import verify
from nccl_course.certs.credential import parse_datetime
from nccl_course.certs.statuslist import REFRESH_S, TTL_S
from nccl_course.certs.verify import CANNOT_CHECK, FAILED, NOT_CHECKED, NOT_VALID, VALID
from tests.certs.conftest import ISSUER_ID, PASSED_AT

# After the test issuer's key was made (today), as a list's validFrom is never earlier.
SIGNED_AT = datetime.now(timezone.utc) + timedelta(days=10)


def check(issuer, credential, status_list, now):
    return verify(
        credential,
        trusted_issuers=[ISSUER_ID],
        did_document=issuer.did_document(),
        status_list=status_list,
        now=now,
    )


def test_a_status_list_states_its_lifetime(issuer):
    status_list = issuer.status_list_credential(now=SIGNED_AT)
    start = parse_datetime(status_list["validFrom"])
    assert SIGNED_AT - timedelta(seconds=REFRESH_S) < start <= SIGNED_AT
    assert parse_datetime(status_list["validUntil"]) == start + timedelta(seconds=TTL_S)
    assert status_list["credentialSubject"]["ttl"] == TTL_S * 1000
    # Within one refresh period the same state gives the same document.
    assert issuer.status_list_credential(now=start) == status_list


def test_a_fresh_list_is_valid_and_the_same_list_past_its_valid_until_is_stale(issuer, credential):
    status_list = issuer.status_list_credential(now=SIGNED_AT)
    until = parse_datetime(status_list["validUntil"])
    assert check(issuer, credential, status_list, until - timedelta(seconds=1)).verdict == VALID
    result = check(issuer, credential, status_list, until + timedelta(seconds=1))
    assert result.verdict == CANNOT_CHECK
    assert result.check("status").status == NOT_CHECKED
    assert result.reason.startswith("signature ok, status not checked: status list ")
    assert f"the status list is stale: it was valid until {status_list['validUntil']}" in (
        result.reason
    )
    # A list signed after the moment verified (verifying as of a past date) is not stale.
    assert check(issuer, credential, status_list, PASSED_AT).verdict == VALID


def test_a_list_older_than_its_ttl_is_stale(issuer, credential):
    unsigned = issuer.status_list_credential(now=SIGNED_AT)
    del unsigned["proof"]
    del unsigned["validUntil"]
    unsigned["credentialSubject"]["ttl"] = 60_000  # one minute
    status_list = issuer._sign(unsigned)
    start = parse_datetime(status_list["validFrom"])
    assert check(issuer, credential, status_list, start + timedelta(seconds=59)).ok
    result = check(issuer, credential, status_list, start + timedelta(seconds=61))
    assert result.verdict == CANNOT_CHECK
    assert "it lives 60,000 ms (ttl)" in result.check("status").detail


@pytest.mark.parametrize("ttl", ["300000", -1, 1.5, True])
def test_a_ttl_that_is_not_milliseconds_fails(issuer, credential, ttl):
    unsigned = issuer.status_list_credential(now=SIGNED_AT)
    del unsigned["proof"]
    unsigned["credentialSubject"]["ttl"] = ttl
    status_list = issuer._sign(unsigned)
    result = check(issuer, credential, status_list, SIGNED_AT)
    assert result.verdict == NOT_VALID
    assert result.check("status").status == FAILED
    assert "is not a number of milliseconds" in result.check("status").detail


def test_a_stale_list_still_proves_a_revocation(issuer):
    doomed = issuer.issue(
        learner_name="Eve",
        learner_email="eve@example.org",
        exam_id="attempt-stale",
        score=0.9,
        passed_at=PASSED_AT,
    )
    issuer.revoke(doomed)
    status_list = issuer.status_list_credential(now=SIGNED_AT)
    later = parse_datetime(status_list["validUntil"]) + timedelta(days=30)
    result = check(issuer, doomed, status_list, later)
    assert result.verdict == NOT_VALID
    assert result.reason.startswith("status: revoked: bit ")


def test_the_command_line_reports_a_stale_saved_list(issuer, credential, tmp_path):
    import subprocess
    import sys

    status_list = issuer.status_list_credential(now=SIGNED_AT)
    files = {
        "cred.json": credential,
        "status.json": status_list,
        "did.json": issuer.did_document(),
    }
    for name, document in files.items():
        (tmp_path / name).write_text(json.dumps(document))
    later = parse_datetime(status_list["validUntil"]) + timedelta(hours=1)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nccl_course",
            "cert",
            "verify",
            str(tmp_path / "cred.json"),
            "--status-list",
            str(tmp_path / "status.json"),
            "--did-document",
            str(tmp_path / "did.json"),
            "--issuer",
            ISSUER_ID,
            "--now",
            later.isoformat(),
            "--offline",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    last = proc.stdout.splitlines()[-1]
    assert last.startswith("CANNOT CHECK: signature ok, status not checked: ")
    assert "stale" in last and "fetch a fresh one" in last
