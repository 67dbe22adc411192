"""The HTML build keeps its doctrees as Sphinx's gettext builder wants them, so the translation
templates are written from the English build's doctrees instead of a second read of every page.

Sphinx keeps one environment per doctree folder and refuses to share it between builders whose
"versioning method" differs: the HTML builder marks no node, the gettext builder gives every
translatable node an id (``uid``) that its catalogs need. Reading the whole book a second time
for the gettext builder costs about 40 s of CPU. This extension registers the HTML builder with
the gettext builder's versioning method (``text``: the same ids, no comparison with an older
read), so that ``sphinx -b gettext`` on the English doctrees finds every page read and only
writes the templates. The HTML pages do not change: the ids are attributes of the doctree that
no HTML writer prints.
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder


class HTMLBuilderForTemplates(StandaloneHTMLBuilder):
    """Sphinx's HTML builder, whose doctrees the gettext builder can read."""

    versioning_method = "text"


def drop_doctrees_of_older_builds(doctrees: Path) -> bool:
    """Remove ``doctrees`` when an older build of the book wrote it with another versioning
    method (before this extension, the HTML builder marked no node): Sphinx would stop with
    "This environment is incompatible with the selected builder" instead of reading the pages
    again. Returns whether it removed the folder."""
    from sphinx.environment import versioning_conditions

    try:
        with (doctrees / "environment.pickle").open("rb") as f:
            condition = pickle.load(f).versioning_condition
    except Exception:  # none, or unreadable (another Sphinx): Sphinx reads every page anyway
        return False
    if condition in (None, versioning_conditions[HTMLBuilderForTemplates.versioning_method]):
        return False
    shutil.rmtree(doctrees, ignore_errors=True)
    return True


def setup(app: Sphinx) -> dict:
    app.add_builder(HTMLBuilderForTemplates, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
