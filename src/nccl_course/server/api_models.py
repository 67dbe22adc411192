"""The exam API's bodies as Pydantic models: what each route takes and what it answers.

Request models are validated by the routes themselves, after the bounded read and parse of
``nccl_course.server.routes.body`` (``read_model``): FastAPI never reads a body (it would read
any size and accept NaN). Their constraints are the ones the routes enforce; the checks that
need the exam's rules (a name and an address fit to store, an answer's size in bytes, a
credential's proof) stay in the service, with its own codes and translated sentences.

Response models describe the JSON the routes send (``response_model=``): the routes still
build their answers as dicts and send them with ``Cache-Control: no-store``
(``nccl_course.server.routes.deps.ok``), so FastAPI does not filter them; the tests check that
real answers validate against these models and the fuzzer that they match the OpenAPI schema.

Every refusal is an ``ErrorResponse`` (``{"error": CODE, "detail": SENTENCE}``, see
``nccl_course.server.app``); ``refusals(...)`` lists the statuses a route declares.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel
from pydantic.json_schema import models_json_schema

from nccl_course.exam.learners import MAX_EMAIL_CHARS, MAX_NAME_CHARS
from nccl_course.i18n.languages import LANGUAGES
from nccl_course.quiz.exhibits import KINDS as EXHIBIT_KINDS
from nccl_course.quiz.model import TYPES

CourseLanguage = Literal[LANGUAGES]  # type: ignore[valid-type]
#: A confirmation link's token (``secrets.token_urlsafe(32)``: 43 characters).
MAX_TOKEN_CHARS = 100
MAX_CREDENTIAL_ID_CHARS = 200
MAX_REASON_CHARS = 2000


# ---- refusals ---------------------------------------------------------------------------
class ErrorResponse(BaseModel):
    """A refusal: a stable code the pages branch on, and a sentence in the request's
    language."""

    error: str = Field(description="a stable code, e.g. no_attempt, attempt_limit")
    detail: str = Field(description="what is wrong, for a person to read")


REFUSALS = {
    400: "an unknown ?lang= (use en or tr)",
    401: "no learner key, or one the server does not know",
    403: "the admin token is missing or wrong",
    404: "no such thing for this caller",
    409: "refused by the current state",
    410: "no longer usable",
    413: "the body is larger than the route accepts",
    422: "the request is malformed",
    429: "too many requests from this address: wait Retry-After seconds",
    503: "the server cannot do it now: try again",
}


def refusals(*statuses: int) -> dict:
    """``responses=`` for a route that can refuse with ``statuses``: each an ErrorResponse,
    as JSON whatever the route's own media type."""
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
    return {s: {"description": REFUSALS[s], "content": error} for s in statuses}


# ---- request bodies ---------------------------------------------------------------------
class RequestBody(BaseModel):
    """A JSON object; unknown fields are ignored, values are never converted (strict)."""

    model_config = ConfigDict(strict=True, extra="ignore")


class RegistrationRequest(RequestBody):
    """``POST /exam/api/register``. The server then strips the name, normalises the address
    and refuses control characters and what is not an address (``bad_name``, ``bad_email``,
    ``bad_text``)."""

    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    email: str = Field(min_length=3, max_length=MAX_EMAIL_CHARS)


Scalar = None | bool | int | float | str
AnswerValue = (
    Scalar | list[Scalar | list[Scalar | list[Scalar]]]  # lists nest at most three deep
)


class AnswerRequest(RequestBody):
    """``PUT /exam/api/attempts/{id}/answers/{index}``: null clears the answer."""

    response: AnswerValue = Field(
        description=(
            "a choice's index, a number, a text, or a list of them (nested lists for matching);"
            " at most 4 KiB of JSON; the grader judges the content"
        )
    )


class ConfirmationRequest(RequestBody):
    """``POST /exam/api/confirm``: the token of a mailed link (the part after ``#``)."""

    token: str = Field(max_length=MAX_TOKEN_CHARS)


class RevocationRequest(RequestBody):
    """``POST /exam/api/admin/revoke`` (with the admin token)."""

    credential_id: str = Field(min_length=1, max_length=MAX_CREDENTIAL_ID_CHARS)
    reason: str | None = Field(default=None, max_length=MAX_REASON_CHARS)


class VerifyById(RequestBody):
    """A credential this server issued, by its id (the certificate's QR code links to it)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    id: str = Field(min_length=1, max_length=MAX_CREDENTIAL_ID_CHARS)


class VerifyWrapped(RequestBody):
    """A credential wrapped: ``{"credential": {...}}`` (the object has no ``@context``)."""

    credential: dict[str, Any]


class VerifyRequest(RootModel[VerifyById | VerifyWrapped | dict[str, Any]]):
    """``POST /exam/api/verify``: a credential (a JSON object, at most 64 KiB and 32 levels),
    ``{"credential": {...}}``, or ``{"id": "urn:uuid:..."}``."""


# ---- the exam and the learner -----------------------------------------------------------
class Zone(BaseModel):
    chapter: str
    draw: int


class ExamInfo(BaseModel):
    """``GET /exam/api/exam``: the rules, the zones in use, problems found at start."""

    id: str
    title: str
    time_limit_s: int
    max_attempts: int
    pass_score: float
    question_count: int
    zones: list[Zone]
    problems: list[str]
    language: CourseLanguage
    credentials: bool
    email_confirmation: bool
    mathjax: str | None = Field(description="MathJax's URL on this server, if it has a copy")


class LearnerInfo(BaseModel):
    id: str
    name: str
    email: str


class Registered(BaseModel):
    """201: the learner and their key, shown this once."""

    learner: LearnerInfo
    token: str


class LinkSent(BaseModel):
    """202: a confirmation link was mailed (``POST /exam/api/resend``)."""

    email: str
    confirmation: Literal["sent"]
    detail: str


class RegistrationPending(LinkSent):
    """202 (e-mail confirmation on): the browser's key, usable once the link is opened."""

    token: str


class Confirmed(BaseModel):
    """``POST /exam/api/confirm``: the address is confirmed; ``token`` only for a sign-in."""

    confirmed: Literal[True]
    email: str
    learner: LearnerInfo
    token: str | None = Field(default=None, description="the browser's new learner key")


# ---- attempts ---------------------------------------------------------------------------
class AttemptSummary(BaseModel):
    """An attempt in the learner's list; ``score`` and ``passed`` once it is closed."""

    id: str
    number: int
    status: Literal["open", "submitted", "expired"]
    started_at: str
    deadline_at: str
    closed_at: str | None
    language: str
    score: float | None
    passed: bool | None
    credential_id: str | None
    revoked: bool


class Overview(BaseModel):
    """``GET /exam/api/me``."""

    learner: LearnerInfo
    attempts_used: int
    attempts_left: int
    email_confirmed: bool
    attempts: list[AttemptSummary]


class Exhibit(BaseModel):
    """The log, program or trace a question is about (nccl_course.quiz.exhibits), shown as
    text with numbered lines above the prompt."""

    kind: Literal[EXHIBIT_KINDS]  # type: ignore[valid-type]
    caption: str
    text: str


class Question(BaseModel):
    """A drawn question as the learner sees it (no key, no seed)."""

    model_config = ConfigDict(extra="allow")
    id: str
    chapter: str
    uid: str
    type: Literal[TYPES]  # type: ignore[valid-type]
    prompt: str
    prompt_format: str
    difficulty: int
    tags: list[str]
    objective: str | None = Field(
        None, description="the learning objective it tests (quizzes/_objectives.yml)"
    )
    skill: str | None = Field(None, description="the skill it exercises, shared across questions")
    exhibit: Exhibit | None = Field(None, description="the log, program or trace it is about")
    choices: list[str] | None = None
    unit: str | None = None
    units: list[str] | None = None
    items: list[str] | None = None
    left: list[str] | None = None
    right: list[str] | None = None


class AttemptQuestion(BaseModel):
    """One question of an attempt with the saved answer; graded once the attempt closes."""

    index: int
    chapter: str
    question: Question
    response: Any = Field(description="the saved answer (null: none)")
    revision: int
    score: float | None = None
    correct: bool | None = None
    feedback: str | None = None


class ExamRef(BaseModel):
    id: str
    title: str


class AttemptView(AttemptSummary):
    """An attempt: while open its questions and saved answers; once closed the result."""

    exam: ExamRef
    pass_score: float
    remaining_s: float
    questions: list[AttemptQuestion]
    points: float | None = None
    max_points: float | None = None


class SavedAnswer(BaseModel):
    index: int
    saved: Literal[True]
    revision: int
    saved_at: str


# ---- credentials ------------------------------------------------------------------------
class LinkedDocument(BaseModel):
    """A JSON-LD document (a credential, a DID document): its ``@context`` and ``id``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    context: list[str | dict[str, Any]] = Field(alias="@context")
    id: str


class Credential(LinkedDocument):
    """An Open Badges 3.0 credential (a W3C verifiable credential) with its proof."""

    type: list[str]
    issuer: str | dict[str, Any]
    validFrom: str  # noqa: N815 - the credential's own field names
    credentialSubject: dict[str, Any]  # noqa: N815
    proof: dict[str, Any] | list[dict[str, Any]]


class StatusListCredential(Credential):
    """One of the issuer's status lists (W3C Bitstring Status List): revocations."""


class DidDocument(LinkedDocument):
    """The issuer's DID document (did:web)."""

    verificationMethod: list[dict[str, Any]]  # noqa: N815
    assertionMethod: list[str | dict[str, Any]]  # noqa: N815


class ShareLinks(BaseModel):
    credential_id: str
    verify_url: str
    linkedin_url: str


class Check(BaseModel):
    name: str
    status: Literal["ok", "failed", "not checked"]
    detail: str


class Claims(BaseModel):
    """What a credential says, read from the document (true only if it verifies)."""

    learner: str | None = None
    achievement: str | None = None
    issuer: str | None = None
    valid_from: str | None = None
    score_percent: str | None = None


class Verification(BaseModel):
    """``POST /exam/api/verify``: VALID only for this server's issuers and status lists."""

    verdict: Literal["VALID", "NOT VALID", "CANNOT CHECK"]
    ok: bool
    reason: str
    credential_id: str | None
    issuer: str | None
    issuer_name: str | None
    signer: str | None
    trusted_issuers: list[str] | None
    checks: list[Check]
    revoked: bool = Field(False, description="its status list says the credential is revoked")
    summary: Claims | None = Field(description="the claims, when the credential is VALID")
    unverified_claims: Claims | None = Field(description="the claims, when it is not")


class Revoked(BaseModel):
    credential_id: str
    revoked: Literal[True]
    revoked_at: str


# ---- status -----------------------------------------------------------------------------
class Health(BaseModel):
    ok: Literal[True]
    database: str


class Ready(Health):
    schema_revision: str | None = Field(alias="schema", description="the database's revision")


class NotReady(ErrorResponse):
    """503 from ``/exam/api/ready``: the database does not answer."""

    ok: Literal[False]


# ---- the OpenAPI document ---------------------------------------------------------------
#: The request bodies the routes read themselves (``routes.body.documented`` refers to them),
#: and the refusal every route may answer (``refusals``).
REQUEST_MODELS = (
    ErrorResponse,
    RegistrationRequest,
    AnswerRequest,
    ConfirmationRequest,
    RevocationRequest,
    VerifyRequest,
)


def add_request_schemas(document: dict) -> dict:
    """``document`` (an OpenAPI document) with the request models in its components."""
    _, defs = models_json_schema(
        [(model, "validation") for model in REQUEST_MODELS],
        ref_template="#/components/schemas/{model}",
    )
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in defs.get("$defs", {}).items():
        if name in schemas and schemas[name] != schema:
            raise ValueError(f"two different schemas are named {name} in the API's document")
        schemas[name] = schema
    return document


def with_request_schemas(app) -> None:
    """Make ``app.openapi()`` include the request models (built once, then kept)."""
    build = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            app.openapi_schema = add_request_schemas(build())
        return app.openapi_schema

    app.openapi = openapi
