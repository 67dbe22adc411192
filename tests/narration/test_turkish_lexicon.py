"""How the Turkish overviews say the course's English terms: the phonemes eSpeak NG makes for
them (the library, data and voice that speak the audio), and vowel harmony between a term and
the suffix the catalogs write after it."""

from __future__ import annotations

import importlib.util
import re

import pytest

from nccl_course.i18n.turkish_suffixes import READINGS, correct_suffix
from nccl_course.narration.script import ScriptError, load_script, narrated_pages
from nccl_course.narration.voices import TURKISH, spoken

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("espeakng_loader") is None,
    reason="eSpeak NG is not installed (the espeakng-loader wheel of the narration extra): "
    "run `make setup`, or pip install 'nccl-course[narration]'",
)

# eSpeak NG's Turkish vowel phonemes (its mnemonics, as `espeak-ng -x -v tr` prints them).
BACK = frozenset("a@oOuU")  # a, ı, o, u
FRONT = frozenset("eE&iIyYW")  # e, i, ü, ö
ROUNDED = frozenset("oOuUyYW")
HIGH = frozenset("@iIuUyY")  # ı, i, u, ü: the vowels of four-way suffixes
VOWEL = re.compile(r"[aeiouyEIOUYW@&]")
TURKISH_VOWEL = re.compile(r"[aeıioöuü]")
# A word in Latin letters, an apostrophe of either kind, and a Turkish suffix.
SUFFIXED = re.compile(r"(?<![\w.\-])([A-Za-z][\w.\-]*?)([’'])([a-zçğıöşü]+)")

#: Each listed word in a suffixed sentence and what eSpeak NG says for it.
PINNED = {
    # NCCL is "nikel": front vowels, so NCCL’in and NCCL’e as the catalogs write them.
    "NCCL’in halkası": "nikel'In_:_: haLkas'@",
    "NCCL'in halkası": "nikel'In_:_: haLkas'@",
    "NCCL’e gider": "nikel'E_:_: Jid'ER",
    "RCCL’in": "Rikel'In",
    "GPU’lar": "J'E p'E uL'aR",
    # C is "ce" in Turkish, not "se".
    "CPU’ya": "dZ'E p'E uj'a",
    "lab’da": "Labd'a",
    "kernel’in": "kERnel'In",
    # No lone "ve" (eSpeak NG pauses before the conjunction).
    "NVL72’de": "nev'E l'E jEtm'IS ikid'E",
    "NVLS’nin": "nev'E l'E sen'In",
    "H100’ün": "h'a jyz'Yn",
    "H100-SXM": "h'a j'Yz s,E,Iksm'E",
    "NVLink-C2C": "'&n v'I l'Ink dZ'E ic'i dZ'E",
    "checkpoint’e": "tSEkpoInt'E",
    "graph’ı": "gRaf'@",
    "thread’i": "tRed'I",
    "gloo’nun": "gLun'Un",
    "torchrun’ın": "tORtSRan'@n",
    "all-reduce’u": "'OL RIdjus'U",
    "reduce-scatter’ı": "RIdj'Us sket@*'@",
    "communicator’ı": "k@mjunikEjt@*'@",
    "token’ları": "tok@nLa*'@",
    "ZeRO-3’ün": "ze*'O ytS'Yn",
    "mikro-batch’in": "mIkR'O betS'In",
    "RDMA": "R'E dE m'E 'a",
    "MPI": "m'E p'E 'i",
    "B’yi": "bej'I",
}


def phonemes(text: str) -> str:
    from nccl_course.narration.synthesis import phonemes as said

    return said(text, TURKISH)


def harmony_break(word: str) -> str | None:
    """Why the suffix of ``word`` ("NCCL’in") does not follow the last vowel eSpeak NG says
    before it, or None when it does. The suffix's first vowel is compared: a/e by front and
    back, ı/i/u/ü by rounding too (a later "-ki" keeps its i, as Turkish writes it)."""
    suffix = SUFFIXED.fullmatch(word).group(3)
    count = len(TURKISH_VOWEL.findall(suffix))
    said = phonemes(word)
    vowels = VOWEL.findall(said)
    if len(vowels) <= count:
        return f"{word!r} is said {said!r}: the word before its suffix has no vowel"
    last, first = vowels[-count - 1], vowels[-count]
    if (last in BACK) != (first in BACK):
        return f"{word!r} is said {said!r}: {last!r} then {first!r} (front and back)"
    if first in HIGH and (last in ROUNDED) != (first in ROUNDED):
        return f"{word!r} is said {said!r}: {last!r} then {first!r} (rounded and unrounded)"
    return None


@pytest.mark.parametrize("sentence, expected", PINNED.items(), ids=list(PINNED))
def test_each_listed_word_is_said_as_pinned(sentence, expected):
    # A new eSpeak NG release may say a word differently: listen to it, then pin what it says.
    assert phonemes(sentence) == expected, (
        f"{TURKISH.identity} is given {spoken(sentence, TURKISH)!r}"
    )


def test_the_vowel_classes_are_espeaks_turkish_vowels():
    # a ı o u are back, e i ö ü front; o u ö ü rounded.
    assert [v in BACK for v in VOWEL.findall(phonemes("kapı okul"))] == [True] * 4
    assert [v in FRONT for v in VOWEL.findall(phonemes("kedi gözlük"))] == [True] * 4
    assert [v in ROUNDED for v in VOWEL.findall(phonemes("okul gözlük"))] == [True] * 4
    assert [v in ROUNDED for v in VOWEL.findall(phonemes("kapı kedi"))] == [False] * 4


@pytest.mark.parametrize("word", [w.split()[0] for w in PINNED if SUFFIXED.fullmatch(w.split()[0])])
def test_the_suffix_of_a_listed_word_follows_the_vowel_said_before_it(word):
    assert harmony_break(word) is None


def test_a_spelling_that_breaks_harmony_is_caught():
    # "Nikıl’in": a back ı, then the front i of the suffix the catalogs write.
    assert harmony_break("Nikıl’in") is not None
    assert harmony_break("Nikıl’ın") is None


def test_every_suffixed_word_of_the_turkish_overviews_keeps_vowel_harmony():
    words = set()
    for page in narrated_pages():
        try:
            text = load_script(page, "tr").text
        except ScriptError:
            continue  # a page whose translation is missing (its own test says so)
        words |= {m.group(0) for m in SUFFIXED.finditer(text)}
    assert len(words) > 100  # the overviews are read
    broken = [why for why in map(harmony_break, sorted(words)) if why]
    assert not broken, "\n".join(broken)


def test_each_spelling_takes_the_suffixes_the_catalogs_write_for_its_term():
    # The catalogs' suffixes follow READINGS; the voice must end each term the same way.
    suffixes = ["in", "i", "e", "de", "den", "ler", "le", "dir", "si", "ki"]
    differ = {
        term: said
        for term, said in TURKISH.lexicon.items()
        if (reading := READINGS.get(term) or READINGS.get(term.lower()))
        and any(correct_suffix(said, s) != correct_suffix(reading, s) for s in suffixes)
    }
    assert not differ, f"spelled unlike the suffix rule's reading: {differ}"
    assert len([t for t in TURKISH.lexicon if t in READINGS or t.lower() in READINGS]) > 40
