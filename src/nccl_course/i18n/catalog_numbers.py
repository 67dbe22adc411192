"""Numbers in translated text: which ones a translation still writes the English way, and the
same text with them written as its language writes them.

A message is split into code (inline and fenced), math (``$...$``, ``$$...$$``, ``{math}``
roles and blocks), what must stay as written (links, roles that name targets such as
``{ref}``, ``{doc}`` and citations, HTML tags) and prose. Code and targets are never changed.
In math and prose an English decimal (``1.875``) or thousands grouping (``26,214,400``,
``26{,}214{,}400``) is a number to rewrite, unless it is a release: a number with two dots
(``2.30.7``), or one named by a product before it (``NCCL 2.23``, ``PyTorch 2.13``,
``CUDA 12.8``, ``NCCL 2.20–2.22``). A Turkish four-digit number grouped with a dot (``4.096``)
is written plainly (``4096``): the course groups from five digits
(``nccl_course.i18n.numbers``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nccl_course.i18n.numbers import DECIMAL_SEPARATOR, GROUP_FROM_DIGITS, GROUP_SEPARATOR

# Pieces of a message that are not prose, longest first: fenced code, math blocks and spans,
# roles (a {math} role is math; any other role's content is a target or a citation), inline
# code, links' targets, bare addresses and HTML tags.
_PIECES = re.compile(
    r"(?P<fence>(?P<tick>`{3,}|~{3,})(?P<info>[^\n]*)\n.*?(?:\n(?P=tick)|\Z))"
    r"|(?P<mathblock>\$\$.+?\$\$)"
    r"|(?P<mathrole>\{math\}`[^`]*`)"
    r"|(?P<role>\{[\w:-]+\}`[^`]*`)"
    r"|(?P<code>(?P<ticks>`+).+?(?P=ticks))"
    r"|(?P<math>(?<![\\$\w])\$(?=\S)(?:\\.|[^$\\\n])+?(?<=\S)\$(?![\w$]))"
    r"|(?P<target>\]\([^)]*\)|<https?://[^>]*>|https?://\S+|</?[a-zA-Z][^>]*>)",
    re.S,
)

#: Words that name a release when they come just before a number: ``NCCL 2.23``.
_PRODUCTS = (
    r"NCCL|PyTorch|[Tt]orch|CUDA|cuDNN|Python|NVSHMEM|UCX|UCC|Ubuntu|Debian|glibc|gcc|GCC|CMake"
    r"|Slurm|MPI|HPC-X|nccl-tests|libfabric|aws-ofi-nccl|EFA|Triton|JAX|DeepSpeed|Megatron(?:-LM)?"
    r"|Transformer Engine|Open Badges|GPL|LGPL|Apache|CC-BY|RDFC|URDNA|SHA|Ed25519|Badges|OpenAPI|JSON-LD|OAuth|TorchTitan|NeMo|driver|sürücü(?:sü)?|sürüm(?:ü|ünde|ünden|leri)?"
    r"|version|release|[Vv]|Kubernetes|Docker|Caddy|uvicorn|FastAPI|Sphinx|Jupyter Book|MyST"
    r"|Node(?:\.js)?|numpy|NumPy|SciPy|matplotlib|pytest|Compute Capability|compute capability"
    r"|sm|SM|RoCE|RoCEv|InfiniBand|PCIe|Gen|NVLink|NVSwitch|NVLS|SHARP|SHARPv|IB|TCP|TLS|HTTP"
)
# A product name, then releases joined by commas, dashes, slashes or "and"/"to" words.
_RELEASE_BEFORE = re.compile(
    rf"(?:\b(?:{_PRODUCTS})(?:'\w+)?[\s_-]*v?|(?:\b\d{{1,2}}\.\d{{1,2}}(?:\.\d+)*(?:'\w+)?"
    r"(?:\s*(?:,|–|-|/|\bve\b|\bile\b|\bveya\b|\bya da\b|\band\b|\bor\b|\bto\b)\s*)))$"
)
_NUMBER = re.compile(
    r"(?<![\w.,{}\\])(\d+(?:\{,\}\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)+)(?![\w]|[.,]\d)"
)
_UNIT_AFTER = re.compile(r"^\s?(?:[kMGT]i?B|[kMGT]b|B|Gbit|[mµun]s|s\b|x\b|×|%|W\b|GHz|°)")


@dataclass
class Number:
    """A number found in a message: its text, where it starts, whether it is in math, and what
    it reads as (``"decimal"``, ``"grouped"``, ``"release"``, ``"localized"``)."""

    text: str
    start: int
    math: bool
    reading: str


def spans(text: str):
    """(start, end, kind) of each piece of ``text``: "math", "prose" or "keep"."""
    at = 0
    for m in _PIECES.finditer(text):
        if m.start() > at:
            yield at, m.start(), "prose"
        kind = m.lastgroup
        if kind == "fence":
            info = (m.group("info") or "").strip()
            kind = "math" if info.startswith("{math}") else "keep"
        elif kind in ("mathblock", "mathrole", "math"):
            kind = "math"
        else:
            kind = "keep"
        yield m.start(), m.end(), kind
        at = m.end()
    if at < len(text):
        yield at, len(text), "prose"


# Turkish names the release after its number: "2.23 sürümünde", "2.23'ten beri".
_RELEASE_AFTER = re.compile(
    r"^(?:'\w+)?\s*(?:ve|ile|–|-|,)?\s*(?:\d+\.\d+(?:'\w+)?\s*)?(?:sürüm|release|version)"
)


def _is_release(text: str, number: str, start: int, end: int, english: str = "") -> bool:
    if number.count(".") >= 2 or re.match(r"\.(?:x|\d)|\+", text[end : end + 2]):
        return True
    if _UNIT_AFTER.match(text[end:]):
        return False
    # NCCL and PyTorch 2.x, CUDA 11.x to 13.x: the course's releases, written bare in tables
    # and in parentheses ("(2.24)"); a value of that size in prose carries a unit.
    if re.fullmatch(r"2\.\d\d?|1[1-3]\.\d", number):
        return True
    before = text[max(0, start - 80) : start]
    if _RELEASE_BEFORE.search(before) or _RELEASE_AFTER.match(text[end:]):
        return True
    # The source names it: "NCCL 2.23" in the English of a Turkish "NCCL'in 2.23 sürümü".
    for m in re.finditer(rf"(?<![\w.]){re.escape(number)}(?![\w]|\.\d)", english):
        if _RELEASE_BEFORE.search(english[max(0, m.start() - 80) : m.start()]):
            return True
    return False


def english_numbers(text: str, language: str, english: str = "") -> list[Number]:
    """The numbers of ``text`` (a message in ``language``, translated from ``english``) that are
    written the English way, releases read as such (``reading == "release"``) so that a caller
    can show them."""
    if DECIMAL_SEPARATOR[language] == ".":
        return []
    found = []
    for start, end, kind in spans(text):
        if kind == "keep":
            continue
        for m in _NUMBER.finditer(text, start, end):
            number = m.group(1)
            if "{,}" in number:
                # "26{,}214{,}400" is an English grouping; "1{,}875" is a Turkish decimal unless
                # the source has the same text (an untranslated "4{,}096").
                single = number.count("{,}") == 1 and "." not in number
                reading = "localized" if single and number not in english else "grouped"
            elif (
                "," in number and "." not in number and re.fullmatch(r"\d{1,3}(?:,\d{3})+", number)
            ):
                # "1,074" is a Turkish decimal as much as an English grouping; only two or more
                # groups ("26,214,400") are surely English.
                reading = "grouped" if number.count(",") >= 2 else "localized"
            elif "," in number:
                reading = "localized"
            elif re.fullmatch(r"[1-9]\d?\d?(?:\.\d{3})+", number) and _dot_grouped(number):
                reading = "localized"
            else:
                reading = "decimal"
            if (
                reading == "decimal"
                and kind != "math"
                and _is_release(text, number, m.start(1), m.end(1), english)
            ):
                reading = "release"
            found.append(Number(number, m.start(1), kind == "math", reading))
    return found


def _dot_grouped(number: str) -> bool:
    """Whether a Turkish "12.500" or "131.072" is grouping: two or more dots, or a first group
    of two or three digits (the course never writes a decimal with three figures after the
    point that way in Turkish). "4.096" is ambiguous; the caller decides."""
    return number.count(".") >= 2 or len(number.split(".")[0]) >= 2


def localize_numbers(
    text: str, language: str, english: str = "", decide=None
) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with its English-written numbers written as ``language`` writes them, and the
    (old, new) pairs changed. ``english`` is the message's source: a dot-grouped four-digit
    number (``4.096``) is a grouping where the source writes the number plainly or with a comma
    (``4096``, ``4,096``), a decimal where it writes ``4.096``; ``decide(number, text)`` settles
    what neither tells (returns "decimal", "grouped" or None to leave it)."""
    decimal = DECIMAL_SEPARATOR[language]
    group = GROUP_SEPARATOR[language]
    group_from = GROUP_FROM_DIGITS[language]
    changes = []
    out = []
    at = 0
    for number in english_numbers(text, language, english):
        new = None
        if number.reading == "decimal":
            # In a Turkish text a "4.096" may already be a grouping (written by the translator).
            if re.fullmatch(r"[1-9]\.\d{3}", number.text):
                plain = number.text.replace(".", "")
                if re.search(rf"(?<![\d.,]){plain}(?![\d])|{plain[0]},{plain[1:]}", english):
                    new = plain
                elif number.text in english:
                    whole, frac = number.text.split(".")
                    new = f"{whole}{'{,}' if number.math else decimal}{frac}"
                elif decide is not None:
                    choice = decide(number, text)
                    if choice == "grouped":
                        new = plain
                    elif choice == "decimal":
                        whole, frac = number.text.split(".")
                        new = f"{whole}{'{,}' if number.math else decimal}{frac}"
            else:
                whole, frac = number.text.split(".")
                new = f"{_group(whole, group, group_from)}{'{,}' if number.math else decimal}{frac}"
        elif number.reading == "grouped":
            whole, _, frac = number.text.replace("{,}", ",").partition(".")
            digits = whole.replace(",", "")
            new = _group(digits, group, group_from)
            if frac:
                new += ("{,}" if number.math else decimal) + frac
        if new is None or new == number.text:
            continue
        out.append(text[at : number.start])
        out.append(new)
        at = number.start + len(number.text)
        changes.append((number.text, new))
    out.append(text[at:])
    return "".join(out), changes


def _group(digits: str, group: str, group_from: int | None) -> str:
    if group_from is None or len(digits) < group_from:
        return digits
    head = len(digits) % 3 or 3
    return group.join([digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)])


def leftovers(text: str, language: str, english: str = "") -> list[Number]:
    """The numbers of ``text`` still written the English way: a decimal point or an English
    grouping outside code, targets and releases, or a four-digit number grouped with a dot."""
    found = []
    for number in english_numbers(text, language, english):
        if number.reading in ("decimal", "grouped"):
            found.append(number)
    return found
