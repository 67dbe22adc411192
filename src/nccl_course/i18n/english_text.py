"""Finding English sentences on a page of another edition: the rule the Turkish crawl applies.

A page's visible prose (code, commands, formulas and references set aside by the caller) is cut
into sentences at ``. ! ? ; :`` and line breaks. A sentence is English when it has at least
:data:`MIN_WORDS` words, none of them Turkish (a letter only Turkish writes, ``ç ğ ı ö ş ü``, a
suffix after an apostrophe, or one of :data:`TURKISH_WORDS`), and at least :data:`MIN_FUNCTION`
of them, and :data:`MIN_SHARE` of all, are English function words (:data:`ENGLISH_WORDS`:
articles, pronouns, prepositions, auxiliaries, conjunctions). Product names, acronyms and
English technical terms that Turkish prose keeps (all-reduce, ring, NVLink) are no function
words, so they never make a Turkish sentence English; a label of one or two words ("Visited")
is too short for the rule and is looked for by reading the page, not by it.

What is allowed to stay English on purpose (a quoted title, a command's output) is listed in one
data file, ``locales/<language>/english_allowed.txt``: one sentence a line, compared after
white space is collapsed; lines starting with ``#`` are comments.
"""

from __future__ import annotations

import re
from pathlib import Path

MIN_WORDS = 3
MIN_FUNCTION = 2
MIN_SHARE = 0.3

#: English function words. Words that are also Turkish words (``on`` ten, ``de``, ``ne``) are
#: left out: they would make Turkish prose look English.
ENGLISH_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can cannot could did do does doing done down during each either
    every few for from further had has have having he her here hers him his how i if into is it
    its itself just me more most my no nor not now of off once only or other our ours out over
    own same she should so some such than that the their theirs them then there these they this
    those through to too under until up upon very was we were what when where which while who
    whom whose why will with would you your yours yet also still already never always
    """.split()
)

#: Turkish words that a text without Turkish letters may still hold.
TURKISH_WORDS = frozenset(
    """
    ve bir bu ile da de ki mi mu ne her ama veya ya yani gibi kadar sonra daha en az hem
    olarak olan ise eder ederek etmek yok var bunu buna bunlar onu ona onlar sayfa sayfada
    """.split()
)

_TURKISH_LETTERS = re.compile(r"[çğıöşüÇĞİÖŞÜ]")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
_WORD = re.compile(r"[^\W\d_][\w’'\-]*", re.UNICODE)
_APOSTROPHE_SUFFIX = re.compile(r"\w[’']\w")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (see the module docstring), each with its white space
    collapsed; empty ones dropped."""
    out = []
    for piece in _SENTENCE_END.split(text):
        piece = " ".join(piece.split())
        if piece:
            out.append(piece)
    return out


def is_turkish_word(word: str) -> bool:
    return bool(
        _TURKISH_LETTERS.search(word)
        or _APOSTROPHE_SUFFIX.search(word)
        or word.lower() in TURKISH_WORDS
    )


def is_english(sentence: str) -> bool:
    """Whether ``sentence`` reads as English by the rule of the module docstring."""
    words = _WORD.findall(sentence)
    if len(words) < MIN_WORDS or any(is_turkish_word(w) for w in words):
        return False
    function = sum(1 for w in words if w.lower() in ENGLISH_WORDS)
    return function >= MIN_FUNCTION and function >= MIN_SHARE * len(words)


def allowed_sentences(path: Path) -> frozenset[str]:
    """The allow-list of ``path`` (see the module docstring); empty when there is no file."""
    if not path.exists():
        return frozenset()
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(
        " ".join(line.split()) for line in lines if line.strip() and not line.startswith("#")
    )


def english_sentences(texts, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The English sentences of ``texts`` (strings: a page's blocks of visible prose), in
    order, without those in ``allowed``."""
    return [s for text in texts for s in sentences(text) if is_english(s) and s not in allowed]
