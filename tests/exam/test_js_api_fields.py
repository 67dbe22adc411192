"""The exam pages' scripts read and send only what the API's OpenAPI document declares.

``tests/exam/api_fields.cjs`` reads the scripts with acorn (the JavaScript parser ESLint is built
on, already installed by npm) and follows the API's values through them, the way a reader of
the script would:

- An API call is ``requestJson(METHOD, URL, { body })``, ``requestBlob(URL)`` (the course's
  library) or a one-line wrapper of ``requestJson`` (exam.js's ``api(method, url, body)``); its
  URL is a string or a template (``${...}`` matches one path parameter), possibly wrapped in
  ``withLanguage()``. The call must name an operation of the document.
- Its answer has the operation's success schema. That type follows the value into variables
  (``const me = await api(...)``), the script's own object properties (``state.exam = ...``),
  ``||``/``??``/``?:``, ``for (const a of list)``, array callbacks (``.find((a) => ...)``,
  ``.map``, ``.some``...) and ``.find``'s result, and the parameters of the script's functions
  from every call site (``renderResult(result)``); a value seen with several schemas is read as
  any of them (``anyOf``/``oneOf`` alternatives too).
- Every ``.field`` read on a typed value must be a property its schema declares (in at least one
  alternative); methods of arrays and strings are not checked, nor are dictionaries (schemas
  without ``properties``).
- A request body must be an object literal (directly or through a function parameter whose
  callers pass literals, as verify.js's ``verify(body)``), each key declared by the operation's
  request schema.

What it cannot follow (a value stored in a Map, passed through an unknown function) is not
checked rather than guessed: the test below also proves that the checker sees the reads the
scripts make today (``expected calls`` and a sample of fields), and that a misspelt field fails.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHECKER = Path(__file__).with_name("api_fields.cjs")
STATIC = REPO / "src" / "nccl_course" / "server" / "static"
SCRIPTS = ("exam.js", "verify.js", "confirm.js", "share.js")
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not (REPO / "node_modules" / "acorn").is_dir(),
    reason="node and node_modules (make setup) are needed to read the scripts",
)


def check(document: dict, scripts: list[Path], tmp_path: Path) -> dict:
    spec = tmp_path / "openapi.json"
    spec.write_text(json.dumps(document), encoding="utf-8")
    result = subprocess.run(
        [NODE, str(CHECKER), str(spec), *map(str, scripts)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_pages_read_and_send_only_declared_fields(app, tmp_path):
    out = check(app.openapi(), [STATIC / name for name in SCRIPTS], tmp_path)
    problems = [f"{p['file']}:{p['line']}: {p['problem']}" for p in out["problems"]]
    assert not problems, "\n".join(problems)
    seen = {(c["file"], c["method"], c["route"]) for c in out["calls"]}
    # The checker recognises every call the pages make (none slips by unread).
    assert {
        ("exam.js", "GET", "/exam/api/exam"),
        ("exam.js", "POST", "/exam/api/register"),
        ("exam.js", "GET", "/exam/api/me"),
        ("exam.js", "POST", "/exam/api/attempts"),
        ("exam.js", "GET", "/exam/api/attempts/{attempt_id}"),
        ("exam.js", "PUT", "/exam/api/attempts/{attempt_id}/answers/{index}"),
        ("exam.js", "POST", "/exam/api/attempts/{attempt_id}/submit"),
        ("exam.js", "POST", "/exam/api/resend"),
        ("verify.js", "POST", "/exam/api/verify"),
        ("confirm.js", "POST", "/exam/api/confirm"),
        ("share.js", "GET", "/exam/api/credentials/{credential_id}/share"),
    } <= seen, sorted(seen)


MISTAKES = """
async function api(method, url, body) {
  return requestJson(method, url, { body, token: "k" });
}
async function show(attempt) {
  for (const item of attempt.questions) console.log(item.question.promt);
  return attempt.scroe;
}
async function go(id) {
  const me = await api("GET", "/exam/api/me");
  const open = me.attempts.find((a) => a.stauts === "open");
  await api("PUT", `/exam/api/attempts/${id}/answers/1`, { respons: 1 });
  await requestJson("POST", withLanguage("/exam/api/register"), { body: { name: "x", mail: "y" } });
  await requestJson("GET", "/exam/api/nowhere");
  show(await api("GET", `/exam/api/attempts/${id}`));
  return open;
}
"""


def test_the_checker_finds_what_the_document_does_not_declare(app, tmp_path):
    script = tmp_path / "mistakes.js"
    script.write_text(MISTAKES, encoding="utf-8")
    out = check(app.openapi(), [script], tmp_path)
    found = {(p["line"], p["problem"].split(",")[0]) for p in out["problems"]}
    text = "\n".join(p["problem"] for p in out["problems"])
    for needle in (
        "reads .promt of",
        "reads .scroe of",
        "reads .stauts of",
        'sends "respons" to PUT /exam/api/attempts/{attempt_id}/answers/{index}',
        'sends "mail" to POST /exam/api/register',
        "calls GET /exam/api/nowhere",
    ):
        assert needle in text, f"{needle!r} not found in:\n{text}"
    assert len(found) == 6, text
