"""The interface's own words in the learner's language: buttons, labels, messages, e-mails.

Code marks each interface string with an ``N_`` call where it is written (a no-op that the
extractor finds), and translates it where it is shown with ``translator(language)(text)``.
Static HTML pages (the exam server's) are translated text by text on the server
(``nccl_course.i18n.html_pages``), and their scripts show each string through ``S("...")``
with a table the page carries. The strings are extracted from ``src/nccl_course`` (``N_`` calls
in .py files, the texts of .html pages, ``S`` calls in .js files) into
``_build/gettext/interface.pot``; their Turkish lives in
``locales/tr/LC_MESSAGES/interface.po``, checked like every other catalog.
The CLI's messages and the code stay in English, except those of the terminal quiz
(``nccl-course quiz take --lang tr``), whose learner reads its errors in the quiz's language;
what a learner reads in the book, the quizzes, the exam and the verify page is translated.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from nccl_course.i18n.catalogs import load
from nccl_course.i18n.languages import LANGUAGES

INTERFACE_DOMAIN = "interface"
#: The repository's locale folder (Sphinx's locale_dirs): src/nccl_course/i18n -> the root.
LOCALE_DIR = Path(__file__).resolve().parents[3] / "locales"
PACKAGE_DIR = Path(__file__).resolve().parents[1]


def N_(text: str) -> str:  # noqa: N802 - the gettext convention for a marked string
    """Mark ``text`` as an interface string to translate; returns it unchanged."""
    return text


#: The course's name: the book's title (``title`` in _config.yml) and the achievement its
#: credentials name, in English; each language shows its translation.
COURSE_TITLE = N_("Collective Communication and NCCL")


def negotiate(accept_language: str | None, default: str = "en") -> str:
    """The course language an ``Accept-Language`` header prefers (``tr-TR,tr;q=0.9`` -> tr)."""
    if not accept_language:
        return default
    ranked = []
    for i, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for p in params.split(";"):
            name, _, value = p.strip().partition("=")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGUAGES and q > 0:
            ranked.append((-q, i, primary))
    return sorted(ranked)[0][2] if ranked else default


class Translator:
    """``tr(text, **fields)``: ``text`` in the language, with ``{field}`` filled in."""

    def __init__(self, language: str, messages: dict[str, str]):
        self.language = language
        self._messages = messages

    def __call__(self, text: str, **fields) -> str:
        out = self._messages.get(text) or text
        return out.format(**fields) if fields else out

    def table(self, texts) -> dict[str, str]:
        """``{English: translation}`` for ``texts`` (what a page's script needs)."""
        return {t: self(t) for t in texts}


def strings_script(language: str, texts, css_class: str, *, decimal: str | None = None) -> str:
    """A page script's interface strings in ``language``, as the JSON the course's scripts read
    from ``<script type="application/json" class=css_class>``: ``{"strings": {English:
    translation}}`` plus the decimal separator when given. "" for English (the scripts fall
    back to their English keys)."""
    import json

    if language == "en":
        return ""
    table: dict = {"strings": translator(language).table(texts)}
    if decimal is not None:
        table["decimal"] = decimal
    # "</" would end the <script> element early; "<\/" is the same JSON string.
    text = json.dumps(table, ensure_ascii=False).replace("</", "<\\/")
    return f'<script type="application/json" class="{css_class}">{text}</script>'


def catalog_path(language: str, locale_dir: Path | None = None) -> Path:
    """The interface catalog of ``language`` (a build that uses it depends on this file)."""
    return Path(locale_dir or LOCALE_DIR) / language / "LC_MESSAGES" / f"{INTERFACE_DOMAIN}.po"


@functools.lru_cache(maxsize=8)
def _messages(language: str, locale_dir: str) -> dict[str, str]:
    path = catalog_path(language, Path(locale_dir))
    if not path.exists():
        return {}
    return {
        str(m.id): m.string
        for m in load(path)
        if m.id and isinstance(m.string, str) and m.string and not m.fuzzy
    }


def translator(language: str = "en", locale_dir: Path | None = None) -> Translator:
    """The interface strings in ``language`` (English when it is "en" or has no catalog)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; the course has {', '.join(LANGUAGES)}")
    if language == "en":
        return Translator("en", {})
    return Translator(language, _messages(language, str(locale_dir or LOCALE_DIR)))


# An N_ call with a plain string literal, or several adjacent ones (Python joins them). A regular
# expression, not babel's Python extractor: before Python 3.12 that extractor cannot see a call
# inside an f-string's braces.
_LITERAL = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
_MARKED = re.compile(rf"\bN_\(\s*({_LITERAL}(?:\s*{_LITERAL})*)\s*,?\s*\)")
_PIECE = re.compile(_LITERAL)
# S("...") in the pages' scripts (static/*.js): the helper that shows a string in the page's
# language (server/static/common.js, quiz/static/nccl-quiz.js). Double-quoted literals only.
_SCRIPT_MARKED = re.compile(r"""(?<![\w$.])S\(\s*"((?:[^"\\\n]|\\.)*)"\s*[,)]""")


def _python_literal(piece: str) -> str:
    raw = piece[1:-1]
    return raw.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def marked_strings(source: str) -> list[str]:
    """The strings of the ``N_`` calls of a Python source, in order."""
    return [
        "".join(_python_literal(p.group(0)) for p in _PIECE.finditer(m.group(1)))
        for m in _MARKED.finditer(source)
    ]


def script_strings(source: str) -> list[str]:
    """The strings of the ``S("...")`` calls of a JavaScript source, in order."""
    out = []
    for m in _SCRIPT_MARKED.finditer(source):
        try:
            out.append(json.loads(f'"{m.group(1)}"'))
        except ValueError:  # an escape JSON does not know (\'): the text as written
            out.append(m.group(1))
    return out


def template(package_dir: Path = PACKAGE_DIR) -> Catalog:
    """Every interface string of the package: its Python files' ``N_`` calls, the texts of its
    HTML pages (``nccl_course.i18n.html_pages.page_texts``) and its scripts' ``S("...")``
    calls. A string found in several places is one message with each place."""
    from nccl_course.i18n.html_pages import page_texts

    catalog = Catalog(project="nccl-course interface", charset="utf-8")
    sources = (("*.py", marked_strings), ("*.html", page_texts), ("*.js", script_strings))
    for pattern, extract in sources:
        for path in sorted(package_dir.rglob(pattern)):
            where = [(path.relative_to(package_dir).as_posix(), 0)]
            for message in extract(path.read_text(encoding="utf-8")):
                catalog.add(message, locations=where)
    return catalog


def write_template(pot_dir: Path, package_dir: Path = PACKAGE_DIR) -> Path:
    pot_dir.mkdir(parents=True, exist_ok=True)
    path = pot_dir / f"{INTERFACE_DOMAIN}.pot"
    with path.open("wb") as f:
        write_po(f, template(package_dir), width=0, include_lineno=False)
    return path
