"""Learner progress kept in the reader's browser: a Sphinx extension.

What a reader has done is stored in the browser's ``localStorage`` by ``static/nccl-progress.js``
(no account, no server, no network): pages visited, the best score of every practice-quiz
question, and labs marked done. The extension puts into the built pages what that script needs:

- on every page, a ``<meta name="nccl-progress-doc">`` with the page's name (the Sphinx docname,
  e.g. ``book/collectives/03-all-reduce``), so a visit is recorded under a stable key;
- on every lab page (a page in a folder holding ``lab.yaml``), a "mark this lab done" control;
- ``{progress}``: the progress page, a table of every page of the book in table-of-contents order,
  grouped by the toc's parts, with the practice-quiz questions each page holds; the list is read
  from the toc when the book is built, so a new chapter appears without editing anything;
- ``{progress-continue}``: a "continue where you left off" link (filled in by the script).

Scores are per question (``chapter/question-id``, the quiz bank's chapter and the question's id),
so a question answered on the page that gathers every quiz counts for its chapter too.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from nccl_course.quiz.sphinx_directive import QUESTIONS_ATTRIBUTE

STATIC = Path(__file__).parent / "static"
JS_FILE = "nccl-progress.js"
CSS_FILE = "nccl-progress.css"
META_NAME = "nccl-progress-doc"
LAB_MARKER = "lab.yaml"  # a lab is a folder labs/NN-name/ with this file (nccl_course.labs)


class progress_table(nodes.General, nodes.Element):
    """Placeholder for the progress table; filled in when every page has been read."""


class ProgressDirective(SphinxDirective):
    """``{progress}``: the table of pages with visited / quiz score / lab done, and the
    export, import and clear controls."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.__dict__.setdefault("nccl_progress_docs", set()).add(self.env.docname)
        return [progress_table()]


class ContinueDirective(SphinxDirective):
    """``{progress-continue}``: a link to the last page the reader visited (hidden until the
    script knows one)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        markup = (
            '<p class="nccl-progress-continue" hidden>Continue where you left off: '
            '<a class="nccl-progress-continue-link" href="#"></a></p>'
        )
        return [nodes.raw("", markup, format="html")]


def is_lab_page(app: Sphinx, docname: str) -> bool:
    """A page whose source sits in a lab folder (next to a ``lab.yaml``)."""
    source = Path(app.env.doc2path(docname))
    return (source.parent / LAB_MARKER).is_file()


def toc_parts(env) -> list[tuple[str, list[str]]]:
    """The book's pages in table-of-contents order: ``[(part caption, [docname, ...])]``, the
    home page first (caption "").

    Read from the root page's toctrees (Jupyter Book makes one per part of ``_toc.yml``), each
    page followed by the pages it includes in turn."""
    root = env.config.root_doc
    parts = [("", [root])]  # the home page, before the first part
    for toctree in env.get_doctree(root).findall(addnodes.toctree):
        pages: list[str] = []
        for _title, ref in toctree["entries"]:
            _walk(env, ref, pages)
        parts.append((toctree.get("caption") or "", pages))
    return parts


def _walk(env, docname: str, out: list[str]) -> None:
    if docname in out or docname not in env.all_docs:
        return
    out.append(docname)
    for child in env.toctree_includes.get(docname, []):
        _walk(env, child, out)


def _record_questions(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    questions = []
    for node in doctree.findall(nodes.container):
        questions.extend(node.get(QUESTIONS_ATTRIBUTE, []))
    store = env.__dict__.setdefault("nccl_progress_questions", {})
    if questions:
        store[env.docname] = questions
    else:
        store.pop(env.docname, None)


def _purge(app: Sphinx, env, docname: str) -> None:
    env.__dict__.setdefault("nccl_progress_questions", {}).pop(docname, None)
    env.__dict__.setdefault("nccl_progress_docs", set()).discard(docname)


def _merge(app: Sphinx, env, docnames, other) -> None:
    store = env.__dict__.setdefault("nccl_progress_questions", {})
    theirs = getattr(other, "nccl_progress_questions", {})
    store.update({d: q for d, q in theirs.items() if d in docnames})
    docs = env.__dict__.setdefault("nccl_progress_docs", set())
    docs |= getattr(other, "nccl_progress_docs", set()) & set(docnames)


def _outdated(app: Sphinx, env, added, changed, removed) -> list[str]:
    # The progress table lists every page: read (and so write) it again on every build, so a
    # page added, renamed or given a quiz appears without touching the progress page.
    return sorted(getattr(env, "nccl_progress_docs", set()) - set(removed))


def _title(env, docname: str) -> str:
    title = env.titles.get(docname)
    return title.astext() if title is not None else docname


def _table_markup(app: Sphinx, fromdoc: str) -> str:
    env = app.env
    questions = getattr(env, "nccl_progress_questions", {})
    out = ['<div class="nccl-progress" data-state="loading">']
    out.append(
        '<p class="nccl-progress-summary" role="status"></p>'
        '<p class="nccl-progress-nojs">Your progress is kept by your browser; turn on '
        "JavaScript to see it.</p>"
    )
    for caption, pages in toc_parts(env):
        pages = [d for d in pages if d != fromdoc]
        if not pages:
            continue
        if caption:
            out.append(f'<h2 class="nccl-progress-part">{html.escape(caption)}</h2>')
        out.append(
            '<table class="nccl-progress-table"><thead><tr><th>Page</th><th>Visited</th>'
            "<th>Practice quiz</th><th>Lab</th></tr></thead><tbody>"
        )
        for doc in pages:
            uri = app.builder.get_relative_uri(fromdoc, doc)
            qids = json.dumps(questions.get(doc, []))
            lab = "true" if is_lab_page(app, doc) else "false"
            out.append(
                f'<tr data-doc="{html.escape(doc)}" data-questions="{html.escape(qids)}" '
                f'data-lab="{lab}"><td><a href="{html.escape(uri)}">'
                f"{html.escape(_title(env, doc))}</a></td>"
                '<td class="nccl-progress-visited"></td><td class="nccl-progress-quiz"></td>'
                '<td class="nccl-progress-lab"></td></tr>'
            )
        out.append("</tbody></table>")
    out.append(
        '<div class="nccl-progress-actions">'
        '<button type="button" class="nccl-progress-export">Export progress (JSON)</button> '
        '<label class="nccl-progress-import-label">Import progress from a file '
        '<input type="file" class="nccl-progress-import" accept=".json,application/json">'
        "</label> "
        '<button type="button" class="nccl-progress-clear">Clear progress</button>'
        '<p class="nccl-progress-message" role="status" aria-live="polite"></p></div>'
    )
    out.append("</div>")
    return "".join(out)


def _lab_control(docname: str) -> nodes.raw:
    markup = (
        f'<div class="nccl-progress-lab-control" data-doc="{html.escape(docname)}">'
        '<label><input type="checkbox" class="nccl-progress-lab-done"> '
        "Mark this lab done</label>"
        '<span class="nccl-progress-lab-note" role="status"></span></div>'
    )
    return nodes.raw("", markup, format="html")


def _resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for node in list(doctree.findall(progress_table)):
        if app.builder.format == "html":
            node.replace_self(nodes.raw("", _table_markup(app, docname), format="html"))
        else:
            node.replace_self([])
    if app.builder.format == "html" and is_lab_page(app, docname):
        section = next(iter(doctree.findall(nodes.section)), None)
        if section is not None:
            title = next(iter(section.findall(nodes.title)), None)
            where = section.index(title) + 1 if title is not None else 0
            section.insert(where, _lab_control(docname))


def _meta(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if doctree is None:
        return
    tag = f'<meta name="{META_NAME}" content="{html.escape(pagename)}">\n'
    context["metatags"] = context.get("metatags", "") + tag


def _add_static_path(app: Sphinx, config) -> None:
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))


def setup(app: Sphinx) -> dict:
    app.add_node(progress_table)
    app.add_directive("progress", ProgressDirective)
    app.add_directive("progress-continue", ContinueDirective)
    app.connect("config-inited", _add_static_path)
    app.connect("doctree-read", _record_questions)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-resolved", _resolve)
    app.connect("html-page-context", _meta)
    app.add_js_file(JS_FILE)
    app.add_css_file(CSS_FILE)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
