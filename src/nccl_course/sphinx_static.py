"""How a part of the package ships its own static folder (scripts, styles, data) in the book:
one helper for every Sphinx extension here, so that each adds its folder to
``html_static_path`` the same way (once, as a string) and Sphinx copies it to ``_static/``.

Also where the course's browser library is (``static/nccl-page.js``: the page's language,
JSON requests, small DOM helpers): one file that the book and the exam server both serve, and
that every page script using it loads after it."""

from __future__ import annotations

from pathlib import Path

#: The folder of the course's browser library, and the library's file name in it.
PAGE_LIBRARY_DIR = Path(__file__).parent / "static"
PAGE_LIBRARY = "nccl-page.js"
#: Its place among a book page's scripts: Sphinx orders them by priority (its default is 500,
#: and the extensions here add theirs at the default), so the library comes before its users.
PAGE_LIBRARY_PRIORITY = 400


def add_static_folders(config, *folders: str | Path) -> None:
    """Append each of ``folders`` to ``config.html_static_path`` unless it is there."""
    for folder in map(str, folders):
        if folder not in config.html_static_path:
            config.html_static_path.append(folder)


def serve_static_folder(app, folder: str | Path) -> None:
    """Have Sphinx serve ``folder`` from ``_static/``: added once the configuration is read
    (``config-inited``), before the builder collects the static paths."""
    app.connect("config-inited", lambda _app, config: add_static_folders(config, folder))


def use_page_library(app) -> None:
    """Serve the course's browser library on the book's pages, before the scripts that use it.
    Each extension whose script uses it calls this in its ``setup``; Sphinx adds the same
    script once."""
    serve_static_folder(app, PAGE_LIBRARY_DIR)
    app.add_js_file(PAGE_LIBRARY, priority=PAGE_LIBRARY_PRIORITY)
