"""``nccl-course backup`` while a real server runs, ``nccl-course restore`` into a new folder,
a server on the restored folder: the same issuer and key, its credentials verify, revocations
and attempts are all there. The commands are those of the hosting guide
(book/practice/06-hosting.md)."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from nccl_course.quiz.keys import correct_response
from nccl_course.store.db import Database, sqlite_url
from tests.exam.test_postgres import pg_server_url, pg_url  # noqa: F401 - fixtures
from tests.support.server_process import ServerProcess

PUBLIC_URL = "https://course.example.org"


class PublicServer(ServerProcess):
    """A server that names itself by a public URL, whatever its port (as behind a proxy)."""

    def __init__(self, *args, public_url: str = PUBLIC_URL, **kwargs):
        super().__init__(*args, **kwargs)
        self.public_url = public_url

    def command(self) -> list[str]:
        return [*super().command(), "--public-url", self.public_url]


def course(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nccl_course", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def answer_keys(data: Path, attempt_id: str) -> list[dict]:
    from sqlalchemy import select

    from nccl_course.store.models import Attempt, AttemptQuestion

    db = Database(sqlite_url(data / "course.db"))
    try:
        with db.read() as session:
            pk = session.scalar(select(Attempt.id).where(Attempt.public_id == attempt_id))
            rows = session.scalars(
                select(AttemptQuestion)
                .where(AttemptQuestion.attempt_id == pk)
                .order_by(AttemptQuestion.position)
            )
            return [r.key for r in rows]
    finally:
        db.dispose()


def register(client: httpx.Client, name: str, email: str) -> dict:
    reg = client.post("/exam/api/register", json={"name": name, "email": email})
    assert reg.status_code == 201, reg.text
    return {"Authorization": f"Bearer {reg.json()['token']}"}


def pass_exam(client: httpx.Client, data: Path, headers: dict) -> dict:
    attempt = client.post("/exam/api/attempts", headers=headers).json()
    for q, key in zip(attempt["questions"], answer_keys(data, attempt["id"]), strict=True):
        url = f"/exam/api/attempts/{attempt['id']}/answers/{q['index']}"
        saved = client.put(url, json={"response": correct_response(key)}, headers=headers)
        assert saved.status_code == 200, saved.text
    result = client.post(f"/exam/api/attempts/{attempt['id']}/submit", headers=headers).json()
    assert result["passed"] is True, result
    return client.get(f"/exam/api/attempts/{attempt['id']}/credential", headers=headers).json()


def key_files(data: Path) -> dict[str, bytes]:
    return {
        p.relative_to(data).as_posix(): p.read_bytes()
        for p in sorted(data.glob("certs/*/keys/key-*.json"))
    }


def test_backup_of_a_running_server_restores_into_a_server_that_is_the_same_issuer(
    tmp_path, quizzes_dir
):
    data, restored, archive = tmp_path / "data", tmp_path / "restored", tmp_path / "backup.tar.gz"
    book = tmp_path / "no-book"
    with PublicServer(data, quizzes=quizzes_dir, book=book) as server:
        client = httpx.Client(base_url=server.url, timeout=60)
        ada = register(client, "Ada Lovelace", "ada@example.org")
        kept = pass_exam(client, data, ada)
        grace = register(client, "Grace Hopper", "grace@example.org")
        revoked = pass_exam(client, data, grace)
        admin = {"Authorization": f"Bearer {(data / 'admin-token').read_text().strip()}"}
        done = client.post(
            "/exam/api/admin/revoke",
            json={"credential_id": revoked["id"], "reason": "test"},
            headers=admin,
        )
        assert done.status_code == 200, done.text
        # An attempt still open, with one answer saved.
        linus = register(client, "Linus", "linus@example.org")
        open_attempt = client.post("/exam/api/attempts", headers=linus).json()
        url = f"/exam/api/attempts/{open_attempt['id']}/answers/0"
        assert client.put(url, json={"response": "saved"}, headers=linus).status_code == 200
        learners = {"ada": ada, "grace": grace, "linus": linus}
        before = {n: client.get("/exam/api/me", headers=h).json() for n, h in learners.items()}
        open_before = client.get(f"/exam/api/attempts/{open_attempt['id']}", headers=linus).json()
        did_before = client.get("/.well-known/did.json").json()

        backup = course("backup", "--data-dir", str(data), "--output", str(archive), cwd=tmp_path)
        assert backup.returncode == 0, backup.stderr
        assert f"wrote {archive}" in backup.stdout
        assert "mode 0600" in backup.stdout
        assert stat.S_IMODE(archive.stat().st_mode) == 0o600
        # After the backup: not in it.
        late = register(client, "Late Learner", "late@example.org")
        client.close()

    restore = course("restore", str(archive), "--data-dir", str(restored), cwd=tmp_path)
    assert restore.returncode == 0, restore.stderr
    assert f"--public-url {PUBLIC_URL}" in restore.stdout
    assert key_files(restored) == key_files(data) != {}
    assert (restored / "admin-token").read_bytes() == (data / "admin-token").read_bytes()

    with PublicServer(restored, quizzes=quizzes_dir, book=book) as server:
        client = httpx.Client(base_url=server.url, timeout=60)
        did = client.get("/.well-known/did.json").json()
        assert did == did_before and did["id"] == "did:web:course.example.org"
        first = client.post("/exam/api/verify", json=kept).json()
        assert first["ok"] is True and first["verdict"] == "VALID", first
        by_id = client.post("/exam/api/verify", json={"id": kept["id"]}).json()
        assert by_id["ok"] is True, by_id
        second = client.post("/exam/api/verify", json=revoked).json()
        assert second["ok"] is False and "revoked" in second["reason"], second
        after = {n: client.get("/exam/api/me", headers=h).json() for n, h in learners.items()}
        assert after == before
        open_after = client.get(f"/exam/api/attempts/{open_attempt['id']}", headers=linus).json()
        assert open_after.pop("remaining_s") <= open_before.pop("remaining_s")  # the clock ran
        assert open_after == open_before
        assert open_after["questions"][0]["response"] == "saved"
        assert client.get("/exam/api/me", headers=late).status_code == 401
        (tmp_path / "did.json").write_text(json.dumps(did))
        status_url = kept["credentialStatus"]["statusListCredential"]
        status = client.get(status_url.replace(PUBLIC_URL, ""))
        (tmp_path / "status.json").write_text(status.text)
        client.close()
    assert key_files(restored) == key_files(data)  # the restored server made no new key

    for name, credential, expected in (("kept", kept, 0), ("revoked", revoked, 1)):
        (tmp_path / f"{name}.json").write_text(json.dumps(credential))
        verify = course(
            *("cert", "verify", f"{name}.json", "--data-dir", str(restored)),
            *("--did-document", "did.json", "--status-list", "status.json", "--offline"),
            cwd=tmp_path,
        )
        assert verify.returncode == expected, (name, verify.stdout, verify.stderr)


# -- in-process: the archive, its manifest, and what restore refuses ----------------------


def run_cli(*argv: str) -> int:
    from nccl_course.cli import main

    return main(list(argv))


def backup_of(settings, tmp_path, capsys) -> Path:
    archive = tmp_path / "backup.tar.gz"
    assert run_cli("backup", "--data-dir", str(settings.data_dir), "-o", str(archive)) == 0
    capsys.readouterr()
    return archive


def test_the_manifest_lists_every_member_with_its_sha256(
    settings, client, learner, attempt_keys, tmp_path, capsys
):
    import hashlib
    import tarfile

    from nccl_course.store.db import head_revision
    from tests.support.exam_credentials import passed_credential

    passed_credential(client, learner, attempt_keys)
    archive = backup_of(settings, tmp_path, capsys)
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        assert names[0] == "manifest.json"
        manifest = json.load(tar.extractfile("manifest.json"))
        for member in tar.getmembers()[1:]:
            entry = manifest["members"][member.name]
            if member.issym():
                assert entry == {"link": member.linkname}
                continue
            body = tar.extractfile(member).read()
            assert entry == {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}
            assert member.mode == 0o600
    assert set(manifest["members"]) == set(names[1:])
    assert "data/course.db" in names and "data/admin-token" not in names  # token from settings
    assert [n for n in names if n.endswith("key-1.json")]
    assert not [n for n in names if n.endswith(".lock") or "/certificates/" in n]
    assert manifest["database"]["kind"] == "sqlite"
    assert manifest["database"]["schema_revision"] == head_revision()
    assert manifest["issuers"][0]["issuer_id"] == settings.issuer_did
    assert "secretKeyMultibase" not in json.dumps(manifest)


def test_a_restored_folder_under_a_new_public_url_keeps_old_credentials_valid(
    settings, client, learner, attempt_keys, tmp_path, capsys
):
    """Moving to another domain after a restore: the old DID's folder came back with the keys,
    so the old credential verifies on the server under its new name, signed by the same key."""
    from fastapi.testclient import TestClient

    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings
    from tests.support.exam_credentials import passed_credential, verdict

    old = passed_credential(client, learner, attempt_keys)
    old_keys = [k.public_raw for k in client.app.state.service.desk.issuer.keys]
    archive = backup_of(settings, tmp_path, capsys)
    restored = tmp_path / "restored"
    assert run_cli("restore", str(archive), "--data-dir", str(restored)) == 0
    moved = Settings(
        data_dir=restored,
        quizzes_dir=settings.quizzes_dir,
        book_dir=settings.book_dir,
        admin_token=settings.admin_token,
        public_url="https://new.example.org",
        email_confirmation=False,
    )
    app = create_app(moved)
    try:
        with TestClient(app) as other:
            issuer = app.state.service.desk.issuer
            assert issuer.issuer_id == "did:web:new.example.org"
            assert [k.public_raw for k in issuer.keys] == old_keys
            assert verdict(other, old)["ok"] is True
    finally:
        app.state.db.dispose()
    capsys.readouterr()
    assert run_cli("cert", "issuers", "--data-dir", str(restored), "--json") == 0
    history = json.loads(capsys.readouterr().out)["issuers"]
    assert [(h["issuer_id"], h["current"]) for h in history] == [
        (settings.issuer_did, False),
        ("did:web:new.example.org", True),
    ]


def test_restore_refuses_what_it_cannot_trust(settings, client, tmp_path, capsys):
    import gzip
    import io
    import tarfile

    archive = backup_of(settings, tmp_path, capsys)
    target = tmp_path / "target"

    def refused(path: Path, *extra: str) -> str:
        assert run_cli("restore", str(path), "--data-dir", str(target), *extra) == 1
        assert not target.exists() or not any(target.iterdir())
        return capsys.readouterr().err

    assert "does not exist" in refused(tmp_path / "missing.tar.gz")
    (tmp_path / "junk.tar.gz").write_bytes(b"not an archive")
    assert "is not a readable backup" in refused(tmp_path / "junk.tar.gz")
    whole = archive.read_bytes()
    (tmp_path / "cut.tar.gz").write_bytes(whole[: len(whole) // 2])
    assert "damaged" in refused(tmp_path / "cut.tar.gz")

    def rewritten(name: str, change) -> Path:
        """The archive with each member passed through ``change(info, body)``."""
        out = io.BytesIO()
        with tarfile.open(archive) as src, tarfile.open(fileobj=out, mode="w:gz") as dst:
            for info in src.getmembers():
                body = src.extractfile(info).read() if info.isfile() else None
                info, body = change(info, body)
                dst.addfile(info, io.BytesIO(body) if body is not None else None)
        path = tmp_path / name
        path.write_bytes(out.getvalue())
        return path

    def flip_key(info, body):
        if info.name.endswith("key-1.json"):
            body = body.replace(b'"number": 1', b'"number": 7')
            info.size = len(body)
        return info, body

    assert "differs from the manifest" in refused(rewritten("tampered.tar.gz", flip_key))

    def escape(info, body):
        if info.name == "data/admin-token" or info.name.endswith("issuer.json"):
            info.name = "../" + info.name
        return info, body

    assert "refusing to restore it" in refused(rewritten("escape.tar.gz", escape))
    plain = io.BytesIO()
    with tarfile.open(fileobj=plain, mode="w:gz") as tar:
        info = tarfile.TarInfo("data/hello")
        tar.addfile(info, io.BytesIO(b""))
    (tmp_path / "foreign.tar.gz").write_bytes(plain.getvalue())
    assert "no manifest.json" in refused(tmp_path / "foreign.tar.gz")
    (tmp_path / "raw.gz").write_bytes(gzip.compress(b"x" * 1000))
    assert "is not a readable backup" in refused(tmp_path / "raw.gz")
    pg = "postgresql://nobody@127.0.0.1:1/none"
    assert "leave out --database-url" in refused(archive, "--database-url", pg)

    # A folder with something in it: refused, then replaced with --force.
    target.mkdir()
    (target / "course.db").write_text("an older database")
    assert run_cli("restore", str(archive), "--data-dir", str(target)) == 1
    assert "is not empty" in capsys.readouterr().err
    assert run_cli("restore", str(archive), "--data-dir", str(target), "--force") == 0
    assert sqlite_revision_of(target / "course.db") is not None


def sqlite_revision_of(path: Path) -> str | None:
    from nccl_course.store.backup import sqlite_revision

    return sqlite_revision(path)


def test_backup_says_what_is_wrong(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("backup", "--data-dir", str(tmp_path / "none"), "-o", str(tmp_path)) == 1
    assert "does not exist" in capsys.readouterr().err
    assert run_cli("backup", "--data-dir", str(empty), "-o", str(tmp_path)) == 1
    assert "holds no issuer" in capsys.readouterr().err
    (empty / "certs").mkdir()
    pg = ("--database-url", "postgresql://nobody@127.0.0.1:1/none")
    missing_tool = ("--pg-dump", str(tmp_path / "no-pg_dump"))
    assert run_cli("backup", "--data-dir", str(empty), *pg, *missing_tool) == 1
    assert "PostgreSQL client programs" in capsys.readouterr().err
    assert run_cli("backup", "--data-dir", str(empty), "-o", str(tmp_path)) == 1
    assert "no database at" in capsys.readouterr().err


# -- PostgreSQL: pg_dump's custom format, pg_restore into a new database -------------------


@pytest.fixture()
def pg_target(pg_server_url):  # noqa: F811
    """A second fresh database on the same PostgreSQL server: where the backup goes back."""
    import uuid

    from sqlalchemy import create_engine, text

    name = f"nccl_course_restore_{uuid.uuid4().hex[:12]}"
    admin = create_engine(pg_server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield pg_server_url.rsplit("/", 1)[0] + f"/{name}"
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()


def test_postgresql_backup_restores_into_a_new_database(
    pg_url,  # noqa: F811 - the fixture imported above
    pg_target,
    tmp_path,
    quizzes_dir,
    capsys,
):
    import shutil
    import tarfile

    from fastapi.testclient import TestClient

    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings
    from tests.exam.conftest import Learner, keys_of
    from tests.support.exam_credentials import passed_credential, verdict

    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump and pg_restore (PostgreSQL client programs) are not installed")

    def settings_for(data: Path, url: str) -> Settings:
        return Settings(
            data_dir=data,
            database_url=url,
            quizzes_dir=quizzes_dir,
            book_dir=tmp_path / "no-book",
            admin_token="pg-admin",
            public_url=PUBLIC_URL,
            email_confirmation=False,
        )

    app = create_app(settings_for(tmp_path / "data", pg_url))
    try:
        with TestClient(app) as client:
            ada = Learner(client)
            kept = passed_credential(client, ada, lambda a: keys_of(app, a))
            grace = Learner(client, "Grace Hopper", "grace@example.org")
            revoked = passed_credential(client, grace, lambda a: keys_of(app, a))
            revoke = {"credential_id": revoked["id"], "reason": "test"}
            admin = {"Authorization": "Bearer pg-admin"}
            assert client.post("/exam/api/admin/revoke", json=revoke, headers=admin).is_success
            me_before = client.get("/exam/api/me", headers=ada.headers).json()
            archive = tmp_path / "pg.tar.gz"
            argv = ["backup", "--data-dir", str(tmp_path / "data"), "--database-url", pg_url]
            assert run_cli(*argv, "-o", str(archive)) == 0, capsys.readouterr().err
    finally:
        app.state.db.dispose()
    assert "mode 0600" in capsys.readouterr().out
    with tarfile.open(archive) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))
        assert "database.pgdump" in tar.getnames() and "data/course.db" not in tar.getnames()
        assert tar.extractfile("database.pgdump").read(5) == b"PGDMP"  # the custom format
    assert manifest["database"]["kind"] == "postgresql"
    assert manifest["database"]["pg_dump"].startswith("pg_dump (PostgreSQL)")

    restored = tmp_path / "restored"
    argv = ["restore", str(archive), "--data-dir", str(restored)]
    assert run_cli(*argv) == 1
    assert "give --database-url" in capsys.readouterr().err
    assert run_cli(*argv, "--database-url", pg_url) == 1  # the source: not empty
    assert "is not empty" in capsys.readouterr().err
    assert run_cli(*argv, "--database-url", pg_target) == 0, capsys.readouterr().err
    app = create_app(settings_for(restored, pg_target))
    try:
        with TestClient(app) as client:
            assert verdict(client, kept)["ok"] is True
            result = verdict(client, revoked)
            assert result["ok"] is False and "revoked" in result["reason"]
            assert client.get("/exam/api/me", headers=ada.headers).json() == me_before
            assert client.get("/exam/api/ready").json()["database"] == "postgresql"
    finally:
        app.state.db.dispose()
    assert key_files(restored) == key_files(tmp_path / "data")
