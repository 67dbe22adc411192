"""Turkish suffixes on acronyms and names, the book's apostrophe and quotation marks.

The rule (TDK, "Kısaltmalar" and "Kesme işareti"): a suffix on a proper name or an
abbreviation is set off with an apostrophe, and it follows the way the word is *read*, not the
way it is spelled. An acronym read letter by letter takes the Turkish names of its letters
(``NVLS`` is "ne-ve-le-se", so ``NVLS’nin``, ``NVLS’yi``); an acronym read as a word takes that
word (``PAT`` is "pat": ``PAT’ın``, ``PAT’ı``); English product names and the English terms the
course keeps are read the English way, written in Turkish letters (``NCCL`` is "nikel":
``NCCL’in``; ``all-reduce`` is "ol-ridyus": ``all-reduce’u``).

How each word is read is data (:data:`READINGS`); what a reading implies for a suffix is code:
the last vowel of the reading decides the suffix's vowels (two-way a/e, four-way ı/i/u/ü
harmony), a reading that ends in a vowel takes the buffer consonants (``n`` before the
genitive, ``y`` before the accusative, the dative and ``-le``, ``s`` before the possessive),
and a reading that ends in a voiceless consonant (f, s, t, k, ç, ş, h, p) hardens ``d`` to
``t`` (``NVSwitch’te``, ``SHARP’tır``).

The book writes the apostrophe as ’ (U+2019, the typographic one: the interface already uses
it, and Sphinx turns a straight one into it on the page anyway) and quotes with “...”; straight
' and " in Turkish prose are flagged. Code, commands and program output are left alone: text
in backticks, code blocks, math and HTML tags is not checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

APOSTROPHE = "\u2019"
STRAIGHT_APOSTROPHE = "'"
OPEN_QUOTE, CLOSE_QUOTE = "\u201c", "\u201d"

#: How each acronym, product name and kept English term is read in Turkish, written in Turkish
#: letters with hyphens between the parts. Only the end of a reading matters to a suffix: its
#: last vowel and its last sound. Keys in lower case match any capitalisation (a sentence may
#: start with "All-reduce"); other keys match exactly.
READINGS: dict[str, str] = {
    # Acronyms read letter by letter, with the Turkish letter names.
    "ACS": "a-ce-se",
    "API": "a-pe-i",
    "AWS": "a-ve-se",
    "CDN": "ce-de-ne",
    "CNP": "ce-ne-pe",
    "CPU": "ce-pe-u",
    "CTA": "ce-te-a",
    "DCQCN": "de-ce-kü-ce-ne",
    "DDP": "de-de-pe",
    "DID": "de-i-de",
    "ECN": "e-ce-ne",
    "EFA": "e-fe-a",
    "FSDP": "fe-se-de-pe",
    "FSDP1": "fe-se-de-pe-bir",
    "FSDP2": "fe-se-de-pe-iki",
    "GID": "ge-i-de",
    "GPT-3": "ge-pe-te-üç",
    "GPU": "ge-pe-u",
    "HCA": "he-ce-a",
    "HDR": "he-de-re",
    "HSDP": "he-se-de-pe",
    "HTTP": "he-te-te-pe",
    "HTTPS": "he-te-te-pe-se",
    "IB": "i-be",
    "IOMMU": "ı-o-me-me-u",
    "LL": "le-le",
    "LL128": "le-le-yüz-yirmi-sekiz",
    "MLP": "me-le-pe",
    "MNNVL": "me-ne-ne-ve-le",
    "MTBF": "me-te-be-fe",
    "MoE": "me-o-e",
    "NDR": "ne-de-re",
    "NVL72": "ne-ve-le-yetmiş-iki",
    "NVLS": "ne-ve-le-se",
    "NVLS-Tree": "ne-ve-le-se-tri",
    "NVLSTree": "ne-ve-le-se-tri",
    "P2P": "pe-iki-pe",
    "PCIe": "pe-ce-i-e",
    "PFC": "pe-fe-ce",
    "PNG": "pe-ne-ge",
    "PXN": "pe-iks-ne",
    "RDMA": "re-de-me-a",
    "SM": "se-me",
    "SYS": "se-ye-se",
    "TCP": "te-ce-pe",
    "TP": "te-pe",
    "URL": "u-re-le",
    "VM": "ve-me",
    "VT-d": "ve-te-de",
    "XDR": "iks-de-re",
    "bf16": "be-fe-on-altı",
    "fp16": "fe-pe-on-altı",
    "fp32": "fe-pe-otuz-iki",
    "qgZ": "kü-ge-ze",
    "nvidia-smi": "en-vidya-se-me-i",
    # Model and GPU names: letters, then the number read in Turkish.
    "A100": "a-yüz",
    "B200": "be-iki-yüz",
    "H100": "he-yüz",
    "H200": "he-iki-yüz",
    "L4": "le-dört",
    "T4": "te-dört",
    "ZeRO-3": "zero-üç",
    # Acronyms read as words.
    "BIOS": "bayos",
    "JSON": "ceysın",
    "NAT": "nat",
    "NIC": "nik",
    "PAT": "pat",
    "RAS": "ras",
    "SHARP": "şarp",
    "TFLOPS": "te-flops",
    "ZeRO": "zero",
    # Product, library and people's names, read the English (or their own) way.
    "Blackwell": "blekvel",
    "Bruck": "bruk",
    "CUDA": "kuda",
    "CollNet": "kolnet",
    "DeepSpeed": "dip-spid",
    "Docker": "dakır",
    "GShard": "ce-şard",
    "Hockney": "hakni",
    "Hopper": "hapır",
    "InfiniBand": "infinibend",
    "JavaScript": "cava-skript",
    "Jupyter": "cupitır",
    "Kubernetes": "kubernetis",
    "LinkedIn": "linktin",
    "Megatron": "megatron",
    "Megatron-LM": "megatron-le-me",
    "NCCL": "nikel",
    "NVIDIA": "en-vidya",
    "NVLink": "en-vi-link",
    "NVSwitch": "en-vi-suiç",
    "Perfetto": "perfeto",
    "PostgreSQL": "postgres-kü-el",
    "ProcessGroupNCCL": "proses-grup-nikel",
    "PyPI": "pay-pi-ay",
    "PyTorch": "pay-torç",
    "Python": "payton",
    "Rabenseifner": "rabenzayfner",
    "RoCE": "roki",
    "SQLite": "es-kü-el-layt",
    "SkyPilot": "skay-paylıt",
    "SuperNIC": "süpernik",
    "SymmetricMemory": "simetrik-memori",
    "TorchDynamo": "torç-dayna-mo",
    "Traeff": "tref",
    "gloo": "glu",
    "nccl-tests": "nikel-tests",
    "torch": "torç",
    "torchrun": "torç-ran",
    # English terms the course keeps (see book/glossary.md), read the English way.
    "all-gather": "ol-gedır",
    "all-reduce": "ol-ridyus",
    "all-to-all": "ol-tu-ol",
    "attention": "ıten-şın",
    "backend": "bekend",
    "barrier": "beriyır",
    "batch": "beç",
    "broadcast": "brod-kest",
    "communicator": "kımyuni-keytır",
    "doctor": "daktır",
    "dtype": "di-tayp",
    "gather": "gedır",
    "graph": "graf",
    "host": "host",
    "kernel": "kernel",
    "lab": "lab",
    "log": "log",
    "matmul": "mat-mul",
    "notebook": "not-buk",
    "proxy": "praksi",
    "rank": "renk",
    "recorder": "rikordır",
    "reduce": "ridyus",
    "reduce-scatter": "ridyus-sketır",
    "scatter": "sketır",
    "store": "stor",
    "stream": "strim",
    "thread": "tred",
    "token": "tokın",
    "transport": "transport",
    "watchdog": "voçdog",
    "wheel": "vil",
    "worker": "vörkır",
    # Units, read as the words they abbreviate.
    "GB": "gigabayt",
    "GiB": "gibibayt",
    "KiB": "kibibayt",
    "MB": "megabayt",
    "MiB": "mebibayt",
    "TB": "terabayt",
    "ms": "milisaniye",
    "µs": "mikrosaniye",
    "busbw": "bas-be-ve",
    "algbw": "alg-be-ve",
}

BACK_VOWELS = frozenset("aıou")
FRONT_VOWELS = frozenset("eiöü")
VOWELS = BACK_VOWELS | FRONT_VOWELS
ROUNDED = frozenset("ouöü")
VOICELESS = frozenset("fstkçşhp")

# A word written in Latin letters, an apostrophe (either kind), and a suffix in small letters.
_SUFFIXED = re.compile(r"(?<![\w.+\-])([A-Za-zµ][\w.+\-]*?)(['\u2019])([a-zçğıöşü]+)")
# Prose that is left alone: fenced code, inline code and roles, math, HTML tags, link targets.
_SKIPPED = re.compile(
    r"```.*?```|~~~.*?~~~|`[^`]*`|\$\$.*?\$\$|\$[^$\n]+\$|<[^<>\n]*>|\]\([^)\s]*\)|\{\{.*?\}\}",
    re.S,
)
# A straight apostrophe used as one: between a letter or digit and a letter
# (or code and placeholders, blanked by :func:`prose`: "`env`'den" is Turkish too).
_STRAIGHT_APOSTROPHE = re.compile(r"(?<=[\w%)*}#\0])'(?=[a-zçğıöşü])")


def reading(token: str) -> str | None:
    """How ``token`` is read (see :data:`READINGS`), or None for a word the table lacks. A
    lower-case key also matches the word with a capital first letter ("All-reduce")."""
    if token in READINGS:
        return READINGS[token]
    if token[1:] == token[1:].lower():
        return READINGS.get(token.lower())
    return None


@dataclass(frozen=True)
class Sound:
    """The end of a reading: its last vowel, and whether it ends in a vowel or a voiceless
    consonant."""

    last_vowel: str
    ends_in_vowel: bool
    voiceless_end: bool


def sound(text: str) -> Sound:
    """The :class:`Sound` at the end of ``text`` (a reading, or a stem plus suffixes)."""
    letters = [c for c in text.lower() if c.isalpha()]
    vowels = [c for c in letters if c in VOWELS]
    if not vowels:
        raise ValueError(f"{text!r} has no vowel: write its reading with Turkish vowels")
    return Sound(vowels[-1], letters[-1] in VOWELS, letters[-1] in VOICELESS)


def _two_way(last: str) -> str:
    return "a" if last in BACK_VOWELS else "e"


def _four_way(last: str) -> str:
    if last in BACK_VOWELS:
        return "u" if last in ROUNDED else "ı"
    return "ü" if last in ROUNDED else "i"


def _harmonise(suffix: str, last_vowel: str) -> str:
    """``suffix`` with each vowel set by the vowel before it (``last_vowel`` for the first).
    The ``-ki`` of ``-daki`` and ``-ninki`` keeps its i, as Turkish writes it."""
    out: list[str] = []
    last = last_vowel
    for i, c in enumerate(suffix):
        if c in "ae":
            c = _two_way(last)
        elif c in "ıiuü":
            before = "".join(out)
            if not (i > 0 and suffix[i - 1] == "k" and re.search(r"([dt][ae]|n)k$", before)):
                c = _four_way(last)
        if c in VOWELS:
            last = c
        out.append(c)
    return "".join(out)


def correct_suffix(token_reading: str, suffix: str) -> str:
    """The suffix chain ``suffix`` as it should be written after a word read ``token_reading``.

    The chain's first morpheme gets or loses its buffer consonant, ``d`` and ``t`` follow the
    reading's last sound, and every vowel follows vowel harmony. The rest of the chain keeps
    its morphemes: only their vowels move with the first one."""
    end = sound(token_reading)
    s = suffix
    if end.ends_in_vowel:
        if re.fullmatch(r"[ıiuü]n(k[ıiuü].*)?", s):  # genitive: -(n)In, -(n)Inki...
            s = "n" + s
        elif re.fullmatch(r"[ıiuüae]|l[ae]", s):  # accusative, dative, -(y)le
            s = "y" + s
        elif re.match(r"[ıiuü]n[ıiuü]z", s):  # your ...: -(I)nIz
            s = s[1:]
        elif re.match(r"[ıiuü]m", s):  # my ...: -(I)m
            s = s[1:]
        elif re.match(r"[ıiuü]", s):  # possessive: -(s)I, then more
            s = "s" + s
    else:
        if re.match(r"n[ıiuü]n", s):  # genitive with the buffer a vowel takes
            s = s[1:]
        elif re.match(r"n[ıiuü]z", s):
            s = "u" + s
        elif re.match(r"y[ıiuüae]", s):  # -(y)I, -(y)A, -(y)lA written with the y
            s = s[1:]
        elif re.match(r"s[ıiuü](?!z)", s):  # -(s)I written with the s
            s = s[1:]
    if s[:1] in "dt" and s[1:2] in ("a", "e", "ı", "i", "u", "ü"):
        s = ("t" if end.voiceless_end else "d") + s[1:]
    return _harmonise(s, end.last_vowel)


@dataclass(frozen=True)
class Finding:
    """One problem in one message: what was written, what the rule wants, and why."""

    kind: str  # "suffix", "apostrophe", "quote" or "term"
    found: str
    wanted: str
    why: str

    def describe(self) -> str:
        return f"{self.kind}: {self.found!r} should be {self.wanted!r} ({self.why})"


def prose(text: str) -> str:
    """``text`` with code, math, tags and link targets blanked (same length, so offsets hold)."""
    return _SKIPPED.sub(lambda m: "\0" * len(m.group(0)), text)


def suffix_findings(text: str) -> list[Finding]:
    """Suffixes on listed words in the prose of ``text`` that the reading rule says are wrong."""
    found = []
    for m in _SUFFIXED.finditer(prose(text)):
        token, mark, suffix = m.groups()
        said = reading(token)
        if said is None:
            continue
        wanted = correct_suffix(said, suffix)
        if wanted != suffix:
            found.append(
                Finding(
                    "suffix",
                    m.group(0),
                    f"{token}{APOSTROPHE}{wanted}",
                    f"{token} is read {said!r}",
                )
            )
    return found


def _prose_quotes(blanked: str, text: str, source: str) -> tuple[list[int], list[int]]:
    """Positions of straight double quotes in prose: those to turn into “ and ” (in pairs), and
    those without a partner. A quoted span that the English ``source`` has quoted the same way
    is a literal (a value, a key, a program's message) and is left as it is."""
    pairs: list[int] = []
    for m in re.finditer(r'"([^"\n]*)"', blanked):
        if text[m.start() : m.end()] not in source:
            pairs += [m.start(), m.end() - 1]
    paired = re.sub(r'"[^"\n]*"', lambda m: "\0" * len(m.group(0)), blanked)
    return pairs, [i for i, c in enumerate(paired) if c == '"']


def punctuation_findings(text: str, source: str = "") -> list[Finding]:
    """Straight apostrophes and straight double quotes in the prose of ``text`` (the
    translation of ``source``)."""
    blanked = prose(text)
    found = []
    for m in _STRAIGHT_APOSTROPHE.finditer(blanked):
        start = max(0, m.start() - 12)
        found.append(
            Finding(
                "apostrophe",
                text[start : m.end() + 4],
                text[start : m.start()] + APOSTROPHE + text[m.end() : m.end() + 4],
                "the book writes the apostrophe as ’",
            )
        )
    pairs, unpaired = _prose_quotes(blanked, text, source)
    for i in pairs[::2] + unpaired:
        found.append(
            Finding(
                "quote",
                text[max(0, i - 12) : i + 20],
                "“...”",
                "Turkish prose quotes with “ and ”",
            )
        )
    return found


def fixed(text: str, source: str = "") -> str:
    """``text`` (the translation of ``source``) with the suffix rule, the apostrophe and the
    quotation marks applied to its prose. A straight double quote without a partner on its
    line is left for a person."""
    pieces: list[str] = []
    done = 0
    for m in _SUFFIXED.finditer(prose(text)):
        token, _, suffix = m.groups()
        said = reading(token)
        pieces += [text[done : m.start()], token, APOSTROPHE]
        pieces.append(correct_suffix(said, suffix) if said else suffix)
        done = m.end()
    text = "".join(pieces) + text[done:]
    blanked = prose(text)
    chars = [
        APOSTROPHE if c == STRAIGHT_APOSTROPHE and _STRAIGHT_APOSTROPHE.match(blanked, i) else c
        for i, c in enumerate(text)
    ]
    pairs, _ = _prose_quotes(blanked, text, source)
    for n, i in enumerate(pairs):
        chars[i] = OPEN_QUOTE if n % 2 == 0 else CLOSE_QUOTE
    return "".join(chars)
