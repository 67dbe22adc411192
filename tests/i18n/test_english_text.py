"""The rule that the Turkish crawl applies: what it calls an English sentence."""

from __future__ import annotations

from nccl_course.i18n.english_text import (
    allowed_sentences,
    english_sentences,
    is_english,
    sentences,
)


def test_english_prose_is_english():
    assert is_english("Because of assumption 1, code such as this is a bug.")
    assert is_english("Run steps 3 and 4 on your cluster.")
    assert is_english("issued by did:web:example.org, which is not a trusted issuer")


def test_turkish_prose_with_english_terms_is_not():
    assert not is_english("Birinci varsayım yüzünden böyle bir kod hatalıdır.")
    assert not is_english("NCCL ring all-reduce on NVLink")  # terms, no function word
    assert not is_english("the NCCL’in halkası")  # a Turkish suffix
    assert not is_english("bir of the")  # a Turkish word
    assert not is_english("of the")  # too short


def test_sentences_and_the_allow_list(tmp_path):
    assert sentences("One. Two three!\nFour") == ["One.", "Two three!", "Four"]
    allow = tmp_path / "allowed.txt"
    allow.write_text("# a comment\nroot (of a broadcast   or reduce)\n", encoding="utf-8")
    allowed = allowed_sentences(allow)
    texts = ["root (of a broadcast or reduce)", "Kök. It is the rank that has the data."]
    assert english_sentences(texts, allowed) == ["It is the rank that has the data."]
    assert allowed_sentences(tmp_path / "none.txt") == frozenset()
