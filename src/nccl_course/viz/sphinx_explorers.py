"""The ``{cost-explorer}`` directive: an interactive cost-model explorer that computes in the
reader's browser, with no kernel and no network.

Usage in a MyST page::

    ```{cost-explorer} algorithms
    :collective: all_reduce
    :preset: ib-ndr-2node
    ```

Kinds: ``algorithms`` (time and busbw versus size for every algorithm, log-log, the switch
points of the fastest and NCCL's own pick marked), ``nccl`` (what NCCL picks, algorithm,
protocol and channels, across sizes), ``schedule`` (bytes each rank sends in each step of a
simulator schedule) and ``training`` (a training step's communication for DDP, FSDP/ZeRO-3 and
tensor parallel). Options set the first state: ``:collective:``, ``:preset:``, ``:ranks:``,
``:algorithm:``, ``:size:`` (bytes, "64MiB" allowed), ``:model:`` (a shape name).

At build time the extension writes the data the JavaScript needs
(:func:`nccl_course.viz.explorer_data.write_data`) into ``_static/nccl-explorers/``, and adds
uPlot (vendored from npm by :mod:`nccl_course.book.offline_assets`), the data, the model
(``static/cost-model.js``) and the user interface (``static/nccl-explorers.js``) to the pages
that have an explorer, and only to those.

The explorers speak the page's language (``language`` of the Sphinx build): the text written here
goes through ``nccl_course.i18n.interface``, and a translated page carries the strings of the
script's ``S()`` calls (:data:`PAGE_SCRIPT_STRINGS`) and its decimal separator as JSON in a
``<script class="nccl-explorer-strings">``. Names of collectives, algorithms, protocols (Ring,
Tree, LL, Simple, NVLS), presets and models are the same in every language.
"""

from __future__ import annotations

import html
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.interface import catalog_path as interface_catalog_path
from nccl_course.i18n.interface import strings_script as page_strings
from nccl_course.i18n.numbers import decimal_separator
from nccl_course.sphinx_static import add_static_folders, use_page_library
from nccl_course.units import parse_size
from nccl_course.viz.explorer_data import write_data

STATIC = Path(__file__).parent / "static"
DATA_FOLDER = "nccl-explorers"
DATA_JS = f"{DATA_FOLDER}/cost-data.js"
UPLOT_JS = "vendor/uplot/uPlot.iife.min.js"
UPLOT_CSS = "vendor/uplot/uPlot.min.css"
SCRIPTS = (UPLOT_JS, DATA_JS, "cost-model.js", "nccl-explorers.js")
STYLES = (UPLOT_CSS, "nccl-explorers.css")
KINDS = ("algorithms", "nccl", "schedule", "training")
WRAPPER_CLASS = "nccl-explorer-wrapper"
STRINGS_CLASS = "nccl-explorer-strings"
# What static/nccl-explorers.js writes into the page (its S() calls).
PAGE_SCRIPT_STRINGS = (
    # controls
    N_("collective"),
    N_("preset"),
    N_("ranks"),
    N_("size"),
    N_("algorithm"),
    N_("pipeline pieces"),
    N_("model"),
    N_("group size"),
    N_("bytes per element"),
    N_("TP sequence parallel"),
    N_("no"),
    N_("yes"),
    # algorithms: time and busbw versus size
    N_("NCCL's estimate"),
    N_("{collective} on {preset}, {ranks} ranks: time"),
    N_("time (us)"),
    N_("size below"),
    N_("bus bandwidth (nccl-tests factor)"),
    N_("{algorithm} (fastest)"),
    N_(
        "{collective} of {size} on {ranks} ranks of {preset}: fastest {algorithm}, {time} us, "
        "busbw {busbw} GB/s."
    ),
    N_("pipeline depth"),
    N_("The fastest changes: {changes}."),
    N_("{from} → {to} at {size}"),
    N_("{algorithm} is fastest at every size."),
    N_(
        "{library}'s tuner picks {algorithm}/{protocol} on {channels} channels: {time} us, "
        "busbw {busbw} GB/s (its estimate, dashed)."
    ),
    N_(
        "{library} runs it as grouped sends and receives, {protocol} on {channels} channels: "
        "{time} us, busbw {busbw} GB/s (its estimate, dashed)."
    ),
    N_("NCCL's tuner model does not cover this collective or rank count."),
    # what NCCL picks
    N_("NCCL's pick for {collective} on {preset}, {ranks} ranks"),
    N_("busbw of NCCL's pick"),
    N_("timed by"),
    N_("busbw of a call, timed by {harness}"),
    N_("time of a call (us)"),
    N_("busbw of a call (GB/s)"),
    N_(
        "NCCL's own estimate (dashed) is what it chooses by; a call also pays a fixed cost per "
        "call, the pipeline's fill and the network's achievable bandwidth (solid), as {harness} "
        "measures them."
    ),
    N_("protocol"),
    N_("channels"),
    # bytes per rank per step ("rank" is the word in both languages, as in the figures)
    N_("{collective} / {algorithm}, {ranks} ranks: bytes each rank sends per step"),
    N_("step"),
    N_("bytes sent"),
    N_("{steps} steps; each cell is what the rank sends in that step (a collective of {size})."),
    N_("step {number}"),
    N_("total"),
    # a training step's communication
    N_("tensor parallel"),
    N_("{model} on {preset}: communication per step if nothing overlaps"),
    N_("time (ms)"),
    N_("{ranks} ranks"),
    N_(
        "{model}: {parameters} billion parameters (12 L h² + V h), {ranks} ranks per "
        "group, {bytes} bytes per element."
    ),
    N_("strategy"),
    N_("collective calls per step"),
    N_("bytes sent per rank"),
    N_("time on preset (ms)"),
)


def _size(argument: str) -> str:
    return str(parse_size(argument))


def explorer_markup(kind: str, options: dict, language: str) -> str:
    """An explorer's element: its kind and options as data-* attributes, and what a reader
    without JavaScript sees, in ``language``."""
    attrs = "".join(f' data-{name}="{html.escape(str(value))}"' for name, value in options.items())
    noscript = translator(language)(
        N_("This explorer computes in your browser: it needs JavaScript (no kernel, no network).")
    )
    return (
        f'<div class="nccl-explorer" data-kind="{kind}"{attrs}>'
        f'<p class="nccl-explorer-noscript">{html.escape(noscript)}</p></div>'
    )


def strings_script(language: str) -> str:
    """The script's strings and decimal separator in ``language`` as JSON ("" for English)."""
    if language == "en":
        return ""
    return page_strings(
        language, PAGE_SCRIPT_STRINGS, STRINGS_CLASS, decimal=decimal_separator(language)
    )


class CostExplorerDirective(SphinxDirective):
    required_arguments = 1
    has_content = False
    option_spec = {
        "collective": directives.unchanged,
        "preset": directives.unchanged,
        "ranks": directives.positive_int,
        "algorithm": directives.unchanged,
        "size": _size,
        "model": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        kind = self.arguments[0].strip()
        if kind not in KINDS:
            raise self.error(f"cost-explorer: unknown kind {kind!r}; known: {', '.join(KINDS)}")
        language = self.env.config.language or "en"
        if language != "en":  # the page's texts come from the interface catalog
            self.env.note_dependency(str(interface_catalog_path(language)))
        root = nodes.container(classes=[WRAPPER_CLASS])
        # The strings once per page: the script reads the first table.
        document = self.state.document
        if not document.get("nccl_explorer_strings"):
            document["nccl_explorer_strings"] = True
            strings = strings_script(language)
            if strings:
                root += nodes.raw("", strings, format="html")
        root += nodes.raw("", explorer_markup(kind, self.options, language), format="html")
        return [root]


def _write_data(app: Sphinx) -> None:
    staging = Path(app.outdir).parent / ".nccl-explorers"
    # beside the doctree folders, not in one: every edition's build (each with its own doctree
    # folder under _build/) reuses the data the first one made
    write_data(staging / DATA_JS, cache_dir=Path(app.doctreedir).parent / "nccl-explorers-cache")
    add_static_folders(app.config, staging, STATIC)


def _add_assets(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if doctree is None:
        return
    wrappers = doctree.findall(
        lambda n: isinstance(n, nodes.container) and WRAPPER_CLASS in n.get("classes", [])
    )
    if next(iter(wrappers), None) is None:
        return
    for script in SCRIPTS:
        app.add_js_file(script)
    for style in STYLES:
        app.add_css_file(style)


def setup(app: Sphinx) -> dict:
    app.add_directive("cost-explorer", CostExplorerDirective)
    app.connect("builder-inited", _write_data)
    app.connect("html-page-context", _add_assets)
    use_page_library(app)  # nccl-explorers.js uses the library: S(), element(), onReady()
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
