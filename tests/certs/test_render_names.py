"""Any name prints literally, fits inside the border, in a font that has its
glyphs, and a failed drawing leaves no partial file behind."""

from __future__ import annotations

import copy

import pytest
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.image import imread
from pypdf import PdfReader

from nccl_course.certs import render_certificate
from nccl_course.certs.credential import CredentialFormatError
from nccl_course.certs.fonts import cjk_font_family
from nccl_course.certs.render import INNER_BORDER, OUTER_BORDER

VERIFY_URL = "http://127.0.0.1:8000/verify"
LONG_NAME = ("Maximiliana Wolfeschlegelsteinhausenbergerdorff " * 5)[:200]
NAMES = {
    "fake-command": r"$\fakecommand{x}$",
    "fraction": r"$\frac{A}{B}$",
    "long": LONG_NAME,
    "long-one-word": "X" * 200,
    "turkish": "Gülşen Çığ",
    "cjk": "山田太郎",
    "arabic": "محمد",
    "hebrew": "שרה",
}


def with_name(credential: dict, name: str) -> dict:
    out = copy.deepcopy(credential)
    idents = out["credentialSubject"]["identifier"]
    assert idents[1]["identityType"] == "name"
    idents[1]["identityHash"] = name
    return out


def pdf_text(path) -> str:
    return "".join(page.extract_text() for page in PdfReader(path).pages)


@pytest.mark.parametrize("key", list(NAMES))
def test_a_name_is_drawn_literally_and_leaves_no_partial_file(signed, tmp_path, key):
    name = NAMES[key]
    credential = with_name(signed, name)
    pdf = render_certificate(credential, tmp_path / "cert.pdf", VERIFY_URL)
    png = render_certificate(credential, tmp_path / "cert.png", VERIFY_URL)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cert.pdf", "cert.png"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = "".join(pdf_text(pdf).split())
    if key == "long-one-word":
        # 200 capitals do not fit in three lines: the certificate shows what fits, then '…'.
        assert "X" * 100 in text and "…" in text
    else:
        assert "".join(name.split()) in text, text[:300]


@pytest.mark.parametrize("key", ["long", "long-one-word"])
def test_a_long_name_stays_inside_the_border(signed, tmp_path, key):
    png = render_certificate(with_name(signed, NAMES[key]), tmp_path / "cert.png", VERIFY_URL)
    image = imread(png)[:, :, :3].mean(axis=2)
    height, width = image.shape
    ink = image < 0.9

    def col(fraction: float) -> int:
        return int(round(fraction * width))

    def row(fraction: float) -> int:  # figure fractions count from the bottom
        return int(round((1 - fraction) * height))

    outer_left, outer_right = col(OUTER_BORDER[0]), col(OUTER_BORDER[0] + OUTER_BORDER[2])
    inner_left, inner_right = col(INNER_BORDER[0]), col(INNER_BORDER[0] + INNER_BORDER[2])
    top, bottom = row(INNER_BORDER[1] + INNER_BORDER[3]), row(INNER_BORDER[1])
    margin = 6  # half the border lines' width and their anti-aliasing, in pixels
    # Nothing outside the outer border, nothing between the two borders on either side.
    assert not ink[:, : outer_left - margin].any()
    assert not ink[:, outer_right + margin :].any()
    assert not ink[top:bottom, outer_left + margin : inner_left - margin].any()
    assert not ink[top:bottom, inner_right + margin : outer_right - margin].any()
    # And the name itself is there: ink across the name's band, inside the inner border.
    band = ink[row(0.745) : row(0.625), inner_left + margin : inner_right - margin]
    assert band.any()


def test_the_name_font_has_every_glyph(signed):
    family = cjk_font_family(serif=True)
    assert family is not None, (
        "no CJK font found: install Debian's fonts-noto-cjk (or set NCCL_COURSE_CJK_FONT)"
    )
    fonts = {
        name: FT2Font(font_manager.findfont(font_manager.FontProperties(family=name)))
        for name in ("DejaVu Serif", "DejaVu Sans", family)
    }
    for key in ("turkish", "cjk", "arabic", "hebrew"):
        for char in NAMES[key].replace(" ", ""):
            assert any(f.get_char_index(ord(char)) for f in fonts.values()), (key, char)


def test_a_failed_drawing_removes_its_temporary_file(signed, tmp_path, monkeypatch):
    def broken(self, *args, **kwargs):
        handle = args[0]
        handle.write(b"%PDF-1.4 half")
        raise RuntimeError("disk full")

    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        render_certificate(signed, tmp_path / "cert.pdf", VERIFY_URL)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_certificate_is_replaced_whole(signed, tmp_path):
    out = tmp_path / "cert.png"
    out.write_bytes(b"old")
    render_certificate(signed, out, VERIFY_URL)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["cert.png"]


@pytest.mark.parametrize("value", [True, 7, {"type": ["Result"], "value": "100"}])
def test_a_result_of_the_wrong_type_is_a_format_error_not_a_crash(signed, tmp_path, value):
    credential = copy.deepcopy(signed)
    credential["credentialSubject"]["result"] = value
    with pytest.raises(CredentialFormatError, match="credentialSubject.result must be an array"):
        render_certificate(credential, tmp_path / "cert.pdf", VERIFY_URL)
    assert list(tmp_path.iterdir()) == []


def test_other_long_fields_fit_too(signed, tmp_path):
    credential = copy.deepcopy(signed)
    credential["issuer"]["name"] = "Institute " * 40
    credential["credentialSubject"]["achievement"]["name"] = "Collective communication " * 12
    png = render_certificate(credential, tmp_path / "cert.png", VERIFY_URL)
    image = imread(png)[:, :, :3].mean(axis=2)
    width = image.shape[1]
    assert not (image[:, : int(0.03 * width) - 6] < 0.9).any()
    assert not (image[:, int(0.97 * width) + 6 :] < 0.9).any()
