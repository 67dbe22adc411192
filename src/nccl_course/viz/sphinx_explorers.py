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
"""

from __future__ import annotations

import html
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

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


def _size(argument: str) -> str:
    return str(parse_size(argument))


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
        attrs = "".join(
            f' data-{name}="{html.escape(str(value))}"' for name, value in self.options.items()
        )
        markup = (
            f'<div class="nccl-explorer" data-kind="{kind}"{attrs}>'
            '<p class="nccl-explorer-noscript">This explorer computes in your browser: it needs '
            "JavaScript (no kernel, no network).</p></div>"
        )
        root = nodes.container(classes=[WRAPPER_CLASS])
        root += nodes.raw("", markup, format="html")
        return [root]


def _write_data(app: Sphinx) -> None:
    staging = Path(app.outdir).parent / ".nccl-explorers"
    write_data(staging / DATA_JS, cache_dir=Path(app.doctreedir) / "nccl-explorers-cache")
    for folder in (staging, STATIC):
        if str(folder) not in app.config.html_static_path:
            app.config.html_static_path.append(str(folder))


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
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
