"""Bring the translation catalogs up to date with the English (``make translations``).

Makes every template from the English now (book pages, quiz banks, interface strings), merges
each into locales/LANG/LC_MESSAGES/ with sphinx-intl (a changed English entry keeps its old
translation, marked fuzzy; a new one is empty), and fills entries that have nothing to
translate (math, numbers, code). Then lists what is left to translate.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from nccl_course.book import editions
from nccl_course.i18n.catalogs import check, prefill

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    if editions.write_templates(ROOT) != 0:
        print("the gettext build failed (see above)", file=sys.stderr)
        return 1
    for language in editions.translated_languages():
        subprocess.run(
            [
                str(Path(sys.executable).with_name("sphinx-intl")),
                "update",
                "-p",
                str(ROOT / editions.GETTEXT_DIR),
                "-d",
                str(ROOT / editions.LOCALE_DIR),
                "-l",
                language,
                "-w",
                "0",
            ],
            check=True,
        )
        po_dir = ROOT / editions.LOCALE_DIR / language / "LC_MESSAGES"
        filled = sum(prefill(p) for p in po_dir.rglob("*.po"))
        problems = check(ROOT, ROOT / editions.GETTEXT_DIR, po_dir)
        print(f"{language}: filled {filled} entries with nothing to translate")
        for p in problems:
            print(p.describe())
        print(f"{language}: {len(problems)} entries to translate or review")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
