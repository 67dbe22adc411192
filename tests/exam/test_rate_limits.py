"""Rate limits: 429 with Retry-After on registration, verification, starting an
attempt and the admin routes, per client address, counted in the course database so that
every app (worker, host) on one database shares them; off when turned off."""

from __future__ import annotations

import warnings

import pytest

from nccl_course.server.ratelimit import client_address, compile_rules
from nccl_course.server.settings import DEFAULT_RATE_LIMITS, Settings, parse_rules

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def make_settings(tmp_path, quizzes_dir, **overrides) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "no-book",
        admin_token="test-admin-token",
        **{"email_confirmation": False, **overrides},
    )


@pytest.fixture()
def apps():
    from nccl_course.server.app import create_app

    made = []

    def make(settings):
        app = create_app(settings)
        made.append(app)
        return app

    yield make
    for app in made:
        app.state.db.dispose()


def client_for(app, address: str = "203.0.113.7") -> TestClient:
    return TestClient(app, client=(address, 40000))


def register(client, n: int):
    return client.post(
        "/exam/api/register", json={"name": f"Learner {n}", "email": f"l{n}@example.org"}
    )


def test_registrations_past_the_limit_get_429_with_retry_after(tmp_path, quizzes_dir, apps):
    app = apps(make_settings(tmp_path, quizzes_dir))
    per_minute = int(DEFAULT_RATE_LIMITS["register"].split("/")[0])
    with client_for(app) as client:
        answers = [register(client, n) for n in range(120)]
        # another address is counted on its own
        assert register(client_for(app, "198.51.100.9"), 999).status_code == 201
    statuses = [a.status_code for a in answers]
    assert statuses.count(201) == per_minute
    assert set(statuses) == {201, 429}
    assert statuses.index(429) == per_minute  # the first refusal comes right at the limit
    refused = answers[-1]
    body = refused.json()
    assert body["error"] == "rate_limited" and "try again in" in body["detail"]
    retry_after = int(refused.headers["Retry-After"])
    assert 1 <= retry_after <= 60
    assert f"{retry_after} s" in body["detail"]


def test_the_limit_is_checked_before_the_body_is_read(tmp_path, quizzes_dir, apps):
    app = apps(make_settings(tmp_path, quizzes_dir, rate_limits={"register": "2/minute"}))
    with client_for(app) as client:
        assert [register(client, n).status_code for n in range(2)] == [201, 201]
        big = client.post(
            "/exam/api/register", content=b"x" * 100_000, headers={"Content-Type": "text/plain"}
        )
        assert big.status_code == 429  # not 413: the body was never read


def test_limits_are_shared_by_two_apps_on_one_database(tmp_path, quizzes_dir, apps):
    rules = {"register": "10/minute"}
    one = apps(make_settings(tmp_path, quizzes_dir, rate_limits=rules))
    two = apps(make_settings(tmp_path, quizzes_dir, rate_limits=rules))
    with client_for(one) as a, client_for(two) as b:
        statuses = [register(a if n % 2 else b, n).status_code for n in range(16)]
    assert statuses.count(201) == 10
    assert statuses[10:] == [429] * 6


def test_wrong_admin_tokens_get_429_after_the_limit(tmp_path, quizzes_dir, apps):
    app = apps(make_settings(tmp_path, quizzes_dir))
    failures = int(DEFAULT_RATE_LIMITS["admin_failed"].split("/")[0])
    with client_for(app) as client:
        statuses = [
            client.post(
                "/exam/api/admin/revoke",
                json={"credential_id": "urn:uuid:x"},
                headers={"Authorization": f"Bearer wrong-{n}"},
            ).status_code
            for n in range(40)
        ]
        assert statuses[:failures] == [403] * failures
        assert set(statuses[failures:]) == {429}
        # the right token still gets in (404: no such credential), from the same address
        right = client.post(
            "/exam/api/admin/revoke",
            json={"credential_id": "urn:uuid:x"},
            headers={"Authorization": "Bearer test-admin-token"},
        )
        assert right.status_code == 404
    # another address gets its own allowance of wrong tokens
    other = client_for(app, "198.51.100.9").post(
        "/exam/api/admin/revoke",
        json={"credential_id": "urn:uuid:x"},
        headers={"Authorization": "Bearer wrong"},
    )
    assert other.status_code == 403


def test_starting_and_verifying_are_limited(tmp_path, quizzes_dir, apps):
    rules = {"start": "3/minute", "verify": "2/minute"}
    app = apps(make_settings(tmp_path, quizzes_dir, rate_limits=rules))
    with client_for(app) as client:
        token = register(client, 1).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        starts = [client.post("/exam/api/attempts", headers=headers).status_code for _ in range(5)]
        assert starts[:3] == [201] * 3 and starts[3:] == [429, 429]
        verifies = [
            client.post("/exam/api/verify", json={"id": "urn:uuid:none"}).status_code
            for _ in range(4)
        ]
        assert 429 not in verifies[:2] and verifies[2:] == [429, 429]


def test_turning_limits_off_disables_them(tmp_path, quizzes_dir, apps, monkeypatch):
    monkeypatch.setenv("NCCL_COURSE_RATE_LIMITS", "off")
    monkeypatch.setenv("NCCL_COURSE_EMAIL_CONFIRMATION", "off")
    settings = Settings.from_env(
        data_dir=tmp_path / "data",
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "no-book",
        admin_token="test-admin-token",
    )
    assert settings.rate_limits_enabled is False
    app = apps(settings)
    with client_for(app) as client:
        assert {register(client, n).status_code for n in range(60)} == {201}
        wrong = {
            client.post(
                "/exam/api/admin/revoke", json={}, headers={"Authorization": "Bearer no"}
            ).status_code
            for _ in range(20)
        }
        assert wrong == {403}


def test_rules_from_the_environment(monkeypatch):
    assert parse_rules("register: 20/minute;100/hour verify: 60/minute") == {
        "register": "20/minute;100/hour",
        "verify": "60/minute",
    }
    assert parse_rules("start=5 per minute, admin: off") == {
        "start": "5 per minute",
        "admin": "off",
    }
    monkeypatch.setenv("NCCL_COURSE_RATE_LIMITS", "register: 50/minute")
    settings = Settings.from_env()
    assert settings.rate_limits_enabled
    assert settings.rate_limits["register"] == "50/minute"
    assert settings.rate_limits["verify"] == DEFAULT_RATE_LIMITS["verify"]
    assert "admin" not in compile_rules({"admin": "off"})
    with pytest.raises(ValueError, match="unknown group"):
        compile_rules({"regsiter": "1/minute"})
    with pytest.raises(ValueError, match="not a rate"):
        compile_rules({"register": "lots"})


class _Request:
    def __init__(self, host, forwarded=None):
        self.client = type("C", (), {"host": host})()
        self.headers = {"x-forwarded-for": forwarded} if forwarded else {}


def test_forwarded_for_is_trusted_only_from_a_trusted_proxy():
    spoofed = _Request("203.0.113.7", "1.2.3.4")
    assert client_address(spoofed) == "203.0.113.7"
    assert client_address(spoofed, ("10.0.0.1",)) == "203.0.113.7"
    behind = _Request("10.0.0.1", "1.2.3.4, 198.51.100.9, 10.0.0.2")
    assert client_address(behind, ("10.0.0.0/8",)) == "198.51.100.9"
    assert client_address(_Request("10.0.0.1"), ("10.0.0.1",)) == "10.0.0.1"


def test_worker_processes_get_the_same_limits(tmp_path, quizzes_dir):
    import json

    from nccl_course.server.app import worker_settings_json

    settings = make_settings(
        tmp_path,
        quizzes_dir,
        rate_limits={"start": "7/minute"},
        rate_limits_enabled=False,
        trusted_proxies=("10.0.0.1",),
    )
    worker = Settings.from_env(**json.loads(worker_settings_json(settings)))
    assert worker.rate_limits == settings.rate_limits
    assert worker.rate_limits["start"] == "7/minute"
    assert worker.rate_limits_enabled is False
    assert worker.trusted_proxies == ("10.0.0.1",)


def test_serve_limits_by_default_and_takes_rules_from_the_environment(tmp_path, quizzes_dir):
    """The real server: limits on by default, rules from the environment, and a forged
    X-Forwarded-For from an untrusted client does not give it a new allowance."""
    import httpx

    from tests.support.server_process import ServerProcess

    env = {"NCCL_COURSE_RATE_LIMITS": "register: 3/minute"}
    server = ServerProcess(
        tmp_path / "data",
        quizzes=quizzes_dir,
        book=tmp_path / "no-book",
        env=env,
        rate_limits=True,
    )
    with server:
        statuses = [
            httpx.post(
                server.url + "/exam/api/register",
                json={"name": "L", "email": f"l{n}@example.org"},
                # A client on the loopback naming itself as someone else each time: no proxy
                # is trusted, so uvicorn must not believe the header either.
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            )
            for n in range(5)
        ]
    assert [s.status_code for s in statuses] == [201, 201, 201, 429, 429]
    assert int(statuses[-1].headers["retry-after"]) >= 1
