"""The learner's API: the exam's rules, registration, attempts and answers.

Learner routes take ``Authorization: Bearer LEARNER_KEY``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from nccl_course.exam.learners import learner_json
from nccl_course.exam.routes.deps import LearnerToken, ServiceDep, WriterDep, ok

router = APIRouter(prefix="/exam/api")


class Registration(BaseModel):
    name: str
    email: str


class AnswerBody(BaseModel):
    response: Any = None


@router.get("/exam")
def exam_info(service: ServiceDep, request: Request):
    """The exam's rules and the zones in use, plus any problems found at start."""
    blueprint = service.blueprint
    return ok(
        {
            "id": blueprint.exam_id,
            "title": blueprint.title,
            "time_limit_s": blueprint.time_limit_s,
            "max_attempts": blueprint.max_attempts,
            "pass_score": blueprint.pass_score,
            "question_count": blueprint.question_count,
            "zones": [{"chapter": z.chapter, "draw": z.draw} for z in blueprint.zones],
            "problems": service.problems,
            "credentials": True,
            "mathjax": request.app.state.mathjax_url,
        }
    )


@router.post("/register")
def register(body: Registration, service: ServiceDep):
    """A new learner; the key in the answer is shown this once."""
    learner, token = service.learners.register(body.name, body.email)
    return ok({"learner": learner_json(learner), "token": token}, 201)


@router.get("/me")
def me(token: LearnerToken, service: ServiceDep):
    return ok(service.attempts.overview(token))


@router.post("/attempts")
def start(token: LearnerToken, service: ServiceDep):
    return ok(service.attempts.start(token), 201)


@router.get("/attempts/{attempt_id}")
def attempt(attempt_id: str, token: LearnerToken, service: ServiceDep):
    return ok(service.attempts.view(token, attempt_id))


@router.put("/attempts/{attempt_id}/answers/{index}")
async def save_answer(
    attempt_id: str, index: int, body: AnswerBody, token: LearnerToken, writer: WriterDep
):
    """Acknowledged once the answer is committed (batched with concurrent saves)."""
    return ok(await writer.save_async(token, attempt_id, index, body.response))


@router.post("/attempts/{attempt_id}/submit")
def submit(attempt_id: str, token: LearnerToken, service: ServiceDep):
    return ok(service.attempts.submit(token, attempt_id))
