"""The Turkish edition's style check: glossary terms (locales/tr/glossary.yml), suffixes on
acronyms and names, the apostrophe and the quotation marks (:mod:`.turkish_suffixes`).

A term is checked against the English it translates: a rejected Turkish form is a problem only
where the English source has the term's word outside code and math, and no other glossary
entry whose English is also there prefers that form ("factor" is *çarpan*, "coefficient" is
*katsayı*; "graph" is *graf*, "plot" is *grafik*).

    python -m nccl_course.i18n.turkish_terms check          # every catalog under locales/tr
    python -m nccl_course.i18n.turkish_terms fix PO [PO...]  # rewrite what the rules can fix

``fix`` handles one catalog at a time: it reads it, fixes it and writes it at once, so that
changes others make to other catalogs in the meantime are kept. What it cannot fix (a rejected
form with no entry under ``forms``, an odd number of quotation marks) it lists for a person.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.messages.catalog import Message
from babel.messages.pofile import read_po, write_po

from nccl_course import yaml_text
from nccl_course.i18n import turkish_suffixes as suffixes

REPO = Path(__file__).resolve().parents[3]
GLOSSARY = REPO / "locales" / "tr" / "glossary.yml"
CATALOGS = REPO / "locales" / "tr" / "LC_MESSAGES"
# English that is not prose: code, roles, math, tags and link targets.
_MENTIONED = re.compile(r"(?<!\*)\*[^*\n]+\*(?!\*)")
_NOT_PROSE = re.compile(r"```.*?```|`[^`]*`|\$\$.*?\$\$|\$[^$\n]+\$|<[^<>\n]*>|\]\([^)]*\)", re.S)


@dataclass(frozen=True)
class Term:
    """One glossary entry (see locales/tr/glossary.yml)."""

    english: str
    source: re.Pattern
    turkish: str
    accepts: re.Pattern
    rejected: tuple[re.Pattern, ...]
    forms: dict[str, str]
    note: str = ""


@cache
def terms(path: Path = GLOSSARY) -> tuple[Term, ...]:
    """The glossary's entries, in file order."""
    data = yaml_text.safe_load(path.read_text(encoding="utf-8"))
    return tuple(
        Term(
            english=t["english"],
            source=re.compile(t["source"], re.I),
            turkish=t["turkish"],
            accepts=re.compile(t["accepts"]),
            rejected=tuple(re.compile(r) for r in t["rejected"]),
            forms=dict(t.get("forms") or {}),
            note=t.get("note", ""),
        )
        for t in data["terms"]
    )


def _english_prose(msgid: str) -> str:
    return _NOT_PROSE.sub(" ", msgid)


def term_findings(msgid: str, msgstr: str, glossary: tuple[Term, ...] | None = None):
    """Rejected Turkish forms in ``msgstr`` for the terms whose English is in ``msgid``."""
    glossary = terms() if glossary is None else glossary
    english = _english_prose(msgid)
    present = [t for t in glossary if t.source.search(english)]
    # A word in single asterisks is mentioned, not used ("never *günlük*" on the glossary page).
    prose = _MENTIONED.sub(lambda m: " " * len(m.group(0)), suffixes.prose(msgstr))
    found = []
    for term in present:
        for pattern in term.rejected:
            for m in pattern.finditer(prose):
                word = m.group(0)
                if any(other.accepts.fullmatch(word) for other in present if other is not term):
                    continue
                found.append(
                    suffixes.Finding(
                        "term",
                        word,
                        term.forms.get(word, term.turkish),
                        f"{term.english!r} is {term.turkish!r} in this book",
                    )
                )
    return found


def message_findings(message: Message) -> list[suffixes.Finding]:
    """Every style problem of one catalog entry (all plural forms)."""
    if not message.id or not message.string:
        return []
    ids = message.id if isinstance(message.id, tuple) else (message.id,)
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    found = []
    for text in strings:
        if text == ids[-1]:
            continue  # kept as the English has it: a name, a command, the glossary's English
        found += term_findings(ids[-1], text)
        found += suffixes.suffix_findings(text)
        found += suffixes.punctuation_findings(text, ids[-1])
    return found


def catalog_paths(root: Path = CATALOGS) -> list[Path]:
    return sorted(root.rglob("*.po"))


def load(path: Path):
    with path.open("rb") as f:
        return read_po(f)


def check(root: Path = CATALOGS) -> list[str]:
    """One line per problem in the catalogs under ``root``."""
    lines = []
    for path in catalog_paths(root):
        for message in load(path):
            for finding in message_findings(message):
                where = f"{path.relative_to(root)}:{message.lineno}"
                lines.append(f"{where}: {finding.describe()}")
    return lines


def fixed_message(msgid: str, text: str) -> tuple[str, Counter]:
    """``text`` with the rules applied, and how many changes of each kind that made."""
    counts: Counter = Counter()
    new = text
    for finding in term_findings(msgid, text):
        if finding.found not in _all_forms():
            continue
        new = re.sub(rf"(?<!\w){re.escape(finding.found)}(?!\w)", finding.wanted, new)
    if new != text:
        counts["term"] += 1
    suffix_fixed = suffixes.fixed(new, msgid)
    if suffixes.suffix_findings(new):
        counts["suffix"] += 1
    if suffixes.punctuation_findings(new, msgid):
        counts["punctuation"] += 1
    return suffix_fixed, counts


@cache
def _all_forms() -> frozenset[str]:
    return frozenset(word for t in terms() for word in t.forms)


def fix(path: Path) -> tuple[Counter, list[str]]:
    """Fix one catalog in place; returns the entries changed by kind, and what is left."""
    catalog = load(path)
    counts: Counter = Counter()
    changed = False
    for message in catalog:
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        results = [fixed_message(ids[-1], s) if s != ids[-1] else (s, Counter()) for s in strings]
        new = tuple(r[0] for r in results)
        if new != strings:
            changed = True
            message.string = new if isinstance(message.string, tuple) else new[0]
            for _, c in results:
                counts.update(c)
    if changed:  # an unchanged catalog is not rewritten (babel would reformat it)
        with path.open("wb") as f:
            write_po(f, catalog, width=0)
    left = [f"{path}:{m.lineno}: {f.describe()}" for m in load(path) for f in message_findings(m)]
    return counts, left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="list every problem in locales/tr")
    fixer = sub.add_parser("fix", help="rewrite catalogs, one at a time")
    fixer.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.command == "check":
        problems = check()
        for line in problems:
            print(line)
        return 1 if problems else 0
    total: Counter = Counter()
    for path in args.paths:
        counts, left = fix(path)
        total.update(counts)
        print(f"{path}: {dict(counts)}")
        print("\n".join(left), file=sys.stderr)
    print(f"entries changed: {dict(total)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
