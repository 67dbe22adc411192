"""The course server serves the built book's narration as audio, with byte ranges (a player
seeks by asking for a range; without them a browser can only play from the start)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from nccl_course.server.routes.pages import BookFiles


def test_audio_is_served_with_its_type_and_ranges(built_book):
    audio = sorted((built_book / "_narration").rglob("*.ogg"))
    assert audio, "the built book has no narration audio"
    app = FastAPI()
    app.mount("/", BookFiles(built_book), name="book")
    client = TestClient(app)
    path = "/" + audio[0].relative_to(built_book).as_posix()
    size = audio[0].stat().st_size
    whole = client.get(path)
    assert whole.status_code == 200 and whole.headers["content-type"] == "audio/ogg"
    assert whole.content == audio[0].read_bytes()
    part = client.get(path, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206
    assert part.headers["content-range"] == f"bytes 100-199/{size}"
    assert part.content == audio[0].read_bytes()[100:200]
    # Both editions carry their own audio.
    assert sorted((built_book / "tr" / "_narration").rglob("*.ogg"))


def test_every_narrated_page_of_both_editions_plays_audio_of_the_build(built_book):
    import re
    from pathlib import Path

    from nccl_course.narration import audio_store
    from nccl_course.narration.script import ROOT, docname_of, narrated_pages

    pages = narrated_pages(ROOT)
    assert len(pages) >= 30
    for edition in (built_book, built_book / "tr"):
        for page in pages:
            html_path = edition / f"{docname_of(page, ROOT)}.html"
            sources = re.findall(
                r'<div class="nccl-narration-player".*?<source src="([^"]+)"',
                html_path.read_text(encoding="utf-8"),
                re.S,
            )
            assert len(sources) == 1, f"{html_path}: {len(sources)} players"
            audio = (html_path.parent / sources[0]).resolve()
            assert audio.is_relative_to(Path(edition).resolve() / "_narration"), audio
            assert 60 <= audio_store.duration_s(audio) <= 200, audio
