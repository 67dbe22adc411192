"""The exam server's HTML pages and scripts in Turkish: the translatable texts of a page
(``nccl_course.i18n.html_pages``), the page rebuilt with their translations, the ``S("...")``
strings of the scripts, and an interface catalog that covers all of them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nccl_course.i18n import html_pages
from nccl_course.i18n.catalogs import check
from nccl_course.i18n.interface import (
    marked_strings,
    script_strings,
    template,
    translator,
    write_template,
)
from nccl_course.sphinx_static import PAGE_LIBRARY, PAGE_LIBRARY_DIR

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "src" / "nccl_course" / "server" / "static"
PAGES = ("exam.html", "verify.html", "confirm.html")
# The exam pages' scripts: their own and the course's browser library they load first.
LIBRARY = PAGE_LIBRARY_DIR / PAGE_LIBRARY
SCRIPTS = sorted([*STATIC.glob("*.js"), LIBRARY])
TR = translator("tr")
# Messages that are only placeholders and punctuation read the same in Turkish.
_WORDS = re.compile(r"[A-Za-z]{2,}")

SAMPLE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>A  page</title>
<style>p { color: red }</style></head>
<body>
<header><a href="/">&larr; The book</a></header>
<main>
  <p>First line
     goes on <code>ncclAllReduce</code> and ends.</p>
  <input placeholder="Your name" aria-label="Name" title="1234">
  <img alt="A diagram" src="x.png"/>
  <p translate="no">Keep <b>this</b> as it is</p>
  <p>   </p><p>42 %</p>
  <!-- a comment with words -->
  <script>const x = "not a text";</script>
</main>
</body>
</html>
"""


def page(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def words(text: str) -> bool:
    return bool(_WORDS.search(re.sub(r"\{\w+\}", "", text)))


def test_the_texts_of_a_page():
    assert html_pages.page_texts(SAMPLE) == [
        "A page",  # white space collapsed
        "← The book",  # entities decoded
        "First line goes on",
        "and ends.",
        "Your name",
        "Name",
        "A diagram",
    ]  # not: code, translate="no", blank, no letters, comments, scripts, styles


def test_a_page_is_rebuilt_with_its_translations():
    table = {
        "A page": "Bir sayfa",
        "← The book": "← Kitap",
        "First line goes on": "İlk satır",
        "and ends.": "ile biter.",
        "Your name": "Adınız & soyadınız",
        "Name": "Ad",
        "A diagram": "Bir çizim",
    }
    strings = html_pages.strings_script("tr", ",", {"Attempt {number}": "{number}. deneme </"})
    switch = html_pages.language_switch(
        "tr", {"en": ("English", "?lang=en"), "tr": ("Türkçe", "?lang=tr")}, "Dil"
    )
    out = html_pages.translate_page(
        SAMPLE, "tr", table.__getitem__, strings=strings, switch=switch, hrefs={"/": "/tr/"}
    )
    assert '<html lang="tr">' in out and 'lang="en"' not in out.split("<body>")[0]
    assert "<title>Bir sayfa</title>" in out
    assert '<a href="/tr/">← Kitap</a>' in out
    # the white space around a text stays; markup inside a paragraph is kept
    assert "<p>İlk satır <code>ncclAllReduce</code> ile biter.</p>" in out
    assert 'placeholder="Adınız &amp; soyadınız" aria-label="Ad" title="1234"' in out
    assert '<img alt="Bir çizim" src="x.png"/>' in out
    assert '<p translate="no">Keep <b>this</b> as it is</p>' in out
    assert "<!-- a comment with words -->" in out and 'const x = "not a text";' in out
    head, body = out.split("</head>")
    data = re.search(r'<script type="application/json" id="nccl-strings">(.*?)</script>', head)
    assert data and "</" not in data.group(1)
    assert json.loads(data.group(1)) == {
        "language": "tr",
        "decimal": ",",
        "strings": {"Attempt {number}": "{number}. deneme </"},
    }
    header = body.split("</header>")[0]
    assert (
        '<a href="?lang=en" hreflang="en" lang="en" translate="no" data-language-link="en">'
        "English</a>" in header
    )
    assert '<span lang="tr" translate="no" aria-current="true">Türkçe</span>' in header
    # what a reader meets in the new page: the translations, and the switcher's label
    expected = [table[t] for t in html_pages.page_texts(SAMPLE)]
    assert html_pages.page_texts(out) == [*expected[:2], "Dil", *expected[2:]]


@pytest.mark.parametrize("name", PAGES)
def test_an_untranslated_page_is_the_page_itself(name):
    source = page(name)
    assert html_pages.translate_page(source, "en", lambda text: text) == source


def test_the_template_has_every_text_of_the_pages_and_every_script_string():
    ids = {m.id for m in template() if m.id}
    for name in PAGES:
        texts = html_pages.page_texts(page(name))
        assert texts and set(texts) <= ids, name
    for script in SCRIPTS:
        found = script_strings(script.read_text(encoding="utf-8"))
        assert set(found) <= ids, script.name
    assert "Attempt {number}" in ids and "Choice {number}" in ids and "{value} %" in ids
    # the exam pages' words are not left out, nor is what the server writes
    assert {"Start the exam", "Verify a credential", "Not answered.", "Expected: {expected}"} <= ids


def test_extractors_read_joined_literals_and_script_calls():
    source = 'a = N_("one " "two")\nb = N_(\n    "three "\n    \'four\',\n)\nc = xN_("no")\n'
    assert marked_strings(source) == ["one two", "three four"]
    js = 'S("Saved ({time})", { time }); S("it\\u2019s \\"ok\\""); obj.S("no"); xS("no");'
    assert script_strings(js) == ["Saved ({time})", 'it\u2019s "ok"']


@pytest.mark.parametrize("name", PAGES)
def test_a_turkish_page_has_no_english_text_left(name):
    source = page(name)
    english = html_pages.page_texts(source)
    turkish = html_pages.translate_page(source, "tr", TR)
    left = set(english) & set(html_pages.page_texts(turkish))
    assert not left, f"{name}: untranslated {sorted(left)}"
    assert '<html lang="tr">' in turkish


def test_every_script_string_has_a_turkish_translation():
    for script in SCRIPTS:
        for text in script_strings(script.read_text(encoding="utf-8")):
            if words(text):
                assert TR(text) != text, f"{script.name}: {text!r} has no Turkish"
            assert sorted(re.findall(r"\{\w+\}", TR(text))) == sorted(
                re.findall(r"\{\w+\}", text)
            ), text


def test_the_interface_catalog_covers_the_template(tmp_path):
    """Acceptance: no interface string without a current Turkish translation."""
    write_template(tmp_path)
    problems = check(REPO, tmp_path, REPO / "locales" / "tr" / "LC_MESSAGES")
    assert problems == [], "\n".join(p.describe() for p in problems[:20])


def test_scripts_show_no_english_sentence_outside_s():
    """What a script writes into the page goes through S(): no literal sentence is assigned to
    textContent or given to the message helpers."""
    shown = re.compile(
        r"(?:textContent\s*=|\bmessage\(|\bsay\(|\bconfirm\(|setStatus\(li, \"\w*\",)\s*"
        r"([`\"'])([^`\"']*[A-Za-z]{3,}[^`\"']*)\1"
    )
    for script in SCRIPTS:
        found = [m.group(2) for m in shown.finditer(script.read_text(encoding="utf-8"))]
        assert not found, f"{script.name}: {found}"


def run_page_library(strings: dict, expression: str) -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    table = json.dumps(json.dumps({"language": "tr", "decimal": ",", "strings": strings}))
    # A page whose one table is the exam pages' (#nccl-strings), as the library asks for it.
    script = (
        "globalThis.document = { readyState: 'complete', querySelectorAll: (selector) => "
        f"selector.includes('#nccl-strings') ? [{{ textContent: {table} }}] : [] }};\n"
        + LIBRARY.read_text(encoding="utf-8")
        + f"\nprocess.stdout.write(JSON.stringify({expression}));\n"
    )
    result = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_page_helper_translates_and_writes_turkish_numbers():
    strings = TR.table(["Attempt {number}", "{value} %", "passed"])
    out = run_page_library(
        strings,
        "[S('Attempt {number}', { number: 2 }), formatPercent(0.875), formatPercent(0.7, 0),"
        " formatNumber(1.5, 2), S('passed'), S('Not in the table {x}', { x: 1 }),"
        " pageLanguage(), withLanguage('/exam/api/attempts')]",
    )
    assert out == [
        "2. deneme",
        "%87,5",
        "%70",
        "1,50",
        TR("passed"),
        "Not in the table 1",
        "tr",
        "/exam/api/attempts?lang=tr",
    ]
