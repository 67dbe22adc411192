"""Run it yourself: a notebook download and launch buttons on every executable page.

An executable page is a MyST markdown notebook (a page with a ``kernelspec`` in its jupytext
header). For each one this extension

- converts the page's source to a Jupyter notebook with jupytext when the book is built and ships
  it in the site as ``_notebooks/<page>.ipynb`` (no ``.ipynb`` is committed), with a download
  button in the page's header;
- when ``_config.yml`` names the repository (``repository: url:``, a GitHub URL) and a launch
  service (``launch_buttons:``), adds a "launch" menu: Binder and JupyterHub open the page's
  MyST source from the repository (jupytext, pinned in ``requirements/lock.txt``, opens it as a
  notebook there); Colab opens only ``.ipynb`` files from GitHub, so it gets a button only when
  ``nccl_notebooks_branch`` (a Sphinx setting) names the branch that holds the published site,
  whose ``_notebooks/`` folder has the generated notebooks. Without a repository URL no launch
  button is shown, never a link to a repository that is not there.

sphinx-book-theme would also build launch links from the same settings, but for a markdown page
its Colab link names the ``.md`` file, which Colab cannot open (it reads notebooks only:
https://github.com/executablebooks/sphinx-book-theme/issues/107). The settings are therefore taken
from the theme's options at start-up and the buttons made here. Their tooltips are in the page's
language (``language`` of the Sphinx build, through ``nccl_course.i18n.interface``).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, urlencode

from sphinx.application import Sphinx
from sphinx.util import logging

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.interface import catalog_path as interface_catalog_path

NOTEBOOK_DIR = "_notebooks"
# Jupyter Book's own default repository (default_config.yml); it means "none set".
JUPYTER_BOOK_DEFAULT_REPO = "https://github.com/executablebooks/jupyter-book"
_INTERFACES = {"classic": "tree", "jupyterlab": "lab/tree"}
_LAUNCH_KEYS = ("binderhub_url", "jupyterhub_url", "colab_url")

logger = logging.getLogger(__name__)


def github_repo(url: str) -> tuple[str, str] | None:
    """``(org, repo)`` of a ``https://github.com/ORG/REPO`` URL; None for anything else."""
    url = (url or "").strip().rstrip("/")
    if url.endswith(".git"):
        url = url[: -len(".git")]
    prefix = "https://github.com/"
    if not url.startswith(prefix) or url == JUPYTER_BOOK_DEFAULT_REPO:
        return None
    parts = url[len(prefix) :].split("/")
    if len(parts) != 2 or not all(parts):
        return None
    return parts[0], parts[1]


def launch_links(
    docname: str,
    source_suffix: str,
    repository_url: str,
    branch: str,
    path_to_book: str,
    launch: dict,
    notebooks_branch: str = "",
) -> list[tuple[str, str]]:
    """``[(service, URL)]`` that open page ``docname`` in each configured service; empty
    without a GitHub repository URL."""
    repo = github_repo(repository_url)
    if repo is None:
        return []
    org, name = repo
    branch = branch or "main"
    ui = _INTERFACES.get(launch.get("notebook_interface") or "classic", "tree")
    prefix = path_to_book.strip("/") + "/" if path_to_book.strip("/") else ""
    source = f"{prefix}{docname}{source_suffix}"
    links = []
    binder = (launch.get("binderhub_url") or "").strip().rstrip("/")
    if binder:
        links.append(("Binder", f"{binder}/v2/gh/{org}/{name}/{branch}?urlpath={ui}/{source}"))
    hub = (launch.get("jupyterhub_url") or "").strip().rstrip("/")
    if hub:
        query = urlencode(
            {
                "repo": f"https://github.com/{org}/{name}",
                "urlpath": f"{ui}/{name}/{source}",
                "branch": branch,
            },
            safe="/",
        )
        links.append(("JupyterHub", f"{hub}/hub/user-redirect/git-pull?{query}"))
    colab = (launch.get("colab_url") or "").strip().rstrip("/")
    if colab and notebooks_branch:
        notebook = quote(f"{NOTEBOOK_DIR}/{docname}.ipynb")
        links.append(("Colab", f"{colab}/github/{org}/{name}/blob/{notebooks_branch}/{notebook}"))
    return links


def write_notebook(source: Path, target: Path) -> Path:
    """The MyST markdown notebook ``source`` as a Jupyter notebook (no outputs) at ``target``."""
    import jupytext

    notebook = jupytext.read(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(notebook, target, fmt="ipynb")
    return target


def _take_launch_settings(app: Sphinx, config) -> None:
    options = dict(config.html_theme_options or {})
    launch = options.pop("launch_buttons", None) or {}
    config.nccl_launch_buttons = {k: v for k, v in launch.items() if v}
    config.html_theme_options = options


def _is_notebook(app: Sphinx, pagename: str) -> bool:
    return "kernelspec" in app.env.metadata.get(pagename, {})


def _note_interface_catalog(app: Sphinx, doctree) -> None:
    # A translated notebook page takes its buttons' tooltips from the interface catalog:
    # write it again when that changes. (After the metadata collector: priority 600.)
    language = app.config.language or "en"
    if language != "en" and _is_notebook(app, app.env.docname):
        app.env.note_dependency(str(interface_catalog_path(language)))


def _add_buttons(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if doctree is None or pagename not in app.env.all_docs or not _is_notebook(app, pagename):
        return
    source = Path(app.env.doc2path(pagename))
    write_notebook(source, Path(app.outdir) / NOTEBOOK_DIR / f"{pagename}.ipynb")
    _ = translator(app.config.language or "en")
    buttons = context.setdefault("header_buttons", [])
    pathto = context["pathto"]
    buttons.insert(
        0,
        {
            "type": "link",
            "url": pathto(f"{NOTEBOOK_DIR}/{pagename}.ipynb", 1),
            "tooltip": _(N_("Download this page as a Jupyter notebook (.ipynb)")),
            "icon": "fas fa-file-arrow-down",
            "label": "download-ipynb-button",
        },
    )
    options = app.config.html_theme_options or {}
    links = launch_links(
        pagename,
        source.suffix,
        options.get("repository_url", ""),
        options.get("repository_branch", ""),
        options.get("path_to_docs", ""),
        app.config.nccl_launch_buttons,
        app.config.nccl_notebooks_branch,
    )
    if links:
        buttons.insert(
            1,
            {
                "type": "group",
                "tooltip": _(N_("Run this page yourself")),
                "icon": "fas fa-rocket",
                "label": "launch-buttons",
                "buttons": [
                    {
                        "type": "link",
                        "text": service,
                        "tooltip": _(N_("Open in {service}"), service=service),
                        "url": url,
                    }
                    for service, url in links
                ],
            },
        )


def setup(app: Sphinx) -> dict:
    app.add_config_value("nccl_launch_buttons", {}, "html")
    app.add_config_value("nccl_notebooks_branch", "", "html")
    app.connect("config-inited", _take_launch_settings, priority=100)
    app.connect("doctree-read", _note_interface_catalog, priority=600)
    app.connect("html-page-context", _add_buttons, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
