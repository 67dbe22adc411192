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

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder


class HTMLBuilderForTemplates(StandaloneHTMLBuilder):
    """Sphinx's HTML builder, whose doctrees the gettext builder can read."""

    versioning_method = "text"


def setup(app: Sphinx) -> dict:
    app.add_builder(HTMLBuilderForTemplates, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
