"""The cost-model explorers in the Turkish edition: the ``{cost-explorer}`` directive's own text,
and the strings and decimal separator a Turkish page gives static/nccl-explorers.js, whose every
label, legend, axis title and note goes through S(). Names (collectives, Ring, Tree, LL, Simple,
NVLS, presets, models) stay as they are. The browser check is in
tests/browser/test_turkish_widgets.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sphinx.application import Sphinx

from nccl_course.i18n.interface import catalog_path, script_strings, translator
from nccl_course.viz import sphinx_explorers as ex

# Each conf.py names its own source_suffix: myst_parser adds ".md" to the dict it is given,
# and Sphinx's default dict is one object shared by every build in this process.
OWN_SUFFIXES = 'source_suffix = {".md": "markdown"}\n'
JS = ex.STATIC / "nccl-explorers.js"
TR = translator("tr")
PLACEHOLDER = re.compile(r"\{\w+\}")
# Read the same in Turkish: the glossary keeps "model" (and "rank", which is not marked).
SAME_IN_TURKISH = {"model"}
ENGLISH = re.compile(
    r"\b(the|and|of|on|at|per|each|every|fastest|size|time|ranks|step|steps|bytes|sent|total|"
    r"channels|pipeline|depth|estimate|pick|picks|tuner|strategy|calls|billion|parameters|"
    r"group|element|sequence|parallel|collective|algorithm|protocol|preset|below|yes|no|"
    r"explorer|computes|browser|needs|network)\b",
    re.I,
)


def english_words(text: str) -> list[str]:
    # Names and units the Turkish text keeps: busbw, nccl-tests, TP, GB/s, us, ms, NCCL.
    text = re.sub(r"\{\w+\}|nccl-tests|busbw|NCCL|JavaScript", " ", text)
    return ENGLISH.findall(text)


def test_every_string_the_script_shows_is_carried_and_translated():
    shown = set(script_strings(JS.read_text(encoding="utf-8")))
    assert shown == set(ex.PAGE_SCRIPT_STRINGS)
    for text in ex.PAGE_SCRIPT_STRINGS:
        turkish = TR(text)
        if text not in SAME_IN_TURKISH:
            assert turkish != text, f"no Turkish for {text!r}"
        assert sorted(PLACEHOLDER.findall(turkish)) == sorted(PLACEHOLDER.findall(text)), text
        assert not english_words(turkish), (text, turkish)


def test_the_script_writes_no_english_outside_s():
    """No literal with words is given as a text, a control label, a chart title or a table
    header: those go through S(). What is left are names and units (GB/s)."""
    # the S("...") calls themselves set aside
    source = re.sub(r'(?<![\w$.])S\("(?:[^"\\]|\\.)*"', "S(", JS.read_text(encoding="utf-8"))
    shown_as = re.compile(
        r"(?:\btext:\s*|\blabel:\s*|control\(ctrl,\s*\"\w+\",\s*|chart\(\w+,\s*)([`\"'])([^`\"']*)\1"
    )
    words = re.compile(r"[A-Za-z]{3,}")
    found = [m.group(2) for m in shown_as.finditer(source) if words.search(m.group(2))]
    headers = re.findall(r"table\(\[([^\]]*)\]", source)
    found += [h for line in headers for h in re.findall(r"\"([^\"]*)\"", line)]
    names = ("busbw (GB/s)", "algbw (GB/s)", "rank", "rank ${r}")
    assert [t for t in found if t not in names] == []


def test_directive_markup_in_turkish_and_in_english():
    turkish = ex.explorer_markup("algorithms", {"collective": "all_reduce"}, "tr")
    assert 'data-kind="algorithms" data-collective="all_reduce"' in turkish
    assert "Bu keşif aracı hesaplamayı tarayıcınızda yapar" in turkish
    assert "This explorer" not in turkish
    english = ex.explorer_markup("nccl", {}, "en")
    assert english == (
        '<div class="nccl-explorer" data-kind="nccl"><p class="nccl-explorer-noscript">This '
        "explorer computes in your browser: it needs JavaScript (no kernel, no network).</p></div>"
    )


def test_strings_table_has_turkish_and_the_decimal_comma():
    assert ex.strings_script("en") == ""
    table = parse_table(ex.strings_script("tr"))
    assert table["decimal"] == ","
    strings = table["strings"]
    assert set(strings) == set(ex.PAGE_SCRIPT_STRINGS)
    assert strings["collective"] == "kolektif"
    assert strings["preset"] == "hazır ayar"
    assert strings["{algorithm} (fastest)"] == "{algorithm} (en hızlı)"
    assert strings["tensor parallel"] == "tensör paralelliği"


def parse_table(markup: str) -> dict:
    m = re.search(
        rf'<script type="application/json" class="{ex.STRINGS_CLASS}">(.*?)</script>', markup, re.S
    )
    assert m, "no strings table"
    return json.loads(m.group(1))


def fake_data(path: Path, cache_dir=None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("window.NCCL_COURSE_COST_DATA = {};\n")
    return path


@pytest.mark.parametrize("language", ["tr", "en"])
def test_a_page_with_two_explorers(tmp_path, monkeypatch, language):
    """One strings table per Turkish page (none in English), before the first explorer."""
    monkeypatch.setattr(ex, "write_data", fake_data)  # the real data takes tens of seconds
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text(
        "# Explorers\n\n```{cost-explorer} algorithms\n:preset: h100-nvlink\n```\n\n"
        "```{cost-explorer} training\n```\n"
    )
    (src / "conf.py").write_text(
        'extensions = ["myst_parser", "nccl_course.viz.sphinx_explorers"]\n'
        f'language = "{language}"\n' + OWN_SUFFIXES
    )
    out = tmp_path / "html"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None)
    app.build()
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count('class="nccl-explorer"') == 2
    assert "nccl-explorers.js" in page
    depends = str(catalog_path("tr")) in app.env.dependencies.get("index", set())
    assert depends == (language == "tr")  # a Turkish page is re-read when the catalog changes
    if language == "tr":
        assert page.count(ex.STRINGS_CLASS) == 1
        assert page.index(ex.STRINGS_CLASS) < page.index('class="nccl-explorer"')
        assert parse_table(page)["strings"]["size"] == "boyut"
        assert page.count("Bu keşif aracı hesaplamayı tarayıcınızda yapar") == 2
    else:
        assert ex.STRINGS_CLASS not in page
        assert page.count("This explorer computes in your browser") == 2
