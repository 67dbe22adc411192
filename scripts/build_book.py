"""Build the book: the English edition, the templates of its translations, their check, and
the Turkish edition (``make book``). Logic lives in nccl_course.book.editions."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nccl_course.book import editions

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--edition",
        choices=["all", *editions.LANGUAGES],
        default="all",
        help="build one edition only (default: both, with the catalog check between them)",
    )
    parser.add_argument(
        "--draft",
        action="store_true",
        help="build a translated edition with missing translations (shown in English) and "
        "without failing on warnings: to look at work in progress, never for publishing",
    )
    args = parser.parse_args()
    languages = editions.LANGUAGES if args.edition == "all" else (args.edition,)
    for language in languages:
        started = time.monotonic()
        if language != editions.SOURCE_LANGUAGE:
            if editions.write_templates(ROOT) != 0:
                print("the gettext build failed (see above)", file=sys.stderr)
                return 1
            report = editions.catalog_report(ROOT, language)
            if report and not args.draft:
                print(report, file=sys.stderr)
                return 1
        status = editions.build(ROOT, editions.html_edition(language), strict=not args.draft)
        if status != 0 and not args.draft:
            return status
        print(f"{language} edition built in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
