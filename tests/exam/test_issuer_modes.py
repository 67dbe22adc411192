"""Development vs production, and one issuer key across public URLs.

- Without an https public URL the server is a development server: it says so at start, and
  each credential says "(local test, not verifiable elsewhere)"; ``--production`` (or
  ``NCCL_COURSE_PRODUCTION=1``) refuses to start without ``--public-url https://...``.
- A new public URL (a new did:web) signs with the keys already in the data folder, and
  credentials issued under the earlier DID still verify here.
"""

from __future__ import annotations

import json
import logging

import pytest

from nccl_course.cli import build_parser
from nccl_course.issuing.credentials import LOCAL_TEST_MARK
from nccl_course.server.settings import Settings, is_local_test_url
from tests.support.exam_credentials import passed_credential, verdict


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8000", True),
        ("http://course.example.org", True),
        ("https://localhost:8443", True),
        ("https://127.0.0.1", True),
        ("https://10.0.0.5", True),
        ("https://testserver", True),
        ("https://box.local", True),
        ("https://course.example.org", False),
        ("https://course.example.org:8443/nccl", False),
    ],
)
def test_which_public_urls_are_local_tests(url, local):
    assert is_local_test_url(url) is local


def test_production_settings_need_an_https_public_url(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="production mode needs --public-url https://"):
        Settings(data_dir=tmp_path, production=True)
    with pytest.raises(ValueError, match="did:web:course.example.org"):
        Settings(data_dir=tmp_path, production=True, public_url="http://course.example.org")
    assert not Settings(
        data_dir=tmp_path,
        production=True,
        public_url="https://course.example.org",
        smtp_host="mail.example.org",
    ).local_test
    monkeypatch.setenv("NCCL_COURSE_PRODUCTION", "1")
    with pytest.raises(ValueError, match="production mode"):
        Settings.from_env(data_dir=tmp_path)
    monkeypatch.setenv("NCCL_COURSE_EMAIL_CONFIRMATION", "off")
    assert Settings.from_env(data_dir=tmp_path, public_url="https://course.example.org").production


def _serve(monkeypatch, tmp_path, quizzes_dir, *extra):
    """Run ``nccl-course serve`` up to uvicorn (which is not started); (rc, args.public_url)."""
    import uvicorn

    started = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: started.append(app))
    args = build_parser().parse_args(
        [
            "serve",
            "--data-dir",
            str(tmp_path / "data"),
            "--quizzes",
            str(quizzes_dir),
            "--book",
            str(tmp_path / "no-book"),
            *extra,
        ]
    )
    return args.func(args), started


def test_serve_in_development_says_its_certificates_are_local_tests(
    monkeypatch, tmp_path, quizzes_dir, capsys
):
    rc, started = _serve(monkeypatch, tmp_path, quizzes_dir)
    err = capsys.readouterr().err
    assert rc == 0 and started
    assert "for local testing only" in err and "did:web:127.0.0.1%3A8000" in err
    assert "--public-url https://" in err


def test_serve_with_an_https_public_url_issues_normally(monkeypatch, tmp_path, quizzes_dir, capsys):
    rc, started = _serve(
        monkeypatch, tmp_path, quizzes_dir, "--public-url", "https://course.example.org"
    )
    assert rc == 0 and started
    assert "local testing" not in capsys.readouterr().err


@pytest.mark.parametrize("how", ["flag", "env"])
def test_serve_production_refuses_without_an_https_public_url(
    monkeypatch, tmp_path, quizzes_dir, capsys, how
):
    extra = ["--production"] if how == "flag" else []
    if how == "env":
        monkeypatch.setenv("NCCL_COURSE_PRODUCTION", "1")
    rc, started = _serve(monkeypatch, tmp_path, quizzes_dir, *extra)
    err = capsys.readouterr().err
    assert rc == 2 and not started
    assert "error: production mode needs --public-url https://" in err
    rc, started = _serve(
        monkeypatch, tmp_path, quizzes_dir, *extra, "--public-url", "http://course.example.org"
    )
    assert rc == 2 and not started
    rc, started = _serve(
        monkeypatch, tmp_path, quizzes_dir, *extra, "--public-url", "https://course.example.org"
    )
    assert rc == 2 and not started  # and with e-mail confirmation on, an SMTP server
    assert "NCCL_COURSE_SMTP_HOST" in capsys.readouterr().err
    monkeypatch.setenv("NCCL_COURSE_SMTP_HOST", "mail.example.org")
    rc, started = _serve(
        monkeypatch, tmp_path, quizzes_dir, *extra, "--public-url", "https://course.example.org"
    )
    assert rc == 0 and started


def test_a_development_credential_says_it_is_a_local_test(client, learner, attempt_keys):
    credential = passed_credential(client, learner, attempt_keys)
    achievement = credential["credentialSubject"]["achievement"]
    assert achievement["name"].endswith(LOCAL_TEST_MARK)
    assert credential["name"].endswith(LOCAL_TEST_MARK)
    assert achievement["description"].startswith("Local test credential")
    result = verdict(client, credential)
    assert result["ok"] is True, result  # still valid here
    assert LOCAL_TEST_MARK in result["summary"]["achievement"]


def test_a_new_public_url_keeps_the_keys_and_earlier_credentials_verify(
    settings, client, learner, attempt_keys, caplog
):
    """Issue under URL A, restart under URL B: the same keys sign, B's log says so, and
    both the earlier and the new credential verify on the restarted server."""
    from fastapi.testclient import TestClient

    from nccl_course.server.app import create_app
    from tests.exam.conftest import Learner, keys_of

    old = passed_credential(client, learner, attempt_keys)
    old_issuer = client.app.state.service.desk.issuer
    old_did = old["issuer"]["id"]
    moved = Settings(
        data_dir=settings.data_dir,
        quizzes_dir=settings.quizzes_dir,
        book_dir=settings.book_dir,
        admin_token=settings.admin_token,
        public_url="https://course.example.org",
        email_confirmation=False,
    )
    caplog.set_level(logging.INFO)
    app = create_app(moved)
    try:
        with TestClient(app) as other:
            issuer = app.state.service.desk.issuer
            assert issuer.issuer_id == "did:web:course.example.org"
            assert [k.public_raw for k in issuer.keys] == [k.public_raw for k in old_issuer.keys]
            assert f"issuer did:web:course.example.org now signs with the keys of {old_did}" in (
                caplog.text
            )
            assert verdict(other, old)["ok"] is True
            assert other.post("/exam/api/verify", json={"id": old["id"]}).json()["ok"] is True
            new = passed_credential(
                other,
                Learner(other, "Grace Hopper", "grace@example.org"),
                lambda attempt_id: keys_of(app, attempt_id),
            )
            assert new["issuer"]["id"] == "did:web:course.example.org"
            assert LOCAL_TEST_MARK not in json.dumps(new)
            assert verdict(other, new)["ok"] is True
            assert verdict(other, old)["ok"] is True
    finally:
        app.state.db.dispose()
