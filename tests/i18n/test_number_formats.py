"""Numbers written and read in each language: the Python (nccl_course.i18n.numbers) and the
browser library (nccl-page.js) agree on the same numbers, and what the course writes reads back."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from nccl_course.i18n.numbers import AmbiguousNumber, delocalize_number, format_number
from nccl_course.quiz.units import ResponseError, read_number

LIBRARY = Path(__file__).parents[2] / "src" / "nccl_course" / "static" / "nccl-page.js"


def _numbers() -> list[float]:
    rng = random.Random(20261206)
    values = [0.0, 1.875, 2.18, 26214400, 12500, 1875, 0.125, 2.5, 1.005, 9.995, 99.95, -0.0001]
    values += [123456.0, 1e-7, 3.5e15, 1 / 3, -2 / 3, 367.2, 72 * 1.8, 0.1 + 0.2]
    for _ in range(150):
        magnitude = 10.0 ** rng.randint(-6, 12)
        value = rng.random() * magnitude * rng.choice([1, -1])
        values.append(round(value, rng.randint(0, 6)) if rng.random() < 0.4 else value)
    values += [rng.randint(0, 10**9) for _ in range(30)]
    return values


OPTIONS = [{}, {"digits": 0}, {"digits": 2}, {"digits": 3}, {"sig_figs": 1}, {"sig_figs": 3}]
OPTIONS += [{"sig_figs": 5}, {"math": True}, {"sig_figs": 3, "math": True}]


def _node(expression: str, data) -> object:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = (
        "const page = require(process.argv[1]);\n"
        "const data = JSON.parse(require('fs').readFileSync(0, 'utf-8'));\n"
        f"process.stdout.write(JSON.stringify({expression}));\n"
    )
    result = subprocess.run(
        [node, "-e", script, str(LIBRARY)],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_python_and_the_page_library_write_the_same_numbers():
    cases = [
        (value, language, options)
        for value in _numbers()
        for language in ("en", "tr")
        for options in OPTIONS
    ]
    js = _node(
        "data.map(([v, language, o]) => page.formatNumber(v, "
        "{ digits: o.digits, sigFigs: o.sig_figs, math: o.math, language }))",
        cases,
    )
    python = [format_number(v, lang, **opts) for v, lang, opts in cases]
    differ = [(case, p, j) for case, p, j in zip(cases, python, js, strict=True) if p != j]
    assert not differ, differ[:10]


@pytest.mark.parametrize(
    "value, language, options, written",
    [
        (1.875, "tr", {}, "1,875"),
        (1.875, "tr", {"math": True}, "1{,}875"),
        (26214400, "tr", {}, "26.214.400"),
        (26214400.5, "tr", {"math": True}, "26.214.400{,}5"),
        (1875, "tr", {}, "1875"),  # four digits are not grouped
        (12500, "tr", {}, "12.500"),
        (2.1834, "tr", {"sig_figs": 3}, "2,18"),
        (123456.0, "en", {"sig_figs": 3}, "123456"),  # whole numbers keep their digits
        (0.0001234, "en", {"sig_figs": 3}, "0.000123"),
        (1.5, "tr", {"digits": 2}, "1,50"),
        (-0.0001, "tr", {"digits": 2}, "0,00"),
        (0.125, "en", {"digits": 2}, "0.13"),  # ties away from zero, as toFixed does
        (26214400, "en", {}, "26214400"),
        (367.2, "tr", {}, "367,2"),
    ],
)
def test_format_number(value, language, options, written):
    assert format_number(value, language, **options) == written


def test_format_number_refuses_what_is_not_a_number():
    for bad in (float("nan"), float("inf"), True):
        with pytest.raises(ValueError, match="finite number"):
            format_number(bad, "tr")
    with pytest.raises(ValueError, match="unknown language"):
        format_number(1.0, "xx")


TYPED = [
    "1,5",
    "1.5",
    "1,875",
    "1.875",
    "12.500",
    "26.214.400",
    "26,214,400",
    "1.234,5",
    "1,234.5",
    "0.125",
    "0,125",
    "-0,25 ms",
    "+2,5e3",
    ".5",
    ",5",
    "1,5,3",
    "12,34.5",
    "1.2.3",
    "abc",
    "1,875 GB/s",
    "1.875GB/s",
    "",
]


def _python_read(text: str, decimal: str):
    try:
        return delocalize_number(text, decimal)
    except AmbiguousNumber as ambiguous:
        return {"whole": ambiguous.whole, "fraction": ambiguous.fraction}


def test_python_and_the_page_library_read_the_same_answers():
    rng = random.Random(7)
    typed = TYPED + [format_number(v, "tr", sig_figs=rng.randint(1, 6)) for v in _numbers()]
    typed += [format_number(v, "en", digits=rng.randint(0, 4)) for v in _numbers()]
    cases = [(text, decimal) for text in typed for decimal in (",", ".")]
    js = _node(
        "data.map(([t, d]) => { try { return page.readLocalizedNumber(t, d); }"
        " catch (e) { return { whole: e.whole, fraction: e.fraction }; } })",
        cases,
    )
    python = [_python_read(text, decimal) for text, decimal in cases]
    differ = [(case, p, j) for case, p, j in zip(cases, python, js, strict=True) if p != j]
    assert not differ, differ[:10]


@pytest.mark.parametrize(
    "typed, decimal, value",
    [
        ("1,875", ",", 1.875),
        ("1.5", ",", 1.5),  # a decimal point typed in Turkish
        ("0.125", ",", 0.125),  # 0.125 is no grouped number
        ("26.214.400", ",", 26214400),
        ("1.234,5", ",", 1234.5),
        ("1,234.5", ",", 1234.5),
        ("-0,25", ",", -0.25),
        ("1.875", ".", 1.875),
        ("26,214,400", ".", 26214400),
        ("1,234.5", ".", 1234.5),
    ],
)
def test_read_number_accepts_both_ways_where_unambiguous(typed, decimal, value):
    assert read_number(typed, "", decimal=decimal) == pytest.approx(value)


@pytest.mark.parametrize(
    "typed, decimal, message",
    [
        ("1.875", ",", "'1.875' could be 1875 or 1,875"),
        ("12.500", ",", "'12.500' could be 12500 or 12,500"),
        ("1,875", ".", "'1,875' could be 1875 or 1.875"),
    ],
)
def test_read_number_asks_how_an_ambiguous_number_is_meant(typed, decimal, message):
    with pytest.raises(ResponseError, match=message) as error:
        read_number(typed, "", decimal=decimal)
    assert "without a thousands separator" in str(error.value)


def test_read_number_refuses_what_is_not_one_number():
    for typed, decimal in [("1,5", "."), ("1,5,3", ","), ("1.2.3", ","), ("1.234,5", ".")]:
        with pytest.raises(ResponseError, match="expected a number"):
            read_number(typed, "ms", decimal=decimal)


def test_what_the_course_writes_reads_back():
    """A Turkish answer as the course shows it reads back as the number, unless it is a grouped
    integer of five or six digits (one dot), which is refused with the message, never misread."""
    for value in _numbers():
        for language, decimal in (("en", "."), ("tr", ",")):
            written = format_number(value, language, sig_figs=6)
            expected = float(format_number(value, "en", sig_figs=6))
            try:
                assert read_number(written, "", decimal=decimal) == pytest.approx(expected)
            except ResponseError as refused:
                assert language == "tr" and written.count(".") == 1 and "," not in written
                assert "could be" in str(refused)
