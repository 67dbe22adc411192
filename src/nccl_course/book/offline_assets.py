"""Serve every script the book needs from the build itself, never from a CDN.

By default MyST-NB loads require.js and the ipywidgets embed manager from CDNs, and Sphinx loads
MathJax from one. A reader offline (or behind a firewall) then sees dead widgets and raw LaTeX.
This extension stages the copies that ``npm ci`` put in ``node_modules/`` (pinned by
package-lock.json) into ``_static/vendor/`` and points MyST-NB and Sphinx at them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from nccl_course.sphinx_static import add_static_folders

VENDOR = "vendor"
REQUIRE_JS = f"{VENDOR}/requirejs/require.js"
WIDGETS_EMBED_JS = f"{VENDOR}/html-manager/embed-amd.js"
MATHJAX_JS = f"{VENDOR}/mathjax/tex-chtml.js"
# The course's own set-up for the widget manager (static/nccl-widgets.js says why).
WIDGETS_SETUP_JS = "nccl-widgets.js"
STATIC = Path(__file__).parent / "static"

# (source under node_modules, destination under _static/vendor, files to skip)
_ASSETS = [
    ("requirejs/require.js", "requirejs/require.js", ()),
    ("@jupyter-widgets/html-manager/dist", "html-manager", (".map", "embed.js", "libembed-amd.js")),
    ("mathjax/es5", "mathjax", ("mml-svg.js", "tex-svg.js", "tex-mml-svg.js", "tex-svg-full.js")),
    # uPlot draws the in-page cost-model explorers (nccl_course.viz.sphinx_explorers)
    ("uplot/dist", "uplot", (".cjs.js", ".esm.js", ".d.ts", "uPlot.iife.js")),
]


def _node_modules(app: Sphinx) -> Path:
    # A whole-book build runs from the repository root; a one-page build
    # (jupyter-book build book/x.md) from the page's folder: look upwards.
    start = Path(app.confdir).resolve()
    for folder in (start, *start.parents):
        modules = folder / "node_modules"
        if modules.is_dir():
            return modules
    raise ExtensionError(
        f"no node_modules folder in {start} or above it: the book ships its JavaScript from the "
        "npm registry so it works offline. Run 'npm ci' in the repository root (or 'make setup') "
        "and build again."
    )


def _stage(app: Sphinx) -> None:
    modules = _node_modules(app)
    staging = Path(app.outdir).parent / ".offline-assets"
    target = staging / VENDOR
    for source, dest, skip in _ASSETS:
        src = modules / source
        if not src.exists():
            raise ExtensionError(f"{src} is missing; run 'npm ci' in the repository root.")
        dst = target / dest
        if dst.exists():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(
                src, dst, ignore=lambda _d, names, skip=skip: [n for n in names if n.endswith(skip)]
            )
        else:
            shutil.copy2(src, dst)
    add_static_folders(app.config, staging, STATIC)


def _configure(app: Sphinx, config) -> None:
    # Relative paths here resolve under _static/ for each page, at any depth.
    # In this order: the set-up configures require.js and must run before the manager loads.
    config.nb_ipywidgets_js = {
        REQUIRE_JS: {},
        WIDGETS_SETUP_JS: {},
        WIDGETS_EMBED_JS: {"data-jupyter-widgets-cdn": f"_static/{VENDOR}/widget-modules/"},
    }
    config.mathjax_path = MATHJAX_JS


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _configure, priority=900)
    app.connect("builder-inited", _stage)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
