"""An attempt's view sends each question's stored JSON text as it is: the start's answer, a
read and the submitted result carry the same questions, and the spliced JSON equals what a
JSON encoder makes of the same view."""

from __future__ import annotations

import json
import threading
import time

from sqlalchemy import select

from nccl_course.quiz.keys import correct_response
from nccl_course.server import attempts as attempts_module
from nccl_course.server.attempts import RawJSON, view_json
from nccl_course.store.models import AttemptQuestion


def test_start_read_and_result_carry_the_stored_questions(app, learner, attempt_keys):
    started = learner.start().json()
    read = learner.client.get(f"/exam/api/attempts/{started['id']}", headers=learner.headers)
    assert read.status_code == 200
    assert read.json()["questions"] == started["questions"]
    with app.state.db.read() as session:
        stored = session.scalars(
            select(AttemptQuestion.public).order_by(AttemptQuestion.position)
        ).all()
    assert [q["question"] for q in started["questions"]] == stored
    keys = attempt_keys(started["id"])
    first = started["questions"][0]
    learner.save(started["id"], first["index"], correct_response(keys[0]))
    result = learner.submit(started["id"]).json()
    assert [q["question"] for q in result["questions"]] == stored
    assert result["questions"][0]["response"] == correct_response(keys[0])
    assert result["questions"][0]["correct"] is True


def test_view_json_equals_encoding_the_decoded_view():
    question = {"type": "numeric", "prompt": "Kaç GB/s? \u00e7", "choices": [1.5, 'a"b']}
    body = {
        "id": "abc",
        "score": None,
        "remaining_s": 12.5,
        "exam": {"id": "e", "title": "Sınav"},
        "questions": [
            {"index": 0, "chapter": "c", "question": RawJSON(json.dumps(question)),
             "response": [1, 2], "revision": 2},
            {"index": 1, "chapter": "d", "question": question, "response": None,
             "revision": 0},
        ],
    }  # fmt: skip
    decoded = json.loads(view_json(body))
    plain = dict(body, questions=[dict(q, question=question) for q in body["questions"]])
    assert decoded == json.loads(json.dumps(plain))
    assert list(decoded) == list(body)  # the questions stay last, as the view builds it


def test_at_most_two_starts_run_at_once(app, make_learner, monkeypatch):
    """Drawing and grading are CPU work under the GIL: more than HEAVY_AT_ONCE of them at once
    only take it from the event loop and the answer writer."""
    service = app.state.service.attempts
    running, most = 0, 0
    lock = threading.Lock()
    real = service._start_once

    def slow_start(token, language):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return real(token, language)

    monkeypatch.setattr(service, "_start_once", slow_start)
    learners = [make_learner(f"Learner {i}", f"l{i}@example.org") for i in range(6)]
    tokens = [ln.token for ln in learners]
    threads = [threading.Thread(target=service.start, args=(t,)) for t in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == attempts_module.HEAVY_AT_ONCE == 2


def test_the_submit_answer_is_the_result_read_back(learner, make_learner, attempt_keys):
    """A submit answers with what it just graded (not read back): the same as reading the
    closed attempt afterwards, for a passed attempt (with its credential) and a failed one."""
    for who, right in ((learner, True), (make_learner("Bo Li", "bo@example.org"), False)):
        attempt = who.start().json()
        keys = attempt_keys(attempt["id"])
        for q, key in zip(attempt["questions"], keys, strict=True):
            if right:
                who.save(attempt["id"], q["index"], correct_response(key))
        submitted = who.submit(attempt["id"]).json()
        assert submitted["passed"] is right
        assert (submitted["credential_id"] is not None) is right
        read = who.client.get(f"/exam/api/attempts/{attempt['id']}", headers=who.headers)
        assert read.json() == submitted
        again = who.submit(attempt["id"]).json()  # closed before: the stored result
        assert again == submitted
