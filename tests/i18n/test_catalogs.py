"""The catalog rules: what a translation must keep, and the check that fails the build when an
English sentence has no current translation (changed English becomes fuzzy, and the build
says how to update the catalogs)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import write_po

from nccl_course.book.editions import catalog_report
from nccl_course.i18n import po_work
from nccl_course.i18n.catalogs import (
    UPDATE_HINT,
    check,
    kept_markup,
    load,
    message_problems,
    needs_words,
    prefill,
)

REPO = Path(__file__).resolve().parents[2]
REAL_PAGE = REPO / "locales" / "tr" / "LC_MESSAGES" / "book" / "collectives" / "03-all-reduce.po"


def write(path: Path, catalog: Catalog) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=0)
    return path


def test_translation_must_keep_math_code_citations_and_link_targets():
    english = (
        "The ring sends $2(p-1)/p$ of the buffer with `all_reduce` {footcite}`patarasuk2009`; "
        "see {ref}`the ring chapter <ring>` and [the docs](https://docs.nvidia.com/x)."
    )
    good = (
        "Halka, `all_reduce` ile arabelleğin $2(p-1)/p$ kadarını gönderir "
        "{footcite}`patarasuk2009`; bkz. {ref}`halka bölümü <ring>` ve "
        "[belgeler](https://docs.nvidia.com/x)."
    )
    assert kept_markup(english) == kept_markup(good)
    assert message_problems(Message(english, good)) == []
    for broken, lost in (
        (good.replace("{footcite}`patarasuk2009`", ""), "{footcite}`patarasuk2009`"),
        (good.replace("$2(p-1)/p$", "$2(p - 1)/p$"), "$2(p-1)/p$"),
        (good.replace("<ring>", "<tree>"), "{ref}`ring`"),
        (good.replace("https://docs.nvidia.com/x", "https://example.org"), "docs.nvidia.com"),
    ):
        [(kind, detail)] = message_problems(Message(english, broken))
        assert kind == "markup" and lost in detail


def test_untranslated_and_fuzzy_entries_are_problems():
    assert message_problems(Message("Ring", "")) == [("untranslated", "")]
    fuzzy = Message("Ring", "Halka", flags={"fuzzy"})
    assert [k for k, _ in message_problems(fuzzy)] == ["fuzzy"]
    assert message_problems(Message("{{size}} buffer", "{{ size }} arabellek")) == []
    assert message_problems(Message("{{size}} buffer", "arabellek"))[0][0] == "markup"


def test_prefill_copies_only_entries_without_words(tmp_path):
    catalog = Catalog(locale="tr")
    for text in ("$x_0 + x_1$", "0", "`NCCL_ALGO`", "rank", "Ring all-reduce"):
        catalog.add(text)
    path = write(tmp_path / "p.po", catalog)
    assert prefill(path) == 3
    strings = {m.id: m.string for m in load(path) if m.id}
    assert strings["$x_0 + x_1$"] == "$x_0 + x_1$"
    assert strings["rank"] == "" and strings["Ring all-reduce"] == ""
    assert not needs_words("{footcite}`a` $p$ 42") and needs_words("the root")


def test_po_work_round_trip_writes_and_reports(tmp_path):
    catalog = Catalog(locale="tr")
    catalog.add("Every rank holds $n$ bytes.")
    catalog.add("Definition")
    path = write(tmp_path / "p.po", catalog)
    exported = po_work.export(path)
    assert "### 0\nEvery rank holds $n$ bytes." in exported and "### 1\nDefinition" in exported
    problems = po_work.import_(path, {0: "Her rank $m$ bayt tutar.", 1: "Tanım"})
    assert len(problems) == 1 and "markup" in problems[0]
    assert po_work.import_(path, {0: "Her rank $n$ bayt tutar."}) == []
    assert po_work.export(path) == ""
    assert po_work.parse_numbered("### 3\nbir\niki\n\n### 4\nüç\n") == {3: "bir\niki", 4: "üç"}


def _template_from(po_path: Path) -> Catalog:
    template = Catalog()
    for message in load(po_path):
        if message.id:
            template.add(message.id, context=message.context)
    return template


def test_a_changed_english_sentence_fails_the_check_until_retranslated(tmp_path):
    """Acceptance: change one English sentence of a real page; the check names it (untranslated
    before `make translations`, fuzzy after it, as sphinx-intl marks it) with the hint."""
    root = tmp_path
    pot_dir = root / "_build" / "gettext"
    po_dir = root / "locales" / "tr" / "LC_MESSAGES"
    rel = REAL_PAGE.relative_to(REPO / "locales" / "tr" / "LC_MESSAGES")
    (po_dir / rel).parent.mkdir(parents=True)
    shutil.copy(REAL_PAGE, po_dir / rel)

    template = _template_from(REAL_PAGE)
    write((pot_dir / rel).with_suffix(".pot"), template)
    assert check(root, pot_dir, po_dir) == [], "the committed page catalog is not complete"
    assert catalog_report(root, "tr", pot_dir) is None

    old = next(m.id for m in template if m.id and m.id.startswith("Every rank holds a buffer"))
    new = old.replace("Every rank holds", "Each rank holds")
    changed = Catalog()
    for m in template:
        if m.id:
            changed.add(new if m.id == old else m.id, context=m.context)
    write((pot_dir / rel).with_suffix(".pot"), changed)

    [problem] = check(root, pot_dir, po_dir)
    assert problem.kind == "untranslated" and problem.msgid == new
    report = catalog_report(root, "tr", pot_dir)
    assert "make translations" in report and UPDATE_HINT in report and str(rel) in report

    # `make translations` merges with sphinx-intl: the old translation stays, marked fuzzy.
    subprocess.run(
        [
            str(Path(sys.executable).with_name("sphinx-intl")),
            "update",
            "-p",
            str(pot_dir),
            "-d",
            str(root / "locales"),
            "-l",
            "tr",
            "-w",
            "0",
        ],
        check=True,
        capture_output=True,
    )
    [problem] = check(root, pot_dir, po_dir)
    assert problem.kind == "fuzzy" and problem.msgid == new
    assert "fuzzy" in catalog_report(root, "tr", pot_dir)
