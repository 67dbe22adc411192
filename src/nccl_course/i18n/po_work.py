"""Hand a catalog's untranslated entries to a translator as numbered text, and take them back.

``export`` prints each entry that still needs a translation (or is fuzzy) as::

    ### 12
    The English text of entry 12

and ``import`` reads a file of the same shape with the translations in place of the English,
writes them into the catalog, clears their fuzzy mark, and reports entries whose translation
lost markup it must keep (math, code, citations, link targets). Numbering is by position among
all the catalog's messages, so it stays valid while the catalog is unchanged.

    python -m nccl_course.i18n.po_work export locales/tr/LC_MESSAGES/book/intro.po > intro.txt
    python -m nccl_course.i18n.po_work import locales/tr/LC_MESSAGES/book/intro.po intro.tr.txt
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from babel.messages.pofile import write_po

from nccl_course.i18n.catalogs import load, message_problems

_HEADER = re.compile(r"^### (\d+)\s*$")


def _messages(catalog):
    return [m for m in catalog if m.id]


def export(path: Path, everything: bool = False, translated: bool = False) -> str:
    """The numbered entries of ``path`` that need work (all of them with ``everything``); with
    ``translated``, every entry's current translation instead (for a review pass: edit the
    text and import it back)."""
    out = []
    for n, message in enumerate(_messages(load(path))):
        if translated:
            if message.string:
                out.append(f"### {n}\n{message.string}\n")
        elif everything or not message.string or message.fuzzy:
            out.append(f"### {n}\n{message.id}\n")
    return "\n".join(out)


def parse_numbered(text: str) -> dict[int, str]:
    """``{number: text}`` from ``### N`` blocks; surrounding blank lines are dropped."""
    entries: dict[int, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        m = _HEADER.match(line)
        if m:
            current = entries.setdefault(int(m.group(1)), [])
            continue
        if current is not None:
            current.append(line)
    return {n: "\n".join(lines).strip("\n") for n, lines in entries.items()}


def import_(path: Path, numbered: dict[int, str]) -> list[str]:
    """Write ``numbered`` translations into ``path``; returns a problem per bad entry."""
    catalog = load(path)
    messages = _messages(catalog)
    problems = []
    for n, text in sorted(numbered.items()):
        if n >= len(messages):
            problems.append(f"### {n}: no such entry (the catalog has {len(messages)})")
            continue
        if not text.strip():
            continue
        message = messages[n]
        message.string = text
        message.flags.discard("fuzzy")
        for kind, detail in message_problems(message):
            problems.append(f"### {n}: {kind}: {detail}")
    with path.open("wb") as f:
        write_po(f, catalog, width=0)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="print the entries that need translating")
    e.add_argument("catalog", type=Path)
    e.add_argument("--all", action="store_true", help="every entry, translated or not")
    e.add_argument(
        "--translated", action="store_true", help="every entry's translation, for review"
    )
    i = sub.add_parser("import", help="write translations from a numbered file")
    i.add_argument("catalog", type=Path)
    i.add_argument("translations", type=Path)
    args = parser.parse_args(argv)
    if args.command == "export":
        sys.stdout.write(export(args.catalog, args.all, args.translated))
        return 0
    problems = import_(args.catalog, parse_numbered(args.translations.read_text(encoding="utf-8")))
    for p in problems:
        print(p)
    left = export(args.catalog).count("### ")
    print(f"{args.catalog}: {left} entries still need a translation; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
