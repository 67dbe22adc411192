"""The voices' lexicons: whole words only, suffixes kept, longest name first."""

from __future__ import annotations

import pytest

from nccl_course.narration.voices import ENGLISH, TURKISH, VOICES, Voice, spoken, voice_for


@pytest.mark.parametrize(
    "voice, text, said",
    [
        (ENGLISH, "NCCL's ring", "Nickel's ring"),
        (ENGLISH, "NCCLX and xNCCL stay", "NCCLX and xNCCL stay"),
        (ENGLISH, "RoCE, then RoCEv2.", "Rocky, then Rocky version 2."),
        (TURKISH, "NCCL'in all-reduce'u", "nikel'in ol ridyus'u"),
        (TURKISH, "NCCL’e ve GPU’lara", "nikel’e ve ge pe u’lara"),
        # "reduce" alone is a word; inside "reduce-scatter" it is the longer name's.
        (TURKISH, "reduce ve reduce-scatter", "ridyus ve ridyus sketır"),
        (TURKISH, "GPU'lar", "ge pe u'lar"),
        # At the start of a sentence too.
        (TURKISH, "All-reduce biter.", "ol ridyus biter."),
        (ENGLISH, "NCCL_ALGO and NCCLX stay", "NCCL_ALGO and NCCLX stay"),
        # A name joined by a hyphen is matched, and the hyphen said as a word break.
        (ENGLISH, "nccl-tests", "Nickel tests"),
        (TURKISH, "NVLink-C2C ve H100-SXM’in", "en vi link C2C ve ha yüz SXM’in"),
        (TURKISH, "mikro-batch’ler", "mikro beç’ler"),
        # A longer hyphenated entry wins over its parts.
        (TURKISH, "ZeRO-3’ün ZeRO’su", "zero üç’ün zero’su"),
    ],
)
def test_lexicon_replaces_whole_words_and_keeps_suffixes(voice, text, said):
    assert spoken(text, voice) == said


def test_a_voice_without_lexicon_says_the_text_as_written():
    bare = Voice("en", "piper", "x", "piper-tts", "credit")
    assert spoken("NCCL", bare) == "NCCL"


def test_every_language_has_a_voice_and_an_unknown_one_is_a_clear_error():
    assert set(VOICES) == {"en", "tr"}
    assert voice_for("tr") is TURKISH
    with pytest.raises(ValueError, match="no voice for language 'de'"):
        voice_for("de")


def test_identity_names_engine_version_and_speed():
    from importlib import metadata

    assert ENGLISH.identity.startswith(f"piper:en_US-joe-medium:{metadata.version('piper-tts')}")
    assert "length=1.1" in ENGLISH.identity
    assert TURKISH.identity.startswith("espeak-ng:tr:")
