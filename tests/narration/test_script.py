"""Scripts for the ear: read from the page, translated through the page's catalog, checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from nccl_course.narration.script import (
    ScriptError,
    load_script,
    narrated_pages,
    normalize,
    problems,
    source_paragraphs,
    translate,
)

REPO = Path(__file__).resolve().parents[2]

PAGE = """# Title

*Reading time: about 5 minutes.*

:::{narration}
First paragraph,
wrapped over two lines.

Second   paragraph.
:::

## Definition
"""


def test_paragraphs_of_the_block_with_line_breaks_made_spaces():
    assert source_paragraphs(PAGE) == [
        "First paragraph, wrapped over two lines.",
        "Second paragraph.",
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("# Title\n\nNo block here.\n", "has no :::{narration}"),
        (PAGE + "\n" + PAGE, "has 2 narration blocks"),
        ("# T\n\n:::{narration}\n\n:::\n", "block is empty"),
    ],
)
def test_a_missing_double_or_empty_block_is_an_error_that_says_so(text, message):
    with pytest.raises(ScriptError, match=message):
        source_paragraphs(text, "book/x")


def write_catalog(path: Path, entries: dict[str, str], fuzzy: set[str] = frozenset()) -> None:
    catalog = Catalog(locale="tr")
    for msgid, msgstr in entries.items():
        catalog.add(msgid, msgstr, flags=("fuzzy",) if msgid in fuzzy else ())
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog)


def test_a_translated_script_is_the_catalog_applied_paragraph_by_paragraph(tmp_path):
    (tmp_path / "book").mkdir()
    page = tmp_path / "book" / "x.md"
    page.write_text(PAGE)
    write_catalog(
        tmp_path / "locales/tr/LC_MESSAGES/book/x.po",
        {
            "First paragraph, wrapped over two lines.": "Birinci paragraf.",
            "Second paragraph.": "İkinci   paragraf.",
        },
    )
    script = load_script(page, "tr", tmp_path)
    assert script.docname == "book/x"
    assert script.paragraphs == ("Birinci paragraf.", "İkinci paragraf.")


def test_an_untranslated_or_fuzzy_paragraph_is_an_error_naming_the_fix(tmp_path):
    catalog = tmp_path / "locales/tr/LC_MESSAGES/book/x.po"
    write_catalog(catalog, {"One.": "Bir.", "Two.": "İki."}, fuzzy={"Two."})
    with pytest.raises(ScriptError, match=r"1 paragraph\(s\).*make translations"):
        translate(["One.", "Two."], "book/x", "tr", tmp_path)
    with pytest.raises(ScriptError, match="no tr catalog"):
        translate(["One."], "book/y", "tr", tmp_path)


def test_problems_name_length_and_markup():
    from nccl_course.narration.script import Script

    short = Script("book/x", "en", ("Too short, with `code` and a $formula$.",))
    found = problems(short)
    assert any("words; a two-minute script has 250 to 350" in p for p in found)
    assert any("markup characters $ `" in p for p in found)
    fine = Script("book/x", "en", (" ".join(["word"] * 300),))
    assert problems(fine) == []


def test_normalize_collapses_every_kind_of_white_space():
    assert normalize("  a\n\tb  c \n") == "a b c"


def chapter_pages() -> list[Path]:
    """The book's chapters (tests/book/test_structure.py decides which pages are chapters) and
    its introduction."""
    from tests.book.test_structure import PAGES

    return [REPO / "book" / "intro.md", *PAGES]


@pytest.mark.parametrize("page", chapter_pages(), ids=lambda p: p.relative_to(REPO).as_posix())
@pytest.mark.parametrize("language", ["en", "tr"])
def test_every_chapter_has_a_script_for_the_ear_in_both_languages(page, language):
    script = load_script(page, language)
    assert problems(script) == []
    assert 3 <= len(script.paragraphs) <= 6


def test_every_narrated_page_is_a_chapter_or_the_introduction():
    assert set(narrated_pages()) == set(chapter_pages())
