"""Any name, from every Unicode general category, goes through the one name rule
(``nccl_course.i18n.names``) at registration, into a signed credential, onto the PDF and PNG
certificate and into the verify page's claims: never an exception, and the cleaned name is what
each of them shows."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import unicodedata
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from PIL import Image
from pypdf import PdfReader

import nccl_course
from nccl_course.certs import learner_name, render_certificate
from nccl_course.exam.errors import Invalid
from nccl_course.exam.learners import checked_identity
from nccl_course.i18n.names import (
    JOINERS,
    REMOVED_CATEGORIES,
    has_visible_character,
    isolated,
    printable_text,
)
from nccl_course.issuing.credentials import credential_summary

VERIFY_URL = "http://127.0.0.1:8000/verify"
# Every general category but Cs: a Python str from JSON can hold a lone surrogate (tested
# below on its own), but hypothesis draws text that UTF-8 can encode.
CATEGORIES = (
    "Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po Sm Sc Sk So Zs Zl Zp Cc Cf Co Cn"
).split()
# Characters that have broken name handling somewhere, drawn often.
EDGES = (
    "\ufeff",  # byte-order mark: stopped matplotlib's PDF writer
    "\u202e",  # right-to-left override
    "\u202d\u202a\u202b\u202c",  # left-to-right override, embeddings, pop
    "\u2066\u2067\u2068\u2069",  # isolates
    "\u200e\u200f\u061c",  # direction marks
    "\u200b\u2060\u00ad",  # zero-width space, word joiner, soft hyphen
    "\u200c",  # zero-width non-joiner (kept inside a word)
    "\u200d",  # zero-width joiner (kept inside a word)
    "\u2028\u2029",  # line and paragraph separators
    "\u0301\u0308",  # combining marks, also with no letter before them
    "e\u0301",  # a decomposed é: NFC composes it
    "\u3164\u2800",  # Hangul filler, braille blank: print as nothing
    "\ue000\U000f0000",  # private use
    "\u0378\U000e0080",  # unassigned
    "\U000e0041",  # a tag character
    "\t\n\r\x00\x1b\x7f",  # controls
    "محمد",  # Arabic
    "שרה",  # Hebrew
    "می\u200cخواهم",  # Persian with a non-joiner
    "Gülşen",
    "山田",
    "$\\frac{A}{B}$",
)
any_character = st.one_of(*(st.characters(categories=[c]) for c in CATEGORIES))
names = st.lists(any_character | st.sampled_from(EDGES), max_size=10).map("".join)


def with_name(credential: dict, name: str) -> dict:
    out = copy.deepcopy(credential)
    idents = out["credentialSubject"]["identifier"]
    assert idents[1]["identityType"] == "name"
    idents[1]["identityHash"] = name
    return out


def squeezed(text: str) -> str:
    return "".join(text.split())


def readable_in(name: str, text: str) -> bool:
    """Whether ``name`` can be read in ``text`` extracted from a PDF. A name of letters and
    symbols written left to right comes out whole and in order. A PDF keeps glyphs in the order
    they are drawn, so a name with right-to-left letters comes out in visual order, and a mark
    comes out with the letter it is drawn on (sometimes twice): for those, every character
    must be there."""
    name, text = squeezed(name), squeezed(text)
    simple = all(
        unicodedata.category(c)[0] != "M" and unicodedata.bidirectional(c) not in "R AL AN"
        for c in name
    )
    return name in text if simple else set(name) <= set(text)


def check_clean(cleaned: str) -> None:
    """What the rule promises of its result."""
    assert printable_text(cleaned) == cleaned  # applying it again changes nothing
    assert unicodedata.is_normalized("NFC", cleaned)
    assert cleaned == cleaned.strip() and "  " not in cleaned
    for i, char in enumerate(cleaned):
        if char in JOINERS:  # only inside a word
            assert unicodedata.category(cleaned[i - 1])[0] in "LM" and i > 0
            assert unicodedata.category(cleaned[i + 1])[0] == "L"
        else:
            assert unicodedata.category(char) not in REMOVED_CATEGORIES, (cleaned, char)
            assert not char.isspace() or char == " "


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,  # the same names on every run: a failure is one that reproduces
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(name=names)
def test_any_name_prints_cleaned_everywhere(issuer, signed, tmp_path, name):
    cleaned = printable_text(name)
    check_clean(cleaned)
    visible = has_visible_character(cleaned)

    # Registration: the cleaned name, or the API's refusal (never another exception).
    try:
        stored, _email = checked_identity(name, "learner@example.org")
    except Invalid as refusal:
        controls = any(unicodedata.category(c) == "Cc" for c in name)
        assert refusal.code == ("bad_text" if controls else "bad_name")
        assert controls or not visible
    else:
        assert stored == cleaned and visible

    # A credential built with the name carries it cleaned; an empty one is refused.
    passed_at = datetime(2026, 3, 14, tzinfo=timezone.utc)
    if visible:
        issued = issuer.issue(
            learner_name=name,
            learner_email="learner@example.org",
            exam_id="any-name",
            score=0.9,
            passed_at=passed_at,
        )
        assert learner_name(issued) == cleaned
    else:
        with pytest.raises(ValueError, match="learner_name is empty"):
            issuer.issue(
                learner_name=name,
                learner_email="learner@example.org",
                exam_id="any-name",
                score=0.9,
                passed_at=passed_at,
            )

    # A credential from elsewhere holding the raw name: printed cleaned, never an exception.
    hostile = with_name(signed, name)
    pdf = render_certificate(hostile, tmp_path / "cert.pdf", VERIFY_URL)
    png = render_certificate(hostile, tmp_path / "cert.png", VERIFY_URL)
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    shown = cleaned if visible else "(name not in credential)"
    assert readable_in(shown, text), (cleaned, text[:200])
    with Image.open(png) as image:
        assert image.size[0] > 0 and image.getbbox() is not None  # decodes, has ink

    # The verify page's claims: the cleaned name, or none.
    assert credential_summary(hostile)["learner"] == (cleaned or None)


def test_a_lone_surrogate_is_removed_not_a_crash(signed, tmp_path):
    """JSON can carry a lone surrogate ("\\ud800"); UTF-8 cannot: it never reaches a file."""
    name = "Ada\ud800 Love\udfffle"
    assert printable_text(name) == "Ada Lovele"
    assert checked_identity(name, "ada@example.org")[0] == "Ada Lovele"
    pdf = render_certificate(with_name(signed, name), tmp_path / "cert.pdf", VERIFY_URL)
    assert "AdaLovele" in squeezed("".join(p.extract_text() for p in PdfReader(pdf).pages))


def test_what_the_rule_keeps_and_removes():
    assert printable_text("\ufeffAda\ufeff") == "Ada"
    assert printable_text("Alice \u202egnp.exe Evil") == "Alice gnp.exe Evil"
    assert printable_text("e\u0301") == "\u00e9"  # NFC
    assert printable_text("  Ada\u2028\tLovelace\u3000 ") == "Ada Lovelace"
    # Arabic and Hebrew are letters: kept, in the order typed.
    assert printable_text("محمد") == "محمد" and printable_text("שרה") == "שרה"
    # A non-joiner inside a Persian word stays; at either end of a word it goes.
    assert printable_text("می\u200cخواهم") == "می\u200cخواهم"
    assert printable_text("\u200cAda\u200c Lovelace\u200d") == "Ada Lovelace"
    assert not has_visible_character(printable_text("\ufeff\u200b\u3164\u0301"))
    assert printable_text(None) == ""


def test_a_right_to_left_name_is_isolated_in_a_line_of_text():
    assert isolated("Ada Lovelace") == "Ada Lovelace"
    assert isolated("محمد") == "\u2068محمد\u2069"
    assert isolated("שרה 2") == "\u2068שרה 2\u2069"


def test_other_text_of_a_credential_from_elsewhere_prints_cleaned(signed, tmp_path):
    """The achievement, the issuer's name and the credential id go through the same rule."""
    hostile = copy.deepcopy(signed)
    hostile["credentialSubject"]["achievement"]["name"] = "\ufeffNCCL \u202eesruoc"
    hostile["issuer"]["name"] = "\u2067Evil\u2069 Issuer\ufeff"
    hostile["id"] = "urn:uuid:\ufeff1234"
    pdf = render_certificate(hostile, tmp_path / "cert.pdf", VERIFY_URL)
    render_certificate(hostile, tmp_path / "cert.png", VERIFY_URL)
    text = squeezed("".join(page.extract_text() for page in PdfReader(pdf).pages))
    for shown in ("NCCL esruoc", "Evil Issuer", "urn:uuid:1234"):
        assert squeezed(shown) in text, text
    assert "\ufeff" not in text and "\u202e" not in text


# ---- the verify page (HTML built in the browser by static/verify.js) -------------------------
PACKAGE = Path(nccl_course.__file__).parent
VERIFY_HTML = PACKAGE / "server" / "static" / "verify.html"
# The page's own scripts, fed a document with no elements: only the functions are used.
NO_PAGE = """
const fakeElement = { addEventListener() {}, files: [], value: "", hidden: false };
globalThis.document = {
  getElementById: () => fakeElement, querySelectorAll: () => [], readyState: "complete",
  documentElement: { getAttribute: () => "en" },
};
globalThis.location = { search: "" };
"""


def page_scripts() -> list[Path]:
    """The scripts verify.html loads, in its order, found by name in the package."""
    found = []
    for src in re.findall(r'<script src="([^"]+)"', VERIFY_HTML.read_text(encoding="utf-8")):
        name = src.rsplit("/", 1)[-1]
        matches = [p for p in PACKAGE.rglob(name) if p.parent.name == "static"]
        assert len(matches) == 1, f"verify.html loads {src}: {matches}"
        found.append(matches[0])
    return found


def verify_page_rows(summaries: list[dict]) -> list[str]:
    """The claims' HTML (``claimRows``) the verify page builds for each summary."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    source = NO_PAGE + "\n".join(p.read_text(encoding="utf-8") for p in page_scripts())
    source += (
        f"\nconst summaries = {json.dumps(summaries)};\n"
        "process.stdout.write(JSON.stringify(summaries.map("
        "(s) => claimRows(s, 'urn:uuid:x', 'unverified'))));\n"
    )
    done = subprocess.run([node, "-e", source], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Learner(HTMLParser):
    """The text of the verify page's <dd> after its "Learner" <dt> (the "unverified" label
    aside), in pieces: (text, whether it is inside a <bdi>)."""

    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.after_learner = False
        self.pieces: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        self.tags.pop()

    def handle_data(self, data):
        if self.tags[-1:] == ["dt"]:
            self.after_learner = data == "Learner"
        elif self.after_learner and "dd" in self.tags and "span" not in self.tags:
            self.pieces.append((data, "bdi" in self.tags))


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: each try runs Node
)
@given(batch=st.lists(names, min_size=40, max_size=40))
def test_the_verify_page_shows_the_cleaned_name_isolated(batch):
    shown = [name for name in map(printable_text, batch) if name]
    rows = verify_page_rows([{"learner": name, "achievement": "NCCL"} for name in shown])
    for name, html in zip(shown, rows, strict=True):
        learner = Learner()
        learner.feed(html)
        assert "".join(text for text, isolated in learner.pieces if isolated) == name, html
        # Nothing of it outside its <bdi>: it cannot reorder the label beside it.
        assert all(isolated or not text.strip() for text, isolated in learner.pieces), html
