"""``cert verify`` without files, for a course server on this machine: the DID document and
the status list are fetched over plain HTTP from 127.0.0.1 (as ``cert verify --help`` says),
not over HTTPS, which such a server does not speak. A real HTTP server answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from nccl_course.certs import Issuer


@pytest.fixture
def local_server(tmp_path):
    """An HTTP server on 127.0.0.1 serving the documents put in its ``pages``."""
    pages: dict[str, bytes] = {}
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the http.server interface)
            asked.append(self.path)
            body = pages.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body or b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], pages, asked
    finally:
        server.shutdown()
        server.server_close()


def test_verify_fetches_from_a_local_server_over_http(local_server, tmp_path):
    port, pages, asked = local_server
    issuer_id = f"did:web:127.0.0.1%3A{port}"
    issuer = Issuer.load_or_create(
        tmp_path / "data", issuer_id, "nccl-course", f"http://127.0.0.1:{port}/exam/verify"
    )
    credential = issuer.issue(
        learner_name="Ada Lovelace",
        learner_email="ada@example.org",
        exam_id="attempt-1",
        score=0.9,
        passed_at=datetime(2026, 3, 14, tzinfo=timezone.utc),
    )
    pages["/.well-known/did.json"] = json.dumps(issuer.did_document()).encode()
    status_path = "/" + issuer.status_list_url(1).split("/", 3)[3]
    pages[status_path] = json.dumps(issuer.status_list_credential(1)).encode()
    (tmp_path / "cred.json").write_text(json.dumps(credential))
    proc = subprocess.run(
        [sys.executable, "-m", "nccl_course", "cert", "verify", str(tmp_path / "cred.json")],
        capture_output=True,
        text=True,
        env={**os.environ, "NCCL_COURSE_DATA": str(tmp_path / "data")},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1].startswith(f"VALID: issued by {issuer_id}")
    assert sorted(asked) == sorted(["/.well-known/did.json", status_path])
    assert f"https://127.0.0.1:{port}" not in proc.stdout + proc.stderr
