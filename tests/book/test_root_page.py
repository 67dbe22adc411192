"""Each edition's root page sends the reader to the first chapter as a whole document: its
language, its title, an icon that costs no request (a browser would otherwise ask for
/favicon.ico, which no site of the course has)."""

from __future__ import annotations

import re

from nccl_course.book.root_page import root_page


def test_the_page_escapes_what_it_writes():
    page = root_page("tr", 'A <b> & "C"', "book/intro.html")
    assert '<html lang="tr">' in page
    assert "<title>A &lt;b&gt; &amp; &quot;C&quot;</title>" in page
    assert '<meta http-equiv="Refresh" content="0; url=book/intro.html">' in page
    assert '<a href="book/intro.html">' in page


def test_each_built_edition_has_the_root_page(built_book):
    for folder, language in ((built_book, "en"), (built_book / "tr", "tr")):
        page = (folder / "index.html").read_text(encoding="utf-8")
        assert f'<html lang="{language}">' in page
        assert '<link rel="icon" href="data:,">' in page
        first = re.search(r'url=([^"]+)"', page).group(1)
        assert (folder / first).is_file(), first
        assert re.search(r"<title>[^<]+</title>", page)
