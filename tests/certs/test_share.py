"""Sharing a credential: LinkedIn's Add to Profile URL, and the PNG with the credential baked in
(Open Badges 3.0 section 5.3.1), read back by Pillow, an independent PNG reader."""

from __future__ import annotations

import io
import json
import zlib

import pytest
from PIL import Image

from nccl_course.certs.share import bake_png, extract_png, linkedin_add_url

CREDENTIAL = {
    "id": "urn:uuid:6f1d2b44-0c1e-4c55-9b1a-2d4f7c0a9e11",
    "type": ["VerifiableCredential", "OpenBadgeCredential"],
    "issuer": {"id": "did:web:course.example.org", "type": ["Profile"], "name": "nccl-course"},
    "validFrom": "2026-03-05T10:00:00Z",
    "credentialSubject": {"achievement": {"name": "Collective Communication & NCCL"}},
    "proof": {"cryptosuite": "eddsa-rdfc-2022", "proofValue": "z3FXQ"},
}


def test_linkedin_url_is_exact():
    url = linkedin_add_url(CREDENTIAL, "https://course.example.org/exam/verify")
    assert url == (
        "https://www.linkedin.com/profile/add?startTask=CERTIFICATION_NAME"
        "&name=Collective+Communication+%26+NCCL&organizationName=nccl-course"
        "&issueYear=2026&issueMonth=3"
        "&certUrl=https%3A%2F%2Fcourse.example.org%2Fexam%2Fverify%3Fid%3D"
        "urn%253Auuid%253A6f1d2b44-0c1e-4c55-9b1a-2d4f7c0a9e11"
        "&certId=urn%3Auuid%3A6f1d2b44-0c1e-4c55-9b1a-2d4f7c0a9e11"
    )


def test_linkedin_url_has_the_expiry_only_when_the_credential_has_one():
    ending = dict(CREDENTIAL, validUntil="2028-12-31T23:59:59Z")
    url = linkedin_add_url(ending, "https://course.example.org/exam/verify?lang=en")
    assert "&issueYear=2026&issueMonth=3&expirationYear=2028&expirationMonth=12&certUrl=" in url
    # a verify URL with a query already gets &id=
    assert "verify%3Flang%3Den%26id%3Durn%253Auuid" in url
    assert "expiration" not in linkedin_add_url(CREDENTIAL, "https://x.org/v")


def png_bytes() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (7, 5), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def test_baked_png_holds_the_credential_uncompressed_and_stays_a_png():
    text = json.dumps(CREDENTIAL, separators=(",", ":"))
    baked = bake_png(png_bytes(), text)
    image = Image.open(io.BytesIO(baked))
    image.load()
    assert image.size == (7, 5) and image.getpixel((3, 2)) == (200, 30, 30)
    assert image.text["openbadgecredential"] == text  # Pillow reads iTXt chunks
    assert extract_png(baked) == text
    # uncompressed: the JSON is in the file as it is (the spec forbids compression)
    assert text.encode() in baked
    # the chunk's CRC is right (Pillow would raise otherwise), and it comes before IEND
    assert baked.index(b"iTXtopenbadgecredential") < baked.index(b"IEND")


def test_baking_again_replaces_the_chunk():
    once = bake_png(png_bytes(), '{"id": "a"}')
    twice = bake_png(once, '{"id": "b"}')
    assert twice.count(b"openbadgecredential") == 1
    assert extract_png(twice) == '{"id": "b"}'


def test_extract_reads_a_compressed_chunk_and_none_without_one():
    plain = png_bytes()
    assert extract_png(plain) is None
    data = b"openbadgecredential\x00\x01\x00\x00\x00" + zlib.compress(b'{"id":"c"}')
    chunk = len(data).to_bytes(4, "big") + b"iTXt" + data
    chunk += zlib.crc32(b"iTXt" + data).to_bytes(4, "big")
    end = plain.index(b"IEND") - 4
    assert extract_png(plain[:end] + chunk + plain[end:]) == '{"id":"c"}'


def test_not_a_png():
    with pytest.raises(ValueError, match="not a PNG"):
        bake_png(b"GIF89a", "{}")
