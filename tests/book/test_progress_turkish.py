"""The progress extension in the Turkish edition: what nccl_course.book.progress writes (table
headers, buttons, the lab checkbox, "continue where you left off") and what static/nccl-progress.js
writes through S() (cells, the summary line, import/export/clear messages) read in Turkish on a
page built with ``language = "tr"``; the English pages are unchanged."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from sphinx.application import Sphinx

from nccl_course.book import progress
from nccl_course.i18n.interface import catalog_path, script_strings, translator

# Each conf.py names its own source_suffix: myst_parser adds ".md" to the dict it is given,
# and Sphinx's default dict is one object shared by every build in this process.
OWN_SUFFIXES = 'source_suffix = {".md": "markdown"}\n'
JS = progress.STATIC / progress.JS_FILE
TR = translator("tr")
NODE = shutil.which("node")
PLACEHOLDER = re.compile(r"\{\w+\}")
# Words that only an English sentence has; a Turkish interface text must have none of them.
ENGLISH = re.compile(
    r"\b(the|and|of|this|your|page|pages|visited|progress|export|import|clear|mark|done|"
    r"answered|score|file|browser|nothing|continue|practice|quiz|not yet)\b",
    re.I,
)


def english_words(text: str) -> list[str]:
    # Names that stay as they are in Turkish: JSON, MiB, the file format's own field names.
    text = re.sub(r'"\w+"|nccl-course|JSON|MiB|\{\w+\}', " ", text)
    return ENGLISH.findall(text)


def test_the_script_shows_nothing_the_extension_does_not_translate():
    """Every S() string of the script is in PAGE_SCRIPT_STRINGS (so a Turkish page carries
    it), and each has a Turkish translation with the same placeholders."""
    shown = set(script_strings(JS.read_text(encoding="utf-8")))
    assert shown == set(progress.PAGE_SCRIPT_STRINGS)
    for text in progress.PAGE_SCRIPT_STRINGS:
        turkish = TR(text)
        assert turkish != text, f"no Turkish for {text!r}"
        assert sorted(PLACEHOLDER.findall(turkish)) == sorted(PLACEHOLDER.findall(text)), text
        assert not english_words(turkish), (text, turkish)


def test_the_script_writes_no_english_sentence_outside_s():
    source = JS.read_text(encoding="utf-8")
    literal = re.compile(
        r"(?:textContent\s*=|\bmessage\(|\brefuse\(|\bconfirm\(|\breturn|\?)\s*([\"'])"
        r"([^\"']*[A-Za-z]{3,}[^\"']*)\1"
    )
    found = [m.group(2) for m in literal.finditer(source)]
    assert [t for t in found if not t.strip().startswith("nccl-")] == []  # class names aside


def test_markup_in_turkish_and_in_english():
    lab = progress.lab_control_markup("labs/01-x/README", "tr")
    assert "Bu lab’ı tamamlandı olarak işaretle" in lab
    assert "Mark this lab done" not in lab
    table = strings_table(lab)
    assert table["Progress cleared."] == "İlerleme silindi."
    assert table["{value} %"] == "%{value}"
    assert "Kaldığınız yerden devam edin:" in progress.continue_markup("tr")

    english = progress.lab_control_markup("labs/01-x/README", "en")
    assert "Mark this lab done</label>" in english
    assert progress.STRINGS_CLASS not in english
    assert progress.continue_markup("en").startswith(
        '<p class="nccl-progress-continue" hidden>Continue where you left off: <a '
    )


def strings_table(markup: str) -> dict:
    m = re.search(
        rf'<script type="application/json" class="{progress.STRINGS_CLASS}">(.*?)</script>',
        markup,
        re.S,
    )
    assert m, "no strings table"
    return json.loads(m.group(1))["strings"]


def build(tmp_path: Path, language: str) -> Sphinx:
    """A small book with a lab and the progress page, built in ``language``."""
    src = tmp_path / "src"
    (src / "labs" / "01-x").mkdir(parents=True)
    (src / "labs" / "01-x" / "lab.yaml").write_text("id: 01-x\n")
    (src / "labs" / "01-x" / "README.md").write_text("# Lab 01\n\nText.\n")
    (src / "chapter.md").write_text("# Chapter\n\nText.\n")
    (src / "progress.md").write_text("# Progress\n\n```{progress}\n```\n")
    (src / "index.md").write_text(
        textwrap.dedent(
            """\
            # Home

            ```{progress-continue}
            ```

            ```{toctree}
            :caption: Part one
            chapter
            labs/01-x/README
            progress
            ```
            """
        )
    )
    (src / "conf.py").write_text(
        f'extensions = ["myst_parser", "nccl_course.book.progress"]\nlanguage = "{language}"\n'
        + OWN_SUFFIXES
    )
    out = tmp_path / "html"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None)
    app.build()
    return app


def depends_on_the_catalog(app: Sphinx, docname: str) -> bool:
    return str(catalog_path("tr")) in app.env.dependencies.get(docname, set())


@pytest.fixture(scope="module")
def turkish_app(tmp_path_factory) -> Sphinx:
    return build(tmp_path_factory.mktemp("progress-tr"), "tr")


def test_turkish_build(turkish_app):
    turkish_site = Path(turkish_app.outdir)
    page = (turkish_site / "progress.html").read_text(encoding="utf-8")
    for text in (
        "<th>Sayfa</th><th>Ziyaret</th><th>Alıştırma testi</th><th>Lab</th>",
        "İlerlemeyi dışa aktar (JSON)",
        "İlerlemeyi dosyadan içe aktar",
        "İlerlemeyi sil",
        "İlerlemeniz tarayıcınızda saklanır",
    ):
        assert text in page, text
    for text in ("Export progress", "Clear progress", "<th>Page</th>", "turn on JavaScript"):
        assert text not in page, text
    table = strings_table(page)
    assert set(table) == set(progress.PAGE_SCRIPT_STRINGS)
    assert table["{answered} of {total} answered"] == "{answered}/{total} soru cevaplandı"

    lab = (turkish_site / "labs" / "01-x" / "README.html").read_text(encoding="utf-8")
    assert "Bu lab’ı tamamlandı olarak işaretle" in lab
    assert strings_table(lab) == table
    home = (turkish_site / "index.html").read_text(encoding="utf-8")
    assert "Kaldığınız yerden devam edin:" in home
    # a change to the catalog rewrites the pages that carry its texts, and only those
    for doc in ("index", "progress", "labs/01-x/README"):
        assert depends_on_the_catalog(turkish_app, doc), doc
    assert not depends_on_the_catalog(turkish_app, "chapter")


def test_english_build_is_unchanged(tmp_path):
    app = build(tmp_path, "en")
    site = Path(app.outdir)
    assert not any(str(catalog_path("tr")) in deps for deps in app.env.dependencies.values())
    page = (site / "progress.html").read_text(encoding="utf-8")
    assert (
        "<th>Page</th><th>Visited</th><th>Practice quiz</th><th>Lab</th>" in page
        and '<button type="button" class="nccl-progress-export">Export progress (JSON)</button>'
        in page
        and "Your progress is kept by your browser; turn on JavaScript to see it." in page
    )
    assert progress.STRINGS_CLASS not in page
    lab = (site / "labs" / "01-x" / "README.html").read_text(encoding="utf-8")
    assert "Mark this lab done</label>" in lab and progress.STRINGS_CLASS not in lab


RUNNER = """
const progress = require(process.argv[2]);
const table = JSON.parse(process.argv[3]);
const bad = [
  [1, 2],
  { hello: "world" },
  { format: "nccl-course-progress", version: 2 },
  { format: "nccl-course-progress", version: 1, visited: {}, last: null, quiz: { "a/b": 7 }, labs: {} },
];
const run = () => bad.map((d) => progress.problem(d)).concat([progress.percent(0.875)]);
const english = run();
progress.useStrings({ strings: table });
process.stdout.write(JSON.stringify({ english, turkish: run() }));
"""


def test_the_script_speaks_the_table_language_in_node(tmp_path):
    if NODE is None:
        pytest.skip("node is not installed (make setup installs it for npm)")
    runner = tmp_path / "run.js"
    runner.write_text(RUNNER)
    table = TR.table(progress.PAGE_SCRIPT_STRINGS)
    result = subprocess.run(
        [NODE, str(runner), str(JS), json.dumps(table)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["english"] == [
        "the file does not hold a JSON object",
        'this is not an nccl-course progress file (no "format": "nccl-course-progress")',
        "unknown version 2 (this page reads version 1)",
        '"quiz" entry "a/b" must be a score from 0 to 1',
        "88 %",
    ]
    assert out["turkish"] == [
        "dosyada bir JSON nesnesi yok",
        'bu bir nccl-course ilerleme dosyası değil ("format": "nccl-course-progress" yok)',
        "bilinmeyen sürüm 2 (bu sayfa 1 sürümünü okur)",
        '"quiz" içindeki "a/b" girdisi 0 ile 1 arasında bir puan olmalı',
        "%88",
    ]
