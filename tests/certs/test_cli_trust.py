"""``nccl-course cert verify`` says who issued a credential, checks it against the
issuers you trust, says "not checked" for what it could not check (never "status ok" then),
and exits 0 valid, 1 not valid, 2 usage error, 3 could not check. No test uses the network.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import subprocess
import sys
import urllib.error
from datetime import datetime, timezone

import pytest

from nccl_course.certs import Issuer
from nccl_course.certs.verify import FetchError, fetch_json, fetchable
from nccl_course.commands import cert as cert_command

# The module, not the function that nccl_course.certs exports under the same name.
verify_module = importlib.import_module("nccl_course.certs.verify")
ISSUER_ID = "did:web:127.0.0.1%3A8000"
VERIFY_URL = "http://127.0.0.1:8000/verify"
PASSED_AT = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The course's data folder, a genuine credential and its published files, and Mallory's
    forgery: a fresh did:key issuer that calls itself 'nccl-course'."""
    work = tmp_path_factory.mktemp("cli-trust")
    course = Issuer.load_or_create(work / "data", ISSUER_ID, "nccl-course", VERIFY_URL)
    forger = Issuer.load_or_create(work / "mallory", "did:key", "nccl-course", VERIFY_URL)
    genuine = course.issue(
        learner_name="Grace Hopper",
        learner_email="grace@example.org",
        exam_id="attempt-5",
        score=0.9,
        passed_at=PASSED_AT,
    )
    forged = forger.issue(
        learner_name="Mallory",
        learner_email="mallory@example.org",
        exam_id="attempt-1",
        score=1.0,
        passed_at=PASSED_AT,
    )
    out = {"work": work, "data": work / "data", "course": course, "forger": forger}
    for name, document in {
        "cred": genuine,
        "forged": forged,
        "did": course.did_document(),
        "status": course.status_list_credential(),
        "forged-status": forger.status_list_credential(),
    }.items():
        out[name] = work / f"{name}.json"
        out[name].write_text(json.dumps(document))
    return out


def run(*args, data, monkeypatch, capsys) -> tuple[int, str, str]:
    """``nccl-course cert ARGS`` in this process: (exit status, stdout, stderr)."""
    monkeypatch.setenv("NCCL_COURSE_DATA", str(data))
    parser = argparse.ArgumentParser(prog="nccl-course")
    cert_command.register(parser.add_subparsers(dest="command"))
    try:
        namespace = parser.parse_args(["cert", *map(str, args)])
        code = namespace.func(namespace)
    except SystemExit as exc:  # argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the network was used")

    monkeypatch.setattr(verify_module, "fetch_json", refuse)
    monkeypatch.setattr(urllib.request, "urlopen", refuse)


def test_a_forged_credential_is_not_valid_and_the_output_leads_with_its_issuer(
    files, monkeypatch, capsys, no_network
):
    code, out, _ = run(
        "verify",
        files["forged"],
        "--status-list",
        files["forged-status"],
        "--offline",
        data=files["data"],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    forger = files["forger"].issuer_id
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"Issued by:  {forger} ('nccl-course')"
    assert lines[1].startswith(f"Trusted:    {ISSUER_ID} [the issuers in the data folder")
    assert lines[-1] == (
        f"NOT VALID: issuer: issued by {forger} (named 'nccl-course'), which is not a trusted "
        f"issuer (trusted: {ISSUER_ID})"
    )


def test_the_genuine_credential_is_valid_with_every_file_given(files, monkeypatch, capsys):
    code, out, _ = run(
        "verify",
        files["cred"],
        "--did-document",
        files["did"],
        "--status-list",
        files["status"],
        "--offline",
        data=files["data"],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 0, out
    assert out.splitlines()[-1].startswith("VALID: ")
    assert "  ok           status" in out


def test_without_the_status_list_revocation_is_not_checked_and_exit_is_3(
    files, monkeypatch, capsys, no_network
):
    code, out, err = run(
        "verify",
        files["cred"],
        "--did-document",
        files["did"],
        "--offline",
        data=files["data"],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 3
    assert "status ok" not in out and "VALID: " not in out.replace("CANNOT CHECK", "")
    assert "  not checked  status" in out
    assert out.splitlines()[-1].startswith("CANNOT CHECK: signature ok, status not checked: ")
    assert "hint: pass the current status list with --status-list FILE" in err


def test_pinning_another_issuer_makes_the_course_credential_not_valid(files, monkeypatch, capsys):
    code, out, _ = run(
        "verify",
        files["cred"],
        "--issuer",
        "did:web:other.example",
        "--offline",
        data=files["data"],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 1
    assert (
        f"NOT VALID: issuer: issued by {ISSUER_ID} (named 'nccl-course'), which is not a "
        "trusted issuer (trusted: did:web:other.example)"
    ) in out


@pytest.mark.parametrize(
    "content",
    [
        f"# the course\n{ISSUER_ID}\n\ndid:web:old.example  # before the move\n",
        json.dumps([ISSUER_ID]),
        json.dumps({"issuers": ["did:web:old.example", ISSUER_ID]}),
    ],
)
def test_a_trust_file(files, monkeypatch, capsys, tmp_path, content):
    trust = tmp_path / "trust.txt"
    trust.write_text(content)
    empty = tmp_path / "no-data"
    code, out, _ = run(
        "verify",
        files["cred"],
        "--trust-file",
        trust,
        "--did-document",
        files["did"],
        "--status-list",
        files["status"],
        "--offline",
        data=empty,
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 0, out
    assert f"[--trust-file {trust}]" in out


def test_no_trusted_issuer_at_all_is_not_pinned_and_exit_is_3(files, monkeypatch, capsys, tmp_path):
    code, out, err = run(
        "verify",
        files["cred"],
        "--did-document",
        files["did"],
        "--status-list",
        files["status"],
        "--offline",
        data=tmp_path,
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 3
    assert (
        "  not checked  issuer     issuer did:web:127.0.0.1%3A8000 is not pinned (no trusted" in out
    )
    assert "--issuer DID or --trust-file FILE" in err


def test_a_did_key_course_is_trusted_from_its_data_folder(files, monkeypatch, capsys):
    code, out, _ = run(
        "verify",
        files["forged"],
        "--status-list",
        files["forged-status"],
        "--offline",
        data=files["work"] / "mallory",
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 0, out
    assert cert_command.course_issuer_dids(files["work"] / "mallory") == [files["forger"].issuer_id]


def test_without_offline_missing_documents_are_fetched(files, monkeypatch, capsys):
    served = {
        "http://127.0.0.1:8000/.well-known/did.json": files["did"],
        "http://127.0.0.1:8000/credentials/status/1": files["status"],
    }
    asked = []

    def fake_fetch(url):
        asked.append(url)
        return json.loads(served[url].read_text())

    monkeypatch.setattr(verify_module, "fetch_json", fake_fetch)
    code, out, _ = run(
        "verify", files["cred"], data=files["data"], monkeypatch=monkeypatch, capsys=capsys
    )
    assert code == 0, out
    assert sorted(asked) == sorted(served)
    assert "(fetched)" in out


def test_offline_never_fetches_and_names_no_invented_address(
    files, monkeypatch, capsys, no_network
):
    code, out, err = run(
        "verify",
        files["cred"],
        "--offline",
        data=files["data"],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 3
    for name in ("key", "signature", "status"):
        assert f"  not checked  {name}" in out
    assert "https://127.0.0.1:8000" not in out + err
    assert "--did-document FILE" in err


def test_a_malformed_credential_is_not_valid(files, monkeypatch, capsys, tmp_path):
    bad = tmp_path / "nan.json"
    bad.write_text(
        files["cred"].read_text().replace('"activityEndDate"', '"x": NaN, "activityEndDate"')
    )
    code, out, _ = run(
        "verify", bad, "--offline", data=files["data"], monkeypatch=monkeypatch, capsys=capsys
    )
    assert code == 1
    assert out.startswith("NOT VALID: malformed credential: NaN is not a JSON number")


def test_usage_errors_exit_2(files, monkeypatch, capsys, tmp_path):
    code, _, err = run(
        "verify",
        files["cred"],
        "--no-such-option",
        data=files["data"],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 2 and "unrecognized arguments" in err
    code, _, err = run(
        "verify",
        files["cred"],
        "--trust-file",
        tmp_path / "absent.txt",
        data=files["data"],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 2 and "trust file" in err and "does not exist" in err
    code, _, err = run(
        "verify",
        tmp_path / "absent.json",
        data=files["data"],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 2 and err.startswith("error: ")


def test_help_documents_trust_offline_and_exit_codes():
    proc = subprocess.run(
        [sys.executable, "-m", "nccl_course", "cert", "verify", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for needle in (
        "--issuer DID",
        "--trust-file FILE",
        "--offline",
        "0 VALID, 1 NOT VALID",
        "2 usage error",
        "3 CANNOT CHECK",
        "not checked",
    ):
        assert needle in text, needle


# -- fetch_json, without a network ------------------------------------------------------------
class FakeResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FakeOpener:
    def __init__(self, body: bytes | Exception):
        self.body = body
        self.requests = []

    def open(self, request, timeout):
        self.requests.append((request.full_url, timeout))
        if isinstance(self.body, Exception):
            raise self.body
        return FakeResponse(self.body)


def test_fetch_json_parses_within_its_limits():
    opener = FakeOpener(b'{"id": "did:web:x"}')
    assert fetch_json("https://x.example/did.json", opener=opener) == {"id": "did:web:x"}
    assert opener.requests == [("https://x.example/did.json", 5.0)]
    with pytest.raises(FetchError, match="more than 100 bytes"):
        fetch_json("https://x.example/a", opener=FakeOpener(b" " * 200), max_bytes=100)
    with pytest.raises(FetchError, match="NaN"):
        fetch_json("https://x.example/a", opener=FakeOpener(b'{"a": NaN}'))
    error = urllib.error.HTTPError("https://x.example/a", 404, "Not Found", {}, None)
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch_json("https://x.example/a", opener=FakeOpener(error))
    with pytest.raises(FetchError, match="refused"):
        fetch_json("https://x.example/a", opener=FakeOpener(urllib.error.URLError("refused")))


def test_fetch_json_only_fetches_https_or_this_machine():
    assert fetchable("https://example.org/x")
    assert fetchable("http://127.0.0.1:8000/credentials/status/1")
    assert fetchable("http://localhost/x")
    assert not fetchable("http://example.org/x")
    assert not fetchable("file:///etc/passwd")
    with pytest.raises(FetchError, match="not an HTTPS URL"):
        fetch_json("http://example.org/status/1", opener=FakeOpener(b"{}"))
    redirect = verify_module._SafeRedirect()
    with pytest.raises(FetchError, match="redirected to http://evil.example/x"):
        redirect.redirect_request(None, None, 302, "Found", {}, "http://evil.example/x")
