"""Scale-out: several server processes on one database share the status-list
registry, the answers and the credentials; keys are created once and only loaded by workers.

The two-server test runs on a throw-away PostgreSQL cluster (as in ``test_postgres``); the
other tests use SQLite.
"""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import httpx
import pytest
from sqlalchemy import func, select

from nccl_course.certs import Issuer
from nccl_course.certs.issuer import LIST_FILL_LIMIT, REGISTRY_FILE
from nccl_course.certs.registry import DuplicateCredential
from nccl_course.certs.statuslist import MIN_ENTRIES, bit_at, decode_bitstring
from nccl_course.quiz.keys import correct_response
from nccl_course.store.db import Database
from tests.exam.test_postgres import pg_server_url, pg_url  # noqa: F401 - fixtures
from tests.support.server_process import ServerProcess

PUBLIC_URL = "http://course.example.org"
ADMIN = "scale-admin-token"


def _issue(issuer: Issuer, n: int = 0) -> dict:
    return issuer.issue(
        learner_name="P",
        learner_email=f"p{n}@example.org",
        exam_id="e",
        score=0.9,
        passed_at=datetime.now(timezone.utc),
    )


def test_database_registry_draws_again_on_a_taken_index(tmp_path, monkeypatch):
    from nccl_course.issuing import status_registry
    from nccl_course.issuing.status_registry import DatabaseIndexRegistry

    db = Database(f"sqlite:///{tmp_path / 'c.db'}")
    db.upgrade()
    registry = DatabaseIndexRegistry(db, "did:web:x")
    draws = iter([5, 5, 5, 9])
    monkeypatch.setattr(status_registry, "draw", lambda _size: next(draws))
    assert registry.allocate("urn:a", MIN_ENTRIES, LIST_FILL_LIMIT) == (1, 5)
    assert registry.allocate("urn:b", MIN_ENTRIES, LIST_FILL_LIMIT) == (1, 9)
    with pytest.raises(DuplicateCredential):
        monkeypatch.setattr(status_registry, "draw", lambda _size: 11)
        registry.allocate("urn:a", MIN_ENTRIES, LIST_FILL_LIMIT)
    # another issuer's lists are its own
    assert DatabaseIndexRegistry(db, "did:web:y").allocate("urn:c", MIN_ENTRIES, 10) == (1, 11)
    registry.revoke("urn:b")
    registry.revoke("urn:b")
    assert registry.revoked(1)[0][0] == 9 and registry.is_revoked("urn:b")
    assert registry.lists() == [1] and registry.count() == 2
    db.dispose()


def test_old_registry_file_is_imported_on_first_start(tmp_path, quizzes_dir, capsys):
    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings

    settings = Settings(
        data_dir=tmp_path / "data",
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "no-book",
        admin_token=ADMIN,
        public_url=PUBLIC_URL,
        email_confirmation=False,
    )
    # An issuer used before the registry moved into the database.
    old = Issuer.load_or_create(
        settings.data_dir, settings.issuer_did, settings.issuer_name, settings.verify_url
    )
    kept, revoked = _issue(old, 1), _issue(old, 2)
    old.revoke(revoked)
    app = create_app(settings)
    try:
        desk = app.state.service.desk
        folder = desk.issuer.folder
        assert not (folder / REGISTRY_FILE).exists()
        assert (folder / (REGISTRY_FILE + ".imported")).exists()
        assert desk.issuer.is_revoked(revoked["id"]) and not desk.issuer.is_revoked(kept["id"])
        bits = decode_bitstring(desk.status_list_credential(1)["credentialSubject"]["encodedList"])
        assert bit_at(bits, int(revoked["credentialStatus"]["statusListIndex"])) == 1
        assert bit_at(bits, int(kept["credentialStatus"]["statusListIndex"])) == 0
        assert desk.issuer.registry.count() == 2
    finally:
        app.state.db.dispose()
    # A second start finds nothing left to import and keeps the rows.
    app = create_app(settings)
    assert app.state.service.desk.issuer.registry.count() == 2
    app.state.db.dispose()

    # The CLI no longer changes revocation behind the server's back: it says where it lives.
    from nccl_course.cli import main

    for argv in (
        ["cert", "revoke", kept["id"]],
        ["cert", "status-list"],
        ["cert", "issue", "--learner-name", "X", "--learner-email", "x@example.org"]
        + ["--exam-id", "exam", "--score", "0.9"],
    ):
        code = main([*argv[:2], "--data-dir", str(settings.data_dir), *argv[2:]])
        assert code == 2, argv
        assert "nccl-course exam revoke" in capsys.readouterr().err
    app = create_app(settings)
    assert not app.state.service.desk.issuer.is_revoked(kept["id"])
    assert app.state.service.desk.issuer.registry.count() == 2
    app.state.db.dispose()


def test_a_worker_without_keys_fails_clearly(tmp_path, quizzes_dir):
    from nccl_course.issuing.credentials import MissingIssuerKeys
    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings

    settings = Settings(
        data_dir=tmp_path / "data",
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "no-book",
        admin_token=ADMIN,
    )
    with pytest.raises(MissingIssuerKeys, match="refusing to make a key per worker"):
        create_app(settings, create_keys=False)
    assert not list((tmp_path / "data" / "certs").glob("*/keys/key-*.json"))


class _Server(ServerProcess):
    """One host: the shared data folder and database, one public URL, its own port."""

    def __init__(self, *args, workers: int = 1, **kwargs):
        super().__init__(*args, **kwargs)
        self.workers = workers

    def command(self) -> list[str]:
        return [*super().command(), "--public-url", PUBLIC_URL, "--workers", str(self.workers)]


def _learner_run(n: int, servers: list[str], db: Database, out: dict, errors: list) -> None:
    """Register, start, answer every question twice (a wrong then the right answer), submit,
    download the credential: each request to the next server in turn."""
    from nccl_course.store.models import Attempt, AttemptQuestion

    turn = iter(range(10_000))
    clients = [httpx.Client(base_url=url, timeout=60) for url in servers]

    def next_client() -> httpx.Client:
        return clients[next(turn) % len(clients)]

    try:
        reg = next_client().post(
            "/exam/api/register", json={"name": f"L{n}", "email": f"l{n}@example.org"}
        )
        assert reg.status_code == 201, reg.text
        headers = {"Authorization": f"Bearer {reg.json()['token']}"}
        attempt = next_client().post("/exam/api/attempts", headers=headers)
        assert attempt.status_code in (200, 201), attempt.text
        attempt_id = attempt.json()["id"]
        with db.read() as session:
            pk = session.scalar(select(Attempt.id).where(Attempt.public_id == attempt_id))
            keys = [
                q.key
                for q in session.scalars(
                    select(AttemptQuestion)
                    .where(AttemptQuestion.attempt_id == pk)
                    .order_by(AttemptQuestion.position)
                )
            ]
        for index, key in enumerate(keys):
            for response in (None, correct_response(key)):
                if response is None:  # a first answer, replaced next
                    response = correct_response(keys[(index + 1) % len(keys)])
                saved = next_client().put(
                    f"/exam/api/attempts/{attempt_id}/answers/{index}",
                    json={"response": response},
                    headers=headers,
                )
                assert saved.status_code == 200, saved.text
        result = next_client().post(f"/exam/api/attempts/{attempt_id}/submit", headers=headers)
        assert result.status_code == 200, result.text
        credential = next_client().get(
            f"/exam/api/attempts/{attempt_id}/credential", headers=headers
        )
        assert credential.status_code == 200, credential.text
        out[n] = {
            "attempt": attempt_id,
            "pk": pk,
            "questions": len(keys),
            "result": result.json(),
            "credential": credential.json(),
        }
    except BaseException as exc:  # reported by the test
        errors.append(f"learner {n}: {exc!r}")
    finally:
        for client in clients:
            client.close()


@pytest.mark.slow
def test_two_servers_on_one_postgresql(pg_url, tmp_path, quizzes_dir):  # noqa: F811
    from nccl_course.store.models import Answer, IssuedCredential, StatusAllocation

    data = tmp_path / "data"
    common = dict(
        quizzes=quizzes_dir,
        book=tmp_path / "no-book",
        database_url=pg_url,
        admin_token=ADMIN,
        # Limits on, as in production; the counts live in PostgreSQL, shared by both hosts.
        rate_limits=True,
        env={"NCCL_COURSE_RATE_LIMITS": "register: 9/hour"},
    )
    # Host A creates the keys and migrates; host B (two uvicorn workers) loads them.
    with _Server(data, log_path=tmp_path / "a.log", **common) as a:
        with _Server(data, log_path=tmp_path / "b.log", workers=2, **common) as b:
            db = Database(pg_url)
            try:
                out: dict = {}
                errors: list = []
                threads = [
                    threading.Thread(
                        target=_learner_run,
                        args=(n, [a.url, b.url] if n % 2 else [b.url, a.url], db, out, errors),
                    )
                    for n in range(6)
                ]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join(300)
                assert errors == [], errors + [a.log_tail(), b.log_tail()]
                assert len(out) == 6
                with db.read() as session:
                    # No lost or doubled answer: one row per question, saved exactly twice.
                    for run in out.values():
                        assert run["result"]["score"] == 1.0, run["result"]
                        rows = session.scalars(
                            select(Answer).where(Answer.attempt_id == run["pk"])
                        ).all()
                        assert len(rows) == run["questions"]
                        assert {r.revision for r in rows} == {2}
                    # No duplicate status index; one allocation per credential.
                    allocations = session.scalars(select(StatusAllocation)).all()
                    issued = set(session.scalars(select(IssuedCredential.credential_id)))
                assert len(allocations) == 6 == len(issued)
                assert {x.credential_id for x in allocations} == issued
                assert len({(x.issuer, x.list_number, x.list_index) for x in allocations}) == 6
                assert len({x.issuer for x in allocations}) == 1
                indices = {
                    int(r["credential"]["credentialStatus"]["statusListIndex"])
                    for r in out.values()
                }
                assert len(indices) == 6
                # One key for both hosts and all workers.
                keys = list(data.glob("certs/*/keys/key-*.json"))
                assert len(keys) == 1, keys
                assert not list(data.glob(f"certs/*/{REGISTRY_FILE}"))

                # A revocation made on A is in the status list B serves (and B's verdict).
                credential = out[0]["credential"]
                index = int(credential["credentialStatus"]["statusListIndex"])
                status_url = httpx.URL(credential["credentialStatus"]["statusListCredential"])
                before = httpx.get(b.url + status_url.path, timeout=30).json()
                assert (
                    bit_at(decode_bitstring(before["credentialSubject"]["encodedList"]), index) == 0
                )
                revoked = httpx.post(
                    a.url + "/exam/api/admin/revoke",
                    json={"credential_id": credential["id"], "reason": "test"},
                    headers={"Authorization": f"Bearer {ADMIN}"},
                    timeout=30,
                )
                assert revoked.status_code == 200, revoked.text
                for _ in range(4):  # every worker of B, whichever answers
                    listed = httpx.get(b.url + status_url.path, timeout=30).json()
                    bits = decode_bitstring(listed["credentialSubject"]["encodedList"])
                    assert bit_at(bits, index) == 1
                    others = [
                        int(r["credential"]["credentialStatus"]["statusListIndex"])
                        for n, r in out.items()
                        if n
                    ]
                    assert not any(bit_at(bits, i) for i in others)
                verdict = httpx.post(b.url + "/exam/api/verify", json=credential, timeout=60)
                assert verdict.json()["ok"] is False
                fine = httpx.post(b.url + "/exam/api/verify", json=out[1]["credential"], timeout=60)
                assert fine.json()["ok"] is True, fine.json()
                with db.read() as session:
                    count = session.scalar(
                        select(func.count())
                        .select_from(StatusAllocation)
                        .where(StatusAllocation.revoked_at.is_not(None))
                    )
                assert count == 1

                # 6 registrations so far, on both hosts: 3 more are allowed, then either host
                # answers 429, since the count is one row in the shared database.
                codes = [
                    httpx.post(
                        (a.url, b.url)[i % 2] + "/exam/api/register",
                        json={"name": f"Extra {i}", "email": f"extra{i}@example.org"},
                        timeout=30,
                    )
                    for i in range(5)
                ]
                assert [r.status_code for r in codes] == [201, 201, 201, 429, 429]
                assert all(int(r.headers["Retry-After"]) > 0 for r in codes[3:])
            finally:
                db.dispose()


def test_worker_settings_round_trip(tmp_path, quizzes_dir, monkeypatch):
    import json

    from nccl_course.server.app import worker_settings_json
    from nccl_course.server.settings import Settings

    monkeypatch.delenv("DATABASE_URL", raising=False)
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url="postgresql+psycopg://u@h/db",
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "book",
        public_url=PUBLIC_URL,
        admin_token="secret",
    )
    raw = worker_settings_json(settings)
    assert "secret" not in raw  # workers read the token as the parent did
    again = Settings.from_env(**json.loads(raw))
    for name in ("data_dir", "database_url", "quizzes_dir", "book_dir", "blueprint_path"):
        assert getattr(again, name) == getattr(settings, name)
    assert again.issuer_did == settings.issuer_did
