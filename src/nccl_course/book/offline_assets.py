"""Serve every script the book needs from the build itself, never from a CDN.

By default Sphinx loads MathJax from a CDN, and a reader offline (or behind a firewall) then sees
raw LaTeX. This extension stages the copies that ``npm ci`` put in ``node_modules/`` (pinned by
package-lock.json) into ``_static/vendor/`` and points Sphinx at them.

MyST-NB would also load require.js and the ipywidgets embed manager from CDNs for a page whose
notebook shows ipywidgets. The book has no such page: that manager compiles code with
``new Function``, which the course's Content-Security-Policy refuses, so the in-page controls are
the course's own explorers (``nccl_course.viz.sphinx_explorers``) and a widget cell runs only in
Jupyter (tagged ``skip-execution``). MyST-NB is given no widget scripts to load, and a page that
embeds widgets anyway stops the build (``nccl_course.book.served_files``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from nccl_course.sphinx_static import add_static_folders

VENDOR = "vendor"
MATHJAX_JS = f"{VENDOR}/mathjax/tex-chtml.js"
STATIC = Path(__file__).parent / "static"

# (source under node_modules, destination under _static/vendor, files to skip)
_ASSETS = [
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
    # A folder an earlier build staged for an asset no longer listed would still be shipped.
    wanted = {dest.split("/")[0] for _, dest, _ in _ASSETS}
    for stale in target.glob("*") if target.is_dir() else ():
        if stale.name not in wanted:
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
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
    # No widget manager, and no CDN default in its place (the module's docstring says why).
    config.nb_ipywidgets_js = {}
    # Relative to _static/ for each page, at any depth.
    config.mathjax_path = MATHJAX_JS


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _configure, priority=900)
    app.connect("builder-inited", _stage)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
