"""The README and certificates/README.md tell the truth about the server's pages and files.

Every server path the two documents name (``/exam/verify``, ``/credentials/status/N``, ...) is a
route of the app, and every file they place in the data folder (``.data/admin-token``, the
issuer's key files) is where a server started with the defaults of ``make serve`` puts it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_course.server.settings import Settings

REPO = Path(__file__).resolve().parents[2]
DOCS = (REPO / "README.md", REPO / "certificates" / "README.md")
# A path in backticks, or after the host of a URL the documents write out.
PATH_IN_DOCS = re.compile(r"`(/[^`\s]*)`|https?://(?:HOST:PORT|127\.0\.0\.1:8000)(/[^`\s)]*)")
DATA_FILE_IN_DOCS = re.compile(r"`\.data/([^`\s]+)`")
PLACEHOLDER = re.compile(r"^(N|ID|<[^>]*>|\{[^}]*\})$")


def documented(pattern: re.Pattern) -> set[str]:
    found = set()
    for doc in DOCS:
        for match in pattern.finditer(doc.read_text(encoding="utf-8")):
            found.add(next(group for group in match.groups() if group is not None))
    return found


@pytest.fixture()
def default_app(tmp_path, quizzes_dir):
    """The app as `make serve` starts it: default public URL, no admin token given."""
    from nccl_course.server.app import create_app

    book = tmp_path / "book"
    book.mkdir()
    (book / "index.html").write_text("<p>book</p>")
    settings = Settings(
        data_dir=tmp_path / ".data",
        quizzes_dir=quizzes_dir,
        book_dir=book,
        email_confirmation=False,
    )
    app = create_app(settings)
    yield app, settings
    app.state.db.dispose()


def test_the_documents_name_server_paths_and_data_files():
    assert {"/exam/verify", "/credentials/status/N", "/.well-known/did.json"} <= documented(
        PATH_IN_DOCS
    )
    assert "admin-token" in documented(DATA_FILE_IN_DOCS)


def test_every_documented_server_path_is_served(default_app):
    from fastapi.testclient import TestClient

    app, _ = default_app
    with TestClient(app) as client:
        for path in sorted(documented(PATH_IN_DOCS)):
            concrete = "/".join("1" if PLACEHOLDER.match(s) else s for s in path.split("/"))
            response = client.get(concrete.split("?")[0])
            assert response.status_code == 200, (
                f"{path} is documented; GET {concrete} gave {response.status_code}"
            )
        assert client.get("/verify").status_code == 404  # the old, wrong address is no page


def test_every_documented_data_file_exists_where_the_documents_say(default_app):
    app, settings = default_app
    settings.resolved_admin_token()  # made on first need, as `make serve` does at start
    for relative in sorted(documented(DATA_FILE_IN_DOCS)):
        pattern = relative.replace("key-N", "key-*")
        matches = list(settings.data_dir.glob(pattern.rstrip("/"))) if pattern else []
        assert matches, f".data/{relative} is in the documents but not in a started server's data"
