"""Markdown of prompts and feedback to HTML, for renderers outside Sphinx (notebook widget, exam
server). Math is kept as ``$...$`` / ``$$...$$`` (HTML-escaped) for MathJax to typeset."""

from __future__ import annotations

import html
from functools import lru_cache


def _keep_math(content: str, options: dict) -> str:
    fence = "$$" if options.get("display_mode") else "$"
    return f"{fence}{html.escape(content)}{fence}"


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    # CommonMark passes raw HTML through: acceptable, since banks are written by course authors
    # and reviewed like code, never by learners.
    return MarkdownIt("commonmark").use(dollarmath_plugin, double_inline=True, renderer=_keep_math)


def markdown_html(text: str) -> str:
    """Markdown to HTML; $...$ and $$...$$ are kept for MathJax."""
    return _parser().render(text or "")
