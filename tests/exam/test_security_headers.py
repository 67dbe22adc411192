"""Every response of the server carries the security headers, from the app itself: the API,
its refusals, the exam pages, the static files and a path nothing serves; HSTS only under
production. A page of the book gets its own Content-Security-Policy: the digests of its inline
scripts and handlers, read from the build's csp-hashes.json (and read again when it changes),
also on a 304."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
from pathlib import Path

import pytest

from nccl_course.book.served_files import MANIFEST, csp_hash, write_manifest
from nccl_course.server.assets import IMMUTABLE
from nccl_course.server.content_policy import SITE_POLICY, page_key, policy
from nccl_course.server.security_headers import HSTS, SecurityHeaders, security_headers
from tests.exam.conftest import client_for, running_app

EXPECTED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "content-security-policy": SITE_POLICY,
    "referrer-policy": "strict-origin-when-cross-origin",
}
INLINE = "document.documentElement.dataset.mode = 'auto';"
HANDLER = "toggleFullScreen()"
PAGE = f"""<!doctype html><html><head><script>{INLINE}</script>
<script type="application/json">{{"data": "not run"}}</script>
<script src="_static/app.js"></script></head>
<body><button onclick="{HANDLER}">full screen</button></body></html>
"""


def test_every_kind_of_response_has_the_headers(client):
    responses = [
        client.get("/exam/api/health"),
        client.get("/exam/api/exam"),
        client.post("/exam/api/register", content=b"not json"),  # a refusal
        client.get("/exam/api/me"),  # no key: 401
        client.get("/exam/"),
        client.get("/exam/verify?lang=tr"),
        client.get("/exam/static/exam.css"),
        client.get("/no/such/page"),
    ]
    assert {r.status_code // 100 for r in responses} >= {2, 4}
    for response in responses:
        for name, value in EXPECTED.items():
            assert response.headers.get(name) == value, (response.url, name)
        assert "strict-transport-security" not in response.headers, response.url


def test_the_site_policy_runs_only_the_site_own_scripts():
    directives = dict(d.split(" ", 1) for d in SITE_POLICY.split("; "))
    assert directives["script-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert "unsafe-eval" not in SITE_POLICY
    assert "'unsafe-inline'" in directives["style-src"]  # MathJax adds <style> elements


def test_a_page_policy_lists_its_digests_and_only_what_it_needs():
    assert policy() == SITE_POLICY
    assert "'sha256-a'" in policy(["sha256-a"]) and "unsafe-hashes" not in policy(["sha256-a"])
    with_handler = policy(["sha256-a"], ["sha256-b"])
    assert "script-src 'self' 'unsafe-hashes' 'sha256-a' 'sha256-b';" in with_handler
    assert "'unsafe-eval'" not in with_handler
    assert page_key("/") == "index.html" and page_key("/tr/book/") == "tr/book/index.html"
    assert page_key("/book/x.html") == "book/x.html"


@pytest.fixture()
def book(tmp_path):
    root = tmp_path / "book"
    (root / "tr").mkdir(parents=True)
    (root / "index.html").write_text(PAGE)
    (root / "plain.html").write_text("<!doctype html><p>no script</p>")
    (root / "tr" / "index.html").write_text(PAGE.replace("auto", "dark"))
    write_manifest(root / "tr")
    write_manifest(root)
    return root


@pytest.fixture()
def book_app(settings, book):
    yield from running_app(dataclasses.replace(settings, book_dir=book))


@pytest.fixture()
def book_client(book_app):
    yield from client_for(book_app)


def test_a_book_page_gets_its_digests(book_client, book):
    page = book_client.get("/")
    expected = policy([csp_hash(INLINE)], [csp_hash(HANDLER)])
    assert page.headers["content-security-policy"] == expected
    again = book_client.get("/", headers={"if-none-match": page.headers["etag"]})
    assert again.status_code == 304
    assert again.headers["content-security-policy"] == expected  # the browser keeps these
    turkish = book_client.get("/tr/").headers["content-security-policy"]
    assert csp_hash(INLINE.replace("auto", "dark")) in turkish and turkish != expected
    assert book_client.get("/plain.html").headers["content-security-policy"] == SITE_POLICY
    assert book_client.get("/exam/").headers["content-security-policy"] == SITE_POLICY

    # a book built again while the server runs: its new digests are used
    (book / "index.html").write_text(PAGE.replace("auto", "light"))
    write_manifest(book)
    stamp = os.stat(book / MANIFEST).st_mtime_ns + 10**9
    os.utime(book / MANIFEST, ns=(stamp, stamp))
    changed = book_client.get("/").headers["content-security-policy"]
    assert csp_hash(INLINE.replace("auto", "light")) in changed

    # a manifest that asks for eval on a page does not get it
    manifest = json.loads((book / MANIFEST).read_text())
    manifest["pages"]["index.html"]["eval"] = True
    (book / MANIFEST).write_text(json.dumps(manifest))
    os.utime(book / MANIFEST, ns=(stamp + 10**9, stamp + 10**9))
    assert "unsafe-eval" not in book_client.get("/").headers["content-security-policy"]


def test_hsts_only_in_production_and_a_route_own_header_wins():
    assert HSTS in security_headers(True) and HSTS not in security_headers(False)
    sent = []

    async def app(scope, receive, send):
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"x-frame-options", b"SAMEORIGIN")],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def send(message):
        sent.append(message)

    asyncio.run(SecurityHeaders(app, production=True)({"type": "http"}, None, send))
    headers = dict(sent[0]["headers"])
    assert headers[b"x-frame-options"] == b"SAMEORIGIN"  # not doubled, not overwritten
    assert [k for k, _ in sent[0]["headers"]].count(b"x-frame-options") == 1
    assert headers[b"strict-transport-security"] == b"max-age=31536000"
    assert headers[b"x-content-type-options"] == b"nosniff"


def test_the_proxies_fall_back_to_the_server_own_headers():
    """deploy/Caddyfile and deploy/nginx.conf set each header only where a response lacks it,
    with the server's own value (a proxy that sent another would contradict the server)."""
    deploy = Path(__file__).resolve().parents[2] / "deploy"
    caddy = (deploy / "Caddyfile").read_text()
    nginx = (deploy / "nginx.conf").read_text()
    for raw_name, raw_value in security_headers(True):
        name, value = raw_name.decode(), re.escape(raw_value.decode())
        assert re.search(rf'^\s*header \?{name} "?{value}"?$', caddy, re.M | re.I), name
        found = re.search(
            rf'^map \$upstream_http_{name.replace("-", "_")} \$(\w+) {{\n\s+"" "{value}";',
            nginx,
            re.M | re.I,
        )
        assert found, name
        assert re.search(rf"^\s*add_header {name} \${found[1]} always;$", nginx, re.M | re.I)
    assert f'?Cache-Control "{IMMUTABLE}"' in caddy and f'"{IMMUTABLE}";' in nginx
