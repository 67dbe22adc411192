"""How a part of the package ships its own static folder (scripts, styles, data) in the book:
one helper for every Sphinx extension here, so that each adds its folder to
``html_static_path`` the same way (once, as a string) and Sphinx copies it to ``_static/``."""

from __future__ import annotations

from pathlib import Path


def add_static_folders(config, *folders: str | Path) -> None:
    """Append each of ``folders`` to ``config.html_static_path`` unless it is there."""
    for folder in map(str, folders):
        if folder not in config.html_static_path:
            config.html_static_path.append(folder)


def serve_static_folder(app, folder: str | Path) -> None:
    """Have Sphinx serve ``folder`` from ``_static/``: added once the configuration is read
    (``config-inited``), before the builder collects the static paths."""
    app.connect("config-inited", lambda _app, config: add_static_folders(config, folder))
