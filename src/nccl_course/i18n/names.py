"""People's names (and other text a credential carries) made fit to print: one rule, used where
a learner registers, where a credential is built, and wherever a credential's text is shown
(the certificate's PDF and PNG, the verify page).

A name prints as it was typed, in any script, and never changes the line around it:

- it is NFC-normalised (``e`` + U+0301 and ``é`` are one name);
- invisible characters that steer the text are removed: format characters (category Cf: the
  byte-order mark U+FEFF, zero-width space, word joiner, the bidirectional embeddings,
  overrides, isolates and marks such as U+202E, soft hyphen, tags...), controls (Cc), lone
  surrogates (Cs), private-use (Co) and unassigned (Cn) code points. Without them a
  right-to-left override cannot turn "Alice exe.png Evil" around, and a byte-order mark cannot
  stop matplotlib's PDF writer;
- the two joiners U+200C ZERO WIDTH NON-JOINER and U+200D ZERO WIDTH JOINER stay where they
  change how a word is written: between two letters (or a letter's mark and a letter), as in
  the Persian "می‌خواهم"; anywhere else they are removed like the others;
- every space, line or paragraph separator, and the characters that print as blank space
  (Hangul fillers, the braille blank) becomes one ordinary space; runs of spaces become one and
  the ends are trimmed.

Arabic and Hebrew names keep their letters and their order: their direction comes from the
letters themselves (the Unicode bidirectional algorithm), not from control characters. Where
such a name is written inside a longer line of plain text, :func:`isolated` wraps it in U+2068
FIRST STRONG ISOLATE ... U+2069 POP DIRECTIONAL ISOLATE, so that the line around it keeps its
own order (on a web page, ``<bdi>`` does the same).
"""

from __future__ import annotations

import unicodedata

# Categories removed outright: format, control, surrogate, private use, unassigned.
REMOVED_CATEGORIES = frozenset({"Cf", "Cc", "Cs", "Co", "Cn"})
# Kept between two letters only (they decide whether two letters join).
JOINERS = frozenset({"\u200c", "\u200d"})
# Letters and symbols that print as empty space: treated as spaces.
BLANK_CHARACTERS = frozenset({"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"})
# Controls that separate words or lines: treated as spaces too (other controls are removed).
SPACING_CONTROLS = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85")
# Bidirectional classes of right-to-left letters and Arabic digits.
RIGHT_TO_LEFT = frozenset({"R", "AL", "AN"})
FIRST_STRONG_ISOLATE = "\u2068"
POP_DIRECTIONAL_ISOLATE = "\u2069"


def _is_space(char: str, category: str) -> bool:
    return category[0] == "Z" or char in BLANK_CHARACTERS or char in SPACING_CONTROLS


def _joins(before: str, after: str) -> bool:
    """Whether a joiner between ``before`` and ``after`` (single characters, or "" at either
    end) sits inside a word: a letter or mark before it, a letter after it."""
    if not before or not after:
        return False
    return unicodedata.category(before)[0] in "LM" and unicodedata.category(after)[0] == "L"


def printable_text(text: object) -> str:
    """``text`` as it is printed: NFC, without invisible steering characters, with single
    spaces (see the module's docstring). Anything that is not a string gives ""."""
    if not isinstance(text, str):
        return ""
    kept: list[str] = []
    for i, char in enumerate(text):
        category = unicodedata.category(char)
        if _is_space(char, category):
            kept.append(" ")
        elif char in JOINERS:
            after = text[i + 1] if i + 1 < len(text) else ""
            if _joins(kept[-1] if kept else "", after):
                kept.append(char)
        elif category not in REMOVED_CATEGORIES:
            kept.append(char)
    return " ".join(unicodedata.normalize("NFC", "".join(kept)).split())


def has_visible_character(text: str) -> bool:
    """Whether ``text`` has something to read: a letter, a digit, a punctuation mark or a
    symbol (marks alone, joiners and spaces are not)."""
    return any(unicodedata.category(c)[0] in "LNPS" and c not in BLANK_CHARACTERS for c in text)


def printable_name(text: object) -> str:
    """:func:`printable_text` of a name, or "" when nothing in it can be read."""
    name = printable_text(text)
    return name if has_visible_character(name) else ""


def isolated(name: str) -> str:
    """``name`` (already :func:`printable_text`) for a line of plain text written around it.
    A name with right-to-left letters (or Arabic digits) is put in a directional isolate, so
    that it and the words after it keep their order; any other name is returned as it is (the
    course's languages are written left to right, so it cannot move anything)."""
    if any(unicodedata.bidirectional(c) in RIGHT_TO_LEFT for c in name):
        return f"{FIRST_STRONG_ISOLATE}{name}{POP_DIRECTIONAL_ISOLATE}"
    return name
