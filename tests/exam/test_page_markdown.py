"""The exam page's small markdown renderer (static/markdown.js), run in Node: it escapes HTML
(question text must never inject markup), keeps TeX intact for MathJax, renders code."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from nccl_course.sphinx_static import PAGE_LIBRARY, PAGE_LIBRARY_DIR

MARKDOWN_JS = Path(__file__).resolve().parents[2] / "src/nccl_course/server/static/markdown.js"
# The page loads the course's library first: markdown.js escapes with its escapeHtml().
SCRIPTS = (PAGE_LIBRARY_DIR / PAGE_LIBRARY, MARKDOWN_JS)


def render(function: str, text: str) -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    source = "\n".join(path.read_text(encoding="utf-8") for path in SCRIPTS)
    script = source + f"\nprocess.stdout.write({function}({json.dumps(text)}));\n"
    result = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_markup_is_escaped():
    html = render("renderMarkdown", 'Pick <img src=x onerror="alert(1)"> or `<script>`')
    assert "<img" not in html and "<script>" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "<code>&lt;script&gt;</code>" in html


def test_math_is_left_for_mathjax_and_emphasis_works():
    html = render("renderInline", "The **busbw** is $B \\cdot 2(p-1)/p$ and *not* $a*b*c$")
    assert html == ("The <strong>busbw</strong> is $B \\cdot 2(p-1)/p$ and <em>not</em> $a*b*c$")


def test_blocks():
    html = render("renderMarkdown", "one\ntwo\n\n- a\n- b\n\n```\nx < y\n```")
    assert html == (
        "<p>one two</p>\n<ul><li>a</li><li>b</li></ul>\n<pre><code>x &lt; y</code></pre>"
    )


def test_wrapped_lines_are_not_paragraph_breaks():
    # feedback from a YAML block scalar: lines wrapped at ~100 columns, one blank line between
    # the two paragraphs the author wrote
    html = render(
        "renderMarkdown", "Right. Every rank\nsends $n/p$ per step.\n\nSo the ring\nwins.\n"
    )
    assert html == "<p>Right. Every rank sends $n/p$ per step.</p>\n<p>So the ring wins.</p>"


def test_wrapped_list_items_stay_one_item():
    # a multiple-choice grade: one item per choice, each choice's feedback wrapped in the bank
    text = (
        "Partly right: score 0.50.\n\n"
        "- Choice 1 (right to select): Right. Only the $\\alpha$ term\ncounts here.\n"
        "- Choice 3 (missed): The ring pays\n$2(p-1)$ latencies.\n\n"
        "Explanation after\nthe list."
    )
    assert render("renderMarkdown", text) == (
        "<p>Partly right: score 0.50.</p>\n"
        "<ul><li>Choice 1 (right to select): Right. Only the $\\alpha$ term counts here.</li>"
        "<li>Choice 3 (missed): The ring pays $2(p-1)$ latencies.</li></ul>\n"
        "<p>Explanation after the list.</p>"
    )


def test_indented_paragraph_continues_its_item():
    html = render("renderMarkdown", "- first\n  wrapped\n\n  second paragraph\n- next")
    assert html == ("<ul><li><p>first wrapped</p><p>second paragraph</p></li><li>next</li></ul>")
