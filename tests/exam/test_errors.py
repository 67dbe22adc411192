"""Refusals carry a meaning, not an HTTP status; the app maps every kind to one."""

from __future__ import annotations

from nccl_course.exam import errors
from nccl_course.server.app import HTTP_STATUS


def test_every_kind_of_refusal_has_an_http_status():
    kinds = {
        cls.kind
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.ExamError)
    }
    assert kinds == set(HTTP_STATUS)
    refusal = errors.Conflict("time_up", "time is up")
    assert (refusal.code, refusal.message, str(refusal)) == ("time_up", "time is up", "time is up")
    assert not hasattr(refusal, "status")
