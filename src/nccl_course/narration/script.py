"""The script for the ear of a chapter: the paragraphs of its ``{narration}`` directive.

A page holds its script as a colon fence right after its reading time::

    :::{narration}
    First paragraph, one line.

    Second paragraph.
    :::

The English text is read from the page; a translated script is the page's gettext catalog
applied paragraph by paragraph (the msgid of a paragraph is its text with the line breaks made
spaces, as Sphinx's gettext builder writes it), so the audio of an edition is made from exactly
the words its page shows under the player.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nccl_course.i18n.languages import LANGUAGES, SOURCE_LANGUAGE

#: The repository root (src/nccl_course/narration -> the root).
ROOT = Path(__file__).resolve().parents[3]
DIRECTIVE = "narration"
_FENCE = re.compile(rf"^:::\{{{DIRECTIVE}\}}[ \t]*\n(.*?)^:::[ \t]*$", re.M | re.S)
#: Characters a script for the ear never has: markup the transcript would show raw and the
#: voice would read aloud or skip (formulas, code, emphasis, links, tables).
FORBIDDEN = re.compile(r"[*_`$\[\]{}<>|#\\]")
#: About two minutes spoken (the issue's 250-350 words).
WORDS = (250, 350)


class ScriptError(ValueError):
    """A page's script is missing, malformed or not translated; the message says what to do."""


def normalize(text: str) -> str:
    """``text`` with every run of white space one space (how gettext keys a paragraph)."""
    return re.sub(r"\s+", " ", text).strip()


def paragraphs_of(body: str) -> list[str]:
    """The paragraphs of a directive's content, each normalized."""
    return [normalize(p) for p in re.split(r"\n[ \t]*\n", body) if p.strip()]


def word_count(paragraphs: list[str]) -> int:
    return sum(len(p.split()) for p in paragraphs)


@dataclass(frozen=True)
class Script:
    """What a chapter's narration says in one language."""

    docname: str  # the page without suffix, relative to the root: "book/collectives/01-broadcast"
    language: str
    paragraphs: tuple[str, ...]

    @property
    def text(self) -> str:
        """The paragraphs as one text, paragraphs separated by a blank line."""
        return "\n\n".join(self.paragraphs)

    @property
    def words(self) -> int:
        return word_count(list(self.paragraphs))


def source_paragraphs(page_text: str, where: str = "the page") -> list[str]:
    """The English paragraphs of the ``{narration}`` directive of a page's MyST source."""
    found = _FENCE.findall(page_text)
    if not found:
        raise ScriptError(f"{where} has no :::{{{DIRECTIVE}}} ... ::: block")
    if len(found) > 1:
        raise ScriptError(f"{where} has {len(found)} {DIRECTIVE} blocks; a page has one")
    paragraphs = paragraphs_of(found[0])
    if not paragraphs:
        raise ScriptError(f"{where}: its {DIRECTIVE} block is empty")
    return paragraphs


def catalog_file(docname: str, language: str, root: Path = ROOT) -> Path:
    """The gettext catalog of a page in ``language`` (Sphinx's, one per page)."""
    return root / "locales" / language / "LC_MESSAGES" / f"{docname}.po"


def translate(paragraphs: list[str], docname: str, language: str, root: Path = ROOT) -> list[str]:
    """``paragraphs`` in ``language`` from the page's catalog (fuzzy entries do not count,
    as Sphinx does not use them)."""
    from nccl_course.i18n.catalogs import load

    path = catalog_file(docname, language, root)
    if not path.exists():
        raise ScriptError(f"{docname}: no {language} catalog at {path.relative_to(root)}")
    messages = {
        normalize(str(m.id)): normalize(m.string)
        for m in load(path)
        if m.id and isinstance(m.string, str) and m.string and not m.fuzzy
    }
    missing = [p for p in paragraphs if p not in messages]
    if missing:
        first = missing[0][:70]
        raise ScriptError(
            f"{docname}: {len(missing)} paragraph(s) of its narration have no current {language} "
            f"translation (first: {first!r}...); run `make translations` and translate them in "
            f"{path.relative_to(root)}"
        )
    return [messages[p] for p in paragraphs]


def docname_of(page: Path, root: Path = ROOT) -> str:
    return page.resolve().relative_to(root.resolve()).with_suffix("").as_posix()


def load_script(page: Path, language: str = SOURCE_LANGUAGE, root: Path = ROOT) -> Script:
    """The script of ``page`` (a .md path) in ``language``."""
    if language not in LANGUAGES:
        raise ScriptError(f"unknown language {language!r}; the course has {', '.join(LANGUAGES)}")
    docname = docname_of(page, root)
    paragraphs = source_paragraphs(page.read_text(encoding="utf-8"), docname)
    if language != SOURCE_LANGUAGE:
        paragraphs = translate(paragraphs, docname, language, root)
    return Script(docname, language, tuple(paragraphs))


def narrated_pages(root: Path = ROOT) -> list[Path]:
    """Every page of the book with a narration, in file-name order."""
    pages = [root / "book" / "intro.md", *sorted((root / "book").glob("*/*.md"))]
    return [p for p in pages if p.exists() and f":::{{{DIRECTIVE}}}" in p.read_text("utf-8")]


def problems(script: Script) -> list[str]:
    """What keeps ``script`` from being a script for the ear (length, markup)."""
    out = []
    low, high = WORDS
    if script.language == SOURCE_LANGUAGE and not low <= script.words <= high:
        out.append(f"{script.words} words; a two-minute script has {low} to {high}")
    for i, paragraph in enumerate(script.paragraphs, 1):
        bad = sorted(set(FORBIDDEN.findall(paragraph)))
        if bad:
            out.append(f"paragraph {i} has markup characters {' '.join(bad)}; write words")
    return out
