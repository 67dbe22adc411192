"""The admin token cannot be locked out: the right token gets in after any number of wrong ones
(from its own address or others, as behind a proxy where everyone shares one address); wrong
tokens are limited per source address (403, then 429 with Retry-After); refusals reach the log
as counts, at most one line a minute for each kind, not one line per request."""

from __future__ import annotations

import logging
import re
import warnings

import pytest

from nccl_course.server.admin_access import WRONG_TOKEN, token_matches
from nccl_course.server.refusal_log import NAMED_SOURCES, RefusalLog
from nccl_course.server.settings import DEFAULT_RATE_LIMITS, Settings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

TOKEN = "test-admin-token"
REVOKE = "/exam/api/admin/revoke"
PER_MINUTE = int(DEFAULT_RATE_LIMITS["admin_failed"].split("/")[0])


@pytest.fixture()
def app(tmp_path, quizzes_dir):
    """The server with its default rate limits."""
    from nccl_course.server.app import create_app

    settings = Settings(
        data_dir=tmp_path / "data",
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "no-book",
        admin_token=TOKEN,
        email_confirmation=False,
    )
    app = create_app(settings)
    yield app
    app.state.db.dispose()


class Clock:
    """A monotonic clock the test moves by hand (seconds)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock(app) -> Clock:
    clock = Clock()
    app.state.limiter.refusals.clock = clock
    return clock


def client_at(app, address: str) -> TestClient:
    """A client from ``address``; outside ``with`` the app's lifespan neither starts nor ends
    (its end writes the refusals still counted)."""
    return TestClient(app, client=(address, 40000))


def revoke(app, address: str, token: str):
    return client_at(app, address).post(
        REVOKE,
        json={"credential_id": "urn:uuid:none"},
        headers={"Authorization": f"Bearer {token}"},
    )


def wrong_tokens(app, address: str, n: int) -> list:
    return [revoke(app, address, f"wrong-{i}") for i in range(n)]


def test_the_right_token_works_after_100_wrong_ones(app):
    # The admin's own address (a shared proxy address, say) and two others guess 100 times.
    for address in ("203.0.113.7", "198.51.100.9", "192.0.2.44"):
        statuses = [r.status_code for r in wrong_tokens(app, address, 100)]
        assert statuses[:PER_MINUTE] == [403] * PER_MINUTE
        assert set(statuses[PER_MINUTE:]) == {429}
    # 404: past the token check, the credential does not exist.
    for address in ("203.0.113.7", "198.51.100.9", "192.0.2.200"):
        right = revoke(app, address, TOKEN)
        assert right.status_code == 404, right.text
        assert right.json()["error"] != "rate_limited"


def test_a_source_over_the_limit_gets_429_with_retry_after(app):
    answers = wrong_tokens(app, "203.0.113.7", PER_MINUTE + 1)
    assert [a.status_code for a in answers] == [403] * PER_MINUTE + [429]
    refused = answers[-1]
    assert refused.json()["error"] == "rate_limited"
    assert "wrong token" in refused.json()["detail"]
    retry_after = int(refused.headers["Retry-After"])
    assert 1 <= retry_after <= 60
    # The limit is per source: another address is refused for its token, not for the first's.
    assert revoke(app, "198.51.100.9", "also-wrong").status_code == 403
    # Nearly right is wrong: a prefix, the token with more after it, no token at all.
    for token in (TOKEN[:-1], TOKEN + "x"):
        assert revoke(app, "192.0.2.1", token).status_code == 403
    assert client_at(app, "192.0.2.1").post(REVOKE, json={"credential_id": "x"}).status_code == 403


def refusal_lines(caplog) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and r.name == "nccl_course.server.ratelimit"
    ]


def counted(lines: list[str], kind: str) -> list[int]:
    """The counts of the lines about ``kind``, in order."""
    return [
        int(re.match(rf"{re.escape(kind)}: (\d+) refused", line)[1])
        for line in lines
        if line.startswith(kind + ":")
    ]


def test_refusals_are_logged_as_counts_per_minute(app, clock, caplog):
    caplog.set_level(logging.WARNING, logger="nccl_course.server.ratelimit")
    wrong_tokens(app, "203.0.113.7", 60)
    wrong_tokens(app, "198.51.100.9", 40)
    lines = refusal_lines(caplog)
    # 100 refusals in the same minute: the first wrong token and the first over the limit are
    # logged at once, the rest only counted.
    assert len(lines) == 2, lines
    assert counted(lines, WRONG_TOKEN) == [1]
    over = "admin requests with a wrong token over the limit"
    assert [line.split(":")[0].startswith(over) for line in lines] == [False, True]

    clock.now += 61  # a minute later, the next refusal brings the count of the minute
    caplog.clear()
    wrong_tokens(app, "192.0.2.44", 1)
    lines = refusal_lines(caplog)
    assert len(lines) == 1, lines
    assert counted(lines, WRONG_TOKEN) == [100]  # 99 counted + this one
    assert "from 203.0.113.7 x59, 198.51.100.9 x40, 192.0.2.44 x1" in lines[0]
    assert "in the last 61 s" in lines[0]

    # The right token is no refusal: nothing logged.
    caplog.clear()
    clock.now += 61
    assert revoke(app, "203.0.113.7", TOKEN).status_code == 404
    assert refusal_lines(caplog) == []


def test_refusals_still_counted_are_logged_when_the_server_stops(app, clock, caplog):
    caplog.set_level(logging.WARNING, logger="nccl_course.server.ratelimit")
    with client_at(app, "203.0.113.7"):
        wrong_tokens(app, "203.0.113.7", 3)
        assert counted(refusal_lines(caplog), WRONG_TOKEN) == [1]
        clock.now += 5
    assert counted(refusal_lines(caplog), WRONG_TOKEN) == [1, 2]


def test_a_refusal_line_names_the_busiest_addresses():
    clock = Clock()
    logger = logging.getLogger("tests.refusals")
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())
    logger.addHandler(handler)
    try:
        refusals = RefusalLog(logger, interval_s=60, clock=clock)
        refusals.record("wrong", "first")
        for i in range(NAMED_SOURCES + 3):
            for _ in range(i + 1):
                refusals.record("wrong", f"10.0.0.{i}")
        assert records == ["wrong: 1 refused in the last 0 s, from first x1"]
        clock.now += 30
        refusals.flush()  # what is still counted, when the server stops
    finally:
        logger.removeHandler(handler)
    last = records[-1]
    assert last.startswith("wrong: 36 refused in the last 30 s, from 10.0.0.7 x8, 10.0.0.6 x7")
    assert last.endswith("10.0.0.3 x4 and 3 other addresses")


def test_only_the_right_token_matches():
    assert token_matches(TOKEN, TOKEN)
    for given in (None, "", TOKEN[:-1], TOKEN + " ", TOKEN.upper(), "\ud800"):
        assert not token_matches(given, TOKEN)
