"""Baked badges: the signed credential inside the certificate's PNG (Open Badges 3.0 section
5.3.1, https://www.imsglobal.org/spec/ob/v3p0#baking).

A baked PNG holds the credential's JSON, with its embedded proof, in one uncompressed ``iTXt``
chunk whose keyword is ``openbadgecredential`` (empty language tag and translated keyword),
placed before ``IEND``. A wallet or backpack that imports images takes the credential from it,
and the signature still verifies: the text is the signed document, unchanged.

- :func:`bake_png` / :func:`bake_credential` / :func:`bake_file`: put a credential in (a chunk
  already there is replaced: the spec allows one);
- :func:`extract_png`: the baked credential's text, or None for a plain image;
- :func:`credential_from_png`: the same for a verifier, where a plain image is an error.

Reading walks the chunks of untrusted bytes: an image over :data:`MAX_PNG_BYTES`, a missing
signature, a truncated or damaged chunk (wrong CRC), two credential chunks, or a chunk that is
not well formed raise :class:`BakedPngError`, whose message says what is wrong and what to do.
The size limit of a credential (``certs.bounds``) applies to the baked text, not to the image.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import tempfile
import zlib
from pathlib import Path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_KEYWORD = b"openbadgecredential"
# Largest PNG read, in bytes: a certificate is about 110 KB; this leaves room for any badge
# image and still bounds the work (one CRC pass) per request.
MAX_PNG_BYTES = 16 * 1024 * 1024
# Largest text a compressed chunk may expand to, in bytes (readers accept what bakers must not
# write; the verifier's own limit on a credential is smaller and reports the size).
MAX_TEXT_BYTES = 1024 * 1024
_MAX_CHUNK = 2**31 - 1  # PNG: a chunk length is at most 2^31 - 1


class BakedPngError(ValueError):
    """The bytes are not a PNG with one well-formed baked credential; the message says why."""


def is_png(data: bytes) -> bool:
    return bytes(data[: len(PNG_SIGNATURE)]) == PNG_SIGNATURE


def credential_text(credential: dict) -> str:
    """The JSON text baked for ``credential``: UTF-8 as written, no spaces."""
    return json.dumps(credential, ensure_ascii=False, separators=(",", ":"))


def _chunks(png: bytes):
    """``(offset, type, data)`` of each chunk, through ``IEND``; BakedPngError for anything
    that is not a whole, undamaged PNG datastream."""
    if len(png) > MAX_PNG_BYTES:
        raise BakedPngError(
            f"the PNG has more than {MAX_PNG_BYTES:,} bytes, the most an image is read for its "
            "credential (a course certificate has about 110,000)"
        )
    if not is_png(png):
        raise BakedPngError("this is not a PNG file (it does not start with the PNG signature)")
    offset = len(PNG_SIGNATURE)
    while True:
        if offset + 12 > len(png):
            raise BakedPngError(
                f"the PNG is truncated: it ends at byte {len(png):,} before its IEND chunk; "
                "download the certificate again"
            )
        (length,) = struct.unpack(">I", png[offset : offset + 4])
        kind = png[offset + 4 : offset + 8]
        name = kind.decode("latin-1") if kind.isalpha() else repr(kind)
        end = offset + 12 + length
        if length > _MAX_CHUNK or end > len(png):
            raise BakedPngError(
                f"the PNG is truncated: its {name} chunk at byte {offset:,} needs "
                f"{length:,} bytes but the file ends first; download the certificate again"
            )
        data = png[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", png[end - 4 : end])
        if crc != zlib.crc32(kind + data):
            raise BakedPngError(
                f"the PNG is damaged: its {name} chunk at byte {offset:,} fails its CRC check; "
                "download the certificate again"
            )
        yield offset, kind, data
        if kind == b"IEND":
            return
        offset = end


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _is_credential_chunk(kind: bytes, data: bytes) -> bool:
    return kind == b"iTXt" and data.split(b"\x00", 1)[0] == PNG_KEYWORD


def bake_png(png: bytes, credential_json: str) -> bytes:
    """``png`` with ``credential_json`` baked in: one uncompressed iTXt chunk, keyword
    ``openbadgecredential``, empty language tag and translated keyword, just before IEND. A
    credential chunk already there is replaced."""
    text = credential_json.encode("utf-8")
    # keyword NUL, compression flag 0, method 0, language tag "" NUL, translated keyword "" NUL
    itxt = _chunk(b"iTXt", PNG_KEYWORD + b"\x00" + b"\x00\x00" + b"\x00" + b"\x00" + text)
    out = bytearray(PNG_SIGNATURE)
    for offset, kind, data in _chunks(png):
        if _is_credential_chunk(kind, data):
            continue
        if kind == b"IEND":
            out += itxt
        out += png[offset : offset + 12 + len(data)]
    return bytes(out)


def bake_credential(png: bytes, credential: dict) -> bytes:
    return bake_png(png, credential_text(credential))


def bake_file(path: Path, credential: dict) -> None:
    """Bake ``credential`` into the PNG file at ``path``, replacing it atomically (the same
    permissions; never a partial file)."""
    path = Path(path)
    baked = bake_credential(path.read_bytes(), credential)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(baked)
        os.chmod(tmp, os.stat(path).st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def _chunk_text(data: bytes) -> str:
    """The text of an ``openbadgecredential`` iTXt chunk (keyword, NUL, compression flag and
    method, language tag, NUL, translated keyword, NUL, text)."""
    rest = data[len(PNG_KEYWORD) + 1 :]
    parts = rest[2:].split(b"\x00", 2) if len(rest) >= 2 else []
    if len(parts) != 3 or rest[0] not in (0, 1):
        raise BakedPngError("the PNG's openbadgecredential chunk is not a well-formed iTXt chunk")
    compressed, text = rest[0], parts[2]
    if compressed:
        if rest[1] != 0:
            raise BakedPngError("the PNG's openbadgecredential chunk uses an unknown compression")
        inflater = zlib.decompressobj()
        try:
            text = inflater.decompress(text, MAX_TEXT_BYTES + 1)
        except zlib.error as exc:
            raise BakedPngError(
                f"the PNG's openbadgecredential chunk is not valid compressed data: {exc}"
            ) from None
        if len(text) > MAX_TEXT_BYTES:
            raise BakedPngError(
                f"the PNG's openbadgecredential chunk expands to more than {MAX_TEXT_BYTES:,} "
                "bytes, far more than a credential"
            )
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise BakedPngError(
            "the PNG's openbadgecredential chunk is not UTF-8 text, as iTXt requires"
        ) from None


def extract_png(png: bytes) -> str | None:
    """The credential JSON baked into ``png``, or None when it holds none. BakedPngError for a
    PNG that is not whole, or that holds two credential chunks (the spec allows one: which
    credential the image carries would be ambiguous)."""
    found = [data for _offset, kind, data in _chunks(png) if _is_credential_chunk(kind, data)]
    if len(found) > 1:
        raise BakedPngError(
            f"the PNG holds {len(found)} openbadgecredential chunks; Open Badges 3.0 allows one, "
            "so which credential it carries is ambiguous"
        )
    return _chunk_text(found[0]) if found else None


def credential_from_png(png: bytes) -> str:
    """The baked credential's JSON text, for a verifier: a PNG without one is an error."""
    text = extract_png(png)
    if text is None:
        raise BakedPngError(
            "this PNG holds no credential (no iTXt chunk with the keyword openbadgecredential): "
            "verify the credential's .json file, or the PNG the course's result page offers"
        )
    return text


def read_credential_file(path: Path, max_json_bytes: int) -> tuple[bytes, bool]:
    """A credential file's JSON text, and whether it came from a PNG: the file itself, or the
    credential baked into it when it is a PNG. Reads at most ``max_json_bytes`` + 1 bytes of
    JSON (so a longer file is known to be too long, not how long) or :data:`MAX_PNG_BYTES` + 1
    of an image (the whole baked text, however long). OSError when the file cannot be read,
    BakedPngError for a PNG without one well-formed credential."""
    with open(path, "rb") as handle:
        head = handle.read(len(PNG_SIGNATURE))
        if not is_png(head):
            return head + handle.read(max(0, max_json_bytes + 1 - len(head))), False
        png = head + handle.read(MAX_PNG_BYTES + 1 - len(head))
    return credential_from_png(png).encode("utf-8"), True
