"""Bitstring Status List (W3C Bitstring Status List v1.0): encode, decode, look up a bit.

The list is a bitstring, one bit per issued credential, index 0 the left-most (most
significant) bit of the first byte. ``encodedList`` is the GZIP-compressed bitstring as
multibase base64url without padding (``u...``). The spec sets a minimum of 16 KiB
(131,072 entries) so that a lookup does not reveal which credential a verifier checks.
"""

from __future__ import annotations

import gzip
import zlib

from nccl_course.certs.multibase import MultibaseError, decode_base64url, encode_base64url

MIN_ENTRIES = 131_072  # 16 KiB of bits
# A status list credential's lifetime, in seconds: its ``validUntil`` is ``validFrom`` plus
# this, and its ``ttl`` (milliseconds, in the credentialSubject) says the same to a verifier
# that caches it. A revocation therefore reaches every verifier within a day, and a saved
# list stops vouching for a credential a day after it was signed.
TTL_S = 24 * 3600
# How often, in seconds, the issuer signs a fresh list even when nothing was revoked, so that
# a list just fetched is usable for most of TTL_S.
REFRESH_S = 3600
# Largest decompressed list accepted: 2 MiB, 16,777,216 entries (a GZIP bomb stops there).
MAX_LIST_BYTES = 2 * 1024 * 1024


class StatusListError(ValueError):
    """A status list cannot be decoded or does not cover an index."""


def encode_bitstring(set_bits: set[int] | list[int], length: int = MIN_ENTRIES) -> str:
    """``encodedList`` for a list of ``length`` bits with ``set_bits`` set to 1."""
    if length % 8:
        raise ValueError("the list length must be a multiple of 8 bits")
    raw = bytearray(length // 8)
    for index in set_bits:
        if not 0 <= index < length:
            raise ValueError(f"status index {index} is outside the list (0..{length - 1})")
        raw[index // 8] |= 0x80 >> (index % 8)
    # mtime=0 keeps the encoding reproducible: same bits, same string.
    return encode_base64url(gzip.compress(bytes(raw), mtime=0))


def decode_bitstring(encoded_list: str, max_bytes: int = MAX_LIST_BYTES) -> bytes:
    """The bitstring of an ``encodedList``; at most ``max_bytes`` are decompressed."""
    if not isinstance(encoded_list, str):
        raise StatusListError("encodedList must be a string")
    try:
        compressed = decode_base64url(encoded_list)
    except MultibaseError as exc:
        raise StatusListError(f"encodedList is not multibase base64url: {exc}") from None
    # One GZIP member, decompressed incrementally so that a small input cannot expand into
    # gigabytes (wbits 16 + MAX_WBITS: a GZIP header and trailer).
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        raw = inflater.decompress(compressed, max_bytes + 1)
    except zlib.error as exc:
        raise StatusListError(f"encodedList is not GZIP data: {exc}") from None
    if len(raw) > max_bytes:
        raise StatusListError(
            f"encodedList expands to more than {max_bytes:,} bytes (the limit for a list)"
        )
    if not inflater.eof:
        raise StatusListError("encodedList is not GZIP data: the compressed data is truncated")
    return raw


def bit_at(bitstring: bytes, index: int) -> int:
    if not 0 <= index < len(bitstring) * 8:
        raise StatusListError(
            f"statusListIndex {index} is outside the list ({len(bitstring) * 8} entries)"
        )
    return (bitstring[index // 8] >> (7 - index % 8)) & 1


def set_indices(bitstring: bytes) -> list[int]:
    """The indices whose bit is 1, ascending."""
    out = []
    for byte_index, byte in enumerate(bitstring):
        if byte:
            out.extend(byte_index * 8 + b for b in range(8) if byte & (0x80 >> b))
    return out
