"""The data folder is private: 0700 folders and 0600 files, checked and tightened at start."""

from __future__ import annotations

import logging
import os
import stat
import warnings
from pathlib import Path

import pytest

from nccl_course.quiz.keys import correct_response
from nccl_course.store.private_files import PrivateFileError, private_umask
from tests.exam.conftest import Learner, keys_of


@pytest.fixture(autouse=True)
def usual_umask():
    """Run with the umask most systems have (022), under which files default to 0644."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def modes(root: Path) -> dict[str, int]:
    """The mode of the folder and of every folder and file in it, by relative path."""
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = stat.S_IMODE(path.stat().st_mode)
    return found


def open_to_others(root: Path) -> dict[str, str]:
    return {name: f"{mode:04o}" for name, mode in modes(root).items() if mode & 0o077}


def server_settings(tmp_path, quizzes_dir):
    from nccl_course.server.settings import Settings

    # No admin token given: the server generates one into the data folder.
    return Settings(
        data_dir=tmp_path / "data",
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "nb",
        email_confirmation=False,
    )


def client_for(app):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    return TestClient(app)


def run_a_learner(app, *, certificate: bool, email: str = "ada@example.org") -> None:
    with client_for(app) as client:
        learner = Learner(client, email=email)
        attempt = learner.start().json()
        questions = attempt["questions"]
        keys = keys_of(app, attempt["id"])
        first = questions[0]["index"]
        assert learner.save(attempt["id"], first, correct_response(keys[0])).status_code == 200
        data = app.state.settings.data_dir
        # While the server runs, SQLite keeps its WAL and shared-memory files beside the
        # database: they hold the answer just written.
        assert (data / "course.db-wal").exists() and (data / "course.db-shm").exists()
        assert open_to_others(data) == {}
        if certificate:
            for q, key in zip(questions[1:], keys[1:], strict=True):
                assert learner.save(attempt["id"], q["index"], correct_response(key)).is_success
            assert learner.submit(attempt["id"]).json()["passed"] is True
            url = f"/exam/api/attempts/{attempt['id']}/certificate.pdf"
            assert client.get(url, headers=learner.headers).status_code == 200


def test_every_file_is_private(tmp_path, quizzes_dir):
    from nccl_course.server.app import create_app

    settings = server_settings(tmp_path, quizzes_dir)
    app = create_app(settings)
    try:
        run_a_learner(app, certificate=True)
        data = settings.data_dir
        found = modes(data)
        assert found["."] == 0o700
        for name in ("course.db", "admin-token", "certificates"):
            assert name in found
        assert any(name.startswith("certificates/") for name in found)
        assert any("/keys/key-" in name for name in found)
        assert open_to_others(data) == {}
    finally:
        app.state.db.dispose()
    assert open_to_others(settings.data_dir) == {}


def test_served_data_folder_is_private(tmp_path, quizzes_dir):
    """``nccl-course serve`` in its own process, with the usual umask: the folder the harness
    created 0755 is tightened (and logged), and what the server writes is private."""
    import httpx

    from tests.support.server_process import ServerProcess

    data, log = tmp_path / "data", tmp_path / "server.log"
    with ServerProcess(data, quizzes=quizzes_dir, book=tmp_path / "nb", log_path=log) as server:
        api = server.url + "/exam/api"
        registered = httpx.post(
            api + "/register", json={"name": "Ada", "email": "ada@example.org"}
        ).json()
        headers = {"Authorization": f"Bearer {registered['token']}"}
        attempt = httpx.post(api + "/attempts", headers=headers).json()
        saved = [
            httpx.put(
                f"{api}/attempts/{attempt['id']}/answers/{q['index']}",
                json={"response": response},
                headers=headers,
            ).status_code
            for q in attempt["questions"]
            for response in (0, [0, 1], "all-reduce", 1024)
        ]
        assert 200 in saved
        assert (data / "course.db-wal").exists()
        assert open_to_others(data) == {}
    assert open_to_others(data) == {}
    assert f"{data} was open to other users (mode 0755); changed it to 0700" in log.read_text()


def test_start_tightens_what_is_open_and_logs_it(tmp_path, quizzes_dir, caplog):
    from nccl_course.server.app import create_app

    settings = server_settings(tmp_path, quizzes_dir)
    app = create_app(settings)
    run_a_learner(app, certificate=False)
    app.state.db.dispose()
    data = settings.data_dir
    # What an older server left: folders 0755, files 0644.
    opened = []
    for path in [data, *data.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
        opened.append(path)
    assert open_to_others(data)

    with caplog.at_level(logging.WARNING, logger="nccl_course.exam"):
        app = create_app(server_settings(tmp_path, quizzes_dir))
    try:
        assert open_to_others(data) == {}
        logged = "\n".join(r.getMessage() for r in caplog.records)
        for path in opened:
            assert f"{path} was open to other users" in logged
        assert f"{data / 'course.db'} was open to other users (mode 0644); changed it to 0600" in (
            logged
        )
        # and it works on the tightened files
        run_a_learner(app, certificate=False, email="grace@example.org")
    finally:
        app.state.db.dispose()


def test_refuses_to_start_if_a_file_cannot_be_made_private(tmp_path, quizzes_dir, monkeypatch):
    from nccl_course.server.app import create_app
    from nccl_course.store import private_files

    settings = server_settings(tmp_path, quizzes_dir)
    create_app(settings).state.db.dispose()
    database = settings.data_dir / "course.db"
    os.chmod(database, 0o644)

    real_chmod = os.chmod

    def chmod(path, mode, *args, **kwargs):
        if Path(path) == database:  # as if another user owned it
            raise PermissionError(1, "Operation not permitted", str(path))
        return real_chmod(path, mode, *args, **kwargs)

    monkeypatch.setattr(private_files.os, "chmod", chmod)
    with pytest.raises(PrivateFileError) as refused:
        create_app(server_settings(tmp_path, quizzes_dir))
    message = str(refused.value)
    assert message.startswith("refusing to start")
    assert f"file {database} is open to other users (mode 0644" in message
    assert f"run 'chmod 600 {database}'" in message

    # The serve command says so and exits 1 (before it would listen).
    import uvicorn

    from nccl_course.cli import build_parser

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("the server started"))
    args = build_parser().parse_args(
        ["serve", "--data-dir", str(settings.data_dir), "--quizzes", str(quizzes_dir)]
    )
    args.book = tmp_path / "nb"
    assert args.func(args) == 1


def test_serve_command_output(tmp_path, quizzes_dir, monkeypatch, capsys):
    """The refusal reaches the terminal with the file and the chmod to run."""
    from nccl_course.cli import build_parser
    from nccl_course.store import private_files

    data = tmp_path / "data"
    data.mkdir()
    token = data / "admin-token"
    token.write_text("a-token\n")
    os.chmod(token, 0o640)
    monkeypatch.setattr(
        private_files.os,
        "chmod",
        lambda path, *a, **k: (_ for _ in ()).throw(PermissionError(1, "Operation not permitted")),
    )
    args = build_parser().parse_args(
        ["serve", "--data-dir", str(data), "--quizzes", str(quizzes_dir)]
    )
    args.book = tmp_path / "nb"
    assert args.func(args) == 1
    err = capsys.readouterr().err
    assert "error: cannot start the course server: refusing to start" in err
    assert f"run 'chmod 600 {token}'" in err
    assert f"run 'chmod 700 {data}'" in err


def test_a_file_system_that_ignores_chmod_is_refused(tmp_path, monkeypatch):
    from nccl_course.store import private_files

    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    os.chmod(data, 0o700)
    (data / "course.db").write_bytes(b"")
    os.chmod(data / "course.db", 0o644)
    monkeypatch.setattr(private_files.os, "chmod", lambda *a, **k: None)  # accepted, not kept
    with pytest.raises(PrivateFileError, match="the file system keeps mode 0644"):
        private_files.secure_tree(data)


def test_sqlite_database_anywhere_is_private(tmp_path):
    from sqlalchemy import text

    from nccl_course.store.db import Database, sqlite_url

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    db = Database(sqlite_url(elsewhere / "x.db"))
    db.upgrade()
    with db.write() as session:
        session.execute(text("CREATE TABLE t (x INTEGER)"))
        session.execute(text("INSERT INTO t VALUES (1)"))
    names = {p.name: stat.S_IMODE(p.stat().st_mode) for p in elsewhere.iterdir()}
    db.dispose()
    assert {"x.db", "x.db-wal", "x.db-shm"} <= set(names)
    assert all(mode == 0o600 for mode in names.values()), names

    # An existing database another user could read is tightened, with its WAL.
    for path in elsewhere.iterdir():
        os.chmod(path, 0o644)
    Database(sqlite_url(elsewhere / "x.db")).dispose()
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in elsewhere.iterdir())


def test_private_umask_nests_and_restores():
    assert os.umask(0o022) == 0o022
    with private_umask():
        with private_umask():
            pass
        current = os.umask(0o077)
        os.umask(current)
        assert current == 0o077
    current = os.umask(0o022)
    assert current == 0o022


def test_issuer_files_are_private(tmp_path):
    from nccl_course.certs import Issuer

    issuer = Issuer.load_or_create(
        tmp_path / "d", "did:web:example.org", "Test", "https://example.org/exam/verify"
    )
    folder = issuer.folder
    assert {p.name for p in folder.iterdir()} >= {"keys", "issuer.json", "registry.sqlite"}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in folder.rglob("*"):
        assert not stat.S_IMODE(path.stat().st_mode) & 0o077, path
