"""The ring all-reduce animation plays in the built HTML book, offline, without a kernel."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PAGE = "notebooks/20-all-reduce.html"
IMG = "img[id^='_anim_img']"
SLIDER = "input[id^='_anim_slider']"


def test_ring_allreduce_animation_plays_offline(book_url, offline_page):
    page = offline_page.page
    page.goto(f"{book_url}/{PAGE}")
    # The player fills its <img> with the first embedded PNG frame once its script has run.
    page.wait_for_function(
        f'() => {{ const i = document.querySelector("{IMG}");'
        " return i !== null && (i.getAttribute('src') || '').startsWith('data:image/png'); }}",
        timeout=15000,
    )
    img = page.locator(IMG).first
    slider = page.locator(SLIDER).first
    first_frame = img.get_attribute("src")
    assert slider.input_value() == "0"
    frames = int(slider.get_attribute("max"))
    assert frames >= 6  # 2 (p - 1) = 6 steps of a 4-rank ring, plus the final state

    page.locator("div.animation button[title='Play']").first.click()
    page.wait_for_function(
        f"() => document.querySelector(\"{SLIDER}\").value !== '0'", timeout=15000
    )
    assert img.get_attribute("src") != first_frame
    assert img.get_attribute("src").startswith("data:image/png")

    # Offline and self-contained: the page never asked for anything beyond 127.0.0.1.
    assert offline_page.external == []
    # The player's buttons are plain characters, not a CDN icon font.
    assert "\u25b6" in page.locator("div.animation button[title='Play']").first.inner_text()
