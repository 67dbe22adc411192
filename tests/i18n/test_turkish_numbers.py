"""The Turkish edition writes its numbers the Turkish way: no English decimal point or thousands
comma in the prose or math of any Turkish catalog entry (code, link targets, citations and
releases such as NCCL 2.30.7 aside), and the catalog rules still hold the formulas to the
English ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.i18n.catalog_numbers import english_numbers, leftovers, localize_numbers
from nccl_course.i18n.catalogs import kept_markup, load

REPO = Path(__file__).resolve().parents[2]
CATALOGS = sorted((REPO / "locales" / "tr" / "LC_MESSAGES").rglob("*.po"))


def _entries():
    for path in CATALOGS:
        for message in load(path):
            if not message.id or not message.string or message.fuzzy:
                continue
            english = message.id if isinstance(message.id, str) else " ".join(message.id)
            strings = [message.string] if isinstance(message.string, str) else message.string
            for text in strings:
                yield path, english, text


def test_no_english_numbers_in_the_turkish_catalogs():
    found = []
    for path, english, text in _entries():
        for number in leftovers(text, "tr", english):
            around = text[max(0, number.start - 30) : number.start + len(number.text) + 15]
            found.append(f"{path.relative_to(REPO)}: {number.text} in …{around}…")
    assert not found, (
        f"{len(found)} numbers written the English way (run "
        "scripts/localize_catalog_numbers.py, read its list, then --write):\n"
        + "\n".join(found[:30])
    )


@pytest.mark.parametrize(
    "english, turkish, written",
    [
        # Math: decimals with {,} (no space after a comma in TeX), groupings with dots.
        ("$72 \\times 1.8$ TB/s", "$72 \\times 1.8$ TB/s", "$72 \\times 1{,}8$ TB/s"),
        ("$26{,}214{,}400$ B", "$26{,}214{,}400$ bayt", "$26.214.400$ bayt"),
        ("{math}`1.875`", "{math}`1.875`", "{math}`1{,}875`"),
        # Prose with a unit.
        ("busbw of 367.2 GB/s", "367.2 GB/s busbw", "367,2 GB/s busbw"),
        ("26,214,400 bytes", "26,214,400 bayt", "26.214.400 bayt"),
        # A four-digit number the translator grouped: the course writes it plainly.
        ("a hidden size of 4096", "gizli boyut 4.096", "gizli boyut 4096"),
        ("about 4.096 ms", "yaklaşık 4.096 ms", "yaklaşık 4,096 ms"),
        # Left as written: releases, code, addresses, file names, citations, links.
        ("NCCL 2.30.7", "NCCL 2.30.7", "NCCL 2.30.7"),
        ("PyTorch 2.13 and CUDA 12.8", "PyTorch 2.13 ve CUDA 12.8", "PyTorch 2.13 ve CUDA 12.8"),
        ("since NCCL 2.24", "NCCL'in 2.24 sürümünden beri", "NCCL'in 2.24 sürümünden beri"),
        ("NCCL 2.20 to 2.22", "NCCL 2.20–2.22", "NCCL 2.20–2.22"),
        ("`time 59.553600`", "`time 59.553600`", "`time 59.553600`"),
        ("MASTER_ADDR=127.0.0.1", "MASTER_ADDR=127.0.0.1", "MASTER_ADDR=127.0.0.1"),
        ("[notes](https://x.org/v1.5/a.html)", "[notlar](https://x.org/v1.5/a.html)", None),
        ("{footcite}`nccl-2.23`", "{footcite}`nccl-2.23`", None),
        ("```\nx = 1.5\n```", "```\nx = 1.5\n```", None),
    ],
)
def test_localize_numbers(english, turkish, written):
    new, _changes = localize_numbers(turkish, "tr", english)
    assert new == (turkish if written is None else written)
    assert leftovers(new, "tr", english) == []
    # The catalog rule that holds a translation's formulas to the source's still holds.
    assert kept_markup(english) == kept_markup(new) or "$" not in english


def test_a_formula_with_other_digits_is_still_a_markup_defect():
    assert kept_markup("$1.875$") == kept_markup("$1{,}875$")
    assert kept_markup("$26{,}214{,}400$") == kept_markup("$26.214.400$")
    assert kept_markup("$1.875$") != kept_markup("$1{,}876$")


def test_the_check_finds_what_the_english_way_writes():
    found = [n.text for n in english_numbers("367.2 GB/s, $1.875$, 26,214,400 B", "tr")]
    assert found == ["367.2", "1.875", "26,214,400"]
    assert leftovers("367,2 GB/s, $1{,}875$, 26.214.400 B", "tr") == []
    assert english_numbers("1.5 ms", "en") == []
