"""Interoperability with Digital Bazaar's ``@digitalbazaar/vc`` 7 (eddsa-rdfc-2022 through
``@digitalbazaar/data-integrity``, status through ``@digitalbazaar/vc-bitstring-status-list``),
offline, both ways:

- that library verifies the course's example credential and its status list (bit 0), reads
  the revoked example's bit as 1, and rejects a tampered copy;
- the course verifies a credential that library signs with a did:key, and rejects a tampered
  copy.

``interop/vc_interop.mjs`` runs the library; its document loader serves the JSON-LD contexts
from the course's own files only (``nccl_course.certs.loader.VENDORED``) and the examples'
DID document and status list, and refuses anything else: no network.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from nccl_course.certs import verify
from nccl_course.certs.credential import parse_datetime
from nccl_course.certs.loader import CONTEXTS_DIR, VENDORED

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "certificates" / "examples"
SCRIPT = Path(__file__).with_name("interop") / "vc_interop.mjs"
NODE = shutil.which("node")
LIBRARY = REPO / "node_modules" / "@digitalbazaar" / "vc" / "package.json"

pytestmark = pytest.mark.skipif(
    NODE is None or not LIBRARY.exists(),
    reason="needs node and the npm devDependencies (npm ci)",
)


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def run_node(command: str, tmp_path: Path, credential: dict, **extra) -> dict:
    """Run the script on ``credential`` with the course's contexts; its JSON answer."""
    (tmp_path / "credential.json").write_text(json.dumps(credential))
    config = {
        "contexts": {url: str(CONTEXTS_DIR / name) for url, name in VENDORED.items()},
        "credential": str(tmp_path / "credential.json"),
        **extra,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    proc = subprocess.run(
        [NODE, str(SCRIPT), command, str(tmp_path / "config.json")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def examples_config() -> dict:
    """The examples' DID document and status list, served at their URLs; the moment the
    example list was signed (it is stale a day later)."""
    did, status_list = load(EXAMPLES / "did.json"), load(EXAMPLES / "status-list.json")
    return {
        "documents": {
            did["id"]: str(EXAMPLES / "did.json"),
            status_list["id"]: str(EXAMPLES / "status-list.json"),
        },
        "now": status_list["validFrom"],
    }


def test_the_library_verifies_the_course_example_and_its_status_list(tmp_path):
    answer = run_node("verify", tmp_path, load(EXAMPLES / "credential.json"), **examples_config())
    assert answer["verified"] is True, answer["error"]
    [status] = answer["statuses"]
    assert status["verified"] is True, status["error"]
    assert status["status"] == 0
    # Everything it needed came from the course's files.
    assert set(answer["requested"]) <= set(VENDORED) | {
        load(EXAMPLES / "did.json")["id"],
        load(EXAMPLES / "credential.json")["proof"]["verificationMethod"],
        load(EXAMPLES / "status-list.json")["id"],
    }


def test_the_library_reads_the_revoked_example_as_revoked(tmp_path):
    revoked = load(EXAMPLES / "revoked-credential.json")
    answer = run_node("verify", tmp_path, revoked, **examples_config())
    assert answer["verified"] is True, answer["error"]  # its signature and list hold
    assert [s["status"] for s in answer["statuses"]] == [1]


def test_the_library_rejects_a_tampered_course_credential(tmp_path):
    tampered = load(EXAMPLES / "credential.json")
    tampered["credentialSubject"]["result"][0]["value"] = "100"
    answer = run_node("verify", tmp_path, tampered, **examples_config())
    assert answer["verified"] is False
    assert "Invalid signature" in answer["error"]
    # And the course agrees.
    ours = verify(
        tampered,
        trusted_issuers=[load(EXAMPLES / "did.json")["id"]],
        did_document=load(EXAMPLES / "did.json"),
        status_list=load(EXAMPLES / "status-list.json"),
        now=parse_datetime(load(EXAMPLES / "status-list.json")["validFrom"]),
    )
    assert ours.verdict == "NOT VALID"
    assert ours.reason.startswith("signature: signature does not match")


@pytest.fixture(scope="module")
def library_credential(tmp_path_factory) -> dict:
    """An Open Badges credential the library signs with a fresh did:key (the course's example
    without its proof and status entry, the issuer replaced by the did:key)."""
    unsigned = load(EXAMPLES / "credential.json")
    del unsigned["proof"], unsigned["credentialStatus"]
    answer = run_node("issue", tmp_path_factory.mktemp("issue"), unsigned)
    signed = answer["credential"]
    assert signed["proof"]["cryptosuite"] == "eddsa-rdfc-2022"
    assert signed["issuer"]["id"].startswith("did:key:z6Mk")
    return signed


def test_the_course_verifies_a_did_key_credential_the_library_signed(library_credential):
    did = library_credential["issuer"]["id"]
    now = parse_datetime(library_credential["proof"]["created"])
    result = verify(library_credential, trusted_issuers=[did], now=now)
    assert result.ok, result.reason
    assert result.check("signature").status == "ok"
    # Not pinned: the signature is still checked and reported.
    unpinned = verify(library_credential, now=now)
    assert unpinned.verdict == "CANNOT CHECK"
    assert unpinned.check("signature").status == "ok"


def test_the_course_rejects_a_tampered_library_credential(library_credential, tmp_path):
    tampered = copy.deepcopy(library_credential)
    tampered["credentialSubject"]["achievement"]["name"] = "Something else"
    result = verify(tampered, trusted_issuers=[tampered["issuer"]["id"]])
    assert result.verdict == "NOT VALID"
    assert result.reason.startswith("signature: signature does not match")
    # And the library agrees on both.
    assert run_node("verify", tmp_path, library_credential)["verified"] is True
    assert run_node("verify", tmp_path, tampered)["verified"] is False
