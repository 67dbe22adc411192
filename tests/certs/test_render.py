"""The printable certificate: PNG and PDF, with a QR code that reads back as the verify link."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.image import imread

from nccl_course.certs import render_certificate, verify_link
from nccl_course.certs.render import QR_RECT, qr_matrix

VERIFY_URL = "http://127.0.0.1:8000/verify"


def test_verify_link_forms():
    cid = "urn:uuid:1234"
    assert verify_link(VERIFY_URL, cid) == "http://127.0.0.1:8000/verify?id=urn%3Auuid%3A1234"
    assert verify_link("https://x.example/v?lang=en", cid).endswith("?lang=en&id=urn%3Auuid%3A1234")
    assert verify_link("https://x.example/c/{id}/verify", cid) == (
        "https://x.example/c/urn%3Auuid%3A1234/verify"
    )


def read_qr(png_path) -> np.ndarray:
    """Sample the QR axes of the rendered page at each module's centre (1 = dark)."""
    image = imread(png_path)[:, :, :3].mean(axis=2)
    height, width = image.shape
    left, bottom, w, h = QR_RECT
    # imshow with aspect 'equal' centres the square image in the axes box.
    side = min(w * width, h * height)
    x0 = left * width + (w * width - side) / 2
    y0 = (1 - bottom - h) * height + (h * height - side) / 2
    return image, x0, y0, side


def test_png_qr_code_encodes_the_verify_link(signed, tmp_path):
    out = render_certificate(signed, tmp_path / "cert.png", VERIFY_URL)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    expected = qr_matrix(verify_link(VERIFY_URL, signed["id"]))
    image, x0, y0, side = read_qr(out)
    n = expected.shape[0]
    module = side / n
    assert module >= 4, "modules must be at least 4 pixels to print and scan"
    centres = (np.arange(n) + 0.5) * module
    sampled = image[np.ix_((y0 + centres).astype(int), (x0 + centres).astype(int))]
    dark = (sampled < 0.5).astype(np.uint8)
    assert np.array_equal(dark, expected)


def test_png_carries_the_link_in_its_metadata(signed, tmp_path):
    out = render_certificate(signed, tmp_path / "cert.png", VERIFY_URL)
    data = out.read_bytes()
    assert signed["id"].encode() in data
    assert verify_link(VERIFY_URL, signed["id"]).encode() in data


def test_pdf(signed, tmp_path):
    out = render_certificate(signed, tmp_path / "cert.pdf", VERIFY_URL)
    data = out.read_bytes()
    assert data.startswith(b"%PDF-")
    assert signed["id"].encode() in data  # /Subject in the document information
    assert b"Ada Lovelace" in data  # /Title


def test_other_formats_are_refused(signed, tmp_path):
    with pytest.raises(ValueError, match=".pdf or .png"):
        render_certificate(signed, tmp_path / "cert.svg", VERIFY_URL)


def test_a_certificate_is_as_readable_as_its_folder(signed, tmp_path):
    """0644 in an ordinary folder; 0600 in a private one (the server's data folder)."""
    import os
    import stat

    ordinary, private = tmp_path / "ordinary", tmp_path / "private"
    ordinary.mkdir()
    private.mkdir()
    os.chmod(ordinary, 0o755)
    os.chmod(private, 0o700)
    for folder, mode in ((ordinary, 0o644), (private, 0o600)):
        out = render_certificate(signed, folder / "cert.png", VERIFY_URL)
        assert stat.S_IMODE(out.stat().st_mode) == mode
