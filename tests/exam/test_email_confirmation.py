"""E-mail confirmation: mails arrive in a real SMTP server (aiosmtpd on 127.0.0.1), links open
once and expire, an address is one learner, resending is rate-limited, a failed send changes
nothing, and production without an SMTP server refuses to start."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from datetime import timedelta

import pytest
from sqlalchemy import func, select, text, update

from nccl_course.exam.clock import utcnow
from nccl_course.server.app import create_app, worker_settings_json
from nccl_course.server.settings import Settings
from nccl_course.store.models import EmailLink, Learner
from tests.exam.conftest import RAISED_RATE_LIMITS
from tests.support.smtp_sink import SmtpSink, link_token

REGISTERED = {"token", "email", "confirmation", "detail"}


@pytest.fixture()
def sink():
    with SmtpSink() as sink:
        yield sink


def make_settings(tmp_path, quizzes_dir, sink, **overrides) -> Settings:
    options = {
        "data_dir": tmp_path / "data",
        "quizzes_dir": quizzes_dir,
        "book_dir": tmp_path / "no-book",
        "admin_token": "test-admin-token",
        "rate_limits": RAISED_RATE_LIMITS,
        "smtp_host": "127.0.0.1",
        "smtp_port": sink.port,
        "smtp_security": "none",
        "mail_from": "Course <course@example.org>",
    }
    return Settings(**{**options, **overrides})


@pytest.fixture()
def make_client(tmp_path, quizzes_dir, sink):
    made = []

    def make(**overrides):
        from fastapi.testclient import TestClient

        app = create_app(make_settings(tmp_path, quizzes_dir, sink, **overrides))
        client = TestClient(app)
        client.__enter__()
        made.append(client)
        return client

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield make
    for client in made:
        client.__exit__(None, None, None)
        client.app.state.db.dispose()


def register(client, email="ada@example.org", name="Ada Lovelace"):
    return client.post("/exam/api/register", json={"name": name, "email": email})


def auth(key):
    return {"Authorization": f"Bearer {key}"}


def confirm(client, token):
    return client.post("/exam/api/confirm", json={"token": token})


def count(client, model) -> int:
    with client.app.state.db.read() as session:
        return session.scalar(select(func.count()).select_from(model))


def test_register_mail_confirm_then_start(make_client, sink):
    client = make_client()
    assert client.get("/exam/api/exam").json()["email_confirmation"] is True
    reply = register(client)
    assert reply.status_code == 202 and set(reply.json()) == REGISTERED
    key = reply.json()["token"]
    (mail,) = sink.wait(1)
    assert sink.received[0][0] == ["ada@example.org"]
    assert mail["To"] == "ada@example.org" and mail["From"] == "Course <course@example.org>"
    assert "Ada Lovelace" not in mail.get_content()  # nothing typed but the address
    token = link_token(mail)
    assert count(client, Learner) == 0  # no learner before the address is confirmed

    for refused in (
        client.get("/exam/api/me", headers=auth(key)),
        client.post("/exam/api/attempts", headers=auth(key)),
    ):
        assert refused.status_code == 403
        assert refused.json()["error"] == "email_unconfirmed"
        assert "ada@example.org" in refused.json()["detail"]
        assert "/exam/api/resend" in refused.json()["detail"]

    opened = confirm(client, token)
    assert opened.status_code == 200, opened.text
    assert opened.json()["confirmed"] is True and "token" not in opened.json()
    me = client.get("/exam/api/me", headers=auth(key)).json()
    assert me["email_confirmed"] is True and me["learner"]["email"] == "ada@example.org"
    assert client.post("/exam/api/attempts", headers=auth(key)).status_code == 201

    # Only the hash of the link's token is stored.
    with client.app.state.db.read() as session:
        stored = session.scalars(select(EmailLink.token_hash)).all()
    assert len(stored) == 1 and token not in stored[0] and len(stored[0]) == 64

    again = confirm(client, token)
    assert (again.status_code, again.json()["error"]) == (409, "link_used")


def test_garbage_and_expired_links_are_clear_4xx(make_client, sink):
    client = make_client()
    for garbage, status, code in [
        ("not-a-token", 404, "unknown_link"),
        ("", 404, "unknown_link"),
        ("x" * 101, 422, "bad_field"),
    ]:
        reply = confirm(client, garbage)
        assert (reply.status_code, reply.json()["error"]) == (status, code), garbage
    assert client.post("/exam/api/confirm", json={}).json()["error"] == "missing_field"

    key = register(client).json()["token"]
    token = link_token(sink.wait(1)[0])
    with client.app.state.db.write() as session:
        session.execute(update(EmailLink).values(expires_at=utcnow() - timedelta(seconds=1)))
    expired = confirm(client, token)
    assert (expired.status_code, expired.json()["error"]) == (410, "link_expired")
    assert "new one" in expired.json()["detail"]
    # Sending the link again revives the registration with a fresh link.
    assert client.post("/exam/api/resend", headers=auth(key)).status_code == 202
    assert confirm(client, token).status_code == 404  # the old link no longer works
    assert confirm(client, link_token(sink.wait(2)[1])).status_code == 200


def test_registering_again_reaches_the_same_learner_without_fresh_attempts(make_client, sink):
    client = make_client()
    first = register(client)
    old_key = first.json()["token"]
    confirm(client, link_token(sink.wait(1)[0]))
    attempt = client.post("/exam/api/attempts", headers=auth(old_key)).json()
    me_before = client.get("/exam/api/me", headers=auth(old_key)).json()
    assert me_before["attempts_used"] == 1

    second = register(client, email="  ADA@Example.ORG ", name="Someone Else")
    # The same answer as for a new address: nothing says the address is registered.
    assert second.status_code == first.status_code == 202
    assert set(second.json()) == set(first.json())
    assert second.json()["email"] == "ada@example.org"
    pending_key = second.json()["token"]
    assert client.get("/exam/api/me", headers=auth(pending_key)).json()["error"] == (
        "email_unconfirmed"
    )
    mail = sink.wait(2)[1]
    assert mail["To"] == "ada@example.org" and "already has a learner record" in (
        mail.get_content()
    )
    assert count(client, Learner) == 1

    signed_in = confirm(client, link_token(mail))
    assert signed_in.status_code == 200
    new_key = signed_in.json()["token"]
    assert new_key not in (old_key, pending_key)
    me = client.get("/exam/api/me", headers=auth(new_key)).json()
    assert me["learner"] == me_before["learner"]  # the same learner, name unchanged
    assert (me["attempts_used"], me["attempts_left"]) == (1, me_before["attempts_left"])
    assert [a["id"] for a in me["attempts"]] == [attempt["id"]]
    assert client.get("/exam/api/me", headers=auth(old_key)).status_code == 401
    # The key of the browser that registered again never becomes the learner's.
    assert client.get("/exam/api/me", headers=auth(pending_key)).status_code == 401
    assert count(client, Learner) == 1


def test_resend_is_rate_limited(make_client, sink):
    client = make_client(rate_limits={**RAISED_RATE_LIMITS, "resend": "2/minute"})
    key = register(client).json()["token"]
    replies = [client.post("/exam/api/resend", headers=auth(key)) for _ in range(3)]
    assert [r.status_code for r in replies] == [202, 202, 429]
    assert replies[2].json()["error"] == "rate_limited"
    assert 1 <= int(replies[2].headers["Retry-After"]) <= 60
    mails = sink.wait(3)
    assert len(sink.messages) == 3
    tokens = [link_token(m) for m in mails]
    assert len(set(tokens)) == 3
    assert [confirm(client, t).status_code for t in tokens] == [404, 404, 200]
    again = client.post("/exam/api/resend", headers=auth(key))
    assert again.status_code in (409, 429)


def test_a_failed_send_is_a_503_and_loses_nothing(make_client, sink):
    # STARTTLS against a server that does not offer it: the send fails.
    client = make_client(smtp_security="starttls")
    reply = register(client)
    assert reply.status_code == 503 and reply.json()["error"] == "mail_failed"
    assert "try again" in reply.json()["detail"]
    assert count(client, EmailLink) == 0 and sink.messages == []
    settings = client.app.state.settings
    settings.smtp_security = "none"
    key = register(client).json()["token"]
    link = link_token(sink.wait(1)[0])
    settings.smtp_port = 1  # nothing listens there: resending fails, the link still works
    failed = client.post("/exam/api/resend", headers=auth(key))
    assert failed.status_code == 503 and failed.json()["error"] == "mail_failed"
    assert confirm(client, link).status_code == 200


def test_a_learner_from_before_confirmation_confirms_with_resend(make_client, sink):
    client = make_client()
    learner, key = client.app.state.service.learners.register("Grace Hopper", "grace@example.org")
    assert client.get("/exam/api/me", headers=auth(key)).json()["email_confirmed"] is False
    refused = client.post("/exam/api/attempts", headers=auth(key))
    assert refused.status_code == 403 and refused.json()["error"] == "email_unconfirmed"
    assert client.post("/exam/api/resend", headers=auth(key)).status_code == 202
    mail = sink.wait(1)[0]
    assert "confirm it" in mail.get_content()
    assert "token" not in confirm(client, link_token(mail)).json()  # same key, now confirmed
    assert client.post("/exam/api/attempts", headers=auth(key)).status_code == 201
    assert client.post("/exam/api/resend", headers=auth(key)).json()["error"] == (
        "already_confirmed"
    )


def test_confirmation_off_works_as_before(make_client, sink):
    client = make_client(email_confirmation=False)
    assert client.get("/exam/api/exam").json()["email_confirmation"] is False
    reply = register(client)
    assert reply.status_code == 201 and set(reply.json()) == {"learner", "token"}
    key = reply.json()["token"]
    assert client.post("/exam/api/attempts", headers=auth(key)).status_code == 201
    assert register(client, email="ADA@example.org").status_code == 409
    assert client.post("/exam/api/resend", headers=auth(key)).json()["error"] == (
        "confirmation_off"
    )
    assert sink.messages == []


def test_without_smtp_a_development_server_prints_the_link(make_client, sink, capsys):
    client = make_client(smtp_host=None)
    key = register(client).json()["token"]
    out = capsys.readouterr().out
    assert "To: ada@example.org" in out
    token = link_token_from_text(out)
    assert confirm(client, token).status_code == 200
    assert client.post("/exam/api/attempts", headers=auth(key)).status_code == 201
    assert sink.messages == []


def link_token_from_text(text_: str) -> str:
    from tests.support.smtp_sink import LINK

    (token,) = LINK.findall(text_)
    return token


def test_settings_from_the_environment_keep_the_password_private(tmp_path, monkeypatch):
    secret = tmp_path / "smtp-password"
    secret.write_text("s3cret pass\n")
    monkeypatch.setenv("NCCL_COURSE_SMTP_HOST", "mail.example.org")
    monkeypatch.setenv("NCCL_COURSE_SMTP_SECURITY", "TLS")
    monkeypatch.setenv("NCCL_COURSE_SMTP_USERNAME", "course")
    monkeypatch.setenv("NCCL_COURSE_SMTP_PASSWORD_FILE", str(secret))
    monkeypatch.setenv("NCCL_COURSE_MAIL_FROM", "course@example.org")
    settings = Settings.from_env(data_dir=tmp_path / "data")
    assert (settings.smtp_host, settings.smtp_port, settings.smtp_security) == (
        "mail.example.org",
        465,
        "tls",
    )
    assert settings.smtp_password == "s3cret pass" and settings.email_confirmation is True
    assert "s3cret" not in repr(settings)
    assert "s3cret" not in worker_settings_json(settings)
    assert json.loads(worker_settings_json(settings))["smtp_host"] == "mail.example.org"
    monkeypatch.setenv("NCCL_COURSE_SMTP_PASSWORD", "from-env")
    monkeypatch.setenv("NCCL_COURSE_EMAIL_CONFIRMATION", "off")
    settings = Settings.from_env(data_dir=tmp_path / "data")
    assert settings.smtp_password == "from-env" and settings.email_confirmation is False
    assert Settings(data_dir=tmp_path / "data").smtp_port == 587  # STARTTLS by default
    with pytest.raises(ValueError, match="starttls, tls, none"):
        Settings(data_dir=tmp_path / "data", smtp_security="ssl3")


def test_migration_keeps_duplicate_addresses_and_normalises_the_rest(tmp_path):
    from sqlalchemy import create_engine

    from nccl_course.store.db import Database, sqlite_url, upgrade

    url = sqlite_url(tmp_path / "old.db")
    engine = create_engine(url)
    upgrade(engine, "0004")
    with engine.begin() as conn:
        for i, email in enumerate(["Ada@Example.org", "ada@example.org", " Bob@X.org"], 1):
            conn.execute(
                text(
                    "INSERT INTO learners (id, public_id, name, email, token_hash, created_at) "
                    "VALUES (:i, :p, 'n', :e, :h, '2026-01-01 10:00:00')"
                ),
                {"i": i, "p": f"p{i}", "e": email, "h": str(i) * 64},
            )
    engine.dispose()
    db = Database(url)
    db.upgrade()  # does not fail on the two spellings of one address
    with db.read() as session:
        rows = session.execute(select(Learner.id, Learner.email).order_by(Learner.id)).all()
    db.dispose()
    # The row that already held the normal form keeps it; the other is left as stored.
    assert [tuple(r) for r in rows] == [
        (1, "Ada@Example.org"),
        (2, "ada@example.org"),
        (3, "bob@x.org"),
    ]


def test_the_duplicate_left_by_the_migration_cannot_confirm_the_address(make_client, sink):
    client = make_client()
    learner, key = client.app.state.service.learners.register("Ada", "ada@example.org")
    with client.app.state.db.write() as session:
        session.execute(
            update(Learner).where(Learner.id == learner.id).values(email="Ada@example.org")
        )
    reply = client.post("/exam/api/resend", headers=auth(key))
    assert (reply.status_code, reply.json()["error"]) == (409, "duplicate_email")


def test_production_without_smtp_refuses_to_start(tmp_path, quizzes_dir):
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("NCCL_COURSE_") and k != "DATABASE_URL"
    }
    command = [
        sys.executable,
        "-m",
        "nccl_course",
        "serve",
        "--data-dir",
        str(tmp_path / "data"),
        "--quizzes",
        str(quizzes_dir),
        "--book",
        str(tmp_path / "no-book"),
        "--production",
        "--public-url",
        "https://course.example.org",
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    (error,) = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert (
        error.startswith("error: production mode") and error == done.stderr.strip()[-len(error) :]
    )
    assert "NCCL_COURSE_SMTP_HOST" in error and "--no-email-confirmation" in error
