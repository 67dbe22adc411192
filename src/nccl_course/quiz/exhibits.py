"""Exhibits: the block of text a question is about (an NCCL log, a program, a profiler trace).

A question may carry one ``exhibit:`` (quizzes/README.md): its ``kind`` (``log``, ``program`` or
``trace``), a ``caption`` that says what it is (translated like the prompt) and its ``text``
(never translated: a log or a program reads the same in every language). Every renderer shows
it the same way: a captioned, monospace block with numbered lines, so that a choice can name
"line 7". A ``program`` exhibit also holds the ``fixed`` program and what its ``bug`` does
(``hang`` or ``wrong-result``), which the tests run on gloo (tests/quiz/test_exhibits.py);
neither is shown to the learner before an answer.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from nccl_course.i18n.interface import N_

KINDS = ("log", "program", "trace")
#: What a program's bug does when it runs: every rank waits forever, or a rank ends with
#: wrong values.
BUGS = ("hang", "wrong-result")
#: An exhibit longer than this does not fit a question; cut it to the lines the question is about.
MAX_LINES = 40
#: Characters per line: wider lines scroll sideways on a phone and wrap badly in a terminal.
MAX_LINE_CHARS = 280
#: Ranks a program exhibit may be run on (the tests launch it on this many gloo processes).
MIN_RANKS, MAX_RANKS = 2, 4
#: The heading of each kind, shown before the caption (the exam page's script has the same
#: three strings, in ``S(...)`` calls).
KIND_LABELS = {
    "log": N_("NCCL log"),
    "program": N_("Program"),
    "trace": N_("Profiler trace"),
}
_KEYS = {"kind", "caption", "text", "fixed", "bug", "ranks"}
_PROGRAM_KEYS = {"fixed", "bug", "ranks"}


@dataclass(frozen=True)
class Exhibit:
    """One exhibit as written in a bank. ``ranks``: how many processes a program runs on."""

    kind: str
    text: str
    caption: str = ""
    fixed: str = ""
    bug: str = ""
    ranks: int = 0

    def public(self) -> dict:
        """What the learner sees: no fixed program, no word on the bug."""
        return {"kind": self.kind, "caption": self.caption, "text": self.text}


def numbered_lines(text: str) -> list[str]:
    """The exhibit's lines, each after its number right-aligned to the widest (`` 9``, ``10``),
    so that the columns of a log stay aligned."""
    lines = text.split("\n")
    width = len(str(len(lines)))
    return [f"{i:>{width}}  {line}".rstrip() for i, line in enumerate(lines, start=1)]


def exhibit_html(exhibit: Exhibit, label: str, element_id: str) -> str:
    """The exhibit as HTML: a figure whose caption (``label``: the kind's heading, and the
    caption) names the <pre>, which takes the keyboard focus so that it scrolls with the arrow
    keys and a screen reader announces it by its caption."""
    caption = html.escape(label) + (f": {html.escape(exhibit.caption)}" if exhibit.caption else "")
    body = html.escape("\n".join(numbered_lines(exhibit.text)))
    return (
        f'<figure class="nccl-exhibit" data-kind="{exhibit.kind}">'
        f'<figcaption id="{element_id}">{caption}</figcaption>'
        f'<pre class="nccl-exhibit-text" tabindex="0" role="region" '
        f'aria-labelledby="{element_id}"><code>{body}</code></pre></figure>'
    )


def parse_exhibit(raw, errors: list[str]) -> Exhibit | None:
    """Read a question's ``exhibit:`` mapping; appends a message to ``errors`` for every problem."""
    if not isinstance(raw, dict):
        errors.append(
            "'exhibit' must be a mapping with 'kind' (log, program or trace), 'caption' and 'text'"
        )
        return None
    unknown = set(raw) - _KEYS
    if unknown:
        errors.append(f"'exhibit' has unknown keys {sorted(unknown)}; it takes {sorted(_KEYS)}")
    kind = raw.get("kind")
    if kind not in KINDS:
        errors.append(f"'exhibit.kind' is {kind!r}; use one of {', '.join(KINDS)}")
        return None
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        errors.append("'exhibit.text' is empty: paste the log, program or trace (a block scalar |)")
        return None
    text = text.strip("\n").rstrip()
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        errors.append(
            f"'exhibit.text' has {len(lines)} lines; at most {MAX_LINES} fit a question: keep "
            "the lines the question is about"
        )
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE_CHARS:
            errors.append(
                f"'exhibit.text' line {number} has {len(line)} characters; at most "
                f"{MAX_LINE_CHARS}: shorten it (cut a long path or address)"
            )
            break
    if "\t" in text:
        errors.append("'exhibit.text' contains a tab: use spaces so the columns line up everywhere")
    caption = raw.get("caption", "")
    if not isinstance(caption, str) or not caption.strip():
        errors.append("'exhibit.caption' must say what the exhibit is (one short line of text)")
        caption = ""
    fixed, bug, ranks = "", "", 0
    if kind == "program":
        fixed = raw.get("fixed")
        if not isinstance(fixed, str) or not fixed.strip():
            errors.append(
                "a program exhibit needs 'fixed': the corrected program, which the tests run"
            )
            fixed = ""
        bug = raw.get("bug")
        if bug not in BUGS:
            errors.append(f"'exhibit.bug' is {bug!r}; say what the bug does: {' or '.join(BUGS)}")
            bug = ""
        ranks = raw.get("ranks", MIN_RANKS)
        if (
            isinstance(ranks, bool)
            or not isinstance(ranks, int)
            or not MIN_RANKS <= ranks <= MAX_RANKS
        ):
            errors.append(f"'exhibit.ranks' must be a whole number from {MIN_RANKS} to {MAX_RANKS}")
            ranks = MIN_RANKS
    else:
        misplaced = sorted(set(raw) & _PROGRAM_KEYS)
        if misplaced:
            errors.append(f"'exhibit' keys {misplaced} only go with kind: program")
    return Exhibit(
        kind=kind, text=text, caption=caption.strip(), fixed=fixed.strip("\n"), bug=bug, ranks=ranks
    )
