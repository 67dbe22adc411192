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

Every text the reader sees is in the page's language (``language`` of the Sphinx build): what this
extension writes through ``nccl_course.i18n.interface``, and what the script writes through its
``S()``, from a JSON table of :data:`PAGE_SCRIPT_STRINGS` that a translated page carries.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.interface import catalog_path as interface_catalog_path
from nccl_course.i18n.interface import strings_script as page_strings
from nccl_course.quiz.sphinx_directive import QUESTIONS_ATTRIBUTE
from nccl_course.sphinx_static import serve_static_folder, use_page_library

STATIC = Path(__file__).parent / "static"
JS_FILE = "nccl-progress.js"
CSS_FILE = "nccl-progress.css"
META_NAME = "nccl-progress-doc"
LAB_MARKER = "lab.yaml"  # a lab is a folder labs/NN-name/ with this file (nccl_course.labs)
STRINGS_CLASS = "nccl-progress-strings"
# What static/nccl-progress.js writes into the page (its S() calls); a translated page carries
# them in its language as JSON (<script class="nccl-progress-strings">).
PAGE_SCRIPT_STRINGS = (
    N_('"{name}" must be an object'),
    N_('"{name}" has more than {count} entries'),
    N_('"{name}" has an entry with a bad name: {key}'),
    N_('"{name}" entry {key} must be a time such as {example}'),
    N_('"{name}" entry {key} must be a score from 0 to 1'),
    N_("the file does not hold a JSON object"),
    N_('this is not an nccl-course progress file (no "format": "{format}")'),
    N_("unknown version {version} (this page reads version {expected})"),
    N_("unexpected field {name}"),
    N_('"exported" must be a time such as {example}'),
    N_('"last" must be null or {"doc": a page name, "title": its title}'),
    N_("{value} %"),
    N_("Marked done (kept in this browser)."),
    N_("Marked not done."),
    N_("This browser does not let the page store anything; progress is not kept."),
    N_("visited"),
    N_("{answered} of {total} answered, score {score}"),
    N_("{answered} of {total} answered"),
    N_("done"),
    N_("not yet"),
    N_(
        "Visited {visited} of {pages} pages; practice questions answered: {answered} of "
        "{questions} (score {score}, best answer per question); labs done: {labs_done} of {labs}."
    ),
    N_("This browser does not let the page store anything, so progress is not kept."),
    N_("Exported to {file}."),
    N_("Not imported: {why}. Nothing was changed."),
    N_("the file is larger than 1 MiB"),
    N_("the file is not JSON ({error})"),
    N_("this browser does not let the page store anything"),
    N_("Imported: {pages} pages visited, {questions} questions answered, {labs} labs done."),
    N_("the file could not be read"),
    N_(
        "Clear your progress in this browser (pages visited, quiz scores, labs done)? This "
        "cannot be undone; export it first to keep a copy."
    ),
    N_("Nothing was cleared."),
    N_("Progress cleared."),
)


def page_language(config) -> str:
    """The language of the pages being built ("en" or "tr")."""
    return config.language or "en"


def note_interface_catalog(env) -> None:
    """A translated page takes its texts from the interface catalog: re-read it when that
    changes."""
    language = page_language(env.config)
    if language != "en":
        env.note_dependency(str(interface_catalog_path(language)))


def strings_script(language: str) -> str:
    """The script's strings in ``language`` as JSON, for a translated page ("" for English)."""
    return page_strings(language, PAGE_SCRIPT_STRINGS, STRINGS_CLASS)


class progress_table(nodes.General, nodes.Element):
    """Placeholder for the progress table; filled in when every page has been read."""


class ProgressDirective(SphinxDirective):
    """``{progress}``: the table of pages with visited / quiz score / lab done, and the
    export, import and clear controls."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.__dict__.setdefault("nccl_progress_docs", set()).add(self.env.docname)
        note_interface_catalog(self.env)
        return [progress_table()]


class ContinueDirective(SphinxDirective):
    """``{progress-continue}``: a link to the last page the reader visited (hidden until the
    script knows one)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        note_interface_catalog(self.env)
        return [nodes.raw("", continue_markup(page_language(self.env.config)), format="html")]


def continue_markup(language: str) -> str:
    """The "continue where you left off" paragraph; the script fills in the link."""
    _ = translator(language)
    return (
        f'<p class="nccl-progress-continue" hidden>'
        f"{html.escape(_(N_('Continue where you left off:')))} "
        '<a class="nccl-progress-continue-link" href="#"></a></p>'
    )


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
    if is_lab_page(app, env.docname):  # the lab checkbox is written in the page's language
        note_interface_catalog(env)


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
    language = page_language(app.config)
    _ = translator(language)
    questions = getattr(env, "nccl_progress_questions", {})
    nojs = _(N_("Your progress is kept by your browser; turn on JavaScript to see it."))
    out = ['<div class="nccl-progress" data-state="loading">', strings_script(language)]
    out.append(
        '<p class="nccl-progress-summary" role="status"></p>'
        f'<p class="nccl-progress-nojs">{html.escape(nojs)}</p>'
    )
    headers = "".join(
        f"<th>{html.escape(_(h))}</th>"
        for h in (N_("Page"), N_("Visited"), N_("Practice quiz"), N_("Lab"))
    )
    for caption, pages in toc_parts(env):
        pages = [d for d in pages if d != fromdoc]
        if not pages:
            continue
        if caption:
            out.append(f'<h2 class="nccl-progress-part">{html.escape(caption)}</h2>')
        out.append(f'<table class="nccl-progress-table"><thead><tr>{headers}</tr></thead><tbody>')
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
        '<button type="button" class="nccl-progress-export">'
        f"{html.escape(_(N_('Export progress (JSON)')))}</button> "
        '<label class="nccl-progress-import-label">'
        f"{html.escape(_(N_('Import progress from a file')))} "
        '<input type="file" class="nccl-progress-import" accept=".json,application/json">'
        "</label> "
        '<button type="button" class="nccl-progress-clear">'
        f"{html.escape(_(N_('Clear progress')))}</button>"
        '<p class="nccl-progress-message" role="status" aria-live="polite"></p></div>'
    )
    out.append("</div>")
    return "".join(out)


def lab_control_markup(docname: str, language: str) -> str:
    """The "mark this lab done" checkbox of a lab page (with the script's strings)."""
    _ = translator(language)
    return (
        f'<div class="nccl-progress-lab-control" data-doc="{html.escape(docname)}">'
        f"{strings_script(language)}"
        '<label><input type="checkbox" class="nccl-progress-lab-done"> '
        f"{html.escape(_(N_('Mark this lab done')))}</label>"
        '<span class="nccl-progress-lab-note" role="status"></span></div>'
    )


def _lab_control(app: Sphinx, docname: str) -> nodes.raw:
    markup = lab_control_markup(docname, page_language(app.config))
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
            section.insert(where, _lab_control(app, docname))


def _meta(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if doctree is None:
        return
    tag = f'<meta name="{META_NAME}" content="{html.escape(pagename)}">\n'
    context["metatags"] = context.get("metatags", "") + tag


def setup(app: Sphinx) -> dict:
    app.add_node(progress_table)
    app.add_directive("progress", ProgressDirective)
    app.add_directive("progress-continue", ContinueDirective)
    serve_static_folder(app, STATIC)
    use_page_library(app)  # its script uses the library: S(), onReady()
    app.connect("doctree-read", _record_questions)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-resolved", _resolve)
    app.connect("html-page-context", _meta)
    app.add_js_file(JS_FILE)
    app.add_css_file(CSS_FILE)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
