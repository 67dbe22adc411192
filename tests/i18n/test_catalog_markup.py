"""A translated paragraph stays the kind of block its English is. Sphinx parses each
translation as Markdown and keeps the English when the result is another kind of node: a
Turkish sentence that opens with an ordinal ("1. adım", "3. ve 4. adımları") is read as an
ordered list, and the page silently shows the English paragraph or heading."""

from __future__ import annotations

import re
from pathlib import Path

from nccl_course.i18n.catalogs import load

REPO = Path(__file__).resolve().parents[2]
PAGES = REPO / "locales" / "tr" / "LC_MESSAGES"
# What opens a Markdown block other than a paragraph: a list item (1. 1) - * +), a heading,
# a quote.
BLOCK_START = re.compile(r"(\d{1,9}[.)]|[-*+])(\s|$)|#{1,6}\s|>")


def test_no_translation_opens_a_block_its_english_does_not():
    wrong = []
    for folder in ("book", "labs", "notebooks"):
        for path in sorted((PAGES / folder).rglob("*.po")):
            for m in load(path):
                text = m.string if isinstance(m.string, str) else ""
                if m.id and text and BLOCK_START.match(text) and not BLOCK_START.match(m.id):
                    wrong.append(f"{path.relative_to(PAGES)}: {text[:60]}")
    assert wrong == [], "start these translations with a word (Birinci adım, ...):\n" + "\n".join(
        wrong
    )


def test_the_rule_sees_an_ordinal_as_a_list():
    assert BLOCK_START.match("1. adım: model ve planlar")
    assert not BLOCK_START.match("Birinci adım: model ve planlar")
    assert not BLOCK_START.match("1,5 kat")
