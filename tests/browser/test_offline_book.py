"""The built book works with no network: nothing is requested outside 127.0.0.1, math renders,
and an embedded ipywidgets control renders and responds without a kernel."""

from __future__ import annotations


def test_intro_page_loads_offline(book_url, offline_page):
    page = offline_page.page
    page.goto(f"{book_url}/index.html", wait_until="networkidle")
    assert "Collective communication" in page.title()
    assert offline_page.external == [], f"requests left the machine: {offline_page.external}"


def test_widget_renders_and_responds_offline(book_url, offline_page):
    page = offline_page.page
    page.goto(f"{book_url}/notebooks/00-first-look.html", wait_until="networkidle")

    slider = page.locator(".widget-slider .ui-slider, .widget-slider .noUi-target").first
    slider.wait_for(state="visible", timeout=15_000)
    readout = page.locator(".widget-readout").first
    linked = page.locator(".widget-text input").first
    assert readout.inner_text().strip() == "8"
    assert linked.input_value() == "8"

    # Move the slider with the keyboard, as a reader without a mouse would: the readout and the
    # linked text box must follow, with no kernel behind the page.
    handle = page.locator(".widget-slider .noUi-handle, .widget-slider .ui-slider-handle").first
    handle.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")

    moved = int(readout.inner_text().strip())
    assert moved == 11, f"the slider did not move as expected: {moved}"
    page.wait_for_function(
        "v => document.querySelector('.widget-text input').value === v", arg=str(moved)
    )
    assert offline_page.external == [], f"requests left the machine: {offline_page.external}"


def test_math_renders_offline(book_url, offline_page):
    page = offline_page.page
    page.goto(f"{book_url}/notebooks/00-first-look.html", wait_until="networkidle")
    page.wait_for_selector("mjx-container", timeout=15_000)
    assert offline_page.external == [], f"requests left the machine: {offline_page.external}"
