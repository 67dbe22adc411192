"""Build the book: the English edition, the templates of its translations, their check, and
the Turkish edition (``make book``). Logic lives in nccl_course.book.editions.

The templates (Sphinx's gettext builder on the English build's doctrees, about 8 s) are made
in a second process while the Turkish edition builds. The Turkish edition is
published only if the check finds every English sentence translated.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from nccl_course.book import editions
from nccl_course.book.exam_links import EXAM_URL_ENV

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--edition",
        choices=["all", *editions.LANGUAGES],
        default="all",
        help="build one edition only (default: both, with the catalog check)",
    )
    parser.add_argument(
        "--draft",
        action="store_true",
        help="build a translated edition with missing translations (shown in English) and "
        "without failing on warnings: to look at work in progress, never for publishing",
    )
    parser.add_argument(
        "--exam-url",
        metavar="URL",
        help="the course server's address (https://exam.example.org) when the book is hosted "
        "apart from it: the exam and verify links then point there (default: $"
        + EXAM_URL_ENV
        + ", else relative to the book's own site root, for a book the server serves)",
    )
    args = parser.parse_args()
    if args.exam_url is not None:
        # Read by the Sphinx extension (nccl_course.book.exam_links) in this process and in
        # the template process it spawns.
        os.environ[EXAM_URL_ENV] = args.exam_url
    languages = editions.LANGUAGES if args.edition == "all" else (args.edition,)
    for language in languages:
        started = time.monotonic()
        if language == editions.SOURCE_LANGUAGE:
            status = editions.build(ROOT, editions.html_edition(language))
            if status != 0:
                return status
            print(f"{language} edition built in {time.monotonic() - started:.0f} s")
            continue
        # The notebooks are in the shared cache now (the English build ran them), so the
        # templates and the Turkish read below execute nothing and can run side by side.
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
            templates = pool.submit(
                editions.write_templates,
                ROOT,
                english_built=editions.SOURCE_LANGUAGE in languages,
            )
            status = editions.build(ROOT, editions.html_edition(language), strict=not args.draft)
            templates_status = templates.result()
        if templates_status != 0:
            print("the gettext build failed (see above)", file=sys.stderr)
            return 1
        report = editions.catalog_report(ROOT, language)
        if report and not args.draft:
            shutil.rmtree(ROOT / editions.html_edition(language).published, ignore_errors=True)
            print(report, file=sys.stderr)
            return 1
        if status != 0 and not args.draft:
            return status
        print(f"{language} edition built in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
