"""Files leave the server light (nccl_course.server.assets): the build's gzip copy to a browser
that accepts gzip, the file itself to one that does not (with Vary), a year of caching for a
URL that names fixed content (``?v=``, ``?digest=``, a digest in the name), revalidation for
the rest; an out-of-date copy is never sent."""

from __future__ import annotations

import dataclasses
import gzip
import os

import pytest
from starlette.datastructures import Headers

from nccl_course.book.served_files import precompress
from nccl_course.server.assets import IMMUTABLE, REVALIDATE, accepts_gzip, is_versioned
from tests.exam.conftest import client_for, running_app

SCRIPT = ("console.log('a line of the course script');\n" * 100).encode()
PAGE = ("<!doctype html><p>" + "a paragraph of the chapter " * 100 + "</p>\n").encode()


@pytest.fixture()
def book(tmp_path):
    root = tmp_path / "book"
    (root / "_static" / "vendor").mkdir(parents=True)
    (root / "index.html").write_bytes(PAGE)
    (root / "_static" / "app.js").write_bytes(SCRIPT)
    (root / "_static" / "vendor" / "2f517e09eb2ca6650ff5.svg").write_bytes(b"<svg/>")
    precompress(root)
    return root


@pytest.fixture()
def client(settings, book):
    for app in running_app(dataclasses.replace(settings, book_dir=book)):
        yield from client_for(app)


def test_gzip_copy_when_accepted_the_file_otherwise(client):
    packed = client.get("/_static/app.js", headers={"accept-encoding": "gzip, br"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "Accept-Encoding"
    assert packed.headers["content-type"].startswith("text/javascript")
    assert packed.content == SCRIPT  # httpx decodes it
    assert int(packed.headers["content-length"]) < len(SCRIPT) / 5
    plain = client.get("/_static/app.js", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == SCRIPT
    assert plain.headers["vary"] == "Accept-Encoding"
    assert plain.headers["etag"] != packed.headers["etag"]  # two representations
    refused = client.get("/_static/app.js", headers={"accept-encoding": "gzip;q=0, *"})
    assert "content-encoding" not in refused.headers
    page = client.get("/", headers={"accept-encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip" and page.content == PAGE
    head = client.head("/_static/app.js", headers={"accept-encoding": "gzip"})
    assert head.headers["content-length"] == packed.headers["content-length"]


def test_a_revalidated_copy_is_a_304(client):
    first = client.get("/_static/app.js", headers={"accept-encoding": "gzip"})
    again = client.get(
        "/_static/app.js",
        headers={"accept-encoding": "gzip", "if-none-match": first.headers["etag"]},
    )
    assert again.status_code == 304 and again.content == b""
    assert again.headers["cache-control"] == REVALIDATE


def test_an_out_of_date_copy_is_not_sent(client, book):
    newer = SCRIPT + b"console.log('changed');\n"
    (book / "_static" / "app.js").write_bytes(newer)
    earlier = os.stat(book / "_static" / "app.js").st_mtime_ns - 10**9
    os.utime(book / "_static" / "app.js.gz", ns=(earlier, earlier))  # the copy is older
    response = client.get("/_static/app.js", headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in response.headers and response.content == newer
    precompress(book)
    response = client.get("/_static/app.js", headers={"accept-encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip" and response.content == newer
    assert gzip.decompress((book / "_static" / "app.js.gz").read_bytes()) == newer


def test_fixed_content_is_cached_a_year_the_rest_revalidated(client):
    cached = {
        "/_static/app.js?v=1a2b3c4d": IMMUTABLE,
        "/_static/app.js?digest=55c26ed414f5f8a31ebb": IMMUTABLE,
        "/_static/vendor/2f517e09eb2ca6650ff5.svg": IMMUTABLE,
        "/_static/app.js": REVALIDATE,
        "/_static/app.js?v=": REVALIDATE,
        "/": REVALIDATE,
        "/index.html": REVALIDATE,
        "/exam/static/exam.js": REVALIDATE,
    }
    for url, expected in cached.items():
        assert client.get(url).headers["cache-control"] == expected, url
    assert client.get("/exam/").headers["cache-control"] == "no-store"  # the route's own


def test_versioned_names_and_accept_encoding_are_read_as_browsers_send_them():
    assert is_versioned("/_narration/book/x/01-a.5036dc8ff8b26ddc.ogg", b"")
    assert is_versioned("/_static/mystnb.11b39860a7a0cbfd473a3ad8a317855267ff0bd372690045.css", b"")
    assert not is_versioned("/_static/searchindex.js", b"")
    assert not is_versioned("/_static/deadbeef.js", b"")  # too short to be a digest
    assert is_versioned("/_static/a.css", b"x=1&v=4f2a1807")
    assert accepts_gzip(Headers({"accept-encoding": "gzip, deflate, br, zstd"}))
    assert accepts_gzip(Headers({"accept-encoding": "*"}))
    assert not accepts_gzip(Headers({"accept-encoding": "br"}))
    assert not accepts_gzip(Headers({"accept-encoding": "GZIP;q=0"}))
    assert not accepts_gzip(Headers({}))
