"""Check gettext catalogs against their templates, and the markup a translation must keep.

Templates (.pot) are made from the English sources: the book's by Sphinx's gettext builder,
the quiz banks' by ``nccl_course.quiz.translation``. Catalogs (.po) under
``locales/LANG/LC_MESSAGES/`` hold the translations. ``sphinx-intl update`` merges a new
template into its catalog and marks an entry *fuzzy* when its English changed; a fuzzy entry is
not used by Sphinx (the page would show English), so the check below treats it like a missing
one.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

#: How a maintainer brings the catalogs up to date after changing English text.
UPDATE_HINT = (
    "run `make translations` to merge the new English into locales/tr/LC_MESSAGES/ (changed "
    "entries are marked fuzzy), translate each listed entry, delete its '#, fuzzy' line, and "
    "run the check again (see CONTRIBUTING.md, 'Translations')"
)

# Markup a translation must carry over unchanged. Each pattern's matches in msgid and msgstr
# must be the same multiset: a dropped citation or a retyped formula is a defect the reader
# of one edition would not see in the other.
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
_ROLE = re.compile(r"\{[a-zA-Z:-]+\}`[^`]*`")
_CODE = re.compile(r"(?<![}`])`[^`\n]+`")
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)|<(https?://[^>\s]+)>")
_PLACEHOLDER = re.compile(r"\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}")
# A message with nothing to translate: markup, numbers and punctuation only.
_NO_WORDS = re.compile(r"[A-Za-zÇĞİÖŞÜçğıöşü]{2,}")
# A separator between digits in math: a decimal point or comma, a grouping comma or dot, or
# MathJax's ``{,}``. A translation writes numbers as its language does (``1{,}875`` for
# ``1.875``, nccl_course.i18n.numbers), so math is compared with these set aside: its digits,
# symbols and order still have to be the source's.
_MATH_NUMBER_SEPARATOR = re.compile(r"(?<=\d)(?:\{,\}|[.,])(?=\d)")


def _math_key(math: str) -> str:
    return _MATH_NUMBER_SEPARATOR.sub("\u00b7", math)


def _target_only(role: str) -> str:
    """``{ref}`target``` for ``{ref}`Some title <target>```: a link's text is translated."""
    m = re.fullmatch(r"(\{[a-zA-Z:-]+\})`(.*)<([^<>]+)>`", role, re.S)
    return f"{m.group(1)}`{m.group(3)}`" if m else role


def kept_markup(text: str) -> Counter:
    """The markup of ``text`` that a translation must keep: math, roles, code, targets."""
    found: Counter = Counter()
    rest = text
    for kind, pattern in (("math", _MATH), ("role", _ROLE), ("code", _CODE)):
        for m in pattern.finditer(rest):
            piece = m.group(0)
            if kind == "math" or piece.startswith("{math}"):
                piece = _math_key(piece)
            elif kind == "role":
                piece = _target_only(piece)
            found[(kind, piece)] += 1
        rest = pattern.sub(" ", rest)
    found.update(("link", m.group(1) or m.group(2)) for m in _LINK_TARGET.finditer(rest))
    found.update(
        ("placeholder", re.sub(r"\s", "", m.group(0))) for m in _PLACEHOLDER.finditer(text)
    )
    return found


def needs_words(msgid: str) -> bool:
    """Whether ``msgid`` has words to translate once math, code and citations are set aside."""
    rest = msgid
    for pattern in (_MATH, _ROLE, _CODE, _LINK_TARGET, _PLACEHOLDER):
        rest = pattern.sub(" ", rest)
    rest = re.sub(r"https?://\S+", " ", rest)
    return bool(_NO_WORDS.search(rest))


@dataclass(frozen=True)
class Problem:
    """One catalog entry that keeps an edition from being complete and current."""

    catalog: str  # path of the .po, relative to the repository root
    msgid: str
    context: str | None
    kind: str  # "missing catalog", "untranslated", "fuzzy", "markup"
    detail: str = ""

    def describe(self) -> str:
        where = f"{self.catalog}"
        if self.context:
            where += f" [{self.context}]"
        text = self.msgid if len(self.msgid) <= 90 else self.msgid[:87] + "..."
        line = f"{where}: {self.kind}: {text!r}"
        return line + (f" ({self.detail})" if self.detail else "")


def load(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def message_problems(message: Message) -> list[tuple[str, str]]:
    """(kind, detail) for one catalog entry: untranslated, fuzzy, or markup not kept."""
    msgstr = message.string if isinstance(message.string, str) else ""
    if not msgstr.strip():
        return [("untranslated", "")]
    if message.fuzzy:
        return [("fuzzy", "the English changed since it was translated")]
    want, got = kept_markup(message.id), kept_markup(msgstr)
    if want != got:
        lost = sorted(v for _k, v in (want - got).elements())
        extra = sorted(v for _k, v in (got - want).elements())
        detail = []
        if lost:
            detail.append("translation lacks " + ", ".join(lost))
        if extra:
            detail.append("translation adds " + ", ".join(extra))
        return [("markup", "; ".join(detail))]
    return []


def check(root: Path, pot_dir: Path, po_dir: Path) -> list[Problem]:
    """Every problem that keeps the catalogs in ``po_dir`` from covering ``pot_dir``.

    ``pot_dir`` holds the templates made from the English now; an English sentence with no
    translated, non-fuzzy entry in the matching .po is a problem, and so is a translated entry
    that drops the markup it must keep.
    """
    problems: list[Problem] = []
    for pot_path in sorted(pot_dir.rglob("*.pot")):
        rel = pot_path.relative_to(pot_dir).with_suffix(".po")
        po_path = po_dir / rel
        shown = str(po_path.relative_to(root)) if po_path.is_relative_to(root) else str(po_path)
        template = load(pot_path)
        if not po_path.exists():
            problems.append(Problem(shown, "", None, "missing catalog"))
            continue
        catalog = load(po_path)
        for tmsg in template:
            if not tmsg.id:
                continue
            message = catalog.get(tmsg.id, context=tmsg.context)
            if message is None:
                problems.append(Problem(shown, str(tmsg.id), tmsg.context, "untranslated"))
                continue
            for kind, detail in message_problems(message):
                problems.append(Problem(shown, str(tmsg.id), tmsg.context, kind, detail))
    return problems


#: The context suffix of a quiz question's accepted text answers (``nccl_course.quiz
#: .translation``): a translation adds the language's names to the English ones, so it starts
#: as the English itself.
ANSWERS_CONTEXT_SUFFIX = " (answers)"


def prefill(path: Path) -> int:
    """Copy msgid to msgstr for entries with nothing to translate; returns how many.

    Table cells such as ``$x_0$`` or ``0`` read the same in every language; filling them here
    leaves translators only the entries that have words. A question's accepted answers start as
    the English ones (a translator adds the language's names to them).
    """
    from babel.messages.pofile import write_po

    catalog = load(path)
    filled = 0
    for message in catalog:
        answers = (message.context or "").endswith(ANSWERS_CONTEXT_SUFFIX)
        if message.id and not message.string and (answers or not needs_words(str(message.id))):
            message.string = message.id
            filled += 1
    if filled:
        with path.open("wb") as f:
            write_po(f, catalog, width=0)
    return filled
