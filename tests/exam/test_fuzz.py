"""Fuzz every route of the exam API from its OpenAPI schema: no request makes a server error.

The public server does not serve its schema, so the test takes it from ``app.openapi()`` of an
app built here on a fresh data folder. Routes read their JSON bodies themselves (within their
limits, ``nccl_course.server.routes.body``) and validate them against their request models
(``nccl_course.server.api_models``), which the schema declares: the test checks that every
route of ``REQUEST_BODIES`` has one there.

schemathesis generates requests for each operation, valid ones (positive) and ones that break
the schema (negative), and sends them to the app in-process (ASGI). So that the routes behind a
learner's key are exercised too, some requests carry a real learner key (or the admin token)
and a real attempt id: learners are registered first, one with an open attempt, one with a
passed attempt (a credential), one with a failed attempt. Bodies also come with hostile values
(lone surrogates, NUL, integers past 64 bits, nesting), and the issued credential is sent to
the verifier with one place changed.

Every server error (5xx, or an exception out of the app) is collected with the request that
caused it (as a curl command) and where it was raised, and the test fails listing all of them;
so is a successful response whose body breaks the schema the app declares.

Budget: ``NCCL_COURSE_FUZZ_EXAMPLES`` examples per operation and generation mode (default 60:
about 900 requests, 30 s on two cores). Runs are reproducible (derandomized); set
``NCCL_COURSE_FUZZ_SEED`` to an integer to explore other inputs.
"""

from __future__ import annotations

import copy
import os
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from nccl_course.quiz.keys import correct_response
from tests.exam.conftest import Learner, keys_of, write_quizzes

# The routes that take a JSON body (the schema must declare it).
REQUEST_BODIES = (
    ("post", "/exam/api/register"),
    ("put", "/exam/api/attempts/{attempt_id}/answers/{index}"),
    ("post", "/exam/api/confirm"),
    ("post", "/exam/api/verify"),  # a credential, or {"credential": ...}, or {"id": ...}
    ("post", "/exam/api/admin/revoke"),
)
MAX_EXAMPLES = int(os.environ.get("NCCL_COURSE_FUZZ_EXAMPLES", "60"))
SEED = os.environ.get("NCCL_COURSE_FUZZ_SEED")
ADMIN_TOKEN = "fuzz-admin-token"


@dataclass
class Findings:
    cases: Counter = field(default_factory=Counter)
    statuses: dict = field(default_factory=dict)  # operation -> Counter of status codes
    server_errors: list[str] = field(default_factory=list)
    schema_violations: list[str] = field(default_factory=list)
    seen: set = field(default_factory=set)
    unsatisfiable: list[str] = field(default_factory=list)
    unsent: list[str] = field(default_factory=list)  # requests the client could not send

    def add(self, bucket: list[str], key: tuple, text: str) -> None:
        # one report per operation and kind of failure (exception and the line raising it)
        if key not in self.seen:
            self.seen.add(key)
            bucket.append(text)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """An app on a fresh data folder with learners in every state, and its OpenAPI schema."""
    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings

    root = tmp_path_factory.mktemp("fuzz")
    book = root / "book"  # a built book, so that a path no route takes is a plain 404
    book.mkdir()
    (book / "index.html").write_text("<html><body>the course book</body></html>")
    settings = Settings(
        data_dir=root / "data",
        quizzes_dir=write_quizzes(root / "quizzes"),
        book_dir=book,
        admin_token=ADMIN_TOKEN,
        rate_limits_enabled=False,  # thousands of requests from one address
        email_confirmation=False,
    )
    app = create_app(settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    client = TestClient(app)  # no lifespan: the fuzzing client runs the app's lifespan

    newcomer = Learner(client, name="New Comer", email="new@example.org")
    writing = Learner(client, name="Open Attempt", email="open@example.org")
    passed = Learner(client, name="Passed Attempt", email="passed@example.org")
    failed = Learner(client, name="Failed Attempt", email="failed@example.org")
    open_attempt = writing.start().json()
    writing.save(open_attempt["id"], 0, correct_response(keys_of(app, open_attempt["id"])[0]))
    passed_attempt = passed.start().json()
    for q, key in zip(passed_attempt["questions"], keys_of(app, passed_attempt["id"]), strict=True):
        assert passed.save(passed_attempt["id"], q["index"], correct_response(key)).is_success
    result = passed.submit(passed_attempt["id"]).json()
    assert result["passed"] is True
    credential = client.get(
        f"/exam/api/attempts/{passed_attempt['id']}/credential", headers=passed.headers
    ).json()
    failed_attempt = failed.start().json()
    assert failed.submit(failed_attempt["id"]).json()["passed"] is False

    bearer = {
        "newcomer": f"Bearer {newcomer.token}",
        "open": f"Bearer {writing.token}",
        "passed": f"Bearer {passed.token}",
        "failed": f"Bearer {failed.token}",
        "admin": f"Bearer {ADMIN_TOKEN}",
    }
    attempts = {
        "open": open_attempt["id"],
        "passed": passed_attempt["id"],
        "failed": failed_attempt["id"],
    }
    raw = copy.deepcopy(app.openapi())
    assert raw["paths"], "the app declares no API operation"
    for method, path in REQUEST_BODIES:
        operation = raw["paths"].get(path, {}).get(method)
        assert operation is not None, f"{method.upper()} {path} is gone: update REQUEST_BODIES"
        assert "requestBody" in operation, f"{method.upper()} {path} declares no body"
    # Reproductions must show the request as it was sent (no "[Filtered]" values).
    config = schemathesis.Config.from_dict({"output": {"sanitization": {"enabled": False}}})
    schema = schemathesis.openapi.from_dict(raw, config=config)
    schema.app = app
    yield {
        "app": app,
        "schema": schema,
        "bearer": bearer,
        "attempts": attempts,
        "credential": credential,
    }
    from schemathesis.python import asgi

    asgi.shutdown_lifespans()  # runs the app's shutdown: queued answers are committed
    app.state.db.dispose()


def fixed_variants(operation, world) -> list[dict]:
    """Values to pin on some of the generated requests: real keys, real attempt ids, real
    answer positions. The first variant pins nothing (all generated)."""
    names = {p.name for p in operation.iter_parameters()}
    attempts = world["attempts"]
    variants: list[dict] = [{}]
    if "authorization" in names:
        for who, token in world["bearer"].items():
            pinned: dict = {"headers": {"authorization": token}}
            if "attempt_id" not in names:
                variants.append(pinned)
                continue
            # their own attempt and someone else's; submitting would close the open one
            own = attempts.get(who, attempts["failed"])
            if operation.path.endswith("/submit") and own == attempts["open"]:
                own = attempts["failed"]
            for attempt in sorted({own, attempts["passed"]}):
                at = {"attempt_id": attempt}
                variants.append(pinned | {"path_parameters": at})
                if "index" in names and attempt == own:
                    variants += [
                        pinned | {"path_parameters": at | {"index": i}} for i in range(-1, 6)
                    ]
                if "fmt" in names:
                    variants += [
                        pinned | {"path_parameters": at | {"fmt": f}} for f in ("pdf", "png")
                    ]
        variants += [{"headers": {"authorization": odd}} for odd in ODD_AUTHORIZATION]
        if "attempt_id" in names:
            open_key = {"authorization": world["bearer"]["open"]}
            variants += [
                {"headers": open_key, "path_parameters": {"attempt_id": odd}} for odd in ODD_IDS
            ]
    if operation.path.endswith("/admin/revoke"):
        variants.append({"headers": {"authorization": world["bearer"]["admin"]}})
    return variants


# Strings that have broken servers: lone surrogates (JSON can carry them, UTF-8 cannot), NUL
# and other controls, direction and byte-order marks, characters outside the BMP, long ones.
NASTY_STRINGS = (
    "\ud800",
    "a\udfffb",
    "\x00",
    "a\x00b",
    "\r\n",
    "\u202e",
    "\ufeff",
    "\U0001d518",
    " ",
    "",
    "x" * 5000,
)
# Authorization headers beyond what the schema's strings give: other schemes, latin-1 bytes,
# a key of many kilobytes.
ODD_AUTHORIZATION = (
    "Bearer",
    "Bearer ",
    "bearer x",
    "Basic eDp5",
    "Bearer \xe9\xff",
    "Bearer " + "k" * 9000,
)

# Attempt ids that are not hex: NUL (which PostgreSQL cannot hold), path syntax, long, wide.
ODD_IDS = ("a\x00b", "\x00", "..", "%", "a/b", "\u202e", "\U0001d518", "f" * 300)


def texts(max_size: int = 40):
    """Any text, with the nasty strings above often, alone or inside other text."""
    nasty = st.sampled_from(NASTY_STRINGS)
    plain = st.text(st.characters(exclude_categories=()), max_size=max_size)
    return plain | nasty | st.tuples(plain, nasty, plain).map("".join)


def json_values():
    leaves = (
        st.none()
        | st.booleans()
        | st.integers()  # unbounded: past 64 bits too
        | st.floats(allow_nan=False, allow_infinity=False)
        | texts()
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts(8), inner, max_size=4),
        max_leaves=12,
    )


def places(value, path=()):
    """Every place in a JSON value, as a path of keys and indices."""
    yield path
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, inner in items:
            yield from places(inner, (*path, key))


DELETE = object()


def changed(value, path, new):
    """``value`` with the place ``path`` replaced by ``new`` (or removed: ``DELETE``)."""
    value = copy.deepcopy(value)
    if not path:
        return {} if new is DELETE else new
    parent = value
    for key in path[:-1]:
        parent = parent[key]
    if new is DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return value


def credentials_to_verify(operation, credential):
    """The issued credential with one place changed or removed, bare or wrapped."""
    edits = st.tuples(st.sampled_from(list(places(credential))), st.just(DELETE) | json_values())
    bodies = edits.map(lambda edit: changed(credential, *edit))
    wrapped = bodies.map(lambda body: {"credential": body}) | bodies
    return wrapped.map(lambda body: operation.Case(body=body, media_type="application/json"))


def bodies_for(operation, world):
    """Valid-looking requests with hostile JSON values in their bodies (any types, lone
    surrogates, NUL, integers past 64 bits, nesting) for the routes that take a body."""
    bearer, attempts = world["bearer"], world["attempts"]
    path, json = operation.path, "application/json"
    if path.endswith("/register"):
        email = st.emails() | texts()
        fields = st.fixed_dictionaries({"name": texts() | json_values(), "email": email})
        return fields.map(lambda body: operation.Case(body=body, media_type=json))
    if path.endswith("/answers/{index}"):
        shapes = st.integers() | st.floats() | texts() | st.lists(st.integers(0, 9) | texts())
        answers = st.tuples(st.integers(-1, 5), shapes | json_values())
        return answers.map(
            lambda answer: operation.Case(
                headers={"authorization": bearer["open"]},
                path_parameters={"attempt_id": attempts["open"], "index": answer[0]},
                body={"response": answer[1]},
                media_type=json,
            )
        )
    if path.endswith("/admin/revoke"):
        fields = st.fixed_dictionaries(
            {"credential_id": texts() | json_values()},
            optional={"reason": texts() | json_values()},
        )
        return fields.map(
            lambda body: operation.Case(
                headers={"authorization": bearer["admin"]}, body=body, media_type=json
            )
        )
    if path.endswith("/verify"):
        return credentials_to_verify(operation, world["credential"])
    return None


def strategy_for(operation, world, mode):
    strategies = []
    for pinned in fixed_variants(operation, world):
        try:
            strategies.append(operation.as_strategy(generation_mode=mode, **pinned))
        except Exception:  # a pinned value this mode cannot keep
            continue
    if mode is GenerationMode.POSITIVE and (bodies := bodies_for(operation, world)) is not None:
        strategies.append(bodies)
    return st.one_of(strategies)


def where(error: BaseException) -> str:
    """The innermost frame of the course's code (else the innermost frame) that raised."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if "nccl_course" in f.filename] or frames
    return f"{ours[-1].filename}:{ours[-1].lineno}" if ours else "?"


def describe(case, response=None, error: BaseException | None = None) -> str:
    lines = [f"{case.operation.label}:", f"  {case.as_curl_command()}"]
    if response is not None:
        lines.append(f"  -> {response.status_code} {response.text[:300]!r}")
    if error is not None:
        frames = traceback.extract_tb(error.__traceback__)
        ours = [i for i, frame in enumerate(frames) if "nccl_course" in frame.filename]
        shown = sorted({*ours[-3:], *range(max(0, len(frames) - 2), len(frames))})
        text = "".join(traceback.format_list([frames[i] for i in shown]))
        lines += ["  " + line for line in text.splitlines()]
        lines.append(f"  {type(error).__name__}: {str(error)[:300]}")
    return "\n".join(lines)


def exercise(operation, world, findings: Findings, mode) -> None:
    @seed(int(SEED) if SEED else 0)
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        derandomize=SEED is None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(case=strategy_for(operation, world, mode))
    def run(case):
        findings.cases[operation.label] += 1
        try:
            response = case.call()
        except Exception as exc:
            if not any(
                app in f.filename
                for f in traceback.extract_tb(exc.__traceback__)
                for app in ("nccl_course", "starlette", "fastapi")
            ):
                findings.unsent.append(describe(case, error=exc))  # failed before the app
                return
            # the app raised: what a client sees as a 500
            findings.add(
                findings.server_errors,
                (operation.label, type(exc).__name__, where(exc)),
                describe(case, error=exc),
            )
            return
        findings.statuses.setdefault(operation.label, Counter())[response.status_code] += 1
        if response.status_code >= 500:
            findings.add(
                findings.server_errors,
                (operation.label, response.status_code, response.text[:80]),
                describe(case, response),
            )
            return
        if mode is GenerationMode.POSITIVE and response.status_code < 400:
            try:
                case.validate_response(response, checks=[response_schema_conformance])
            except Exception as exc:
                findings.add(
                    findings.schema_violations,
                    (operation.label, "schema"),
                    describe(case, response) + f"\n  {str(exc)[:500]}",
                )

    try:
        run()
    except Unsatisfiable:  # nothing to break: e.g. negative requests for a route without input
        findings.unsatisfiable.append(f"{mode.value} {operation.label}")


def test_no_request_makes_a_server_error(world):
    findings = Findings()
    operations = [result.ok() for result in world["schema"].get_all_operations()]
    assert len(operations) >= 10
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
        for operation in operations:
            exercise(operation, world, findings, mode)
    total = sum(findings.cases.values())
    print(f"\nfuzzed {len(operations)} operations with {total} requests")
    for label, count in sorted(findings.cases.items()):
        codes = " ".join(f"{c}x{n}" for c, n in sorted(findings.statuses.get(label, {}).items()))
        print(f"  {count:5d}  {label}  ({codes})")
    if findings.unsatisfiable:
        print("  no requests to generate: " + ", ".join(findings.unsatisfiable))
    if findings.unsent:
        print(f"  {len(findings.unsent)} request(s) could not be sent, e.g.\n{findings.unsent[0]}")
    assert all(findings.cases[op.label] > 0 for op in operations)
    problems = findings.server_errors + findings.schema_violations
    assert not problems, (
        f"{len(findings.server_errors)} server error(s), "
        f"{len(findings.schema_violations)} response(s) breaking the schema, "
        f"in {total} requests:\n\n" + "\n\n".join(problems)
    )


# Requests the fuzzer found failing on PostgreSQL, whose text cannot hold U+0000: an attempt id
# or a credential id with a NUL reached a query and the server answered 500.
def nul_requests(admin_token: str) -> list[tuple[str, str, dict | None, bool]]:
    """(method, path, JSON body, as the learner?) for each route that looks an id up."""
    return [
        ("GET", "/exam/api/attempts/a%00b", None, True),
        ("POST", "/exam/api/attempts/a%00b/submit", None, True),
        ("GET", "/exam/api/attempts/a%00b/credential", None, True),
        ("GET", "/exam/api/attempts/a%00b/certificate.pdf", None, True),
        ("PUT", "/exam/api/attempts/a%00b/answers/0", {"response": 1}, True),
        ("POST", "/exam/api/verify", {"id": "urn:uuid:\x00"}, False),
        ("POST", "/exam/api/admin/revoke", {"credential_id": "a\x00"}, False),
    ]


def assert_nul_refused(client, learner_headers: dict, admin_token: str) -> None:
    admin = {"Authorization": f"Bearer {admin_token}"}
    for method, path, body, as_learner in nul_requests(admin_token):
        headers = learner_headers if as_learner else admin
        response = client.request(method, path, json=body, headers=headers)
        assert response.status_code in (404, 422), (method, path, response.text)
        assert response.json()["error"], (method, path, response.text)


def test_nul_characters_are_refused_not_server_errors(client, learner):
    learner.start()
    assert_nul_refused(client, learner.headers, "test-admin-token")
