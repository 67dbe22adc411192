"""``nccl-course serve``: flags, the book at /, the exam at /exam, clear errors."""

from __future__ import annotations

import subprocess
import sys

import httpx

from nccl_course.cli import build_parser
from tests.support.server_process import ServerProcess


def test_serve_flags():
    args = build_parser().parse_args(
        ["serve", "--port", "8123", "--data-dir", "/tmp/x", "--database-url", "sqlite:///y.db"]
    )
    assert (args.host, args.port, str(args.data_dir), args.database_url) == (
        "127.0.0.1",
        8123,
        "/tmp/x",
        "sqlite:///y.db",
    )
    assert str(args.book) == "_build/html"


def test_database_url_from_environment(monkeypatch, tmp_path):
    from nccl_course.server.settings import Settings

    monkeypatch.setenv("DATABASE_URL", "postgresql://u@h/db")
    monkeypatch.setenv("NCCL_COURSE_ADMIN_TOKEN", "tok")
    settings = Settings.from_env(data_dir=tmp_path)
    assert settings.resolved_database_url() == "postgresql://u@h/db"
    assert settings.resolved_admin_token() == "tok"
    monkeypatch.delenv("DATABASE_URL")
    assert Settings.from_env(data_dir=tmp_path).resolved_database_url().endswith("course.db")


def test_server_serves_book_and_exam(tmp_path, quizzes_dir):
    book = tmp_path / "book"
    book.mkdir()
    (book / "index.html").write_text("<html><body>the course book</body></html>")
    (book / "page.html").write_text("<html><body>a chapter</body></html>")
    with ServerProcess(tmp_path / "data", quizzes=quizzes_dir, book=book) as server:
        assert "the course book" in httpx.get(server.url + "/").text
        assert "a chapter" in httpx.get(server.url + "/page.html").text
        assert httpx.get(server.url + "/missing.html").status_code == 404
        exam = httpx.get(server.url + "/exam")
        assert exam.status_code == 200 and 'id="register-form"' in exam.text
        assert httpx.get(server.url + "/exam/verify").status_code == 200
        assert httpx.get(server.url + "/exam/static/exam.js").status_code == 200
        did = httpx.get(server.url + "/.well-known/did.json").json()
        assert did["id"] == f"did:web:127.0.0.1%3A{server.port}"
    assert (tmp_path / "data" / "course.db").exists()
    assert (tmp_path / "data" / "admin-token").exists()


def test_server_without_book_says_make_book(tmp_path, quizzes_dir):
    with ServerProcess(tmp_path / "data", quizzes=quizzes_dir, book=tmp_path / "none") as server:
        page = httpx.get(server.url + "/")
        assert page.status_code == 503 and "make book" in page.text


def test_bad_blueprint_is_one_line_error(tmp_path, quizzes_dir):
    (quizzes_dir / "exam" / "blueprint.yml").write_text("exam: {id: x}\nzones: []\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "nccl_course",
            "serve",
            "--port",
            "1",
            "--quizzes",
            str(quizzes_dir),
            "--data-dir",
            str(tmp_path / "d"),
            "--book",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "exam.title" in result.stderr
