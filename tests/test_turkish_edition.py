"""The built Turkish edition: every page of the English one, in Turkish (``lang="tr"``), each
with a switcher to its twin; and catalogs that cover every English sentence now."""

from __future__ import annotations

import re
from pathlib import Path

from nccl_course.book.editions import BOOK_TITLE, GETTEXT_DIR, catalog_report
from nccl_course.i18n.interface import translator

REPO = Path(__file__).resolve().parents[1]
SWITCH = re.compile(r'<nav class="nccl-language-switch"[^>]*>.*?href="([^"]+)"', re.S)
NOT_PAGES = {"tr", "_static", "_sources", "_images", "_notebooks", "jupyter_execute"}


def english_pages(book: Path) -> list[Path]:
    return sorted(p for p in book.rglob("*.html") if p.relative_to(book).parts[0] not in NOT_PAGES)


def switch_target(page: Path) -> Path:
    text = page.read_text(encoding="utf-8")
    match = SWITCH.search(text)
    assert match, f"{page} has no language switcher"
    return (page.parent / match.group(1)).resolve()


def test_every_page_has_a_turkish_twin_with_lang_and_switcher(built_book):
    pages = [
        p for p in english_pages(built_book) if '<nav class="nccl-language-switch"' in p.read_text()
    ]
    toc_pages = len(re.findall(r"file:|glob:", (REPO / "_toc.yml").read_text()))
    assert len(pages) > toc_pages, "fewer pages with a switcher than the table of contents has"
    for page in pages:
        twin = built_book / "tr" / page.relative_to(built_book)
        assert twin.exists(), f"{twin} is missing from the Turkish edition"
        head = twin.read_text(encoding="utf-8")[:400]
        assert re.search(r'<html[^>]* lang="tr"', head), f"{twin} is not marked lang=tr"
        assert switch_target(page) == twin.resolve()
        assert switch_target(twin) == page.resolve()


def test_turkish_pages_read_in_turkish(built_book):
    """The chapter text is translated, not the English shown under a Turkish header."""
    page = (built_book / "tr" / "book" / "collectives" / "03-all-reduce.html").read_text()
    assert "Öğrenme hedefleri" in page and "Learning objectives" not in page
    search = (built_book / "tr" / "searchindex.js").read_text(encoding="utf-8")
    assert "arabellek" in search  # the Turkish edition's search finds Turkish words


def test_the_turkish_edition_has_a_turkish_title(built_book):
    from nccl_course import yaml_text

    assert yaml_text.safe_load((REPO / "_config.yml").read_text())["title"] == BOOK_TITLE
    page = (built_book / "tr" / "book" / "glossary.html").read_text(encoding="utf-8")
    assert translator("tr")(BOOK_TITLE) in page and BOOK_TITLE != translator("tr")(BOOK_TITLE)


def test_the_table_of_contents_parts_read_in_turkish(built_book):
    """The sidebar's part captions come from _toc.yml, translated through toc.po."""
    english = (built_book / "book" / "glossary.html").read_text(encoding="utf-8")
    turkish = (built_book / "tr" / "book" / "glossary.html").read_text(encoding="utf-8")
    assert "Collectives" in english and "Kolektifler" in turkish
    assert ">Collectives<" not in turkish.replace("\n", "").replace(" ", "")


def test_catalogs_cover_every_english_sentence(built_book):
    """Acceptance: no untranslated or fuzzy entry (templates made by the book build, so this
    runs once the book is built)."""
    if not (REPO / GETTEXT_DIR).is_dir():
        raise AssertionError("no templates in _build/gettext: run 'make book' first")
    report = catalog_report(REPO, "tr")
    assert report is None, report
