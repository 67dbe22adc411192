"""The audio committed under narration/ is the audio of today's scripts, and only that."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.narration import audio_store
from nccl_course.narration.script import load_script, narrated_pages
from nccl_course.narration.voices import voice_for

REPO = Path(__file__).resolve().parents[2]
PAGES = narrated_pages(REPO)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
@pytest.mark.parametrize("language", ["en", "tr"])
def test_each_script_has_its_audio_of_one_to_three_minutes(page, language):
    script = load_script(page, language, REPO)
    voice = voice_for(language)
    found = audio_store.find(script, voice, REPO)
    assert found is not None, (
        f"no audio for the current {language} script of {script.docname}: run "
        f"`nccl-course narrate --lang {language} {script.docname}.md` and commit narration/"
    )
    assert 60 <= audio_store.duration_s(found) <= 200
    # The page's older recordings are gone: nothing else could be served for it.
    assert audio_store.versions_of(script.docname, language, REPO) == [found]


def test_no_audio_without_a_page():
    kept = {
        (language, p.relative_to(REPO / audio_store.AUDIO_DIR / language).as_posix().split(".")[0])
        for language in ("en", "tr")
        for p in (REPO / audio_store.AUDIO_DIR / language).rglob(f"*{audio_store.SUFFIX}")
    }
    pages = {p.relative_to(REPO).with_suffix("").as_posix() for p in PAGES}
    assert {doc for _, doc in kept} <= pages
