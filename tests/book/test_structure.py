"""Every chapter page of the book has the parts CONTRIBUTING.md asks for, in order.

A chapter page lives in a part folder under book/ (book/start, book/collectives, book/algorithms,
book/hardware, book/practice, ...). Front matter that is not a chapter (the set-up guide, the quiz
index) is listed in NOT_CHAPTERS with the reason. For each chapter page the test checks: a label
and a title; a learning-objectives admonition; a reading-time line; at least one executed code cell
(with the MyST-NB header that makes it execute) or a figure; a worked example; a "Try it" section; a
practice quiz whose bank exists and loads; an FAQ; a summary; and references that cite with
{footcite} (keys that exist in exactly one .bib file) and end with {footbibliography}.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_course import yaml_text

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
# The bibliography files are the ones the book is built with (one list, in _config.yml).
BIB_FILES = tuple(
    ROOT / name
    for name in yaml_text.safe_load((ROOT / "_config.yml").read_text())["bibtex_bibfiles"]
)

NOT_CHAPTERS = {
    "book/start/00-setup.md": "set-up guide (commands, not a lesson)",
    "book/start/how-to-use.md": "how to use the course (front matter)",
    "book/practice/06-hosting.md": "hosting guide (commands and configuration, not a lesson)",
}
NOT_CHAPTER_DIRS = {
    "book/quizzes": "index of the practice quizzes",
}


def chapter_pages() -> list[Path]:
    pages = []
    for path in sorted(BOOK.glob("*/*.md")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in NOT_CHAPTERS or path.parent.relative_to(ROOT).as_posix() in NOT_CHAPTER_DIRS:
            continue
        pages.append(path)
    return pages


def bib_keys() -> dict[str, list[str]]:
    """Every bib key and the files that define it."""
    keys: dict[str, list[str]] = {}
    for bib in BIB_FILES:
        if not bib.exists():
            continue
        for key in re.findall(r"^\s*@\w+\s*\{\s*([^,\s]+)\s*,", bib.read_text(), re.M):
            keys.setdefault(key, []).append(bib.name)
    return keys


def strip_code(text: str) -> str:
    """The page without the contents of backtick fences (code, cells, math, directives), so that a
    '## FAQ' inside a code block does not count as the page's FAQ."""
    out, fence = [], None
    for line in text.splitlines():
        m = re.match(r"^(`{3,})", line)
        if fence is None:
            out.append(line)
            if m:
                fence = m.group(1)
        elif line.strip() == fence:
            out.append(line)
            fence = None
    return "\n".join(out)


PAGES = chapter_pages()


def test_there_are_chapter_pages():
    rels = {p.relative_to(ROOT).as_posix() for p in PAGES}
    for expected in (
        "book/start/01-processes-ranks.md",
        "book/collectives/01-broadcast.md",
        "book/collectives/08-send-recv-barrier.md",
        "book/algorithms/01-ring.md",
        "book/algorithms/06-measuring.md",
    ):
        assert expected in rels


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_chapter_has_every_part_in_order(page: Path):
    text = page.read_text()
    prose = strip_code(text)
    problems = []

    def position(pattern: str, what: str, source: str = prose) -> int:
        m = re.search(pattern, source, re.M)
        if m is None:
            problems.append(f"missing {what} (pattern {pattern!r})")
            return -1
        return m.start()

    order = [
        ("label", position(r"^\([a-z0-9][a-z0-9-]*\)=\s*$", "a (label)= target")),
        ("title", position(r"^# \S", "a '# ' title")),
        ("objectives", position(r"^:::\{admonition\} Learning objectives", "learning objectives")),
        ("reading time", position(r"^\*Reading time: about \d+ minutes\.\*$", "a reading time")),
        ("worked example", position(r"^##+ Worked example", "a worked example section")),
        ("try it", position(r"^## Try it", "a '## Try it' section")),
        ("quiz", position(r"^## Practice quiz", "a '## Practice quiz' section")),
        ("faq", position(r"^## FAQ", "a '## FAQ' section")),
        ("summary", position(r"^## Summary", "a '## Summary' section")),
        ("references", position(r"^## References", "a '## References' section")),
    ]
    found = [(name, pos) for name, pos in order if pos >= 0]
    for (a, pa), (b, pb) in zip(found, found[1:], strict=False):
        if pa > pb:
            problems.append(f"'{a}' comes after '{b}'")

    # Executed content: a code cell (needs the MyST-NB header) or a figure.
    has_cell = re.search(r"^`{3,}\{code-cell\}", text, re.M) is not None
    has_figure = re.search(r"^`{3,}\{(figure|image)\}", text, re.M) is not None
    if not (has_cell or has_figure):
        problems.append("no executed code cell or figure")
    if has_cell and not re.match(r"^---\n(.*\n)*?kernelspec:", text):
        problems.append("code cells but no jupytext/kernelspec header, so they would not run")

    # Practice quiz directive right after its heading, naming an existing, valid bank.
    m = re.search(r"^## Practice quiz\s*\n+`{3,}\{quiz\} ([a-z0-9-]+)\s*\n", text, re.M)
    if m is None:
        problems.append("'## Practice quiz' is not followed by a {quiz} directive")
    else:
        bank = ROOT / "quizzes" / f"{m.group(1)}.yml"
        if not bank.exists():
            problems.append(f"quiz bank {bank.relative_to(ROOT)} does not exist")
        else:
            from nccl_course.quiz import BankError, load_bank

            try:
                load_bank(bank)
            except BankError as exc:
                problems.append(f"quiz bank {bank.name} does not load: {exc}")

    # References: footcite keys that exist once; the page ends with a footbibliography.
    cited = set()
    for group in re.findall(r"\{footcite(?::[a-z]+)?\}`([^`]+)`", text):
        cited.update(k.strip() for k in group.split(","))
    if not cited:
        problems.append("cites nothing ({footcite}`key`)")
    keys = bib_keys()
    for key in sorted(cited):
        if key not in keys:
            problems.append(f"cites unknown bib key {key!r}")
        elif len(keys[key]) > 1:
            problems.append(f"bib key {key!r} is defined in {keys[key]}")
    if re.search(r"\{(cite|bibliography)\}", text):
        problems.append("uses {cite}/{bibliography}; use {footcite} and {footbibliography}")
    tail = text[text.rfind("## References") :] if "## References" in text else ""
    if not re.search(r"^`{3,}\{footbibliography\}\s*\n`{3,}\s*$", tail, re.M):
        problems.append("'## References' has no {footbibliography} directive")

    # The FAQ asks at least two questions (any format); the summary is a list of points.
    faq = re.search(r"^## FAQ\n(.*?)^## ", prose, re.M | re.S)
    if faq and len(re.findall(r"\?(\*\*|`)?\s*$|\?\*\*", faq.group(1), re.M)) < 2:
        problems.append("FAQ asks fewer than two questions")
    summary = re.search(r"^## Summary\n(.*?)^## ", prose, re.M | re.S)
    if summary and len(re.findall(r"^- ", summary.group(1), re.M)) < 2:
        problems.append("summary has fewer than two points")

    assert not problems, f"{page.relative_to(ROOT)}:\n  " + "\n  ".join(problems)


def test_every_bib_key_is_defined_once():
    duplicated = {k: files for k, files in bib_keys().items() if len(files) > 1}
    assert not duplicated, f"bib keys defined more than once: {duplicated}"


def test_objectives_and_labels_are_unique():
    labels: dict[str, str] = {}
    for page in PAGES:
        m = re.search(r"^\(([a-z0-9-]+)\)=", page.read_text(), re.M)
        if m:
            assert m.group(1) not in labels, (
                f"label {m.group(1)} in {page.name} and {labels[m.group(1)]}"
            )
            labels[m.group(1)] = page.name
