"""The built Turkish edition writes numbers the Turkish way: in the prose and math of every
Turkish page, no English decimal point (367.2 GB/s, $1.875$) and no English thousands grouping
(26,214,400, 26{,}214{,}400). Code, program output, links, citations and releases (NCCL 2.30.7,
PyTorch 2.13, CUDA 12.8) are written as they are in every language."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from nccl_course.i18n.catalog_numbers import leftovers

# What is the same in every language: code and its output, data for scripts, citations.
NOT_PROSE = (
    "pre, code, kbd, samp, script, style, .highlight, .cell_output, .output, .citation,"
    " .footnote, .footnote-list, .bibliography, .nccl-quiz-key, [translate=no]"
)


def page_texts(html: str) -> list[str]:
    """Each block of a page's body as text, its math written back as ``$...$``."""
    soup = BeautifulSoup(html, "lxml")
    body = soup.select_one("article") or soup.body
    if body is None:
        return []
    for node in body.select(NOT_PROSE):
        node.decompose()
    for math in body.select(".math"):
        tex = math.get_text().strip()
        for opening, closing in (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$")):
            if tex.startswith(opening) and tex.endswith(closing):
                tex = tex[len(opening) : -len(closing)]
        math.replace_with(f" ${tex.strip()}$ ")
    blocks = body.select("p, li, td, th, dt, dd, h1, h2, h3, h4, figcaption, caption")
    return [b.get_text(" ") for b in blocks if not b.find(["p", "li", "td"])]


def test_no_english_numbers_in_the_turkish_pages(built_book):
    turkish = built_book / "tr"
    pages = sorted(p for p in turkish.rglob("*.html") if "_static" not in p.parts)
    assert pages, f"no Turkish pages under {turkish}"
    found = []
    for page in pages:
        for text in page_texts(page.read_text(encoding="utf-8")):
            for number in leftovers(text, "tr"):
                around = text[max(0, number.start - 30) : number.start + len(number.text) + 15]
                found.append(f"{Path(page).relative_to(turkish)}: {number.text} in …{around}…")
    assert not found, f"{len(found)} numbers written the English way:\n" + "\n".join(found[:40])
