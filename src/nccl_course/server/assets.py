"""Files served light: the gzip copy the book's build wrote beside a file
(``nccl_course.book.served_files``) to a browser that accepts gzip, and caching a browser can
rely on. Nothing is compressed or rewritten per request: the server only picks which file to
send (one extra ``stat``).

Caching (``Cache-Control``):

- ``IMMUTABLE`` (a year, never revalidated) for a URL whose content fixes its name: Sphinx
  links its CSS and JavaScript with ``?v=<checksum>`` and the theme with ``?digest=<hash>``,
  so a changed file gets a new URL; webpack's chunks (``2f517e09eb2ca6650ff5.svg``), MyST-NB's
  ``mystnb.<sha256>.css`` and the narration's ``<page>.<key>.ogg`` carry a digest in the name.
- ``REVALIDATE`` (``no-cache``) for everything else: HTML pages, ``searchindex.js``,
  MathJax's components and fonts, the exam pages' scripts. The browser keeps them but asks
  first; an unchanged file costs a 304 without a body.
"""

from __future__ import annotations

import os
import re
import stat
from mimetypes import guess_type
from urllib.parse import parse_qsl

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
#: The query parameters by which Sphinx (``v``) and the pydata theme (``digest``) version a link.
VERSION_PARAMETERS = frozenset({"v", "digest"})
# A dot-separated part of a file name of 16 or more hex digits (a content hash or key).
DIGEST_NAME = re.compile(r"(?:^|\.)[0-9a-f]{16,}\.[^/]+$")


def is_versioned(path: str, query_string: bytes) -> bool:
    """Whether the URL (``path``, raw query) names one fixed content."""
    if DIGEST_NAME.search(path.rsplit("/", 1)[-1]):
        return True
    query = query_string.decode("latin-1")
    return any(k in VERSION_PARAMETERS and v for k, v in parse_qsl(query))


def cache_control(scope) -> str:
    """The ``Cache-Control`` of a file served for request ``scope``."""
    return IMMUTABLE if is_versioned(scope["path"], scope.get("query_string", b"")) else REVALIDATE


def accepts_gzip(headers: Headers) -> bool:
    """Whether ``Accept-Encoding`` allows gzip (named, or ``*``, with a q-value above 0)."""
    allowed = {}
    for item in headers.get("accept-encoding", "").split(","):
        name, _, params = item.strip().lower().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name:
            allowed[name.strip()] = q
    if "gzip" in allowed:
        return allowed["gzip"] > 0
    return allowed.get("*", 0) > 0


class Assets(StaticFiles):
    """``StaticFiles`` that sends ``FILE.gz`` for ``FILE`` when the browser accepts gzip and the
    copy has the file's modification time (the build gives it that time once it holds the
    file's content: ``nccl_course.book.served_files.precompress``), says so
    (``Vary: Accept-Encoding``), and sets :func:`cache_control`."""

    def file_response(self, full_path, stat_result, scope, status_code: int = 200) -> Response:
        request_headers = Headers(scope=scope)
        headers = {"cache-control": cache_control(scope)}
        path, served_stat, media_type = str(full_path), stat_result, None
        try:
            packed = os.stat(path + ".gz")
        except OSError:
            packed = None
        if (
            packed is not None
            and stat.S_ISREG(packed.st_mode)
            and packed.st_mtime_ns == stat_result.st_mtime_ns
        ):
            headers["vary"] = "Accept-Encoding"
            if accepts_gzip(request_headers):
                headers["content-encoding"] = "gzip"
                media_type = guess_type(path)[0] or "application/octet-stream"
                path, served_stat = path + ".gz", packed
        response = FileResponse(
            path,
            status_code=status_code,
            stat_result=served_stat,
            media_type=media_type,
            headers=headers,
        )
        if self.is_not_modified(response.headers, request_headers):
            return NotModifiedResponse(response.headers)
        return response
