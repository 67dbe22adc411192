"""Security headers on every response of the course server (book, exam pages, API, files), so a
bare ``nccl-course serve`` sends them without a proxy: the browser must not guess a file's type
(``X-Content-Type-Options``), other sites must not frame the pages (``frame-ancestors`` and, for
older browsers, ``X-Frame-Options``), links leave only the origin (``Referrer-Policy``), and
under ``--production`` (an https public URL) browsers keep to https for a year
(``Strict-Transport-Security``). A plain ASGI middleware: it adds the headers when a response
starts and costs no extra task per request. A Content-Security-Policy for scripts is not set
here yet: the book's pages load inline scripts a policy would have to list."""

from __future__ import annotations

BASE_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"content-security-policy", b"frame-ancestors 'self'"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
)
#: One year, as browsers' HSTS preload lists ask; only over https (production).
HSTS = (b"strict-transport-security", b"max-age=31536000")


def security_headers(production: bool) -> tuple[tuple[bytes, bytes], ...]:
    """The headers every response gets (names in lower case, as ASGI carries them)."""
    return BASE_HEADERS + ((HSTS,) if production else ())


class SecurityHeaders:
    """ASGI middleware: add :func:`security_headers` to every HTTP response that does not set
    the same header itself."""

    def __init__(self, app, *, production: bool = False) -> None:
        self.app = app
        self.headers = security_headers(production)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", ())}
                extra = [(k, v) for k, v in self.headers if k not in present]
                message = dict(message, headers=list(message.get("headers", ())) + extra)
            await send(message)

        return await self.app(scope, receive, send_with_headers)
