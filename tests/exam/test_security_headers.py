"""Every response of the server carries the security headers, from the app itself: the API,
its refusals, the exam pages, the static files and a path nothing serves; HSTS only under
production."""

from __future__ import annotations

import asyncio

from nccl_course.server.security_headers import HSTS, SecurityHeaders, security_headers

EXPECTED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "SAMEORIGIN",
    "content-security-policy": "frame-ancestors 'self'",
    "referrer-policy": "strict-origin-when-cross-origin",
}


def test_every_kind_of_response_has_the_headers(client):
    responses = [
        client.get("/exam/api/health"),
        client.get("/exam/api/exam"),
        client.post("/exam/api/register", content=b"not json"),  # a refusal
        client.get("/exam/api/me"),  # no key: 401
        client.get("/exam/"),
        client.get("/exam/static/exam.css"),
        client.get("/no/such/page"),
    ]
    assert {r.status_code // 100 for r in responses} >= {2, 4}
    for response in responses:
        for name, value in EXPECTED.items():
            assert response.headers.get(name) == value, (response.url, name)
        assert "strict-transport-security" not in response.headers, response.url


def test_hsts_only_in_production_and_a_route_own_header_wins():
    assert HSTS in security_headers(True) and HSTS not in security_headers(False)
    sent = []

    async def app(scope, receive, send):
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"x-frame-options", b"DENY")],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def send(message):
        sent.append(message)

    asyncio.run(SecurityHeaders(app, production=True)({"type": "http"}, None, send))
    headers = dict(sent[0]["headers"])
    assert headers[b"x-frame-options"] == b"DENY"  # not doubled, not overwritten
    assert [k for k, _ in sent[0]["headers"]].count(b"x-frame-options") == 1
    assert headers[b"strict-transport-security"] == b"max-age=31536000"
    assert headers[b"x-content-type-options"] == b"nosniff"
