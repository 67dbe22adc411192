"""Write the numbers of the translated catalogs as their language writes them.

    .venv/bin/python scripts/localize_catalog_numbers.py [--write] [--lang tr] [PO ...]

Without --write it prints what it would change, entry by entry, and the numbers it reads as
releases (``NCCL 2.23``) and leaves: read that list before writing. Code, link targets,
citations and releases stay as written (nccl_course.i18n.catalog_numbers). Each catalog is read
right before it is changed and written, so entries added meanwhile are kept.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

from nccl_course.i18n.catalog_numbers import english_numbers, localize_numbers

REPO = Path(__file__).resolve().parents[1]


def _localize_catalog(path: Path, language: str, write: bool) -> tuple[int, list[str]]:
    with path.open("rb") as f:
        catalog = read_po(f)
    changed = 0
    report = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        english = message.id if isinstance(message.id, str) else " ".join(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        new_strings = []
        for text in strings:
            new, changes = localize_numbers(text, language, english)
            new_strings.append(new)
            for old, replacement in changes:
                at = new.find(replacement)
                around = new[max(0, at - 40) : at + len(replacement) + 15]
                report.append(f"  {old} -> {replacement}   …{around!r}")
            for number in english_numbers(new, language, english):
                if number.reading == "release":
                    around = new[max(0, number.start - 30) : number.start + len(number.text) + 10]
                    report.append(f"  release kept: {number.text}   …{around!r}")
        if new_strings != strings:
            changed += 1
            message.string = (
                new_strings[0] if isinstance(message.string, str) else tuple(new_strings)
            )
    if changed and write:  # read, changed and written at once: entries added meanwhile stay
        with path.open("wb") as f:
            write_po(f, catalog, width=0)
    return changed, report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalogs", nargs="*", type=Path)
    parser.add_argument("--lang", default="tr")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    paths = args.catalogs or sorted((REPO / "locales" / args.lang).rglob("*.po"))
    total = 0
    for path in (p.resolve() for p in paths):
        changed, report = _localize_catalog(path, args.lang, args.write)
        total += changed
        if report:
            print(
                f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: {changed} entries"
            )
            print("\n".join(report))
    print(f"{total} entries {'changed' if args.write else 'to change'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
