"""Every page the server writes names the course's icon, and the server serves it without the
book: a browser otherwise asks for /favicon.ico, which is the book's to answer (404, or 503
while the book is not built) and shows up as an error in the console."""

from __future__ import annotations

import re

import pytest

from nccl_course.sphinx_static import PAGE_LIBRARY_DIR

PAGES = ["/exam/", "/exam/verify", "/exam/confirm", "/exam/admin/stats"]


@pytest.mark.parametrize("path", PAGES)
def test_each_page_names_the_icon_the_server_serves(client, path):
    page = client.get(path)
    assert page.status_code == 200, (path, page.status_code)
    icon = re.search(r'<link rel="icon" href="([^"]+)"', page.text)
    assert icon, f"{path} names no icon"
    served = client.get(icon.group(1))
    assert served.status_code == 200, icon.group(1)
    assert served.headers["content-type"].startswith("image/svg+xml")
    assert served.content == (PAGE_LIBRARY_DIR / "favicon.svg").read_bytes()
