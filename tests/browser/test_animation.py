"""The ring all-reduce animation plays in the built HTML book, offline, without a kernel."""

from __future__ import annotations

PAGE = "notebooks/20-all-reduce.html"
IMG = "img[id^='_anim_img']"
SLIDER = "input[id^='_anim_slider']"
PLAY = "div.animation button[title='Play']"

# JavaScript predicates; the selectors are passed as the argument, not pasted into the code.
FIRST_FRAME_SHOWN = """sel => {
  const img = document.querySelector(sel);
  return img !== null && (img.getAttribute('src') || '').startsWith('data:image/png');
}"""
# [title, icon width, icon height, number of drawn paths] of every player button.
BUTTON_ICON_SIZES = """sel => [...document.querySelectorAll(sel)].map(b => {
  const svg = b.querySelector('svg.anim-icon');
  const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  return [b.title, box.width, box.height, svg ? svg.querySelectorAll('path').length : 0];
})"""
SLIDER_MOVED = "sel => document.querySelector(sel).value !== '0'"


def test_ring_allreduce_animation_plays_offline(book_url, offline_page):
    page = offline_page.page
    page.goto(f"{book_url}/{PAGE}")
    # The player fills its <img> with the first embedded PNG frame once its script has run.
    page.wait_for_function(FIRST_FRAME_SHOWN, arg=IMG, timeout=15000)
    img = page.locator(IMG).first
    slider = page.locator(SLIDER).first
    first_frame = img.get_attribute("src")
    assert slider.input_value() == "0"
    assert int(slider.get_attribute("max")) == 6  # 2 (p - 1) steps of a 4-rank ring + result

    page.locator(PLAY).first.click()
    page.wait_for_function(SLIDER_MOVED, arg=SLIDER, timeout=15000)
    assert img.get_attribute("src") != first_frame
    assert img.get_attribute("src").startswith("data:image/png")

    # Offline and self-contained: the page never asked for anything beyond 127.0.0.1.
    assert offline_page.external == []
    # Every button shows its icon, drawn as inline SVG (no icon font, no glyph a font may lack).
    # (the English player: the page carries one per language and shows the one it is in)
    sizes = page.evaluate(BUTTON_ICON_SIZES, ".nccl-lang-en div.animation .anim-buttons button")
    assert len(sizes) == 9, sizes
    for title, width, height, paths in sizes:
        assert paths == 1 and width >= 10 and height >= 10, (title, width, height, paths)
