"""The gettext builder writes the translation templates from the HTML build's doctrees
(nccl_course.book.message_doctrees): it reads no page again, and its templates are the ones a
gettext build of its own writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from sphinx.application import Sphinx
from sphinx.errors import SphinxError

PAGES = {
    "index.rst": "Title\n=====\n\nA first paragraph.\n\n.. toctree::\n\n   second\n",
    "second.rst": "Second page\n===========\n\n* an item\n* another item\n\n"
    "A term\n   Its definition, with *emphasis*.\n",
}


def project(folder: Path, extensions: list[str]) -> Path:
    folder.mkdir()
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "conf.py").write_text(
        f"extensions = {extensions!r}\ngettext_uuid = False\ngettext_location = False\n",
        encoding="utf-8",
    )
    return folder


def build(src: Path, out: Path, doctrees: Path, builder: str) -> Sphinx:
    app = Sphinx(str(src), str(src), str(out), str(doctrees), builder, status=None)
    app.build()
    return app


def templates(folder: Path) -> dict[str, list[str]]:
    return {
        pot.name: [
            line
            for line in pot.read_text(encoding="utf-8").splitlines()
            if "POT-Creation-Date" not in line
        ]
        for pot in sorted(folder.glob("*.pot"))
    }


def test_the_gettext_builder_reads_no_page_again_and_writes_the_same_templates(tmp_path):
    src = project(tmp_path / "src", ["nccl_course.book.message_doctrees"])
    doctrees = tmp_path / "doctrees"
    build(src, tmp_path / "html", doctrees, "html")
    assert (tmp_path / "html" / "second.html").exists()

    read: list[str] = []
    app = Sphinx(str(src), str(src), str(tmp_path / "pot"), str(doctrees), "gettext", status=None)
    app.connect("source-read", lambda _app, docname, _source: read.append(docname))
    app.build()
    assert read == []

    alone = project(tmp_path / "alone", [])
    build(alone, tmp_path / "pot-alone", tmp_path / "doctrees-alone", "gettext")
    made = templates(tmp_path / "pot")
    assert made == templates(tmp_path / "pot-alone")
    assert any('msgid "Its definition, with *emphasis*."' in lines for lines in made.values())


def test_without_the_extension_sphinx_refuses_to_share_the_doctrees(tmp_path):
    """What the extension is for: the HTML builder's doctrees are otherwise incompatible."""
    src = project(tmp_path / "src", [])
    build(src, tmp_path / "html", tmp_path / "doctrees", "html")
    with pytest.raises(SphinxError, match="incompatible"):
        build(src, tmp_path / "pot", tmp_path / "doctrees", "gettext")


def test_doctrees_of_an_older_build_are_dropped_before_the_build(tmp_path):
    """A checkout built before the extension existed holds doctrees the HTML builder now
    refuses; the book's build removes them (and only them) and reads the pages again."""
    from nccl_course.book.message_doctrees import drop_doctrees_of_older_builds

    src = project(tmp_path / "src", [])
    doctrees = tmp_path / "doctrees"
    build(src, tmp_path / "html", doctrees, "html")
    conf = src / "conf.py"
    conf.write_text(
        conf.read_text().replace(
            "extensions = []", f"extensions = {['nccl_course.book.message_doctrees']!r}"
        )
    )
    with pytest.raises(SphinxError, match="incompatible"):
        build(src, tmp_path / "html", doctrees, "html")
    assert drop_doctrees_of_older_builds(doctrees) is True
    assert not doctrees.exists()
    build(src, tmp_path / "html", doctrees, "html")
    assert (tmp_path / "html" / "second.html").exists()
    # doctrees of today's builds, or none at all, are left as they are
    assert drop_doctrees_of_older_builds(doctrees) is False and doctrees.exists()
    assert drop_doctrees_of_older_builds(tmp_path / "nothing") is False
