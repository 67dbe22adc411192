"""The course's one browser library (``src/nccl_course/static/nccl-page.js``): the page's
language (``S()``), JSON requests and small DOM helpers, for the exam server's pages and the
book's scripts alike.

- No other script defines its own ``S``, request helper or ``fetch`` call: one behaviour.
- The library, run in Node with a page of several strings tables: translation with ``{field}``
  filling, the fallbacks, the language and decimal separator, and the error envelope of a refused
  request turned into an Error.
- Every page loads it before its users: the exam pages' ``<script>`` order, and the book's
  extensions registering it ahead of their scripts (Sphinx orders scripts by priority).
- The server and the book serve this very file (no copy).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nccl_course import sphinx_static
from nccl_course.book import progress
from nccl_course.i18n import html_pages
from nccl_course.narration import sphinx_directive as narration
from nccl_course.quiz import sphinx_directive as quiz
from nccl_course.server.routes import pages
from nccl_course.sphinx_static import PAGE_LIBRARY, PAGE_LIBRARY_DIR, PAGE_LIBRARY_PRIORITY
from nccl_course.viz import sphinx_explorers

PACKAGE = Path(sphinx_static.__file__).parent
LIBRARY = PAGE_LIBRARY_DIR / PAGE_LIBRARY
SCRIPTS = sorted(p for p in PACKAGE.rglob("*.js") if "static" in p.relative_to(PACKAGE).parts)
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (make setup)")

# A definition of one of the library's helpers: `function S(`, `const S =`, `S = function`...
# A script that runs in Node too takes the library as `page` and its S as `var S = page.S;`
# (the extractor of interface strings reads bare `S("...")` calls): that names, not defines.
_NAMES = r"(?P<name>S|requestJson|requestBlob|send)"
_DEFINED = re.compile(
    rf"\bfunction\s+{_NAMES}\s*\("
    rf"|\b(?:var|let|const)\s+{_NAMES.replace('name', 'bound')}\s*=(?!\s*page\.(?P=bound)\s*;)"
    rf"|(?<![\w.$]){_NAMES.replace('name', 'set')}\s*=\s*(?:function|\()"
)


def test_the_library_is_found_and_is_the_only_definition():
    assert LIBRARY.is_file() and LIBRARY in SCRIPTS
    assert _DEFINED.search(LIBRARY.read_text(encoding="utf-8"))
    for script in SCRIPTS:
        if script == LIBRARY:
            continue
        source = script.read_text(encoding="utf-8")
        found = [m.group(0) for m in _DEFINED.finditer(source)]
        assert not found, f"{script.relative_to(PACKAGE)} defines {found}: use nccl-page.js's"
        # Requests go through requestJson/requestBlob, which turn a refusal into its sentence.
        assert not re.search(r"(?<![\w.$])fetch\(|XMLHttpRequest", source), script.name


def test_the_definition_check_sees_each_form():
    for source in (
        "function S(text) {}",
        "  var S = function (t) {};",
        "const requestJson = async () => 1;",
        "S = (t) => t;",
    ):
        assert _DEFINED.search(source), source
    # Calls, and a script taking the library's S under its own name, are not definitions.
    for source in ('S("Saved")', "page.S(x)", "requestJson(method, url)", "var S = page.S;"):
        assert not _DEFINED.search(source), source


# Run with `node -e RUNNER TABLES`: process.argv[1] is the JSON list of the page's tables.
RUNNER = r"""
const tables = JSON.parse(process.argv[1]);
globalThis.document = {
  readyState: "complete",
  documentElement: { getAttribute: (name) => (name === "lang" ? "tr-TR" : null) },
  querySelectorAll: (selector) => tables.map((t) => ({ textContent: t })),
};
const lib = require(LIBRARY);
const out = {};
out.translated = lib.S("Attempt {number}", { number: 2 });
out.missingField = lib.S("Attempt {number}", {});
out.untranslated = lib.S("Not in a table {x}", { x: 1 });
out.emptyEntry = lib.S("Empty");
out.fromSecondTable = lib.S("Correct.");
out.language = lib.pageLanguage();
out.withLanguage = lib.withLanguage("/exam/api/attempts?x=1");
out.percent = lib.formatPercent(0.875);
out.number = lib.formatNumber(1.5, 2);
out.decimals = lib.localizeDecimals("1.5 ms and 2.25 GB/s, v1.2");
out.escaped = lib.escapeHtml(`<a href="x">'&'</a>`);
const answers = [
  { status: 403, body: JSON.stringify({ error: "email_unconfirmed", detail: "Onaylayın." }) },
  { status: 502, body: "<html>bad gateway</html>" },
  { status: 200, body: JSON.stringify({ ok: true }) },
];
const sent = [];
globalThis.fetch = async (url, init) => {
  sent.push({ url, method: init.method, headers: init.headers, body: init.body });
  const answer = answers.shift();
  return {
    ok: answer.status < 400, status: answer.status,
    json: async () => JSON.parse(answer.body), blob: async () => answer.body,
  };
};
(async () => {
  const errors = [];
  for (let i = 0; i < 2; i++) {
    try { await lib.requestJson("POST", "/exam/api/x", { body: { a: 1 }, token: "k" }); }
    catch (err) { errors.push({ message: err.message, status: err.status, code: err.code ?? null }); }
  }
  out.errors = errors;
  out.ok = await lib.requestJson("GET", "/exam/api/y");
  out.sent = sent;
  process.stdout.write(JSON.stringify(out));
})();
"""


@needs_node
def test_the_library_reads_every_table_of_the_page_as_one():
    """An exam page's table gives the language; a book page's tables (one per widget) give
    none, so <html lang> does; an empty entry falls back to the English, as the server's
    Translator does."""
    tables = [
        {"strings": {"Attempt {number}": "{number}. deneme", "Empty": ""}},
        {"strings": {"Correct.": "Doğru.", "{value} %": "%{value}"}, "decimal": ","},
        "not JSON",
    ]
    texts = [t if isinstance(t, str) else json.dumps(t) for t in tables]
    result = subprocess.run(
        [NODE, "-e", RUNNER.replace("LIBRARY", json.dumps(str(LIBRARY))), json.dumps(texts)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["translated"] == "2. deneme"
    assert out["missingField"] == "{number}. deneme"
    assert out["untranslated"] == "Not in a table 1"
    assert out["emptyEntry"] == "Empty"
    assert out["fromSecondTable"] == "Doğru."
    assert out["language"] == "tr"
    assert out["withLanguage"] == "/exam/api/attempts?x=1&lang=tr"
    assert out["percent"] == "%87,5" and out["number"] == "1,50"
    assert out["decimals"] == "1,5 ms and 2,25 GB/s, v1,2"
    assert out["escaped"] == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
    assert out["errors"] == [
        {"message": "Onaylayın.", "status": 403, "code": "email_unconfirmed"},
        {"message": "HTTP 502", "status": 502, "code": None},
    ]
    assert out["ok"] == {"ok": True}
    first = out["sent"][0]
    assert first["method"] == "POST" and json.loads(first["body"]) == {"a": 1}
    assert first["headers"]["Authorization"] == "Bearer k"
    assert first["headers"]["Content-Type"] == "application/json"
    assert "Content-Type" not in out["sent"][2]["headers"]


def test_the_library_finds_the_tables_the_pages_carry():
    """Its selector names the exam pages' table (``html_pages.STRINGS_ID``) and the book
    widgets' (``nccl-*-strings``), which the extensions write."""
    source = LIBRARY.read_text(encoding="utf-8")
    selector = re.search(r"const STRINGS_TABLES = '([^']+)'", source).group(1)
    assert f"#{html_pages.STRINGS_ID}" in selector
    assert '[class^="nccl-"][class$="-strings"]' in selector
    for css_class in (
        progress.STRINGS_CLASS,
        sphinx_explorers.STRINGS_CLASS,
        narration.STRINGS_CLASS,
        "nccl-quiz-strings",
    ):
        assert re.fullmatch(r"nccl-[\w-]+-strings", css_class), css_class
    assert '"nccl-quiz-strings"' in Path(quiz.__file__).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["exam.html", "verify.html", "confirm.html"])
def test_each_exam_page_loads_the_library_first(name):
    sources = html_pages.script_sources((pages.STATIC / name).read_text(encoding="utf-8"))
    assert sources[0] == pages.LIBRARY_URL + PAGE_LIBRARY, sources
    assert pages.SCRIPT_FOLDERS[pages.LIBRARY_URL] == PAGE_LIBRARY_DIR
    for src in sources[1:]:
        assert (
            src.startswith(pages.STATIC_URL)
            and (pages.STATIC / src[len(pages.STATIC_URL) :]).is_file()
        )


class _RecordingApp:
    """Just enough of a Sphinx application for an extension's ``setup``: records the scripts
    it adds (with Sphinx's default priority, 500) and the static folders it serves."""

    def __init__(self):
        self.scripts: list[tuple[str, int]] = []
        self.handlers: list = []

    def add_js_file(self, filename, priority=500, **_):
        self.scripts.append((filename, priority))

    def connect(self, event, handler, priority=500):
        self.handlers.append((event, handler))

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


@pytest.mark.parametrize(
    "extension", [progress, quiz, sphinx_explorers, narration], ids=lambda m: m.__name__
)
def test_each_book_extension_loads_the_library_before_its_script(extension):
    app = _RecordingApp()
    extension.setup(app)
    assert (PAGE_LIBRARY, PAGE_LIBRARY_PRIORITY) in app.scripts
    others = [priority for name, priority in app.scripts if name != PAGE_LIBRARY]
    assert all(priority > PAGE_LIBRARY_PRIORITY for priority in others), app.scripts
    # Scripts added per page (explorers, narration) are added at Sphinx's default priority too.
    source = Path(extension.__file__).read_text(encoding="utf-8")
    assert not re.search(r"add_js_file\([^)]*priority", source), extension.__name__
    # The library's folder is served to the book (config-inited adds it to html_static_path).
    config = type("Config", (), {"html_static_path": []})()
    for event, handler in app.handlers:
        if event == "config-inited":
            handler(app, config)
    assert str(PAGE_LIBRARY_DIR) in config.html_static_path


def test_the_server_serves_the_file_itself():
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    app = FastAPI()
    pages.mount_static(app, type("Settings", (), {"mathjax_dir": None})())
    response = TestClient(app).get(pages.LIBRARY_URL + PAGE_LIBRARY)
    assert response.status_code == 200
    assert response.content == LIBRARY.read_bytes()
