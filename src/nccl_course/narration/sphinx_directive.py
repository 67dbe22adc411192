"""The ``{narration}`` directive: a chapter's spoken overview, its player and its transcript.

Usage in a MyST page, right after the reading time::

    :::{narration}
    The script for the ear, paragraph by paragraph, one line each.
    :::

The paragraphs are parsed like any other text, so Sphinx's gettext workflow extracts and
translates them with the page. The directive works out the script in the build's language
(``nccl_course.narration.script``), its content key, and looks up the audio committed under
``narration/LANG/``. In the HTML page it writes a player (play/pause, position, time, speed; the
browser's own controls when scripts are off), the listening time and the voice's credit, and the
transcript under it. The audio files a build uses are copied to ``_narration/`` in its output.

A script without audio for its current key is a build warning (an error in the strict build)
that names the command to run; the page then shows the transcript without a player, never the
audio of other words.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.interface import catalog_path as interface_catalog_path
from nccl_course.i18n.interface import strings_script as page_strings
from nccl_course.i18n.numbers import format_number
from nccl_course.narration import audio_store
from nccl_course.narration.script import (
    DIRECTIVE,
    Script,
    ScriptError,
    catalog_file,
    paragraphs_of,
    translate,
)
from nccl_course.narration.voices import voice_for
from nccl_course.sphinx_static import serve_static_folder, use_page_library

logger = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
JS_FILE = "nccl-narration.js"
CSS_FILE = "nccl-narration.css"
OUTPUT_DIR = "_narration"
WRAPPER_CLASS = "nccl-narration"
#: Playback speeds offered, as multiples of normal.
SPEEDS = (0.75, 1.0, 1.25, 1.5, 1.75, 2.0)


def clock(seconds: float) -> str:
    """``seconds`` as m:ss (125.4 -> "2:05")."""
    whole = int(round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


PLAY = N_("Play the spoken overview")
PAUSE = N_("Pause the spoken overview")
POSITION = N_("{current} of {total}")
STRINGS_CLASS = "nccl-narration-strings"
#: What static/nccl-narration.js shows (its S() calls); a translated page carries them in its
#: language as JSON (<script class="nccl-narration-strings">), read by the course's library.
PAGE_SCRIPT_STRINGS = (PLAY, PAUSE, POSITION)


def player_markup(src: str, duration: float, language: str, credit: str) -> str:
    """The player's HTML in ``language``: the native controls until the script replaces them."""
    tr = translator(language)
    total = clock(duration)
    speeds = "".join(
        f'<option value="{s}"{" selected" if s == 1.0 else ""}>'
        f"{format_number(s, language)}×</option>"
        for s in SPEEDS
    )
    play = tr(PLAY)
    position = tr(POSITION, current="0:00", total=total)
    return (
        f'<div class="nccl-narration-player" data-duration="{duration:.1f}">'
        f"{page_strings(language, PAGE_SCRIPT_STRINGS, STRINGS_CLASS)}"
        f'<audio controls preload="none"><source src="{html.escape(src)}"'
        f' type="{html.escape(audio_store.MIME)}"></audio>'
        f'<div class="nccl-narration-controls" hidden>'
        f'<button type="button" class="nccl-narration-play" aria-label="{html.escape(play)}">'
        f'<span class="nccl-narration-icon" aria-hidden="true">▶</span></button>'
        f'<input type="range" class="nccl-narration-seek" min="0" max="{int(round(duration))}"'
        f' step="1" value="0" aria-label="{html.escape(tr(N_("Position")))}"'
        f' aria-valuetext="{html.escape(position)}">'
        f'<span class="nccl-narration-time"><span class="nccl-narration-current">0:00</span>'
        f" / {total}</span>"
        f'<label class="nccl-narration-speed-label">{html.escape(tr(N_("Speed")))} '
        f'<select class="nccl-narration-speed">{speeds}</select></label>'
        f"</div></div>"
        f'<p class="nccl-narration-meta">'
        f"{html.escape(tr(N_('Listening time: {time}'), time=total))} · "
        f"{html.escape(credit)}</p>"
    )


class NarrationDirective(SphinxDirective):
    has_content = True

    def run(self) -> list[nodes.Node]:
        language = self.env.config.language or "en"
        docname = self.env.docname
        tr = translator(language)
        if language != "en":
            self.env.note_dependency(str(interface_catalog_path(language)))
            self.env.note_dependency(str(catalog_file(docname, language, Path(self.env.srcdir))))
        root = nodes.container(classes=[WRAPPER_CLASS])
        root["nccl_narration_docname"] = docname
        heading = tr(N_("Listen to this chapter"))
        root += nodes.raw(
            "",
            f'<section class="nccl-narration-box" aria-label="{html.escape(heading)}">'
            f'<p class="nccl-narration-heading">{html.escape(heading)}</p>',
            format="html",
        )
        player = nodes.container(classes=["nccl-narration-slot"])
        root += player
        transcript = nodes.container(classes=["nccl-narration-transcript"])
        self.state.nested_parse(self.content, self.content_offset, transcript)
        root += nodes.raw(
            "",
            f'<details class="nccl-narration-details"><summary>'
            f"{html.escape(tr(N_('Transcript')))}</summary>",
            format="html",
        )
        root += transcript
        root += nodes.raw("", "</details></section>", format="html")

        builder = self.env.app.builder
        if builder.format != "html":
            return [root]
        paragraphs = paragraphs_of("\n".join(self.content))
        try:
            if language != "en":
                paragraphs = translate(paragraphs, docname, language, Path(self.env.srcdir))
        except ScriptError as exc:
            logger.warning(str(exc), location=(docname, self.lineno))
            return [root]
        script = Script(docname, language, tuple(paragraphs))
        voice = voice_for(language)
        expected = audio_store.audio_path(script, voice, Path(self.env.srcdir))
        # A missing file is a changed dependency: the page is read again once it exists.
        self.env.note_dependency(str(expected))
        found = audio_store.find(script, voice, Path(self.env.srcdir))
        if found is None:
            logger.warning(
                f"{docname}: no {language} narration audio for its current script (key "
                f"{audio_store.key(script, voice)}); run `nccl-course narrate --lang {language} "
                f"{docname}.md` and commit narration/",
                location=(docname, self.lineno),
            )
            return [root]
        relative = found.relative_to(audio_store.audio_folder(language, Path(self.env.srcdir)))
        src = "../" * docname.count("/") + f"{OUTPUT_DIR}/{relative.as_posix()}"
        duration = audio_store.duration_s(found)
        player += nodes.raw("", player_markup(src, duration, language, voice.credit), format="html")
        files = getattr(self.env, "nccl_narration_files", {})
        files[docname] = found.as_posix()
        self.env.nccl_narration_files = files
        return [root]


def _purge(app: Sphinx, env, docname: str) -> None:
    getattr(env, "nccl_narration_files", {}).pop(docname, None)


def _merge(app: Sphinx, env, docnames, other) -> None:
    files = getattr(env, "nccl_narration_files", {})
    files.update({d: f for d, f in getattr(other, "nccl_narration_files", {}).items()})
    env.nccl_narration_files = files


def _copy_audio(app: Sphinx, exception) -> None:
    """Copy the audio the pages use (and only it) into the output's ``_narration/``."""
    if exception is not None or app.builder.format != "html":
        return
    language = app.config.language or "en"
    folder = audio_store.audio_folder(language, Path(app.srcdir))
    target = Path(app.outdir) / OUTPUT_DIR
    shutil.rmtree(target, ignore_errors=True)
    for path in getattr(app.env, "nccl_narration_files", {}).values():
        source = Path(path)
        if source.is_file():
            out = target / source.relative_to(folder)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, out)


def _add_assets(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if doctree is None:
        return
    found = doctree.findall(
        lambda n: isinstance(n, nodes.container) and WRAPPER_CLASS in n.get("classes", [])
    )
    if next(iter(found), None) is not None:
        app.add_js_file(JS_FILE)
        app.add_css_file(CSS_FILE)


def setup(app: Sphinx) -> dict:
    app.add_directive(DIRECTIVE, NarrationDirective)
    serve_static_folder(app, STATIC)
    use_page_library(app)  # its script uses the library: S(), onReady()
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", _add_assets)
    app.connect("build-finished", _copy_audio)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
