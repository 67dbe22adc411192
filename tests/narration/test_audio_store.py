"""Audio keyed by content: real synthesis (eSpeak NG and Piper), real Ogg Opus files."""

from __future__ import annotations

import dataclasses

import pytest

from nccl_course.narration import audio_store
from nccl_course.narration.script import Script
from nccl_course.narration.synthesis import PARAGRAPH_PAUSE_S, synthesize
from nccl_course.narration.voices import ENGLISH, TURKISH

TR_SCRIPT = Script("book/x/01-page", "tr", ("Birinci paragraf kısa.", "İkinci paragraf da kısa."))


def make(script, voice, root):
    samples, rate = synthesize(list(script.paragraphs), voice)
    return audio_store.store(script, voice, audio_store.encode(samples, rate), root), samples, rate


def test_the_key_follows_words_voice_and_lexicon():
    base = audio_store.key(TR_SCRIPT, TURKISH)
    assert base == audio_store.key(TR_SCRIPT, TURKISH)
    assert len(base) == audio_store.KEY_DIGITS
    changed = dataclasses.replace(
        TR_SCRIPT, paragraphs=("Birinci paragraf uzun.",) + TR_SCRIPT.paragraphs[1:]
    )
    assert audio_store.key(changed, TURKISH) != base
    assert audio_store.key(TR_SCRIPT, dataclasses.replace(TURKISH, rate=200)) != base
    said = Script("book/x", "tr", ("NCCL hızlı.",))
    relexed = dataclasses.replace(TURKISH, lexicon={"NCCL": "en si si el"})
    assert audio_store.key(said, relexed) != audio_store.key(said, TURKISH)
    # A lexicon entry the text never uses changes nothing it says.
    unused = dataclasses.replace(TURKISH, lexicon={**TURKISH.lexicon, "Zzz": "z"})
    assert audio_store.key(said, unused) == audio_store.key(said, TURKISH)


def test_a_changed_script_never_finds_the_old_audio(tmp_path):
    old_path, samples, rate = make(TR_SCRIPT, TURKISH, tmp_path)
    assert audio_store.find(TR_SCRIPT, TURKISH, tmp_path) == old_path
    edited = dataclasses.replace(
        TR_SCRIPT, paragraphs=("Birinci paragraf değişti.", TR_SCRIPT.paragraphs[1])
    )
    # The old file is still on disk, and the edited script does not find it.
    assert old_path.exists()
    assert audio_store.find(edited, TURKISH, tmp_path) is None
    new_path, _, _ = make(edited, TURKISH, tmp_path)
    assert new_path != old_path and not old_path.exists()
    assert audio_store.versions_of(TR_SCRIPT.docname, "tr", tmp_path) == [new_path]
    assert audio_store.find(TR_SCRIPT, TURKISH, tmp_path) is None


def test_encoded_audio_lasts_as_long_as_the_samples(tmp_path):
    path, samples, rate = make(TR_SCRIPT, TURKISH, tmp_path)
    expected = len(samples) / rate
    assert path.suffix == ".ogg" and path.read_bytes()[:4] == b"OggS"
    assert audio_store.duration_s(path) == pytest.approx(expected, abs=0.05)
    # The pause between the two paragraphs is in it: longer than each spoken alone.
    alone = [synthesize([p], TURKISH) for p in TR_SCRIPT.paragraphs]
    pause = len(samples) - sum(len(s) for s, _ in alone)
    # eSpeak NG's output for the same words may differ by a few samples between calls.
    assert pause == pytest.approx(PARAGRAPH_PAUSE_S * rate, abs=0.01 * rate)
    # 20 kbit/s: the file's size is about duration x bit rate / 8 (Ogg adds a little).
    assert path.stat().st_size == pytest.approx(expected * 20000 / 8, rel=0.35)


def test_piper_speaks_english_at_a_human_pace():
    sentence = "Every rank ends with the sum of every rank's gradients."
    samples, rate = synthesize([sentence], ENGLISH)
    seconds = len(samples) / rate
    assert rate == 22050
    # Ten words: people say two to four words a second.
    assert 10 / 4 < seconds < 10 / 2
    assert abs(samples.astype(int)).max() > 1000  # not silence


def test_a_file_that_is_not_ogg_opus_is_a_clear_error(tmp_path):
    bad = tmp_path / "x.ogg"
    bad.write_bytes(b"RIFF....WAVEfmt " + bytes(64))
    with pytest.raises(ValueError, match="not an Ogg Opus file"):
        audio_store.duration_s(bad)
