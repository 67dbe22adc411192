"""Who may use the admin API: the admin token first, the failure limit only for wrong tokens.

The token is compared before any limit is looked at, in constant time (the SHA-256 digests of
the given and the right token, compared with ``hmac.compare_digest``: neither the length nor a
common prefix shows in the time taken). So the right token always gets in, whatever others
have sent before it, from the same address or any other; a server behind a proxy (where every
client has the proxy's address) is no exception.

A wrong token is refused: 403, or 429 with ``Retry-After`` once its source address has spent
the ``admin_failed`` limit (``nccl_course.server.ratelimit``; 5 a minute, 20 an hour by
default). That limit counts per address and only slows down guessing from there; it never
applies to the right token. Requests with the right token count against the ``admin`` limit of
their address (the admin's own pace). Wrong tokens are logged as counts (``RefusalLog``), at
most one WARNING line a minute, not one line each.
"""

from __future__ import annotations

import hashlib
import hmac

from nccl_course.exam.errors import Forbidden
from nccl_course.server.ratelimit import RateLimiter

# What the log calls a refused admin request.
WRONG_TOKEN = "admin requests with a wrong token"


def token_matches(given: str | None, expected: str) -> bool:
    """Whether ``given`` is ``expected``, in a time that depends on neither."""
    digest = hashlib.sha256((given or "").encode("utf-8", "surrogatepass")).digest()
    right = hashlib.sha256(expected.encode("utf-8")).digest()
    return hmac.compare_digest(digest, right) and bool(given)


def check_admin_token(given: str | None, expected: str, limiter: RateLimiter, client: str) -> None:
    """Let the request in if ``given`` is the admin token ``expected``; otherwise count the
    failure for ``client`` (its address) and refuse: ``RateLimited`` (429) past the
    ``admin_failed`` limit, ``Forbidden`` (403) before it. Blocking (the limits are counted in
    the database): call it from a worker thread."""
    if token_matches(given, expected):
        limiter.hit("admin", client)
        return
    limiter.refusals.record(WRONG_TOKEN, client)
    limiter.check("admin_failed", client)  # already over: refused without another write
    limiter.hit("admin_failed", client)
    raise Forbidden("forbidden", "the admin token is required")
