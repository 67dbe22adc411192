"""The built book works with no network: nothing is requested outside 127.0.0.1, math renders,
and a notebook's in-page control (a course explorer) responds without a kernel."""

from __future__ import annotations

import json

import pytest

EXPLORER_READY = "() => document.querySelector('.nccl-explorer[data-ready=\"true\"]') !== null"


def test_intro_page_loads_offline(book_url, offline_page):
    page = offline_page.page
    page.goto(f"{book_url}/index.html", wait_until="networkidle")
    assert "Collective communication" in page.title()
    assert offline_page.external == [], f"requests left the machine: {offline_page.external}"


@pytest.mark.parametrize("edition", ["", "/tr"])
def test_notebook_controls_respond_offline(book_url, offline_page, edition):
    """The first notebook's explorer: pick another size with the keyboard, as a reader without
    a mouse would; the summary follows, with no kernel behind the page."""
    page = offline_page.page
    page.goto(f"{book_url}{edition}/notebooks/00-first-look.html", wait_until="networkidle")
    page.wait_for_function(EXPLORER_READY, timeout=30_000)
    explorer = page.locator(".nccl-explorer[data-kind='algorithms']").first
    assert json.loads(explorer.get_attribute("data-state"))["collective"] == "all_reduce"
    summary = explorer.locator(".nccl-explorer-summary")
    before = summary.text_content()
    size = explorer.locator("select[data-control='size']")
    start = size.input_value()
    size.focus()
    page.keyboard.press("ArrowDown")
    page.wait_for_function(
        "old => document.querySelector('.nccl-explorer-summary').textContent !== old", arg=before
    )
    state = json.loads(explorer.get_attribute("data-state"))
    assert state["size"] > int(start), (start, state)
    assert offline_page.external == [], f"requests left the machine: {offline_page.external}"
    assert not page.locator("script[type='application/vnd.jupyter.widget-state+json']").count()


def test_math_renders_offline(book_url, offline_page):
    page = offline_page.page
    page.goto(f"{book_url}/notebooks/00-first-look.html", wait_until="networkidle")
    page.wait_for_selector("mjx-container", timeout=15_000)
    assert offline_page.external == [], f"requests left the machine: {offline_page.external}"
