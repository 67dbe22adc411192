"""Baked certificates: the PNG the course draws carries its credential (Open Badges 3.0, an
``iTXt`` chunk ``openbadgecredential``), ``cert verify FILE.png`` checks it, the size limit is
the credential's and not the image's, and a malformed PNG gets a message, never a traceback."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from PIL import Image

from nccl_course.certs import render_certificate, verify
from nccl_course.certs.baking import (
    MAX_PNG_BYTES,
    BakedPngError,
    bake_png,
    credential_from_png,
    credential_text,
    extract_png,
)
from nccl_course.certs.credential import parse_datetime
from tests.certs.conftest import ISSUER_ID, VERIFY_URL

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, data: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nccl_course", "cert", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "NCCL_COURSE_DATA": str(data)},
        timeout=180,
    )


@pytest.fixture(scope="module")
def baked(issuer, signed, tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("baked")
    png = render_certificate(signed, folder / "certificate.png", VERIFY_URL)
    files = {"png": png, "did": folder / "did.json", "status": folder / "status.json"}
    files["did"].write_text(json.dumps(issuer.did_document()))
    files["status"].write_text(json.dumps(issuer.status_list_credential()))
    return files


def plain_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 3), (10, 20, 30)).save(out, format="PNG")
    return out.getvalue()


def test_the_rendered_png_carries_the_signed_credential(baked, signed, issuer):
    png = baked["png"].read_bytes()
    assert png.count(b"iTXtopenbadgecredential") == 1
    # An independent reader (Pillow) finds the same text, and the image is intact.
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.text["openbadgecredential"] == credential_text(signed)
    assert json.loads(credential_from_png(png)) == signed
    result = verify(
        credential_from_png(png),
        trusted_issuers=[ISSUER_ID],
        did_document=issuer.did_document(),
        status_list=issuer.status_list_credential(),
    )
    assert result.ok, result.reason


def test_cert_verify_accepts_the_png(baked, tmp_path):
    proc = cli(
        "verify",
        str(baked["png"]),
        "--issuer",
        ISSUER_ID,
        "--did-document",
        str(baked["did"]),
        "--status-list",
        str(baked["status"]),
        "--offline",
        data=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1].startswith(f"VALID: issued by {ISSUER_ID}")
    # The image is larger than a credential may be: the limit is the credential's.
    assert baked["png"].stat().st_size > 65_536


def test_a_changed_baked_credential_fails_its_signature(baked, tmp_path):
    credential = json.loads(credential_from_png(baked["png"].read_bytes()))
    credential["credentialSubject"]["result"][0]["value"] = "100"
    forged = tmp_path / "forged.png"
    forged.write_bytes(bake_png(baked["png"].read_bytes(), json.dumps(credential)))
    proc = cli(
        "verify",
        str(forged),
        "--issuer",
        ISSUER_ID,
        "--did-document",
        str(baked["did"]),
        "--offline",
        data=tmp_path,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("NOT VALID: signature: ")


def damaged(png: bytes) -> dict[str, tuple[bytes, str]]:
    """Malformed PNGs and the message each must get."""
    itxt_at = png.index(b"iTXtopenbadgecredential") - 4
    length = int.from_bytes(png[itxt_at : itxt_at + 4], "big")
    chunk = png[itxt_at : itxt_at + 12 + length]
    flipped = bytearray(png)
    flipped[itxt_at + 40] ^= 0x01
    return {
        "plain image": (plain_png(), "holds no credential (no iTXt chunk with the keyword"),
        "two credentials": (
            png[:itxt_at] + chunk + chunk + png[itxt_at + len(chunk) :],
            "holds 2 openbadgecredential chunks; Open Badges 3.0 allows one",
        ),
        "truncated": (png[: len(png) // 2], "the PNG is truncated"),
        "cut before IEND": (png[:-12], "the PNG is truncated: it ends at byte"),
        "damaged chunk": (bytes(flipped), "fails its CRC check"),
        "not a PNG at all": (b"\x89PNG\r\n\x1a\x00" + png[8:], "more than 65,536 bytes, the limit"),
        "huge": (png + b"\0" * MAX_PNG_BYTES, f"more than {MAX_PNG_BYTES:,} bytes"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "plain image",
        "two credentials",
        "truncated",
        "cut before IEND",
        "damaged chunk",
        "not a PNG at all",
        "huge",
    ],
)
def test_a_malformed_png_gets_a_clear_message(baked, tmp_path, case):
    data, message = damaged(baked["png"].read_bytes())[case]
    path = tmp_path / "certificate.png"
    path.write_bytes(data)
    proc = cli("verify", str(path), "--issuer", ISSUER_ID, "--offline", data=tmp_path)
    assert proc.returncode in (1, 2), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert message in proc.stdout + proc.stderr
    if case != "not a PNG at all":
        assert proc.stderr.startswith(f"error: {path}: ")


def test_a_credential_over_the_limit_is_refused_for_its_own_size(baked, tmp_path):
    credential = json.loads(credential_from_png(baked["png"].read_bytes()))
    credential["description"] = "x" * 70_000
    path = tmp_path / "big.png"
    path.write_bytes(bake_png(plain_png(), json.dumps(credential)))
    proc = cli("verify", str(path), "--issuer", ISSUER_ID, "--offline", data=tmp_path)
    assert proc.returncode == 1
    text = len(json.dumps(credential).encode())
    assert f"the credential has {text:,} bytes; the limit is 65,536" in proc.stdout


def test_extraction_reads_compressed_text_within_a_bound():
    text = '{"id":"c"}'
    data = b"openbadgecredential\x00\x01\x00\x00\x00" + zlib.compress(text.encode())
    chunk = len(data).to_bytes(4, "big") + b"iTXt" + data
    chunk += zlib.crc32(b"iTXt" + data).to_bytes(4, "big")
    plain = plain_png()
    end = plain.index(b"IEND") - 4
    assert extract_png(plain[:end] + chunk + plain[end:]) == text
    bomb = b"openbadgecredential\x00\x01\x00\x00\x00" + zlib.compress(b" " * (4 << 20))
    chunk = len(bomb).to_bytes(4, "big") + b"iTXt" + bomb
    chunk += zlib.crc32(b"iTXt" + bomb).to_bytes(4, "big")
    with pytest.raises(BakedPngError, match="expands to more than"):
        extract_png(plain[:end] + chunk + plain[end:])


def test_the_example_baked_certificate_verifies():
    examples = REPO / "certificates" / "examples"
    png = (examples / "certificate-baked.png").read_bytes()
    credential = json.loads(credential_from_png(png))
    assert credential == json.loads((examples / "credential.json").read_text())
    status_list = json.loads((examples / "status-list.json").read_text())
    did = json.loads((examples / "did.json").read_text())
    result = verify(
        credential,
        trusted_issuers=[did["id"]],
        did_document=did,
        status_list=status_list,
        now=parse_datetime(status_list["validFrom"]),
    )
    assert result.ok, result.reason
    assert extract_png((examples / "certificate.png").read_bytes()) is None
