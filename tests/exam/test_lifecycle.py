"""The exam lifecycle through the HTTP API (in-process app, real SQLite file)."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import select, update

from nccl_course.exam.clock import utcnow
from nccl_course.quiz.keys import correct_response, wrong_response
from nccl_course.store.models import Answer, Attempt, AttemptQuestion


def db_snapshot(app):
    """Every row of the exam tables, to compare before and after an operation."""
    from nccl_course.store.models import IssuedCredential

    out = {}
    with app.state.db.read() as session:
        for model in (Attempt, AttemptQuestion, Answer, IssuedCredential):
            rows = session.scalars(select(model).order_by(model.id)).all()
            out[model.__tablename__] = [
                {c.name: getattr(r, c.name) for c in model.__table__.columns} for r in rows
            ]
    return out


def test_exam_info_reports_missing_bank(client):
    info = client.get("/exam/api/exam").json()
    assert info["id"] == "test-exam"
    assert info["question_count"] == 5
    assert [z["chapter"] for z in info["zones"]] == ["alpha", "beta"]
    assert any("gamma-missing" in p and "skipped" in p for p in info["problems"])
    assert info["time_limit_s"] == 30 * 60
    assert info["max_attempts"] == 2


def test_full_attempt_pass_and_feedback(learner, attempt_keys):
    started = learner.start()
    assert started.status_code == 201
    attempt = started.json()
    assert attempt["status"] == "open" and len(attempt["questions"]) == 5
    chapters = [q["chapter"] for q in attempt["questions"]]
    assert chapters == ["alpha"] * 3 + ["beta"] * 2
    keys = attempt_keys(attempt["id"])
    for q, key in zip(attempt["questions"], keys, strict=True):
        ack = learner.save(attempt["id"], q["index"], correct_response(key))
        assert ack.status_code == 200 and ack.json()["saved"] is True
    result = learner.submit(attempt["id"]).json()
    assert result["status"] == "submitted"
    assert result["score"] == 1.0 and result["passed"] is True
    assert result["points"] == 5.0 and result["max_points"] == 5.0
    assert all(q["correct"] is True and q["feedback"] for q in result["questions"])


def test_partial_credit_and_fail(learner, attempt_keys):
    attempt = learner.start().json()
    keys = attempt_keys(attempt["id"])
    # two right, the rest wrong: 2/5 = 0.4 < 0.7
    for q, key in zip(attempt["questions"], keys, strict=True):
        response = correct_response(key) if q["index"] < 2 else wrong_response(key)
        assert learner.save(attempt["id"], q["index"], response).status_code == 200
    result = learner.submit(attempt["id"]).json()
    assert result["score"] == 0.4 and result["passed"] is False
    assert [q["correct"] for q in result["questions"]] == [True, True, False, False, False]
    assert (
        learner.client.get(
            f"/exam/api/attempts/{attempt['id']}/credential", headers=learner.headers
        ).json()["error"]
        == "not_passed"
    )


def test_answers_are_upserts_one_row_per_question(app, learner):
    attempt = learner.start().json()
    revisions = [learner.save(attempt["id"], 0, r).json()["revision"] for r in ("a", "b", "c")]
    assert revisions == [1, 2, 3]
    with app.state.db.read() as session:
        rows = session.scalars(select(Answer)).all()
    assert len(rows) == 1 and rows[0].response == "c" and rows[0].question_index == 0
    view = learner.view(attempt["id"]).json()
    assert view["questions"][0]["response"] == "c"


def test_replayed_submit_changes_nothing(app, learner, attempt_keys):
    attempt = learner.start().json()
    keys = attempt_keys(attempt["id"])
    for q, key in zip(attempt["questions"], keys, strict=True):
        learner.save(attempt["id"], q["index"], correct_response(key))
    first = learner.submit(attempt["id"])
    before = db_snapshot(app)
    replays = [learner.submit(attempt["id"]) for _ in range(3)]
    assert all(r.status_code == 200 for r in replays)
    assert all(r.json() == first.json() for r in replays)
    assert db_snapshot(app) == before
    # an answer sent after the close is refused and stored nowhere
    late = learner.save(attempt["id"], 0, wrong_response(keys[0]))
    assert late.status_code == 409 and late.json()["error"] == "attempt_closed"
    assert db_snapshot(app) == before


def test_attempt_limit_refuses_a_new_attempt(client, learner, attempt_keys):
    ids = []
    for _ in range(2):  # max_attempts = 2, both failed
        attempt = learner.start().json()
        ids.append(attempt["id"])
        assert learner.start().json()["id"] == attempt["id"]  # resuming, not a new one
        learner.submit(attempt["id"])
    assert len(set(ids)) == 2
    refused = learner.start()
    assert refused.status_code == 409 and refused.json()["error"] == "attempt_limit"
    me = client.get("/exam/api/me", headers=learner.headers).json()
    assert me["attempts_used"] == 2 and me["attempts_left"] == 0
    assert [a["number"] for a in me["attempts"]] == [1, 2]


def test_passed_learner_cannot_start_again(learner, attempt_keys):
    attempt = learner.start().json()
    for q, key in zip(attempt["questions"], attempt_keys(attempt["id"]), strict=True):
        learner.save(attempt["id"], q["index"], correct_response(key))
    assert learner.submit(attempt["id"]).json()["passed"] is True
    refused = learner.start()
    assert refused.status_code == 409 and refused.json()["error"] == "already_passed"


def test_time_limit_closes_with_answers_saved_in_time(app, learner, attempt_keys):
    attempt = learner.start().json()
    keys = attempt_keys(attempt["id"])
    learner.save(attempt["id"], 0, correct_response(keys[0]))
    with app.state.db.write() as session:
        session.execute(
            update(Attempt)
            .where(Attempt.public_id == attempt["id"])
            .values(deadline_at=utcnow() - timedelta(minutes=1))
        )
    late = learner.save(attempt["id"], 1, correct_response(keys[1]))
    assert late.status_code == 409 and late.json()["error"] == "time_up"
    view = learner.view(attempt["id"]).json()  # looking at it closes and grades it
    assert view["status"] == "expired"
    assert view["points"] == 1.0 and view["score"] == 0.2
    assert view["questions"][1]["response"] is None


def test_overview_closes_an_expired_attempt(app, client, learner):
    attempt = learner.start().json()
    with app.state.db.write() as session:
        session.execute(
            update(Attempt)
            .where(Attempt.public_id == attempt["id"])
            .values(deadline_at=utcnow() - timedelta(seconds=30))
        )
    me = client.get("/exam/api/me", headers=learner.headers).json()
    assert [a["status"] for a in me["attempts"]] == ["expired"]
    assert me["attempts"][0]["score"] == 0.0
    # the next start is attempt 2, a fresh draw with a new seed
    second = learner.start().json()
    assert second["number"] == 2 and second["id"] != attempt["id"]
    with app.state.db.read() as session:
        seeds = session.scalars(select(Attempt.seed).order_by(Attempt.number)).all()
    assert len(set(seeds)) == 2


def test_each_attempt_draws_fresh_parameters(app, make_learner, attempt_keys):
    prompts = set()
    for i in range(6):
        learner = make_learner(name=f"L{i}", email=f"l{i}@example.org")
        attempt = learner.start().json()
        beta = [q for q in attempt["questions"] if q["question"]["id"] == "b-time"]
        prompts.update(q["question"]["prompt"] for q in beta)
    # b-time is drawn in every attempt (beta draws 2 of 2); its numbers differ between seeds
    assert len(prompts) >= 5


def test_auth_and_bad_requests(client, learner):
    attempt = learner.start().json()
    url = f"/exam/api/attempts/{attempt['id']}"
    assert client.get(url).status_code == 401
    assert client.get(url, headers={"Authorization": "Bearer nope"}).status_code == 401
    other = client.post("/exam/api/register", json={"name": "Eve", "email": "eve@example.org"})
    eve = {"Authorization": "Bearer " + other.json()["token"]}
    assert client.get(url, headers=eve).status_code == 404  # not Eve's attempt
    again = client.post("/exam/api/register", json={"name": "X", "email": "ADA@example.org "})
    assert again.status_code == 409
    bad = client.post("/exam/api/register", json={"name": "X", "email": "not-an-email"})
    assert bad.status_code == 422
    assert learner.save(attempt["id"], 99, 1).json()["error"] == "no_question"
    assert learner.save(attempt["id"], 0, {"a": 1}).status_code == 422
    assert learner.save(attempt["id"], 0, "x" * 5000).status_code == 413


def test_no_response_leaks_key_or_seed_before_close(app, client, learner, attempt_keys):
    """Record every response body of a whole attempt and look for key material in those
    sent while the attempt was open."""
    bodies: list[str] = []

    def record(response):
        bodies.append(response.text)
        return response

    record(client.get("/exam/api/exam"))
    record(client.get("/exam"))
    attempt = record(learner.start()).json()
    record(client.get("/exam/api/me", headers=learner.headers))
    keys = attempt_keys(attempt["id"])
    for q, key in zip(attempt["questions"], keys, strict=True):
        record(learner.save(attempt["id"], q["index"], correct_response(key)))
        record(learner.view(attempt["id"]))
    with app.state.db.read() as session:
        row = session.scalar(select(Attempt).where(Attempt.public_id == attempt["id"]))
        seeds = [row.seed] + list(
            session.scalars(
                select(AttemptQuestion.instance_seed).where(AttemptQuestion.attempt_id == row.id)
            )
        )
    forbidden_fields = {
        "key",
        "seed",
        "correct",
        "answer",
        "answers",
        "order",
        "match",
        "choice_feedback",
        "explanation",
        "feedback",
        "tol",
        "params",
    }

    def fields(value):
        if isinstance(value, dict):
            for k, v in value.items():
                yield k
                yield from fields(v)
        elif isinstance(value, list):
            for v in value:
                yield from fields(v)

    def without_responses(value):
        # The learner's own saved answers are echoed back; they are not key material.
        if isinstance(value, dict):
            return {k: without_responses(v) for k, v in value.items() if k != "response"}
        if isinstance(value, list):
            return [without_responses(v) for v in value]
        return value

    assert len(bodies) == 4 + 2 * len(keys)
    for raw in bodies:
        try:
            parsed = without_responses(json.loads(raw))
            body = json.dumps(parsed)
        except ValueError:
            parsed, body = None, raw
        for seed in seeds:
            assert str(seed) not in raw
        for key in keys:
            assert json.dumps(key) not in body
            for text in key.get("choice_feedback", []) + [key.get("explanation", "")]:
                if len(text) > 12:
                    assert text not in body
            if key["type"] == "numeric":
                assert repr(key["answer"]) not in body
        if parsed is not None:
            leaked = forbidden_fields & set(fields(parsed))
            assert not leaked, leaked
    # and after the close, the learner does get feedback
    closed = learner.submit(attempt["id"]).json()
    assert all(q["feedback"] for q in closed["questions"])


def test_book_missing_page(client):
    page = client.get("/")
    assert page.status_code == 503 and "make book" in page.text
    assert client.get("/exam").status_code == 200
    assert "<script" in client.get("/exam").text
