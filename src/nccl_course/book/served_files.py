"""What the course server needs from a built edition, written when the HTML build ends.

- ``csp-hashes.json``: for every page, the SHA-256 digests of its inline scripts and of its
  inline event-handler attributes (the theme's ``onclick="toggleFullScreen()"``). The server
  (``nccl_course.server.content_policy``) lists them in that page's Content-Security-Policy,
  so the book runs without ``'unsafe-inline'`` for scripts: an injected script has no listed
  digest and does not run. Sphinx and its themes write several small inline scripts on every
  page (the colour mode, ``DOCUMENTATION_OPTIONS.pagename``, MathJax's options, ...), one of
  them different on each page, hence one list per page.
  No page may embed ipywidgets (a ``WIDGET_STATE_TYPE`` script): the widget manager that
  shows them (``@jupyter-widgets/html-manager``) checks their state with Ajv, which compiles
  its JSON schemas into functions with ``new Function``, refused without ``'unsafe-eval'``;
  the build stops with ``EmbeddedWidgetsError`` instead.
  The search page (``SEARCH_PAGE``) lists every page's handler digests: Sphinx's search reads
  each result page with ``DOMParser`` to show a summary, and Chrome checks the handlers of
  such a parsed page against the search page's policy (they never run there).
- ``FILE.gz`` beside every compressible file of ``COMPRESSED_SUFFIXES`` of at least
  ``MIN_COMPRESS_BYTES``: the server sends it to browsers that accept gzip
  (``nccl_course.server.assets``), so no request pays for compression. Written again only
  when the file's content changed (``precompress``), with a zero gzip timestamp so the same
  content gives the same bytes.
- ``_static/translations.js`` of a translated edition, Sphinx's catalog for its search page
  and buttons, is written again (``rewrite_translations``) to set the messages and the plural
  rule directly: the original hands them to ``Documentation.addTranslations`` in Sphinx's
  ``doctools.js``, which compiles the plural rule with ``new Function``, refused without
  ``'unsafe-eval'``. The rule is the catalog's C expression (``(n > 1)``), valid JavaScript,
  written only if it holds nothing but ``n``, digits and operators.

Runs last among the ``build-finished`` handlers (priority 900) so every page is final.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the server imports MANIFEST; it need not load Sphinx for that
    from sphinx.application import Sphinx

MANIFEST = "csp-hashes.json"
#: Files worth compressing: text and uncompressed fonts. Source maps are left out (only a
#: browser's developer tools fetch them); images, woff/woff2 and audio are compressed already.
COMPRESSED_SUFFIXES = frozenset(
    {".html", ".js", ".css", ".json", ".svg", ".txt", ".md", ".ipynb", ".py", ".ttf",
     ".otf", ".eot", ".inv", ".xml", ".ico"}
)  # fmt: skip
#: Below about one TCP packet (bytes) gzip saves next to nothing and costs a file.
MIN_COMPRESS_BYTES = 1024
#: A .gz is kept only when it is at most this fraction of the file's size.
MAX_COMPRESSED_RATIO = 0.9
# The script types a browser runs (the HTML standard's JavaScript MIME types, and modules);
# any other type (application/json, text/x-thebe-config, ...) is a data block, never run.
JAVASCRIPT_TYPES = frozenset(
    {"", "module", "text/javascript", "application/javascript", "application/ecmascript",
     "application/x-ecmascript", "application/x-javascript", "text/ecmascript",
     "text/javascript1.0", "text/javascript1.1", "text/javascript1.2", "text/javascript1.3",
     "text/javascript1.4", "text/javascript1.5", "text/jscript", "text/livescript",
     "text/x-ecmascript", "text/x-javascript"}
)  # fmt: skip

_FNAME = 0x08  # the gzip header flag: a file name follows
#: Sphinx's JavaScript catalog of a translated edition, under the output folder.
TRANSLATIONS_JS = "_static/translations.js"
_ADD_TRANSLATIONS = "Documentation.addTranslations("
_PLURAL_RULE = re.compile(r"[n0-9\s()<>=!&|?:%+\-*/]+")
#: Sphinx's search page, which parses the other pages of its edition.
SEARCH_PAGE = "search.html"
#: The widget state MyST-NB embeds in a page whose notebook shows ipywidgets.
WIDGET_STATE_TYPE = "application/vnd.jupyter.widget-state+json"


def csp_hash(text: str) -> str:
    """``sha256-BASE64`` of ``text`` as a browser hashes it (UTF-8, line ends as LF)."""
    data = text.replace("\r\n", "\n").replace("\r", "\n").encode("utf-8")
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode("ascii")


class _InlineCode(HTMLParser):
    """Collects the text of inline scripts a browser runs and of ``on...=`` attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[str] = []
        self.handlers: list[str] = []
        self.script_types: set[str] = set()
        self._script: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on") and value:
                self.handlers.append(value)
        if tag == "script":
            found = dict(attrs)
            kind = (found.get("type") or "").strip().lower().split(";")[0].strip()
            self.script_types.add(kind)
            runs = "src" not in found and kind in JAVASCRIPT_TYPES
            self._script = [] if runs else None

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append("".join(self._script))
            self._script = None


def _parse(page: str) -> _InlineCode:
    parser = _InlineCode()
    parser.feed(page)
    parser.close()
    return parser


def inline_code(page: str) -> tuple[list[str], list[str]]:
    """The inline scripts a browser runs on ``page`` (HTML) and its event-handler attributes."""
    parser = _parse(page)
    return parser.scripts, parser.handlers


class EmbeddedWidgetsError(ValueError):
    """A page embeds ipywidgets, which would need ``'unsafe-eval'`` in its policy."""


def page_hashes(page: str) -> dict:
    """``{"scripts": [...], "handlers": [...]}``: the distinct digests, sorted.
    Raises ``EmbeddedWidgetsError`` for a page with embedded ipywidgets."""
    parser = _parse(page)
    if WIDGET_STATE_TYPE in parser.script_types:
        raise EmbeddedWidgetsError(
            "it embeds ipywidgets, whose manager compiles code with new Function, which the "
            "course's Content-Security-Policy refuses (no 'unsafe-eval'). Show the control "
            "with a {cost-explorer} directive (nccl_course.viz.sphinx_explorers), or tag the "
            "notebook cell that makes the widgets 'skip-execution' so only Jupyter runs it."
        )
    return {
        "scripts": sorted({csp_hash(s) for s in parser.scripts}),
        "handlers": sorted({csp_hash(h) for h in parser.handlers}),
    }


def write_manifest(outdir: Path) -> Path:
    """Write ``outdir/csp-hashes.json``: each page's digests, by path relative to ``outdir``.
    A translated edition inside another's folder (``tr/``) is left to its own build."""
    outdir = Path(outdir)
    nested = {p.parent for p in outdir.glob(f"*/{MANIFEST}")}
    pages = {}
    for path in sorted(outdir.rglob("*.html")):
        if any(folder in path.parents for folder in nested) or "_static" in path.parts:
            continue
        key = path.relative_to(outdir).as_posix()
        try:
            pages[key] = page_hashes(path.read_text(encoding="utf-8"))
        except EmbeddedWidgetsError as exc:
            raise EmbeddedWidgetsError(f"{path}: {exc}") from None
    if SEARCH_PAGE in pages:
        every = {h for found in pages.values() for h in found["handlers"]}
        pages[SEARCH_PAGE]["handlers"] = sorted(every)
    target = outdir / MANIFEST
    body = {
        "about": "SHA-256 digests of each page's inline scripts and event-handler attributes, "
        "for the course server's Content-Security-Policy (nccl_course.book.served_files)",
        "pages": pages,
    }
    _replace(target, json.dumps(body, indent=1, sort_keys=True).encode("utf-8"))
    return target


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, so a running server never reads
    half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def gzip_named(data: bytes, name: str) -> bytes:
    """``data`` as a gzip member (level 9, timestamp 0) whose file-name field is ``name``."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(data) + deflate.flush()
    header = b"\x1f\x8b\x08" + bytes([_FNAME]) + b"\0\0\0\0\x02\xff" + name.encode() + b"\0"
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return header + body + trailer


def gzip_name(path: Path) -> str | None:
    """The file-name field of the gzip file at ``path`` (None when it has none)."""
    try:
        with open(path, "rb") as f:
            head = f.read(128)
    except OSError:
        return None
    if head[:3] != b"\x1f\x8b\x08" or head[3] != _FNAME or b"\0" not in head[10:]:
        return None
    return head[10 : head.index(b"\0", 10)].decode("latin-1")


def precompress(outdir: Path) -> tuple[int, int]:
    """Write ``FILE.gz`` beside each compressible file of ``outdir`` unless the one there was
    made from the same content (its gzip name field holds the content's SHA-256); remove a
    ``.gz`` that no longer pays. Each ``.gz`` gets its file's modification time: the server
    sends a copy only while the two times are equal. Content, not times, decides here: npm
    gives every file of a package the same time, so a newer vendor file may look as old as
    the one it replaced. Returns (files written, files up to date)."""
    written = fresh = 0
    for root, _dirs, files in os.walk(outdir):
        for name in files:
            path = Path(root) / name
            if path.suffix not in COMPRESSED_SUFFIXES:
                continue
            info = path.stat()
            if info.st_size < MIN_COMPRESS_BYTES:
                continue
            packed = path.with_name(name + ".gz")
            data = path.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if gzip_name(packed) == digest:
                fresh += 1
            else:
                compressed = gzip_named(data, digest)
                if len(compressed) > MAX_COMPRESSED_RATIO * info.st_size:
                    packed.unlink(missing_ok=True)
                    continue
                _replace(packed, compressed)
                written += 1
            if packed.stat().st_mtime_ns != info.st_mtime_ns:
                os.utime(packed, ns=(info.st_atime_ns, info.st_mtime_ns))
    return written, fresh


def rewrite_translations(outdir: Path) -> bool:
    """Rewrite ``outdir/_static/translations.js`` to need no ``eval``; False when there is
    none, it is rewritten already, or its plural rule is not a plain expression of ``n``."""
    path = Path(outdir) / TRANSLATIONS_JS
    if not path.is_file():
        return False
    text = path.read_text(encoding="utf-8").strip()
    if not (text.startswith(_ADD_TRANSLATIONS) and text.endswith(");")):
        return False
    catalog = json.loads(text[len(_ADD_TRANSLATIONS) : -2])
    rule = catalog.get("plural_expr", "(n != 1)")
    if not _PLURAL_RULE.fullmatch(rule):
        return False
    body = (
        "/* Sphinx's catalog for this edition, set without compiling the plural rule at run\n"
        "   time: the pages' Content-Security-Policy has no 'unsafe-eval'\n"
        "   (nccl_course.book.served_files). */\n"
        f"Object.assign(Documentation.TRANSLATIONS, {json.dumps(catalog['messages'])});\n"
        f"Documentation.PLURAL_EXPR = (n) => Number({rule});\n"
        f"Documentation.LOCALE = {json.dumps(catalog.get('locale', 'unknown'))};\n"
    )
    _replace(path, body.encode("utf-8"))
    return True


def _build_finished(app: Sphinx, exception: Exception | None) -> None:
    from sphinx.util import logging

    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    rewrite_translations(outdir)
    write_manifest(outdir)
    written, fresh = precompress(outdir)
    logging.getLogger(__name__).info(
        f"served files: {MANIFEST} written; {written} files gzipped ({fresh} up to date)"
    )


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", _build_finished, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
