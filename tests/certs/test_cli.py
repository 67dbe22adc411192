"""``nccl-course cert``: the full life cycle through the command line, in real processes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ISSUER_ID = "did:web:127.0.0.1%3A8000"


def cli(*args: str, data: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "NCCL_COURSE_DATA": str(data)}
    proc = subprocess.run(
        [sys.executable, "-m", "nccl_course", "cert", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def life(tmp_path_factory):
    """keygen, issue, publish, verify, revoke, republish: every file of the way."""
    work = tmp_path_factory.mktemp("cli")
    data = work / "data"
    out = {"data": data, "work": work}
    out["keygen"] = cli("keygen", "--issuer", ISSUER_ID, "--name", "CLI Issuer", data=data)
    cli(
        "issue",
        "--learner-name",
        "Grace Hopper",
        "--learner-email",
        "grace@example.org",
        "--exam-id",
        "attempt-5",
        "--score",
        "0.9",
        "--passed-at",
        "2026-05-01T10:00:00Z",
        "-o",
        str(work / "cred.json"),
        "--pdf",
        str(work / "cred.pdf"),
        data=data,
    )
    cli("did-document", "-o", str(work / "did.json"), data=data)
    cli("status-list", "-o", str(work / "status.json"), data=data)
    return out


def test_keygen_reports_where_to_publish(life):
    text = life["keygen"].stdout
    assert f"issuer:       {ISSUER_ID}" in text
    assert "http://127.0.0.1:8000/.well-known/did.json" in text
    assert "http://127.0.0.1:8000/credentials/status/1" in text
    keys = list((life["data"] / "certs").glob("*/keys/key-1.json"))
    assert len(keys) == 1
    assert stat.S_IMODE(keys[0].stat().st_mode) == 0o600


def test_issue_writes_a_credential_and_a_pdf(life):
    credential = json.loads((life["work"] / "cred.json").read_text())
    assert credential["validFrom"] == "2026-05-01T10:00:00Z"
    assert (life["work"] / "cred.pdf").read_bytes().startswith(b"%PDF-")


def test_verify_passes_offline_with_did_document_and_status_list(life):
    w = life["work"]
    proc = cli(
        "verify",
        str(w / "cred.json"),
        "--did-document",
        str(w / "did.json"),
        "--status-list",
        str(w / "status.json"),
        "--offline",
        data=life["data"],
    )
    lines = proc.stdout.splitlines()
    # It leads with who issued the credential, and whom this verifier trusts (the data folder).
    assert lines[0].startswith(f"Issued by:  {ISSUER_ID} ('CLI Issuer')")
    assert lines[1].startswith(f"Trusted:    {ISSUER_ID} [the issuers in the data folder")
    checks = [line.split()[:2] for line in lines if line.startswith("  ")]
    assert checks == [
        ["ok", "issuer"],
        ["ok", "schema"],
        ["ok", "key"],
        ["ok", "signature"],
        ["ok", "dates"],
        ["ok", "status"],
    ]
    assert lines[-1].startswith(f"VALID: issued by {ISSUER_ID}")


def test_verify_without_status_list_says_not_checked_and_exits_3(life):
    w = life["work"]
    proc = cli(
        "verify",
        str(w / "cred.json"),
        "--did-document",
        str(w / "did.json"),
        "--offline",
        data=life["data"],
        check=False,
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "status ok" not in proc.stdout
    assert "  not checked  status" in proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("CANNOT CHECK: signature ok, status not checked")
    assert "--status-list FILE" in proc.stderr


def test_verify_without_the_did_document_cannot_check_and_invents_no_address(life):
    proc = cli(
        "verify", str(life["work"] / "cred.json"), "--offline", data=life["data"], check=False
    )
    assert proc.returncode == 3
    assert "  not checked  key" in proc.stdout
    assert "INVALID" not in proc.stdout and "NOT VALID" not in proc.stdout
    assert "https://127.0.0.1:8000" not in proc.stdout + proc.stderr
    assert "--did-document FILE" in proc.stderr


def test_verify_as_of_an_earlier_date(life):
    w = life["work"]
    proc = cli(
        "verify",
        str(w / "cred.json"),
        "--did-document",
        str(w / "did.json"),
        "--status-list",
        str(w / "status.json"),
        "--now",
        "2026-04-30T00:00:00Z",
        "--offline",
        "--json",
        data=life["data"],
        check=False,
    )
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["verdict"] == "NOT VALID"
    assert report["reason"].startswith("dates: not yet valid")
    assert report["issuer"] == ISSUER_ID


def test_missing_file_is_one_line_error(life):
    proc = cli("verify", str(life["work"] / "nope.json"), data=life["data"], check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: ") and "nope.json does not exist" in proc.stderr


def test_rotate_revoke_and_republish(life):
    w, data = life["work"], life["data"]
    rotated = cli("rotate", data=data)
    assert f"{ISSUER_ID}#key-2" in rotated.stdout
    credential = json.loads((w / "cred.json").read_text())
    cli("revoke", credential["id"], data=data)
    cli("did-document", "-o", str(w / "did2.json"), data=data)
    cli("status-list", "-o", str(w / "status2.json"), data=data)
    args = ["verify", str(w / "cred.json"), "--did-document", str(w / "did2.json"), "--offline"]
    # Signed by key-1 before the rotation: still verifies against the new DID document.
    assert cli(*args, "--status-list", str(w / "status.json"), data=data).returncode == 0
    proc = cli(*args, "--status-list", str(w / "status2.json"), data=data, check=False)
    assert proc.returncode == 1
    assert "NOT VALID: status: revoked: bit " in proc.stdout


def test_revoke_unknown_id(life):
    proc = cli("revoke", "urn:uuid:nope", data=life["data"], check=False)
    assert proc.returncode == 2
    assert "was not issued by this issuer" in proc.stderr


def test_commands_without_an_issuer_say_how_to_create_one(tmp_path):
    proc = cli("status-list", data=tmp_path, check=False)
    assert proc.returncode == 2
    assert "nccl-course cert keygen" in proc.stderr
