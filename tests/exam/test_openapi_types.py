"""The exam API is typed: its OpenAPI document describes every body, and real answers match.

``app.openapi()`` (the public server does not serve it; ``tests/exam/test_fuzz.py`` fuzzes
from it) must give every JSON operation a request schema where it takes a body and a non-empty
schema for its success answer, and every refusal it declares must be the error envelope
``{"error", "detail"}`` (``nccl_course.server.api_models.ErrorResponse``). Then real answers
of the routes, in every state the tests can reach, must validate against their models.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from nccl_course.quiz.keys import correct_response
from nccl_course.server import api_models as m
from tests.exam.conftest import Learner, keys_of
from tests.exam.test_email_confirmation import (  # noqa: F401 - fixtures
    auth,
    confirm,
    make_client,
    register,
    sink,
)
from tests.support.smtp_sink import link_token

ERROR_REF = "#/components/schemas/ErrorResponse"
BODIES = {
    ("post", "/exam/api/register"): "RegistrationRequest",
    ("put", "/exam/api/attempts/{attempt_id}/answers/{index}"): "AnswerRequest",
    ("post", "/exam/api/confirm"): "ConfirmationRequest",
    ("post", "/exam/api/verify"): "VerifyRequest",
    ("post", "/exam/api/admin/revoke"): "RevocationRequest",
}


def resolve(document: dict, schema: dict) -> dict:
    """``schema`` with its top-level ``$ref`` followed (the reference must exist)."""
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        assert name in document["components"]["schemas"], f"no schema {name}"
        schema = document["components"]["schemas"][name]
    return schema


def json_content(response: dict) -> dict | None:
    """The JSON entry of a response's content (application/json or ...+json), if any."""
    for media_type, content in response.get("content", {}).items():
        if media_type == "application/json" or media_type.endswith("+json"):
            return content
    return None


def operations(document: dict):
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


@pytest.fixture()
def document(app) -> dict:
    return app.openapi()


def test_every_json_operation_has_typed_bodies(document):
    seen = 0
    for method, path, operation in operations(document):
        label = f"{method.upper()} {path}"
        successes = {c: r for c, r in operation["responses"].items() if c.startswith("2")}
        assert successes, label
        for code, response in successes.items():
            content = json_content(response)
            if content is None:  # a file (the certificate): its media types, no JSON
                assert response.get("content"), label
                continue
            seen += 1
            schema = resolve(document, content.get("schema", {}))
            assert schema.get("properties"), f"{label} {code}: an empty answer schema"
        body = operation.get("requestBody")
        if (method, path) in BODIES:
            ref = body["content"]["application/json"]["schema"]["$ref"]
            assert ref.endswith("/" + BODIES[(method, path)]), label
            assert resolve(document, {"$ref": ref}), label
        else:
            assert body is None, f"{label} declares a body it does not read"
    assert seen >= 17


def test_every_refusal_is_the_error_envelope(document):
    for method, path, operation in operations(document):
        for code, response in operation["responses"].items():
            if not code.startswith("4"):
                continue
            assert response["content"] == {"application/json": {"schema": {"$ref": ERROR_REF}}}, (
                f"{method.upper()} {path} {code}"
            )
    assert "HTTPValidationError" not in document["components"]["schemas"]
    envelope = document["components"]["schemas"]["ErrorResponse"]
    assert set(envelope["required"]) == {"error", "detail"}


def test_request_schemas_carry_the_routes_limits(document):
    schemas = document["components"]["schemas"]
    name = schemas["RegistrationRequest"]["properties"]["name"]
    assert (name["minLength"], name["maxLength"]) == (1, 200)
    assert schemas["ConfirmationRequest"]["properties"]["token"]["maxLength"] == 100
    revocation = schemas["RevocationRequest"]
    assert revocation["required"] == ["credential_id"]
    assert schemas["VerifyById"]["additionalProperties"] is False


def conforms(model: type[BaseModel], response, status: int = 200) -> BaseModel:
    """The response, validated against ``model``; no field the model does not declare."""
    assert response.status_code == status, response.text
    body = response.json()
    declared = {f.alias or name for name, f in model.model_fields.items()}
    if model.model_config.get("extra") != "allow":
        assert set(body) <= declared, f"{model.__name__}: undeclared {set(body) - declared}"
    return model.model_validate(body)


def test_real_answers_validate_against_their_models(app, client):
    conforms(m.ExamInfo, client.get("/exam/api/exam"))
    conforms(m.Registered, client.post("/exam/api/register", json=NEW_LEARNER), 201)
    learner = Learner(client)
    attempt = conforms(m.AttemptView, learner.start(), 201)
    keys = keys_of(app, attempt.id)
    for question, key in zip(attempt.questions, keys, strict=True):
        saved = learner.save(attempt.id, question.index, correct_response(key))
        conforms(m.SavedAnswer, saved)
    conforms(m.AttemptView, client.get(f"/exam/api/attempts/{attempt.id}", headers=learner.headers))
    result = conforms(m.AttemptView, learner.submit(attempt.id))
    assert result.passed and result.points == result.max_points
    conforms(m.Overview, client.get("/exam/api/me", headers=learner.headers))
    path = f"/exam/api/attempts/{attempt.id}/credential"
    credential = conforms(m.Credential, client.get(path, headers=learner.headers))
    document = client.get(path, headers=learner.headers).json()
    for body in (document, {"credential": document}, {"id": credential.id}):
        verdict = conforms(m.Verification, client.post("/exam/api/verify", json=body))
        assert verdict.ok and verdict.summary is not None
    changed = {**document, "validFrom": "2000-01-01T00:00:00Z"}
    verdict = conforms(m.Verification, client.post("/exam/api/verify", json=changed))
    assert not verdict.ok and verdict.unverified_claims is not None
    conforms(m.ShareLinks, client.get(f"/exam/api/credentials/{credential.id}/share"))
    revoke = {"credential_id": credential.id}
    admin = {"Authorization": "Bearer test-admin-token"}
    conforms(m.Revoked, client.post("/exam/api/admin/revoke", json=revoke, headers=admin))


NEW_LEARNER = {"name": "Grace Hopper", "email": "grace@example.org"}


def test_issuer_and_status_answers_validate(client):
    conforms(m.Health, client.get("/exam/api/health"))
    conforms(m.Ready, client.get("/exam/api/ready"))
    conforms(m.DidDocument, client.get("/.well-known/did.json"))
    conforms(m.StatusListCredential, client.get("/credentials/status/1"))


def test_refusals_validate_against_the_envelope(client):
    learner = Learner(client)
    for response in (
        client.get("/exam/api/me"),
        client.get("/exam/api/attempts/nope", headers=learner.headers),
        client.post("/exam/api/register", json={"name": 3, "email": "a@b.c"}),
        client.put("/exam/api/attempts/x/answers/0", json={}, headers=learner.headers),
        client.get("/credentials/status/x"),
    ):
        assert 400 <= response.status_code < 500, response.text
        m.ErrorResponse.model_validate(response.json())


def test_confirmation_answers_validate(make_client, sink):  # noqa: F811 - fixtures
    client = make_client()
    pending = conforms(m.RegistrationPending, register(client), 202)
    resent = conforms(m.LinkSent, client.post("/exam/api/resend", headers=auth(pending.token)), 202)
    assert resent.email == pending.email
    token = link_token(sink.wait(2)[-1])
    confirmed = conforms(m.Confirmed, confirm(client, token))
    assert confirmed.token is None  # a first registration keeps the browser's key
