"""The spoken overview in Debian's chromium, offline, in both editions: nothing plays by
itself; the play button starts it and time advances; pause, speed and the keyboard work; the
transcript is the page's script; the labels are in the page's language."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.i18n.interface import translator
from nccl_course.narration import audio_store
from nccl_course.narration.script import load_script
from nccl_course.narration.voices import voice_for

REPO = Path(__file__).resolve().parents[2]
PAGE = "book/collectives/03-all-reduce"


def current_time(page) -> float:
    return page.evaluate("document.querySelector('.nccl-narration-player audio').currentTime")


@pytest.mark.parametrize("language", ["en", "tr"])
def test_the_overview_plays_offline_when_asked(offline_page, book_url, language):
    tr = translator(language)
    script = load_script(REPO / f"{PAGE}.md", language)
    audio = audio_store.find(script, voice_for(language))
    assert audio is not None, f"no {language} audio for {PAGE}: run nccl-course narrate"
    page = offline_page.page
    prefix = "" if language == "en" else "/tr"
    response = page.goto(f"{book_url}{prefix}/{PAGE}.html")
    assert response is not None and response.ok
    player = page.locator(".nccl-narration-player")
    # The course's controls replaced the browser's; the audio is the one of this script.
    assert page.locator(".nccl-narration-controls").is_visible()
    assert not page.locator(".nccl-narration-player audio").is_visible()
    src = page.locator(".nccl-narration-player audio source").get_attribute("src")
    assert src.endswith(f"_narration/{PAGE}.{audio_store.key(script, voice_for(language))}.ogg")
    button = page.get_by_role("button", name=tr("Play the spoken overview"))
    assert button.is_visible()
    assert "/" in player.locator(".nccl-narration-time").inner_text()
    # No autoplay: after a second on the page nothing has played.
    page.wait_for_timeout(1000)
    assert page.evaluate("document.querySelector('.nccl-narration-player audio').paused")
    assert current_time(page) == 0

    button.click()
    page.wait_for_function(
        "document.querySelector('.nccl-narration-player audio').currentTime > 1.0", timeout=15000
    )
    pause = page.get_by_role("button", name=tr("Pause the spoken overview"))
    assert pause.is_visible()
    assert player.locator(".nccl-narration-current").inner_text() != "0:00"
    seek = player.locator(".nccl-narration-seek")
    assert tr("{current} of {total}").split("{")[0].strip() in (
        seek.get_attribute("aria-valuetext") or ""
    )

    # What a screen reader announces: each control by its role and name, the position as text.
    assert page.get_by_role("slider", name=tr("Position")).is_visible()
    assert page.get_by_role("combobox", name=tr("Speed")).is_visible()
    assert page.get_by_role("region", name=tr("Listen to this chapter")).is_visible()

    # Speed, then the keyboard: Space on the focused button pauses.
    player.locator(".nccl-narration-speed").select_option("1.5")
    assert (
        page.evaluate("document.querySelector('.nccl-narration-player audio').playbackRate") == 1.5
    )
    pause.focus()
    page.keyboard.press("Space")
    page.wait_for_function("document.querySelector('.nccl-narration-player audio').paused")
    stopped = current_time(page)
    page.wait_for_timeout(500)
    assert current_time(page) == stopped
    assert page.get_by_role("button", name=tr("Play the spoken overview")).is_visible()
    # Tab goes from the button to the position slider; the arrow key moves it forward.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "nccl-narration-seek"
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"document.querySelector('.nccl-narration-player audio').currentTime > {stopped}"
    )

    # The transcript: the script's paragraphs under the player, behind a summary.
    details = page.locator(".nccl-narration-details")
    details.locator("summary").click()
    # Sphinx makes quotes typographic (NCCL's -> NCCL’s); the Turkish catalogs already are.
    plain = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")
    shown = details.inner_text().translate(plain)
    for paragraph in script.paragraphs:
        assert paragraph[:60].translate(plain) in shown
    assert (
        tr("Listening time: {time}").split("{")[0]
        in page.locator(".nccl-narration-meta").inner_text()
    )
    assert offline_page.external == []
    assert offline_page.console_errors == []
