"""Fixtures for the course server tests: small question banks written for the test, a
blueprint over them, an app on a fresh SQLite file, and helpers that read keys from the DB."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

ALPHA = """
chapter: alpha
title: Alpha
questions:
  - id: a-single
    type: single
    difficulty: 1
    tags: [t]
    prompt: After an all-reduce with SUM over 4 ranks, what does each rank hold?
    choices:
      - text: The sum of all four buffers.
        correct: true
        feedback: Right, every rank holds the same sum.
      - text: Its own buffer.
        feedback: That is what a barrier leaves.
      - text: A quarter of the sum.
        feedback: That is a reduce-scatter shard.
  - id: a-multiple
    type: multiple
    difficulty: 2
    tags: [t]
    prompt: Which collectives move data between ranks?
    choices:
      - text: all-gather
        correct: true
        feedback: It concatenates shards from every rank.
      - text: reduce-scatter
        correct: true
        feedback: It reduces and scatters.
      - text: a local memcpy
        feedback: That stays on one device.
  - id: a-text
    type: text
    difficulty: 1
    tags: [t]
    prompt: Name the collective that leaves the same reduced buffer on every rank.
    answers: [all-reduce]
    feedback: {correct: Yes., incorrect: Think of reduce followed by broadcast.}
  - id: a-order
    type: ordering
    difficulty: 2
    tags: [t]
    prompt: Order the phases of a ring all-reduce.
    items: [reduce-scatter phase, all-gather phase, result on every rank]
    feedback: {correct: Right order., incorrect: Reduce-scatter comes first.}
  - id: a-match
    type: matching
    difficulty: 2
    tags: [t]
    prompt: Match each collective with its result.
    pairs:
      - {left: broadcast, right: one rank's buffer everywhere}
      - {left: all-gather, right: every shard everywhere}
      - {left: reduce, right: the sum on one root}
    feedback: {correct: All pairs right., incorrect: Look at where the result lands.}
"""

BETA = """
chapter: beta
title: Beta
questions:
  - id: b-time
    type: numeric
    generator: allreduce_time_from_busbw
    difficulty: 2
    tags: [t]
    prompt: "{{ranks}} ranks all-reduce {{size}} at a busbw of {{busbw}} GB/s: time?"
    unit: ms
    tolerance: {rel: 0.02}
    feedback: {correct: Right., incorrect: Convert busbw to algbw first.}
  - id: b-bytes
    type: numeric
    difficulty: 1
    tags: [t]
    prompt: How many bytes are in 1 KiB?
    answer: 1024
    unit: B
    tolerance: {abs: 0.5}
    feedback: {correct: Right., incorrect: 1 KiB = 2^10 B.}
"""

BLUEPRINT = """
exam:
  id: test-exam
  title: Test exam
  time_limit_minutes: 30
  max_attempts: 2
  pass_score: 0.7
zones:
  - {chapter: alpha, draw: 3}
  - {chapter: beta, draw: 2}
  - {chapter: gamma-missing, draw: 1}
"""


# Limits no test reaches unless it means to (tests/exam/test_rate_limits.py tests the
# defaults): the limiter still counts every request.
RAISED_RATE_LIMITS = {
    "register": "100000/minute",
    "verify": "100000/minute",
    "start": "100000/minute",
    "admin": "100000/minute",
    "admin_failed": "100000/minute",
    "resend": "100000/minute",
}


def write_quizzes(folder: Path, blueprint: str = BLUEPRINT) -> Path:
    """Two banks, and the blueprint where the server looks for it: ``exam/blueprint.yml``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "alpha.yml").write_text(textwrap.dedent(ALPHA))
    (folder / "beta.yml").write_text(textwrap.dedent(BETA))
    (folder / "exam").mkdir(exist_ok=True)
    (folder / "exam" / "blueprint.yml").write_text(textwrap.dedent(blueprint))
    return folder


@pytest.fixture()
def quizzes_dir(tmp_path) -> Path:
    return write_quizzes(tmp_path / "quizzes")


@pytest.fixture()
def settings(tmp_path, quizzes_dir):
    from nccl_course.server.settings import Settings

    return Settings(
        data_dir=tmp_path / "data",
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "no-book",
        admin_token="test-admin-token",
        rate_limits=RAISED_RATE_LIMITS,
        email_confirmation=False,  # tests/exam/test_email_confirmation.py turns it on
    )


def running_app(settings):
    """The app for ``settings``; its database is closed when the generator ends (a fixture's
    body: ``yield from running_app(settings)``)."""
    from nccl_course.server.app import create_app

    app = create_app(settings)
    yield app
    app.state.db.dispose()


def client_for(app):
    """A TestClient on ``app`` for the length of a fixture (``yield from client_for(app)``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    with TestClient(app) as client:
        yield client


@pytest.fixture()
def app(settings):
    yield from running_app(settings)


@pytest.fixture()
def client(app):
    yield from client_for(app)


class Learner:
    """A registered learner talking to the app through a client."""

    def __init__(self, client, name="Ada Lovelace", email="ada@example.org"):
        self.client = client
        response = client.post("/exam/api/register", json={"name": name, "email": email})
        assert response.status_code == 201, response.text
        self.token = response.json()["token"]
        self.headers = {"Authorization": f"Bearer {self.token}"}

    def start(self):
        return self.client.post("/exam/api/attempts", headers=self.headers)

    def save(self, attempt_id, index, response):
        return self.client.put(
            f"/exam/api/attempts/{attempt_id}/answers/{index}",
            json={"response": response},
            headers=self.headers,
        )

    def submit(self, attempt_id):
        return self.client.post(f"/exam/api/attempts/{attempt_id}/submit", headers=self.headers)

    def view(self, attempt_id):
        return self.client.get(f"/exam/api/attempts/{attempt_id}", headers=self.headers)


def keys_of(app, attempt_public_id: str) -> list[dict]:
    """The stored answer keys of an attempt, by position (server-side data)."""
    from sqlalchemy import select

    from nccl_course.store.models import Attempt, AttemptQuestion

    with app.state.db.read() as session:
        attempt = session.scalar(select(Attempt).where(Attempt.public_id == attempt_public_id))
        rows = session.scalars(
            select(AttemptQuestion)
            .where(AttemptQuestion.attempt_id == attempt.id)
            .order_by(AttemptQuestion.position)
        ).all()
        return [r.key for r in rows]


@pytest.fixture()
def learner(client):
    return Learner(client)


@pytest.fixture()
def make_learner(client):
    def make(name="Grace Hopper", email="grace@example.org"):
        return Learner(client, name=name, email=email)

    return make


@pytest.fixture()
def attempt_keys(app):
    return lambda attempt_id: keys_of(app, attempt_id)
