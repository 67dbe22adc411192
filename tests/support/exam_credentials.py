"""Test support: a learner passes the exam and downloads the credential; the verify answer.

Used by the exam server's verification tests (``tests/exam``) with the fixtures of
``tests/exam/conftest.py`` (a client, a learner, the stored answer keys).
"""

from __future__ import annotations

from nccl_course.quiz.keys import correct_response


def passed_attempt(learner, attempt_keys) -> dict:
    """The submitted result of an attempt the learner passed with every answer right."""
    attempt = learner.start().json()
    for q, key in zip(attempt["questions"], attempt_keys(attempt["id"]), strict=True):
        assert learner.save(attempt["id"], q["index"], correct_response(key)).status_code == 200
    result = learner.submit(attempt["id"]).json()
    assert result["passed"] is True
    return result


def passed_credential(client, learner, attempt_keys) -> dict:
    """The credential of an attempt the learner passed with every answer right."""
    result = passed_attempt(learner, attempt_keys)
    url = f"/exam/api/attempts/{result['id']}/credential"
    return client.get(url, headers=learner.headers).json()


def verdict(client, credential) -> dict:
    """The answer of ``POST /exam/api/verify`` for a credential (200 expected)."""
    response = client.post("/exam/api/verify", json=credential)
    assert response.status_code == 200, response.text
    return response.json()
