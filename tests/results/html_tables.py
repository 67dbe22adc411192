"""Reading the report's tables back with the standard library's HTML parser, so tests assert
on cell text rather than on the markup's layout."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[str, list[list[str]], list[dict]]] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append((attrs.get("class") or "", [], []))
        elif tag == "tr" and self.tables:
            self._row = []
            self.tables[-1][2].append(attrs)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag in ("div", "br", "p", "li") and self._cell is not None:
            self._cell.append(" ")  # a block inside a cell reads as a separate phrase

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1][1].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def table(html: str, css_class: str, index: int = 0) -> tuple[list[str], list[dict[str, str]]]:
    """(header, rows) of the ``index``-th table with ``css_class``: each row a dict from
    header cell to cell text (header cells as printed)."""
    parser = _Tables()
    parser.feed(html)
    found = [rows for cls, rows, _ in parser.tables if css_class in cls.split()]
    if len(found) <= index:
        raise AssertionError(f"no table of class {css_class!r} number {index}")
    header, *rows = found[index]
    return header, [dict(zip(header, row, strict=True)) for row in rows]
