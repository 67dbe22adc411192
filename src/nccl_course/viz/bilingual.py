"""A figure drawn by the course's code in every language of the book, in one cell output.

The book's code cells run once for all its editions (one jupyter-cache), so a cell cannot know
the language of the page its output ends up on. ``show(draw, *args, **kwargs)`` calls
``draw(*args, lang=..., **kwargs)`` once per language and puts every version in one output:
inline PNG images (an HTML result, such as an animation's player, as it is) in
``<figure class="nccl-bilingual">``, each with ``class="nccl-lang-<language>"`` and ``lang``.
The book's stylesheet (``book/static/nccl-language-switch.css``) shows the version in the
page's language (``<html lang>``); without it, as in a Jupyter session, the output's own style
shows the source language's.
"""

from __future__ import annotations

import base64
import io
import re
from html import escape

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.languages import LANGUAGES, SOURCE_LANGUAGE

FIGURE_CLASS = "nccl-bilingual"


def _style() -> str:
    """The output's own style: where no stylesheet says otherwise, the source language shows."""
    others = ",".join(
        f".{FIGURE_CLASS}>.nccl-lang-{lang}" for lang in LANGUAGES if lang != SOURCE_LANGUAGE
    )
    return (
        f"<style>figure.{FIGURE_CLASS}{{margin:0}}"
        f".{FIGURE_CLASS}>img{{display:block;max-width:100%;height:auto}}"
        f"{others}{{display:none}}</style>"
    )


def png(fig: Figure) -> bytes:
    """``fig`` as PNG, as Jupyter would show it: the course's figures by their own
    ``_repr_png_``, other figures trimmed to their content (the inline backend's way)."""
    if hasattr(fig, "_repr_png_"):
        return fig._repr_png_()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def alt_text(fig: Figure, lang: str) -> str:
    """What ``fig`` shows, in ``lang``, for a reader who cannot see it: its titles."""
    titles = [fig.get_suptitle()] + [ax.get_title() for ax in fig.axes]
    text = "; ".join(", ".join(t.split("\n")) for t in titles if t.strip())
    return text or translator(lang)(N_("A figure drawn by the course's code"))


def _version(result, lang: str) -> tuple[str, str]:
    """(HTML, plain-text description) of one language's result."""
    if isinstance(result, Figure):
        alt = alt_text(result, lang)
        data = base64.b64encode(png(result)).decode("ascii")
        return (
            f'<img class="nccl-lang-{lang}" lang="{lang}" alt="{escape(alt)}" '
            f'src="data:image/png;base64,{data}">'
        ), alt
    if hasattr(result, "_repr_html_"):
        return f'<div class="nccl-lang-{lang}" lang="{lang}">{result._repr_html_()}</div>', ""
    raise TypeError(f"show() needs a Figure or an object with _repr_html_, not {type(result)}")


_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S)


def _once_each_script(html: str) -> str:
    """``html`` without a second copy of an identical ``<script>``: each language's animation
    player carries matplotlib's player code, which one copy defines for both."""
    seen: set[str] = set()

    def keep_first(match: re.Match) -> str:
        if match.group(0) in seen:
            return ""
        seen.add(match.group(0))
        return match.group(0)

    return _SCRIPT.sub(keep_first, html)


class Bilingual:
    """Every language's version of one figure; Jupyter and the book show it as HTML."""

    def __init__(self, versions: dict[str, str], text: str):
        self.versions = versions  # language -> the HTML of its version
        self.text = text

    def _repr_html_(self) -> str:
        body = _once_each_script("".join(self.versions.values()))
        return f'{_style()}<figure class="{FIGURE_CLASS}">{body}</figure>'

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return {"text/html": self._repr_html_(), "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


def show(draw, *args, **kwargs) -> Bilingual:
    """``draw(*args, lang=L, **kwargs)`` for every language L of the book, in one output.
    ``draw`` returns a Figure (or an object with ``_repr_html_``); the matplotlib figures it
    made are closed, so Jupyter does not show them a second time."""
    versions, text = {}, ""
    for lang in LANGUAGES:
        before = set(plt.get_fignums())
        result = None
        try:
            result = draw(*args, lang=lang, **kwargs)
            versions[lang], described = _version(result, lang)
        finally:
            for number in set(plt.get_fignums()) - before:
                plt.close(number)
            if isinstance(result, Figure):
                plt.close(result)
        if lang == SOURCE_LANGUAGE:
            text = f"<figure: {described}>" if described else repr(result)
    return Bilingual(versions, text)
