"""Multibase and multicodec encodings used by Data Integrity proofs and Multikey documents.

- ``z`` + base58btc (the Bitcoin alphabet) carries proof values and keys.
- ``u`` + base64url without padding carries a Bitstring Status List's ``encodedList``.
- Decoding base58 is a base conversion (quadratic in the length of the text, in this code as
  in the PyPI ``base58`` package, which runs the same loop), so every decoder here refuses
  text longer than the value it expects *before* converting: :data:`MAX_BASE58_CHARS` by
  default, and exactly the right bound for keys and signatures. Decoding a bounded string
  costs microseconds, whatever the input.
- A Multikey is a multicodec prefix (an unsigned varint) followed by the raw key bytes:
  0xed (ed25519-pub, varint ``ed 01``) for a 32-byte Ed25519 public key and 0x1300
  (ed25519-priv, varint ``80 26``) for a 32-byte Ed25519 seed.
"""

from __future__ import annotations

import base64

BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_INDEX = {c: i for i, c in enumerate(BASE58_ALPHABET)}

ED25519_PUB_PREFIX = bytes([0xED, 0x01])
ED25519_PRIV_PREFIX = bytes([0x80, 0x26])
ED25519_KEY_BYTES = 32
# Longest base58 text decoded at all: enough for 128 bytes (keys are 34, signatures 64).
MAX_BASE58_CHARS = 180
# Longest base64url text decoded (a status list's compressed bitstring).
MAX_BASE64_CHARS = 4 * 1024 * 1024


def base58_length(n_bytes: int) -> int:
    """The most base58 characters that ``n_bytes`` bytes can encode to."""
    # Each base58 digit carries log2(58) = 5.857... bits; a leading zero byte is one '1'.
    return -(-n_bytes * 8 * 1000 // 5857)


class MultibaseError(ValueError):
    """A string is not valid multibase, or not the expected multicodec."""


def b58encode(data: bytes) -> str:
    """base58btc: leading zero bytes become '1', the rest is a big-endian base-58 number."""
    zeros = len(data) - len(data.lstrip(b"\0"))
    number = int.from_bytes(data, "big")
    digits = []
    while number:
        number, rem = divmod(number, 58)
        digits.append(BASE58_ALPHABET[rem])
    return "1" * zeros + "".join(reversed(digits))


def b58decode(text: str, max_chars: int = MAX_BASE58_CHARS) -> bytes:
    """Decode base58btc text of at most ``max_chars`` characters (checked first)."""
    if len(text) > max_chars:
        raise MultibaseError(
            f"the base58btc text has {len(text):,} characters; at most {max_chars} are expected"
        )
    number = 0
    for char in text:
        try:
            number = number * 58 + _BASE58_INDEX[char]
        except KeyError:
            raise MultibaseError(f"{char!r} is not a base58btc character") from None
    zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * zeros + body


def encode_base58btc(data: bytes) -> str:
    """Multibase base58btc: ``'z'`` + base58btc(data)."""
    return "z" + b58encode(data)


def decode_base58btc(text: str, max_bytes: int | None = None) -> bytes:
    """Decode ``'z'`` + base58btc; with ``max_bytes``, longer text is refused before decoding."""
    if not isinstance(text, str) or not text.startswith("z"):
        raise MultibaseError("expected multibase base58btc (a string starting with 'z')")
    limit = MAX_BASE58_CHARS if max_bytes is None else base58_length(max_bytes)
    return b58decode(text[1:], max_chars=limit)


def encode_base64url(data: bytes) -> str:
    """Multibase base64url without padding: ``'u'`` + base64url(data)."""
    return "u" + base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode_base64url(text: str) -> bytes:
    if not isinstance(text, str) or not text.startswith("u"):
        raise MultibaseError("expected multibase base64url (a string starting with 'u')")
    body = text[1:]
    if len(body) > MAX_BASE64_CHARS:
        raise MultibaseError(
            f"the base64url text has {len(body):,} characters; the limit is {MAX_BASE64_CHARS:,}"
        )
    try:
        return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (ValueError, TypeError) as exc:
        raise MultibaseError(f"not valid base64url: {exc}") from None


def encode_ed25519_public(raw: bytes) -> str:
    """A 32-byte Ed25519 public key as a Multikey ``publicKeyMultibase`` (``z6Mk...``)."""
    if len(raw) != ED25519_KEY_BYTES:
        raise MultibaseError(f"an Ed25519 public key has 32 bytes, not {len(raw)}")
    return encode_base58btc(ED25519_PUB_PREFIX + raw)


def decode_ed25519_public(text: str) -> bytes:
    data = decode_base58btc(text, max_bytes=len(ED25519_PUB_PREFIX) + ED25519_KEY_BYTES)
    if not data.startswith(ED25519_PUB_PREFIX):
        raise MultibaseError("not an Ed25519 public Multikey (multicodec 0xed01 expected)")
    raw = data[len(ED25519_PUB_PREFIX) :]
    if len(raw) != ED25519_KEY_BYTES:
        raise MultibaseError(f"an Ed25519 public key has 32 bytes, not {len(raw)}")
    return raw


def encode_ed25519_private(seed: bytes) -> str:
    """A 32-byte Ed25519 seed as a Multikey ``secretKeyMultibase`` (``z3u2...``)."""
    if len(seed) != ED25519_KEY_BYTES:
        raise MultibaseError(f"an Ed25519 private key has 32 bytes, not {len(seed)}")
    return encode_base58btc(ED25519_PRIV_PREFIX + seed)


def decode_ed25519_private(text: str) -> bytes:
    data = decode_base58btc(text, max_bytes=len(ED25519_PRIV_PREFIX) + ED25519_KEY_BYTES)
    if not data.startswith(ED25519_PRIV_PREFIX):
        raise MultibaseError("not an Ed25519 private Multikey (multicodec 0x1300 expected)")
    seed = data[len(ED25519_PRIV_PREFIX) :]
    if len(seed) != ED25519_KEY_BYTES:
        raise MultibaseError(f"an Ed25519 private key has 32 bytes, not {len(seed)}")
    return seed
