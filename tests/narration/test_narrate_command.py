"""``nccl-course narrate`` on a small tree of its own: only changed scripts are synthesized."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

PAGES = {
    "book/part/01-first": ("First page, first paragraph.", "First page, second paragraph."),
    "book/part/02-second": ("Second page, one paragraph.", "Second page, another one."),
}
TURKISH = {
    "First page, first paragraph.": "Birinci sayfa, birinci paragraf.",
    "First page, second paragraph.": "Birinci sayfa, ikinci paragraf.",
    "Second page, one paragraph.": "İkinci sayfa, bir paragraf.",
    "Second page, another one.": "İkinci sayfa, bir tane daha.",
}


def write_tree(root: Path, turkish: dict[str, str]) -> None:
    for docname, paragraphs in PAGES.items():
        page = root / f"{docname}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(paragraphs)
        page.write_text(f"# Page\n\n:::{{narration}}\n{body}\n:::\n")
        catalog = Catalog(locale="tr")
        for p in paragraphs:
            catalog.add(p, turkish[p])
        po = root / "locales/tr/LC_MESSAGES" / f"{docname}.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        with po.open("wb") as f:
            write_po(f, catalog)


def narrate(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nccl_course", "narrate", "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_only_the_changed_script_is_synthesized_again(tmp_path):
    write_tree(tmp_path, TURKISH)
    check = narrate(tmp_path, "--lang", "tr", "--check")
    assert check.returncode == 1 and "2 audio file(s) missing" in check.stdout

    first = narrate(tmp_path, "--lang", "tr")
    assert first.returncode == 0, first.stderr
    assert "made 2 audio file(s)" in first.stdout
    files = sorted((tmp_path / "narration/tr").rglob("*.ogg"))
    assert [f.name.split(".")[0] for f in files] == ["01-first", "02-second"]
    untouched = files[0].stat()

    again = narrate(tmp_path, "--lang", "tr")
    assert again.returncode == 0 and "every narration is current" in again.stdout

    edited = dict(TURKISH, **{"Second page, another one.": "İkinci sayfa, değişen cümle."})
    write_tree(tmp_path, edited)
    assert "1 audio file(s) missing" in narrate(tmp_path, "--lang", "tr", "--check").stdout
    third = narrate(tmp_path, "--lang", "tr", "book/part/02-second.md")
    assert "made 1 audio file(s)" in third.stdout, third.stderr
    after = sorted((tmp_path / "narration/tr").rglob("*.ogg"))
    assert after[0] == files[0] and after[0].stat().st_mtime_ns == untouched.st_mtime_ns
    assert after[1] != files[1] and not files[1].exists()
    assert narrate(tmp_path, "--lang", "tr", "--check").returncode == 0


def test_untranslated_script_and_unknown_page_are_clear_errors(tmp_path):
    write_tree(tmp_path, TURKISH)
    po = tmp_path / "locales/tr/LC_MESSAGES/book/part/01-first.po"
    po.unlink()
    out = narrate(tmp_path, "--lang", "tr", "--check")
    assert out.returncode == 1
    assert "book/part/01-first: no tr catalog" in out.stderr
    missing = narrate(tmp_path, "book/nowhere.md")
    assert missing.returncode != 0 and "no page book/nowhere.md" in missing.stderr
    assert "Traceback" not in missing.stderr + out.stderr
