"""A text question accepts the Turkish names of things in the Turkish bank (from its catalog's
``ID (answers)`` entry) as well as the English answers; the English bank accepts the English
only; the browser's grading reads Turkish the same way."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from nccl_course.i18n.catalogs import load, prefill
from nccl_course.quiz import grade_key, load_bank
from nccl_course.quiz.grading import normalize_text
from nccl_course.quiz.keys import answer_key
from nccl_course.quiz.sphinx_directive import STATIC
from nccl_course.quiz.translation import accepted_answers, template, translate_bank

REPO = Path(__file__).resolve().parents[2]
LOCALES = REPO / "locales"


def score(bank, qid: str, typed: str) -> float:
    key = answer_key(bank.question(qid).instantiate(0))
    return grade_key(key, typed).score


@pytest.mark.parametrize(
    ("chapter", "qid", "english", "turkish"),
    [
        ("gather-scatter", "scatter-inverse", "gather", "toplama"),
        ("reduce", "reduce-mirror", "broadcast", "yayın"),
        ("reduce-scatter", "rs-plus-ag", "all-reduce", "tümüyle indirgeme"),
        ("nccl-internals", "large-message-protocol", "Simple", "basit"),
    ],
)
def test_turkish_names_score_in_the_turkish_bank_only(chapter, qid, english, turkish):
    bank = load_bank(REPO / "quizzes" / f"{chapter}.yml")
    turkish_bank = translate_bank(bank, "tr", LOCALES)
    assert score(turkish_bank, qid, turkish) == 1.0
    assert score(turkish_bank, qid, english) == 1.0  # the English name still scores
    assert score(bank, qid, english) == 1.0
    assert score(bank, qid, turkish) == 0.0  # the English edition does not know it
    key = answer_key(turkish_bank.question(qid).instantiate(0))
    assert key["display"] == bank.question(qid).answers[0]  # the answer shown stays English


def test_a_mistake_is_still_a_mistake_in_turkish():
    bank = translate_bank(load_bank(REPO / "quizzes" / "gather-scatter.yml"), "tr", LOCALES)
    key = answer_key(bank.question("scatter-inverse").instantiate(0))
    assert grade_key(key, "all-gather").outcome == "mistake:0"


def test_dotted_and_dotless_i_are_one_letter():
    assert normalize_text("YAYIN") == normalize_text("yayın") == normalize_text("yayin")
    assert normalize_text("İndirgeme") == normalize_text("indirgeme")
    bank = translate_bank(load_bank(REPO / "quizzes" / "reduce.yml"), "tr", LOCALES)
    assert score(bank, "reduce-mirror", "YAYIN") == 1.0


def test_a_translation_adds_answers_and_never_removes_one(tmp_path):
    bank = load_bank(REPO / "quizzes" / "reduce-scatter.yml")
    q = bank.question("rs-plus-ag")
    assert accepted_answers(q, "tümüyle indirgeme") == (*q.answers, "tümüyle indirgeme")
    assert accepted_answers(q, "allreduce|all-reduce | ") == q.answers

    # The template carries the answers; a new entry starts as the English (prefill), and a
    # catalog without it yet accepts the English only.
    entry = next(m for m in template(bank) if m.context == "rs-plus-ag (answers)")
    assert entry.id == "all-reduce | allreduce"
    po = tmp_path / "reduce-scatter.po"
    catalog = Catalog(locale="tr")
    catalog.add(entry.id, context=entry.context)
    with po.open("wb") as f:
        write_po(f, catalog)
    assert prefill(po) == 1
    assert load(po).get(entry.id, context=entry.context).string == entry.id


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_browser_normalizes_turkish_as_python_does(tmp_path):
    words = ["YAYIN", "yayın", "İndirgeme", "Tümüyle İndirgeme", "All-Gather", "ışık"]
    script = tmp_path / "normalize.js"
    script.write_text(
        "const quiz = require(process.argv[2]);\n"
        "process.stdout.write(JSON.stringify(JSON.parse(process.argv[3])"
        ".map(quiz.normalizeText)));\n",
        encoding="utf-8",
    )
    out = subprocess.run(
        [NODE, str(script), str(STATIC / "nccl-quiz.js"), json.dumps(words)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [normalize_text(w) for w in words]
