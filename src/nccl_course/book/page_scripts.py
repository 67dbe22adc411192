"""Each page loads each script once.

Sphinx 7.4 lists an inline script twice when an extension adds it after the HTML builder has
started (``sphinx_thebe``'s ``const THEBE_JS_URL = ...``, ``sphinx_togglebutton``'s selector): the
builder keeps the copy it was handed (file name ``None``) and the one it re-reads from the
extension registry (file name ``""``), which compare unequal. Declaring a ``const`` twice is a
SyntaxError, logged on every page. This extension drops the second copy of any script that has
the same file and attributes as an earlier one, whatever its priority.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def _identity(script) -> tuple:
    attributes = {k: str(v) for k, v in script.attributes.items() if k != "priority"}
    return (str(script.filename or ""), tuple(sorted(attributes.items())))


def unique_scripts(scripts: list) -> list:
    """``scripts`` (Sphinx ``_JavaScript`` assets) without repeats, in their order."""
    seen: set[tuple] = set()
    kept = []
    for script in scripts:
        key = _identity(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    return kept


def _dedupe(app: Sphinx, pagename, templatename, context: dict, doctree) -> None:
    if "script_files" in context:
        # A new list: the builder restores its own after each page.
        context["script_files"] = unique_scripts(context["script_files"])


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
