"""The learner's API: the exam's rules, registration, attempts and answers.

Learner routes take ``Authorization: Bearer LEARNER_KEY``. Bodies are read and parsed by
``nccl_course.server.routes.body`` within each route's limits, after the key is checked. The
request's language (``?lang=``, else ``Accept-Language``: ``nccl_course.server.routes.language``)
is the language of a new attempt's questions and of the confirmation mail.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool

from nccl_course.exam.learners import learner_json
from nccl_course.i18n.interface import N_
from nccl_course.server.api_models import (
    AnswerRequest,
    AttemptView,
    ExamInfo,
    Overview,
    Registered,
    RegistrationPending,
    RegistrationRequest,
    SavedAnswer,
    refusals,
)
from nccl_course.server.attempts import HEAVY_AT_ONCE, view_json
from nccl_course.server.routes.body import ANSWER_BODY, REGISTER_BODY, documented, read_model
from nccl_course.server.routes.deps import (
    LearnerToken,
    ServiceDep,
    bearer,
    count_request,
    ok,
    ok_encoded,
)
from nccl_course.server.routes.language import Language, request_language

router = APIRouter(prefix="/exam/api")

# ``read_model``'s sentence for an answer without its field, in the interface catalog.
MISSING_RESPONSE = N_("the field 'response' is required")


@router.get("/exam", response_model=ExamInfo, responses=refusals(400))
def exam_info(service: ServiceDep, request: Request, language: Language):
    """The exam's rules and the zones in use, plus any problems found at start (and, for
    another language, the banks whose translation is not complete)."""
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
            "problems": [*service.problems, *service.engine.problems_for(language)],
            "language": language,
            "credentials": True,
            "email_confirmation": service.confirmations is not None,
            "mathjax": request.app.state.mathjax_url,
        }
    )


# The learner routes below read the key, the service and the language from the request
# themselves rather than through FastAPI dependencies: solving them cost about a fifth of an
# answer save's CPU. The key's header is documented all the same (``LEARNER_KEY``).
LEARNER_KEY = {
    "name": "authorization",
    "in": "header",
    "required": False,
    "description": "Bearer LEARNER_KEY",
    "schema": {"type": "string"},
}


def with_key(extra: dict | None = None) -> dict:
    """``openapi_extra`` of a learner route: the key's header (and ``extra``)."""
    return {"parameters": [LEARNER_KEY], **(extra or {})}


def heavy_gate(request: Request) -> asyncio.Semaphore:
    """The app's gate for starts and submits (``HEAVY_AT_ONCE`` at a time): they wait here, on
    the event loop, rather than in worker threads, so that a class starting together does not
    take every thread from the requests that need one briefly (a first answer's key check, a
    read). One per event loop (a test may serve one app from several)."""
    loop = asyncio.get_running_loop()
    gate = getattr(request.app.state, "heavy_gate", None)
    if gate is None or gate[0] is not loop:
        gate = (loop, asyncio.Semaphore(HEAVY_AT_ONCE))
        request.app.state.heavy_gate = gate
    return gate[1]


def learner_key(request: Request) -> str | None:
    """The learner key of ``Authorization: Bearer KEY`` (None without one: the service then
    refuses the request, so a missing and a wrong key give the same kind of answer)."""
    return bearer(request.headers.get("authorization"))


REGISTER_ANSWERS = {
    202: {"model": RegistrationPending, "description": "e-mail confirmation on: a link was sent"},
    **refusals(400, 409, 413, 422, 429, 503),
}


@router.post(
    "/register",
    status_code=201,
    response_model=Registered,
    responses=REGISTER_ANSWERS,
    openapi_extra=documented(RegistrationRequest),
)
async def register(request: Request):
    """A new learner, ``{name, email}``; the key in the answer is shown this once. With
    e-mail confirmation on: 202 and a link mailed to the address in the request's language,
    the same answer whether or not the address is registered
    (``nccl_course.server.confirmations``). Rate-limited first (``register``)."""
    await count_request(request, "register")
    language = request_language(request)
    service = request.app.state.service
    body = await read_model(request, REGISTER_BODY, RegistrationRequest)
    name, email = body.name, body.email
    if service.confirmations is not None:  # the mail is sent from a worker thread
        confirmations = service.confirmations
        return ok(await run_in_threadpool(confirmations.register, name, email, language), 202)
    learner, token = await run_in_threadpool(service.learners.register, name, email)
    return ok({"learner": learner_json(learner), "token": token}, 201)


@router.get("/me", response_model=Overview, responses=refusals(401, 422))
def me(token: LearnerToken, service: ServiceDep):
    return ok(service.attempts.overview(token))


@router.post(
    "/attempts",
    status_code=201,
    response_model=AttemptView,
    responses=refusals(400, 401, 409, 422, 429, 503),
    openapi_extra=with_key(),
)
async def start(request: Request):
    """Start an attempt in the request's language (an open attempt resumes in its own).
    Rate-limited first (``start``)."""
    await count_request(request, "start")
    language = request_language(request)
    attempts = request.app.state.service.attempts
    async with heavy_gate(request):
        body = await run_in_threadpool(attempts.start, learner_key(request), language)
    return ok_encoded(view_json(body), 201)


@router.get(
    "/attempts/{attempt_id}",
    response_model=AttemptView,
    responses=refusals(401, 404, 422),
    openapi_extra=with_key(),
)
async def attempt(attempt_id: str, request: Request):
    attempts = request.app.state.service.attempts
    body = await run_in_threadpool(attempts.view, learner_key(request), attempt_id)
    return ok_encoded(view_json(body))


@router.put(
    "/attempts/{attempt_id}/answers/{index}",
    response_model=SavedAnswer,
    responses=refusals(401, 404, 409, 413, 422, 503),
    openapi_extra=with_key(documented(AnswerRequest)),
)
async def save_answer(attempt_id: str, index: int, request: Request):
    """``{response}``; acknowledged once the answer is committed (batched with concurrent
    saves). The key is checked before the body is read: a request without a valid key costs
    one look-up (none once the key is known), never the parsing of its body."""
    service = request.app.state.service
    token = learner_key(request)
    if not (token and service.learners.is_known(token)):
        await run_in_threadpool(service.learners.authenticate, token)
    body = await read_model(request, ANSWER_BODY, AnswerRequest)
    writer = request.app.state.writer
    return ok(await writer.save_async(token, attempt_id, index, body.response))


@router.post(
    "/attempts/{attempt_id}/submit",
    response_model=AttemptView,
    responses=refusals(401, 404, 409, 422, 503),
    openapi_extra=with_key(),
)
async def submit(attempt_id: str, request: Request):
    attempts = request.app.state.service.attempts
    async with heavy_gate(request):
        body = await run_in_threadpool(attempts.submit, learner_key(request), attempt_id)
    return ok_encoded(view_json(body))
