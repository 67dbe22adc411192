"""The progress page, the lab checkbox and the cost-model explorers in Debian's chromium, offline,
on small books built here in each language (not the whole book): on a Turkish page every text
the scripts write is Turkish and numbers carry a decimal comma; on an English page the texts are
the English ones the other browser tests read."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import re
import shutil
import textwrap
import threading
from pathlib import Path

import pytest
from sphinx.application import Sphinx

from nccl_course.i18n.catalog_numbers import leftovers
from nccl_course.viz.explorer_data import write_data

# Each conf.py names its own source_suffix: myst_parser adds ".md" to the dict it is given,
# and Sphinx's default dict is one object shared by every build in this process.
OWN_SUFFIXES = 'source_suffix = {".md": "markdown"}\n'
REPO = Path(__file__).resolve().parents[2]
UPLOT = REPO / "node_modules" / "uplot" / "dist"
THEME_NOISE = "Got invalid theme mode"
READY = "() => document.querySelector('.nccl-progress[data-state=\"ready\"]') !== null"

# A page that holds two practice questions (what the {quiz} directive records) without a bank.
FAKE_QUIZ = """
from docutils import nodes
from sphinx.util.docutils import SphinxDirective


class FakeQuiz(SphinxDirective):
    def run(self):
        node = nodes.container()
        node["nccl_quiz_questions"] = ["c/q1", "c/q2"]
        return [node]


def setup(app):
    app.add_directive("fake-quiz", FakeQuiz)
"""


@contextlib.contextmanager
def served(folder: Path):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def sphinx_build(src: Path, out: Path, doctrees: Path) -> Path:
    app = Sphinx(str(src), str(src), str(out), str(doctrees), "html", status=None)
    app.build()
    return out


# -- progress ----------------------------------------------------------------------------------


def progress_book(folder: Path, language: str) -> Path:
    src = folder / "src"
    (src / "labs" / "01-x").mkdir(parents=True)
    (src / "labs" / "01-x" / "lab.yaml").write_text("id: 01-x\n")
    (src / "labs" / "01-x" / "README.md").write_text("# Lab 01\n\nText.\n")
    (src / "chapter.md").write_text("# Chapter\n\n```{fake-quiz}\n```\n")
    (src / "progress.md").write_text("# Progress\n\n```{progress}\n```\n")
    (src / "index.md").write_text(
        textwrap.dedent(
            """\
            # Home

            ```{progress-continue}
            ```

            ```{toctree}
            chapter
            labs/01-x/README
            progress
            ```
            """
        )
    )
    (src / "fake_quiz.py").write_text(FAKE_QUIZ)
    (src / "conf.py").write_text(
        "import sys\nsys.path.insert(0, __import__('os').path.dirname(__file__))\n"
        'extensions = ["myst_parser", "nccl_course.book.progress", "fake_quiz"]\n'
        f'language = "{language}"\n' + OWN_SUFFIXES
    )
    return sphinx_build(src, folder / "html", folder / "doctrees")


PROGRESS_TEXTS = {
    "en": {
        "lab_note": "Marked done (kept in this browser).",
        "continue": "Continue where you left off:",
        "visited": "✓ visited",
        "quiz": "1 of 2 answered, score 50 %",
        "lab": "✓ done",
        "summary": "Visited 3 of 3 pages; practice questions answered: 1 of 2 (score 50 %, best "
        "answer per question); labs done: 1 of 1.",
        "bad": "Not imported: the file does not hold a JSON object. Nothing was changed.",
        "exported": "Exported to nccl-course-progress.json.",
        "confirm": "Clear your progress in this browser",
        "cleared": "Progress cleared.",
        "not_visited": "—",
        "not_done": "not yet",
    },
    "tr": {
        "lab_note": "Tamamlandı olarak işaretlendi (bu tarayıcıda saklanır).",
        "continue": "Kaldığınız yerden devam edin:",
        "visited": "✓ ziyaret edildi",
        "quiz": "1/2 soru cevaplandı, puan %50",
        "lab": "✓ tamamlandı",
        "summary": "Ziyaret edilen sayfa: 3/3; cevaplanan alıştırma sorusu: 1/2 (puan %50, her "
        "soruda en iyi cevap sayılır); tamamlanan lab: 1/1.",
        "bad": "İçe aktarılmadı: dosyada bir JSON nesnesi yok. Hiçbir şey değiştirilmedi.",
        "exported": "Dışa aktarıldı: nccl-course-progress.json.",
        "confirm": "Bu tarayıcıdaki ilerlemeniz",
        "cleared": "İlerleme silindi.",
        "not_visited": "—",
        "not_done": "henüz değil",
    },
}


@pytest.mark.parametrize("language", ["tr", "en"])
def test_progress_in_each_language(offline_page, tmp_path, language):
    want = PROGRESS_TEXTS[language]
    site = progress_book(tmp_path, language)
    page = offline_page.page
    with served(site) as url:
        page.goto(url + "/chapter.html")
        page.evaluate(
            "document.dispatchEvent(new CustomEvent('nccl-quiz-graded', "
            "{detail: {chapter: 'c', qid: 'q1', score: 1}}))"
        )
        page.goto(url + "/labs/01-x/README.html")
        page.locator(".nccl-progress-lab-done").check()
        assert page.locator(".nccl-progress-lab-note").inner_text().strip() == want["lab_note"]
        page.goto(url + "/index.html")
        cont = page.locator(".nccl-progress-continue")
        assert cont.is_visible()
        assert cont.inner_text().startswith(want["continue"])

        page.goto(url + "/progress.html")
        page.wait_for_function(READY)

        def cell(doc, name):
            return page.locator(f'tr[data-doc="{doc}"] .nccl-progress-{name}').inner_text()

        assert cell("index", "visited") == want["visited"]
        assert cell("chapter", "quiz") == want["quiz"]
        assert cell("labs/01-x/README", "lab") == want["lab"]
        assert page.locator(".nccl-progress-summary").inner_text() == want["summary"]

        with page.expect_download() as info:
            page.locator(".nccl-progress-export").click()
        assert info.value.suggested_filename == "nccl-course-progress.json"
        assert page.locator(".nccl-progress-message").inner_text() == want["exported"]

        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps([1, 2]))
        page.locator(".nccl-progress-import").set_input_files(str(bad))
        page.wait_for_function(
            f"document.querySelector('.nccl-progress-message').textContent === {want['bad']!r}"
        )

        asked = []

        def answer(dialog):
            asked.append(dialog.message)
            dialog.accept()

        page.once("dialog", answer)
        page.locator(".nccl-progress-clear").click()
        assert asked and asked[0].startswith(want["confirm"]), asked
        assert page.locator(".nccl-progress-message").inner_text() == want["cleared"]
        assert cell("index", "visited") == want["not_visited"]
        assert cell("labs/01-x/README", "lab") == want["not_done"]
    assert offline_page.external == []
    errors = [e for e in offline_page.console_errors if not e.startswith(THEME_NOISE)]
    assert errors == [], errors


# -- explorers ---------------------------------------------------------------------------------

EXPLORERS_PAGE = """\
# Explorers

```{cost-explorer} algorithms
:collective: all_reduce
:preset: h100-nvlink
```

```{cost-explorer} nccl
:preset: h100-nvls
```

```{cost-explorer} schedule
```

```{cost-explorer} training
```
"""
TEXTS = """(root) => ({
  labels: [...root.querySelectorAll('.nccl-explorer-controls label')].map(
    (l) => l.firstChild.textContent.trim()),
  headers: [...root.querySelectorAll('.nccl-explorer-table th')].map((th) => th.textContent),
  titles: [...root.querySelectorAll('.u-title')].map((t) => t.textContent),
  legend: [...root.querySelectorAll('.u-legend th, .u-legend .u-label')].map(
    (t) => t.textContent),
  notes: [...root.querySelectorAll('.nccl-explorer-out p')].map((p) => p.textContent),
  cells: [...root.querySelectorAll('.nccl-explorer-table td')].map((td) => td.textContent),
  options: [...root.querySelectorAll('option')].map((o) => o.textContent),
  text: root.innerText,
})"""
# Words of the English interface; a Turkish explorer shows none of them.
ENGLISH = re.compile(
    r"\b(the|and|of|on|at|per|each|every|fastest|size|time|ranks|steps?|bytes|sent|total|"
    r"channels|pipeline|depth|estimate|pick|picks|tuner|strategy|calls|billion|parameters|"
    r"group|element|sequence|parallel|collective|algorithm|protocol|preset|below|yes|no)\b",
    re.I,
)
TURKISH_LABELS = {
    "algorithms": ["kolektif", "hazır ayar", "rank sayısı", "boyut"],
    "nccl": ["kolektif", "hazır ayar", "rank sayısı", "ölçüm düzeni"],
    "schedule": ["kolektif", "algoritma", "rank sayısı", "boru hattı parça sayısı", "boyut"],
    "training": [
        "model",
        "hazır ayar",
        "grup boyutu",
        "eleman başına bayt",
        "TP dizi paralelliği",
    ],
}
ENGLISH_LABELS = {
    "algorithms": ["collective", "preset", "ranks", "size"],
    "nccl": ["collective", "preset", "ranks", "timed by"],
    "schedule": ["collective", "algorithm", "ranks", "pipeline pieces", "size"],
    "training": ["model", "preset", "group size", "bytes per element", "TP sequence parallel"],
}


@pytest.fixture(scope="module")
def explorer_sites(tmp_path_factory):
    """The page with one explorer of each kind, built in English and in Turkish from data
    made once (it takes tens of seconds)."""
    if not (UPLOT / "uPlot.iife.min.js").exists():
        pytest.fail("node_modules/uplot is missing: run 'npm ci' (make setup)")
    root = tmp_path_factory.mktemp("explorers")
    cache = root / "cache"
    write_data(root / "warm" / "cost-data.js", cache_dir=cache)
    static = root / "static" / "vendor" / "uplot"
    static.mkdir(parents=True)
    for name in ("uPlot.iife.min.js", "uPlot.min.css"):
        shutil.copy2(UPLOT / name, static / name)
    sites = {}
    for language in ("en", "tr"):
        folder = root / language
        src = folder / "src"
        src.mkdir(parents=True)
        (src / "index.md").write_text(EXPLORERS_PAGE)
        (src / "conf.py").write_text(
            'extensions = ["myst_parser", "nccl_course.viz.sphinx_explorers"]\n'
            f'language = "{language}"\nhtml_static_path = [{str(root / "static")!r}]\n'
            + OWN_SUFFIXES
        )
        shutil.copytree(cache, folder / "nccl-explorers-cache")
        sites[language] = sphinx_build(src, folder / "html", folder / "doctrees")
    return sites


def shown(page, url: str) -> dict:
    page.goto(url + "/index.html")
    page.wait_for_function(
        "() => document.querySelectorAll('.nccl-explorer[data-ready=\"true\"]').length === 4",
        timeout=30000,
    )
    return {
        kind: page.locator(f".nccl-explorer[data-kind='{kind}']").evaluate(TEXTS)
        for kind in ("algorithms", "nccl", "schedule", "training")
    }


def test_explorers_in_turkish(offline_page, explorer_sites):
    with served(explorer_sites["tr"]) as url:
        got = shown(offline_page.page, url)
    for kind, texts in got.items():
        assert texts["labels"] == TURKISH_LABELS[kind], kind
        # Names stay: collectives, algorithms, protocols, presets, models, strategies, units.
        text = re.sub(
            r"\b[a-z0-9]+(?:[_-][a-z0-9]+)+\b|GPT-3 \S+|\(bf16\)|\(fp32\)", " ", texts["text"]
        )
        assert not ENGLISH.findall(text), (kind, ENGLISH.findall(text), texts["text"][:400])
        numbers = [c for c in texts["cells"] if re.fullmatch(r"[\d.,e+-]+", c)]
        assert numbers, kind
        # Turkish groups five or more digits with dots (15.815); a decimal point is English
        assert not [c for c in numbers if leftovers(c, "tr")], (kind, numbers[:10])
    a = got["algorithms"]
    assert a["headers"] == [
        "algoritma",
        "süre (us)",
        "algbw (GB/s)",
        "busbw (GB/s)",
        "boru hattı derinliği",
    ]
    assert a["titles"] == [
        "h100-nvlink üzerinde all_reduce, 8 rank: süre",
        "veri yolu bant genişliği (nccl-tests çarpanı)",
    ]
    assert "NCCL’in tahmini" in a["legend"]
    summary, switches, tuner = a["notes"]
    assert re.fullmatch(
        r"h100-nvlink üzerinde 8 rank ile 64 MiB boyutunda all_reduce: en hızlısı \w+, "
        r"\d+(,\d+)? us, busbw \d+(,\d+)? GB/s\.",
        summary,
    ), summary
    assert re.search(r"\d,\d", summary), summary
    assert switches.startswith("En hızlı algoritmanın değiştiği yerler: ") or switches.endswith(
        "her boyutta en hızlısı."
    )
    assert tuner.startswith("NCCL ") and " ayarlayıcısının seçimi: " in tuner
    assert tuner.endswith("(kendi tahmini, kesikli çizgi).")
    assert any(cell.endswith(" (en hızlı)") for cell in a["cells"])
    assert got["nccl"]["headers"] == [
        "boyut",
        "algoritma",
        "protokol",
        "kanal",
        "süre (us)",
        "busbw (GB/s)",
        "bir çağrının süresi (us)",
        "bir çağrının busbw değeri (GB/s)",
    ]
    assert got["nccl"]["notes"][-1].startswith("NCCL’in kendi tahmini (kesikli)")
    assert got["nccl"]["titles"] == ["h100-nvls üzerinde 8 rank ile all_reduce için NCCL’in seçimi"]
    s = got["schedule"]
    assert (
        s["headers"][0] == "rank" and s["headers"][1] == "1. adım" and s["headers"][-1] == "toplam"
    )
    assert s["notes"][0].endswith(
        "adım; her hücre, rank’in o adımda gönderdiği veridir (1 MiB boyutunda bir kolektif)."
    )
    t = got["training"]
    assert t["headers"] == [
        "strateji",
        "adım başına kolektif çağrı",
        "rank başına gönderilen bayt",
        "hazır ayarda süre (ms)",
    ]
    assert [c for c in t["cells"] if not re.match(r"[\d,]", c)][:3] == [
        "DDP",
        "FSDP / ZeRO-3",
        "tensör paralelliği",
    ]
    assert "hayır" in t["options"] and "evet" in t["options"]
    assert re.search(
        r"\d+(,\d+)? milyar parametre \(12 L h² \+ V h\), grup başına 8 rank", t["notes"][0]
    )
    assert offline_page.external == []
    assert offline_page.console_errors == []


def test_explorers_in_english(offline_page, explorer_sites):
    with served(explorer_sites["en"]) as url:
        got = shown(offline_page.page, url)
    for kind, texts in got.items():
        assert texts["labels"] == ENGLISH_LABELS[kind], kind
    a = got["algorithms"]
    assert a["headers"] == [
        "algorithm",
        "time (us)",
        "algbw (GB/s)",
        "busbw (GB/s)",
        "pipeline depth",
    ]
    assert a["titles"] == [
        "all_reduce on h100-nvlink, 8 ranks: time",
        "bus bandwidth (nccl-tests factor)",
    ]
    assert re.fullmatch(
        r"all_reduce of 64 MiB on 8 ranks of h100-nvlink: fastest \w+, [\d.]+ us, busbw [\d.]+ "
        r"GB/s\.",
        a["notes"][0],
    ), a["notes"][0]
    assert a["notes"][2].startswith("NCCL ") and a["notes"][2].endswith("(its estimate, dashed).")
    assert any(cell.endswith(" (fastest)") for cell in a["cells"])
    s = got["schedule"]
    assert s["headers"][:2] == ["rank", "step 1"] and s["headers"][-1] == "total"
    t = got["training"]
    assert t["headers"] == [
        "strategy",
        "collective calls per step",
        "bytes sent per rank",
        "time on preset (ms)",
    ]
    assert "tensor parallel" in t["cells"] and "no" in t["options"]
    assert offline_page.external == []
    assert offline_page.console_errors == []
