"""The Turkish edition's style rules: suffixes that follow how an acronym or name is read, the
book's apostrophe and quotation marks, and the glossary's terms keyed on the English source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from nccl_course.i18n import turkish_suffixes as ts
from nccl_course.i18n import turkish_terms as tt

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("token", "written", "right"),
    [
        # Read letter by letter, ending in a vowel: buffer consonants n, y, s.
        ("NVLS", "in", "nin"),
        ("NVLS", "i", "yi"),
        ("NVLS", "e", "ye"),
        ("NVLS", "nin", "nin"),
        ("NVLS", "tekiyle", "dekiyle"),
        ("GPU", "nun", "nun"),
        ("GPU", "u", "yu"),
        ("GPU", "larında", "larında"),
        ("GPU", "suz", "suz"),
        ("VM", "inde", "sinde"),
        ("NDR", "ınkiyle", "ninkiyle"),
        ("LL", "in", "nin"),
        ("DDP", "ninkinin", "ninkinin"),
        ("H100", "ünkinin", "ünkinin"),
        # Read as a word: "pat", back vowel, voiceless end.
        ("PAT", "in", "ın"),
        ("PAT", "i", "ı"),
        ("PAT", "e", "a"),
        ("PAT", "de", "ta"),
        ("SHARP", "dır", "tır"),
        # English names read the English way.
        ("NCCL", "in", "in"),
        ("NCCL", "inizin", "inizin"),
        ("NCCL", "nin", "in"),
        ("NVSwitch", "de", "te"),
        ("PyTorch", "taki", "taki"),
        ("Bruck", "ın", "un"),
        ("torch", "nuz", "unuz"),
        ("CollNet", "le", "le"),
        ("GPU", "le", "yla"),
        ("broadcast", "ı", "i"),
        ("All-reduce", "ları", "ları"),
        ("rank", "inkini", "inkini"),
        # A unit is read as the word it abbreviates ("mebibayt").
        ("MiB", "lik", "lık"),
        ("KiB", "da", "ta"),
    ],
)
def test_suffix_follows_the_reading(token, written, right):
    assert ts.correct_suffix(ts.reading(token), written) == right


def test_every_reading_has_a_vowel_and_lower_case_keys_match_capitalised_words():
    for said in ts.READINGS.values():
        ts.sound(said)  # raises for a reading without a vowel
    assert ts.reading("All-reduce") == ts.reading("all-reduce")
    assert ts.reading("MS") is None  # "ms" is milliseconds; MS is not in the table
    assert ts.reading("Unlisted") is None


def test_findings_name_the_reading_and_leave_code_alone():
    [finding] = ts.suffix_findings("NVLS'in bant genişliği, `PAT'in` değil")
    assert finding.found == "NVLS'in" and finding.wanted == "NVLS’nin"
    assert "ne-ve-le-se" in finding.describe()
    assert ts.suffix_findings("```\nPAT'in\n```\n$x'in$ <a title=\"PAT'in\">") == []


def test_apostrophe_and_quotes():
    text = 'NCCL\'in "hızlı" dediği `NCCL_ALGO="ring"`, `env`\'den gelir'
    kinds = sorted(f.kind for f in ts.punctuation_findings(text))
    assert kinds == ["apostrophe", "apostrophe", "quote"]
    assert ts.fixed(text) == 'NCCL’in “hızlı” dediği `NCCL_ALGO="ring"`, `env`’den gelir'
    assert ts.punctuation_findings(ts.fixed(text)) == []
    # An odd quotation mark is left for a person; the check still reports it.
    assert ts.fixed('a "b') == 'a "b'
    assert ts.fixed("PAT'in ve PAT’i") == "PAT’ın ve PAT’ı"
    # A span the English quotes the same way is a literal (a key, a value, program output).
    english = '"quiz" entry "a/b" must be a "score"'
    turkish = '"quiz" içindeki "a/b" girdisi bir "puan" olmalı'
    assert ts.fixed(turkish, english) == '"quiz" içindeki "a/b" girdisi bir “puan” olmalı'
    assert len(ts.punctuation_findings(turkish, english)) == 1


def test_terms_are_keyed_on_the_english_source():
    [finding] = tt.term_findings("the busbw factor", "busbw katsayısı")
    assert finding.wanted == "çarpanı"
    assert tt.term_findings("the cost's coefficients add", "katsayıları toplanır") == []
    assert [f.found for f in tt.term_findings("the coefficient", "çarpan")] == ["çarpan"]
    # One English word, two meanings: a plot is a grafik, NCCL's graph is a graf.
    assert tt.term_findings("read a crossover plot", "kesişim grafiğini") == []
    assert [f.found for f in tt.term_findings("the ring graph", "halka grafiği")] == ["grafiği"]
    assert [f.found for f in tt.term_findings("a busbw plot", "busbw grafı")] == ["grafı"]
    assert tt.term_findings("the plot of the graph search", "graf araması grafiği") == []
    # "günlük" is fine where the English has no log ("daily"), and code is not English prose.
    assert tt.term_findings("daily", "günlük") == []
    assert tt.term_findings("run `--check-log`", "günlük") == []
    assert tt.term_findings("NCCL's own log", "NCCL’in günlüğü")[0].wanted == "log’u"
    assert tt.term_findings("this generation", "bu kuşaktan")[0].wanted == "nesilden"


OLD_ENTRIES = [
    ("PAT uses the tree graph's bandwidth", "PAT'in bant genişliği ağaç grafiğinin"),
    ("NVLS needs NVSwitch", "NVLS'in NVSwitch'e ihtiyacı vardır"),
    ("the busbw factor", 'busbw katsayısı "2"'),
    ("NCCL's own log", "NCCL'in kendi günlüğü"),
]


def write(path: Path, entries) -> Path:
    catalog = Catalog(locale="tr")
    for msgid, msgstr in entries:
        catalog.add(msgid, msgstr)
    with path.open("wb") as f:
        write_po(f, catalog, width=0)
    return path


def test_check_fails_on_the_old_forms_and_fix_repairs_them(tmp_path):
    po = write(tmp_path / "page.po", OLD_ENTRIES)
    problems = tt.check(tmp_path)
    kinds = {re.search(r": (\w+): ", line).group(1) for line in problems}
    assert kinds == {"suffix", "apostrophe", "quote", "term"}, problems
    counts, left = tt.fix(po)
    assert left == [] and tt.check(tmp_path) == []
    assert counts["suffix"] == 2 and counts["term"] == 3
    with po.open("rb") as f:
        fixed = {m.id: m.string for m in read_po(f) if m.id}
    assert fixed["PAT uses the tree graph's bandwidth"] == "PAT’ın bant genişliği ağaç grafının"
    assert fixed["NVLS needs NVSwitch"] == "NVLS’nin NVSwitch’e ihtiyacı vardır"
    assert fixed["the busbw factor"] == "busbw çarpanı “2”"
    assert fixed["NCCL's own log"] == "NCCL’in kendi log’u"


def test_the_turkish_catalogs_follow_the_rules():
    problems = tt.check()
    assert not problems, (
        f"{len(problems)} Turkish style problems; run `python -m nccl_course.i18n.turkish_terms "
        "fix PO...` for what the rules can fix, and edit the rest by hand:\n"
        + "\n".join(problems[:40])
    )


def test_the_book_glossary_shows_each_term_as_the_data_has_it():
    rows = {}
    for line in (REPO / "book" / "glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2:
            rows[cells[0]] = cells
    for term in tt.terms():
        assert term.english in rows, f"book/glossary.md has no row for {term.english!r}"
        english, turkish, note = rows[term.english][:3]
        assert turkish == term.turkish and note == term.note, (
            f"book/glossary.md says {turkish!r} ({note!r}) for {english!r}; "
            f"locales/tr/glossary.yml says {term.turkish!r} ({term.note!r})"
        )
