"""Issuer continuity across public URLs, and ``nccl-course cert issuers``."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

from nccl_course.certs import Issuer
from nccl_course.certs.history import issuer_history
from nccl_course.certs.verify import verify
from nccl_course.cli import main

A = "did:web:127.0.0.1%3A8000"
B = "did:web:course.example.org"
PASSED_AT = datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc)


def _open(data, did, url):
    return Issuer.load_or_create(data, did, "nccl-course", f"{url}/exam/verify")


def _issue(issuer):
    return issuer.issue(
        learner_name="Ada Lovelace",
        learner_email="ada@example.org",
        exam_id="e1",
        score=0.9,
        passed_at=PASSED_AT,
    )


def _valid(issuer, credential) -> bool:
    result = verify(
        credential,
        trusted_issuers=[issuer.issuer_id],
        did_document=issuer.did_document(),
        status_list=[issuer.status_list_credential(1)],
    )
    return result.verdict == "VALID"


def test_a_new_did_web_takes_the_keys_of_the_last_one(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    a = _open(tmp_path, A, "http://127.0.0.1:8000")
    old = _issue(a)
    b = _open(tmp_path, B, "https://course.example.org")
    assert [k.public_raw for k in b.keys] == [k.public_raw for k in a.keys]
    assert (b.folder / "keys").is_symlink()
    assert f"issuer {B} now signs with the keys of {A}" in caplog.text
    assert json.loads((b.folder / "issuer.json").read_text())["keys_from"] == A
    new = _issue(b)
    assert _valid(a, old) and _valid(b, new)
    # Starting again under either URL neither adopts again nor makes a key.
    caplog.clear()
    assert [k.public_raw for k in _open(tmp_path, A, "http://127.0.0.1:8000").keys] == [
        k.public_raw for k in a.keys
    ]
    assert "now signs with" not in caplog.text


def test_a_rotation_applies_to_every_did_sharing_the_keys(tmp_path):
    a = _open(tmp_path, A, "http://127.0.0.1:8000")
    old = _issue(a)
    b = _open(tmp_path, B, "https://course.example.org")
    b.rotate()
    a2 = _open(tmp_path, A, "http://127.0.0.1:8000")
    assert a2.current_key.number == 2 and a2.current_key.public_raw == b.current_key.public_raw
    assert _valid(a2, old)  # key-1 stays in the DID document


def test_did_key_issuers_never_share_keys(tmp_path):
    a = _open(tmp_path, A, "http://127.0.0.1:8000")
    k = Issuer.load_or_create(tmp_path, "did:key", "x", "http://127.0.0.1:8000/exam/verify")
    assert k.current_key.public_raw != a.current_key.public_raw
    assert not (k.folder / "keys").is_symlink()


def test_an_issuer_with_its_own_keys_keeps_them(tmp_path):
    b = _open(tmp_path, B, "https://course.example.org")
    a = _open(tmp_path, A, "http://127.0.0.1:8000")  # adopts b's keys
    assert a.current_key.public_raw == b.current_key.public_raw
    again = _open(tmp_path, B, "https://course.example.org")
    assert not (again.folder / "keys").is_symlink()


def test_history_lists_dids_keys_and_the_current_one(tmp_path):
    _open(tmp_path, A, "http://127.0.0.1:8000")
    b = _open(tmp_path, B, "https://course.example.org")
    b.rotate()
    history = issuer_history(tmp_path)
    assert [e["issuer_id"] for e in history] == [A, B]
    assert [e["current"] for e in history] == [False, True]
    assert history[1]["keys_from"] == A and history[0]["keys_from"] is None
    for entry in history:
        assert entry["first_used"]
        assert [(k["id"], k["retired"]) for k in entry["keys"]] == [
            (f"{entry['issuer_id']}#key-1", True),
            (f"{entry['issuer_id']}#key-2", False),
        ]
        assert all("secret" not in json.dumps(k).lower() for k in entry["keys"])
    # Moving back to A makes it current again.
    _open(tmp_path, A, "http://127.0.0.1:8000")
    assert [e["current"] for e in issuer_history(tmp_path)] == [True, False]


def test_cert_issuers_command(tmp_path, capsys):
    data = tmp_path / "data"
    assert main(["cert", "issuers", "--data-dir", str(data)]) == 0
    assert "no issuer in" in capsys.readouterr().out
    _open(data, A, "http://127.0.0.1:8000")
    _open(data, B, "https://course.example.org")
    assert main(["cert", "rotate", "--data-dir", str(data), "--issuer", B]) == 0
    capsys.readouterr()
    assert main(["cert", "issuers", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == A and lines.index(f"{B}  [current]") > 0
    assert f"keys from:  {A}" in out
    assert f"{A}#key-1  retired" in out and f"{B}#key-2  signing" in out
    assert "first used: 20" in out
    assert main(["cert", "issuers", "--data-dir", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [e["issuer_id"] for e in report["issuers"] if e["current"]] == [B]
    assert "secretKeyMultibase" not in json.dumps(report)
