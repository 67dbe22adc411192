"""Numbers as each language writes them, the language negotiated from a browser's header, and
the switcher's links between the two editions."""

from __future__ import annotations

import posixpath

import pytest

from nccl_course.book.language_switch import other_page_url
from nccl_course.i18n.interface import negotiate, translator
from nccl_course.i18n.numbers import delocalize_number, localize_decimals
from nccl_course.quiz.units import ResponseError, read_number


@pytest.mark.parametrize(
    "english, turkish",
    [
        ("1.5 ms", "1,5 ms"),
        ("50,000 h", "50.000 h"),
        ("1,234,567.25 B", "1.234.567,25 B"),
        ("64 MiB", "64 MiB"),
    ],
)
def test_localize_decimals(english, turkish):
    assert localize_decimals(english, "tr") == turkish
    assert localize_decimals(english, "en") == english


def test_turkish_answers_read_with_a_decimal_comma():
    assert read_number("1,5", "ms", decimal=",") == 1.5
    assert read_number("1,5 s", "ms", decimal=",") == 1500.0
    assert read_number("1.5", "ms", decimal=",") == 1.5  # a point is still a decimal point
    assert read_number("-0,25", "", decimal=",") == -0.25
    assert delocalize_number("1,5", ".") == "1,5"
    with pytest.raises(ResponseError):
        read_number("1,5", "ms")  # English never reads a comma as a decimal point
    with pytest.raises(ResponseError):
        read_number("1,5,3", "ms", decimal=",")


def test_language_from_accept_language():
    assert negotiate("tr-TR,tr;q=0.9,en-US;q=0.8") == "tr"
    assert negotiate("en-US,en;q=0.9,tr;q=0.5") == "en"
    assert negotiate("de-DE,tr;q=0.3") == "tr"
    assert negotiate("de-DE") == "en" and negotiate(None) == "en" and negotiate("") == "en"
    assert negotiate("tr;q=0, en;q=0.1") == "en"
    assert negotiate("tr;q=abc") == "en"


def test_translator_fills_fields_and_falls_back_to_english():
    tr = translator("tr")
    assert tr("no such string {x}", x=1) == "no such string 1"
    assert translator("en")("Question {number} of {total}", number=2, total=5) == (
        "Question 2 of 5"
    )
    with pytest.raises(ValueError, match="unknown language"):
        translator("xx")


@pytest.mark.parametrize("page", ["index", "book/intro", "book/collectives/03-all-reduce"])
def test_switcher_links_round_trip(page):
    """From a page in one edition to the same page in the other, and back."""
    en_file = page + ".html"
    tr_file = "tr/" + page + ".html"
    to_tr = other_page_url(page, "en", "tr")
    assert posixpath.normpath(posixpath.join(posixpath.dirname(en_file), to_tr)) == tr_file
    to_en = other_page_url(page, "tr", "en")
    assert posixpath.normpath(posixpath.join(posixpath.dirname(tr_file), to_en)) == en_file
