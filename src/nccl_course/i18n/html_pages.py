"""Static HTML pages in the learner's language, translated on the server.

The exam server's pages (``nccl_course/server/static/*.html``) are written in English. Their
translatable texts are what a reader sees or hears: each text node outside ``script``,
``style``, ``code`` and ``pre`` (and outside any element marked ``translate="no"``, the HTML
attribute for text that stays as written) that has a letter in it, and the attributes
``title``, ``placeholder``, ``aria-label`` and ``alt``. A text is its node with the white space
around it stripped and the runs inside it collapsed to one space (so re-indenting the HTML does
not change a message); ``page_texts`` lists them, and ``nccl_course.i18n.interface.template``
puts them in the interface catalog beside the ``N_`` strings.

``translate_page`` returns the page with each text replaced by its translation (the white space
around it kept), ``<html lang>`` set, and optionally a ``<script type="application/json"
id="nccl-strings">`` table for the page's scripts (their ``S("...")`` strings in the language;
``static/common.js`` reads it), a language switcher, and rewritten link targets (the book's
root is another folder in another language). The rest of the page is copied byte for byte.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser

#: Attributes whose values a reader sees or hears.
TRANSLATABLE_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")
#: Elements whose text is never translated: code, and what is not text at all.
UNTRANSLATED_ELEMENTS = frozenset({"script", "style", "code", "pre"})
# Elements that have no end tag: they never open a region to skip.
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
_LETTER = re.compile(r"[^\W\d_]")
#: The id of the script element that carries the page's script strings.
STRINGS_ID = "nccl-strings"


def normalise(text: str) -> str:
    """A text as a message: stripped, with each run of white space one space."""
    return " ".join(text.split())


def is_translatable(text: str) -> bool:
    return bool(_LETTER.search(text))


@dataclass(frozen=True)
class _Event:
    start: int  # offset in the source
    end: int
    kind: str  # "data", "starttag", "endtag"
    tag: str = ""
    attrs: tuple = ()
    data: str = ""
    skipped: bool = False  # inside an element whose text is not translated


class _Scanner(HTMLParser):
    """Every text node and tag of a page, with its place in the source."""

    def __init__(self, source: str):
        super().__init__(convert_charrefs=True)
        self.source = source
        self._lines = [0] + [m.end() for m in re.finditer("\n", source)]
        self._skip: list[str] = []  # open elements of the region being skipped
        self.events: list[_Event] = []
        self.feed(source)
        self.close()
        # A text node ends where the next thing starts.
        fixed = []
        for i, event in enumerate(self.events):
            if event.kind == "data":
                end = self.events[i + 1].start if i + 1 < len(self.events) else len(source)
                event = _Event(event.start, end, "data", data=event.data, skipped=event.skipped)
            fixed.append(event)
        self.events = fixed

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._lines[line - 1] + column

    def handle_starttag(self, tag, attrs):
        start = self._offset()
        raw = self.get_starttag_text() or ""
        skipped = bool(self._skip)
        opens_skip = tag in UNTRANSLATED_ELEMENTS or dict(attrs).get("translate") == "no"
        if (skipped or opens_skip) and tag not in _VOID:
            self._skip.append(tag)
        self.events.append(
            _Event(start, start + len(raw), "starttag", tag, tuple(attrs), skipped=skipped)
        )

    def handle_startendtag(self, tag, attrs):
        start = self._offset()
        raw = self.get_starttag_text() or ""
        self.events.append(
            _Event(start, start + len(raw), "starttag", tag, tuple(attrs), skipped=bool(self._skip))
        )

    def handle_endtag(self, tag):
        start = self._offset()
        end = self.source.find(">", start) + 1 or len(self.source)
        if self._skip and self._skip[-1] == tag:
            self._skip.pop()
        self.events.append(_Event(start, end, "endtag", tag))

    def handle_data(self, data):
        self.events.append(_Event(self._offset(), -1, "data", data=data, skipped=bool(self._skip)))

    # Comments and declarations are copied as they are; they only end the text before them.
    def _other(self, _text):
        self.events.append(_Event(self._offset(), self._offset(), "other"))

    handle_comment = handle_decl = handle_pi = unknown_decl = _other


def _attribute_texts(event: _Event) -> list[str]:
    if event.skipped or dict(event.attrs).get("translate") == "no":
        return []
    out = []
    for name, value in event.attrs:
        if name in TRANSLATABLE_ATTRIBUTES and value and is_translatable(normalise(value)):
            out.append(normalise(value))
    return out


def page_texts(source: str) -> list[str]:
    """The translatable texts of an HTML page, each once, in page order."""
    found: dict[str, None] = {}
    for event in _Scanner(source).events:
        if event.kind == "data" and not event.skipped:
            text = normalise(event.data)
            if is_translatable(text):
                found[text] = None
        elif event.kind == "starttag":
            for text in _attribute_texts(event):
                found[text] = None
    return list(found)


def script_sources(source: str) -> list[str]:
    """The ``src`` of each ``<script>`` of the page, in order."""
    return [
        dict(e.attrs)["src"]
        for e in _Scanner(source).events
        if e.kind == "starttag" and e.tag == "script" and dict(e.attrs).get("src")
    ]


def _json_for_script(data: dict) -> str:
    # "</" would end the <script> element early; "<\/" is the same JSON string.
    return json.dumps(data, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")


def strings_script(language: str, decimal: str, strings: dict[str, str]) -> str:
    """The ``<script type="application/json" id="nccl-strings">`` element a page's scripts read:
    the language, its decimal separator, and ``{English: translation}``."""
    table = {"language": language, "decimal": decimal, "strings": strings}
    return f'<script type="application/json" id="{STRINGS_ID}">{_json_for_script(table)}</script>\n'


def language_switch(current: str, links: dict[str, tuple[str, str]], label: str) -> str:
    """A small ``<nav>``: each language's name in itself (``translate="no"``), a link but for
    the current one. ``links``: language -> (name, href)."""
    parts = []
    for language, (name, href) in links.items():
        if language == current:
            parts.append(
                f'<span lang="{language}" translate="no" aria-current="true">'
                f"{html.escape(name)}</span>"
            )
        else:
            parts.append(
                f'<a href="{html.escape(href)}" hreflang="{language}" lang="{language}" '
                f'translate="no" data-language-link="{language}">{html.escape(name)}</a>'
            )
    return (
        f'<nav class="language-switch" aria-label="{html.escape(label)}">'
        + " / ".join(parts)
        + "</nav>"
    )


def _start_tag(event: _Event, source: str, attrs: list[tuple[str, str | None]]) -> str:
    raw = source[event.start : event.end]
    parts = [f"<{event.tag}"]
    for name, value in attrs:
        parts.append(f" {name}" if value is None else f' {name}="{html.escape(value)}"')
    parts.append("/>" if raw.endswith("/>") else ">")
    return "".join(parts)


def translate_page(
    source: str,
    language: str,
    translate: Callable[[str], str],
    *,
    strings: str = "",
    switch: str = "",
    hrefs: dict[str, str] | None = None,
) -> str:
    """``source`` with every translatable text replaced by ``translate(text)``, ``<html lang>``
    set to ``language``, ``strings`` (``strings_script``) put at the end of ``<head>``,
    ``switch`` (``language_switch``) at the end of the first ``<header>`` (else at the start
    of ``<body>``), and each ``href`` that is a key of ``hrefs`` replaced by its value."""
    hrefs = hrefs or {}
    scanner = _Scanner(source)
    out: list[str] = []
    at = 0
    header_done = False
    body_start: int | None = None
    for event in scanner.events:
        out.append(source[at : event.start])
        at = event.start
        if event.kind == "data" and not event.skipped:
            text = normalise(event.data)
            translated = translate(text) if is_translatable(text) else text
            if translated != text:  # else the text stays as written (entities and all)
                raw = source[event.start : event.end]
                lead = raw[: len(raw) - len(raw.lstrip())]
                trail = raw[len(raw.rstrip()) :]
                out.append(lead + html.escape(translated, quote=False) + trail)
                at = event.end
        elif event.kind == "starttag":
            attrs = list(event.attrs)
            changed = False
            if event.tag == "html":
                attrs = [(k, v) for k, v in attrs if k != "lang"] + [("lang", language)]
                changed = True
            translatable = set(_attribute_texts(event))
            for i, (name, value) in enumerate(attrs):
                if value is None:
                    continue
                if name in TRANSLATABLE_ATTRIBUTES and normalise(value) in translatable:
                    translated = translate(normalise(value))
                    if translated != normalise(value):
                        attrs[i] = (name, translated)
                        changed = True
                elif name == "href" and value in hrefs:
                    attrs[i] = (name, hrefs[value])
                    changed = True
            if changed:
                out.append(_start_tag(event, source, attrs))
                at = event.end
            if event.tag == "body" and body_start is None:
                out.append(source[at : event.end])
                at = event.end
                body_start = len(out)
                out.append("")  # where the switcher goes if the page has no header
        elif event.kind == "endtag":
            if event.tag == "head" and strings:
                out.append(strings)
            elif event.tag == "header" and switch and not header_done:
                out.append(switch + "\n")
                header_done = True
    out.append(source[at:])
    if switch and not header_done and body_start is not None:
        out[body_start] = "\n" + switch
    return "".join(out)
