"""Security headers on every response of the course server (book, exam pages, API, files), so a
bare ``nccl-course serve`` sends them without a proxy: the browser must not guess a file's type
(``X-Content-Type-Options``), scripts run only from the site's own files and, on a page of the
book, the inline scripts its build listed (``Content-Security-Policy``, from
``nccl_course.server.content_policy``, which also says that no site frames the pages, and
``X-Frame-Options`` for older browsers), links leave only the origin (``Referrer-Policy``),
and under ``--production`` (an https public URL) browsers keep to https for a year
(``Strict-Transport-Security``). A plain ASGI middleware: it adds the headers when a response
starts and costs no extra task per request."""

from __future__ import annotations

from nccl_course.server.content_policy import SITE_POLICY_BYTES, BookPolicies

CSP = b"content-security-policy"
BASE_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (CSP, SITE_POLICY_BYTES),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
)
#: One year, as browsers' HSTS preload lists ask; only over https (production).
HSTS = (b"strict-transport-security", b"max-age=31536000")


def security_headers(production: bool) -> tuple[tuple[bytes, bytes], ...]:
    """The headers every response gets (names in lower case, as ASGI carries them)."""
    return BASE_HEADERS + ((HSTS,) if production else ())


class SecurityHeaders:
    """ASGI middleware: add :func:`security_headers` to every HTTP response that does not set
    the same header itself; an HTML response gets its book page's policy from ``policies``
    (the site's policy for any other page)."""

    def __init__(self, app, *, production: bool = False, policies: BookPolicies | None = None):
        self.app = app
        self.headers = security_headers(production)
        self.policies = policies

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                present = {name.lower(): value for name, value in message.get("headers", ())}
                extra = [(k, v) for k, v in self.headers if k not in present]
                # A 304 has no Content-Type, yet the browser stores its headers over the
                # page's: it must carry the page's policy too.
                page = message.get("status") == 304 or _is_html(present)
                if self.policies is not None and CSP not in present and page:
                    page_policy = self.policies.for_path(scope["path"])
                    extra = [(k, page_policy if k == CSP else v) for k, v in extra]
                message = dict(message, headers=list(message.get("headers", ())) + extra)
            await send(message)

        return await self.app(scope, receive, send_with_headers)


def _is_html(headers: dict[bytes, bytes]) -> bool:
    return headers.get(b"content-type", b"").lower().startswith(b"text/html")
