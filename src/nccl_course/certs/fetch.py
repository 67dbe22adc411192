"""Fetching a DID document or a status list over the network, safely: HTTPS only (or plain
HTTP to this machine), few redirects and only to HTTPS, a time limit, a size limit, and the
JSON parsed within bounds.

:func:`fetch_json` is the ``fetch`` the command line passes to the verifier unless
``--offline``; the verifier itself, and the exam server, never fetch.
"""

from __future__ import annotations

import http.client
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from urllib.parse import urlsplit

from nccl_course.certs.bounds import CredentialFormatError, Limits, parse_json


class FetchError(Exception):
    """A ``fetch`` callable could not get a document (network, HTTP status, size, not JSON)."""


Fetch = Callable[[str], object]


def _is_loopback(url: str) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return (
        host == "localhost" or host == "::1" or re.fullmatch(r"127(\.\d{1,3}){3}", host) is not None
    )


MAX_FETCH_BYTES = 1024 * 1024
FETCH_TIMEOUT_S = 5.0


def fetchable(url: str) -> bool:
    """Whether :func:`fetch_json` may fetch ``url``: HTTPS, or plain HTTP to this machine."""
    return url.startswith("https://") or (url.startswith("http://") and _is_loopback(url))


def local_http(url: str) -> str:
    """``url`` with plain ``http`` when it names this machine (127.0.0.1, localhost, ::1): a
    course server there serves HTTP (did:web resolution says HTTPS, which such a server does
    not speak). Any other URL unchanged."""
    if url.startswith("https://") and _is_loopback(url):
        return "http://" + url[len("https://") :]
    return url


class _SafeRedirect(urllib.request.HTTPRedirectHandler):
    max_redirections = 3

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if not fetchable(newurl):
            raise FetchError(f"redirected to {newurl[:200]}, which is not HTTPS")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def fetch_json(
    url: str,
    *,
    timeout: float = FETCH_TIMEOUT_S,
    max_bytes: int = MAX_FETCH_BYTES,
    opener: urllib.request.OpenerDirector | None = None,
) -> object:
    """GET ``url`` and parse it as JSON, within ``timeout`` seconds and ``max_bytes`` bytes.

    Only HTTPS (or plain HTTP to 127.0.0.1/localhost) is fetched, redirects included. Every
    problem raises :class:`FetchError`. This is the ``fetch`` the command line passes to
    :func:`verify` unless ``--offline``; the server never fetches.
    """
    if not fetchable(url):
        raise FetchError("not an HTTPS URL, so it is not fetched")
    request = urllib.request.Request(
        url,
        headers={
            "Accept": "application/did+json, application/vc+ld+json, application/ld+json, "
            "application/json;q=0.9",
            "User-Agent": "nccl-course-verifier",
        },
    )
    opener = opener or urllib.request.build_opener(_SafeRedirect())
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    try:
        with opener.open(request, timeout=timeout) as response:
            while True:
                if time.monotonic() > deadline:
                    raise FetchError(f"it took longer than {timeout} s")
                chunk = response.read(64 * 1024)
                if not chunk:
                    break
                size += len(chunk)
                if size > max_bytes:
                    raise FetchError(f"it sent more than {max_bytes:,} bytes")
                chunks.append(chunk)
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        raise FetchError(f"the server answered HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        raise FetchError(str(exc.reason)) from None
    except (OSError, ValueError, http.client.HTTPException) as exc:
        raise FetchError(str(exc)) from None
    limits = Limits(max_bytes=max_bytes, max_values=65536, max_objects=4096)
    try:
        return parse_json(b"".join(chunks), limits, what="document")
    except CredentialFormatError as exc:
        raise FetchError(exc.what) from None
