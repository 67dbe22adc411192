"""Bounds on untrusted JSON: the size, nesting depth and number of values a document may
have, checked before any expensive work, and parsing within them.

A credential, a DID document or a status list that a verifier receives is untrusted: it is
parsed only within :class:`Limits` (size first, then depth by a scan without recursion, then
the text, refusing NaN, Infinity and duplicate keys) and a parsed value is walked by
:func:`check_bounds` before JSON-LD processing, canonicalization or a signature check.
Anything outside raises :class:`CredentialFormatError`, which a server answers with a 4xx.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass


class CredentialFormatError(ValueError):
    """The input is not a credential this code will process: too large, too deeply nested,
    not JSON, NaN or Infinity, or a property of the wrong type.

    The message starts with ``malformed credential:`` and says what; a server answers it with
    a 4xx status (400 or 413/422), never a 500.
    """

    def __init__(self, what: str):
        self.what = what
        super().__init__(f"malformed credential: {what}")


@dataclass(frozen=True)
class Limits:
    """Bounds checked before any expensive work (JSON-LD, canonicalization, signatures).

    A credential the course issues is about 3 KB, 7 levels deep, with about 60 JSON values
    and 15 objects: the defaults leave a wide margin and still cap the work per request.
    """

    max_bytes: int = 64 * 1024
    max_depth: int = 32
    max_values: int = 8192  # JSON values of any kind (objects, arrays, strings, numbers ...)
    max_objects: int = 512  # JSON objects: each may become a node (often a blank node)

    def scaled(self, factor: int) -> Limits:
        """The same limits with the size and counts times ``factor`` (for status lists)."""
        return Limits(
            max_bytes=self.max_bytes * factor,
            max_depth=self.max_depth,
            max_values=self.max_values * factor,
            max_objects=self.max_objects * factor,
        )


DEFAULT_LIMITS = Limits()
# A status list credential carries a compressed bitstring of up to a few hundred KB.
STATUS_LIST_LIMITS = Limits(max_bytes=1024 * 1024, max_values=4096, max_objects=64)

# A JSON string token (skipped whole) or a bracket; used to measure nesting without recursion.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _reject_constant(name: str) -> float:
    raise CredentialFormatError(f"{name} is not a JSON number (NaN and Infinity are refused)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise CredentialFormatError(f"the number {text[:40]} is out of range")
    return value


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            # Parsers disagree on which duplicate wins; a signature must not depend on that.
            raise CredentialFormatError(f"the property {key[:80]!r} appears twice in one object")
        out[key] = value
    return out


def json_depth(text: str, limit: int) -> int:
    """The nesting depth of JSON text, computed without recursion; stops past ``limit``."""
    depth = deepest = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif token in "]}":
            depth -= 1
    return deepest


def parse_json(
    data: str | bytes, limits: Limits = DEFAULT_LIMITS, what: str = "document"
) -> object:
    """Parse untrusted JSON within ``limits``; :class:`CredentialFormatError` otherwise.

    The size is checked first, then the nesting depth (a scan without recursion), and only
    then is the text parsed, refusing NaN, Infinity, out-of-range numbers and duplicate keys.
    The result is then walked by :func:`check_bounds`.
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        if len(data) > limits.max_bytes:
            raise CredentialFormatError(
                f"the {what} has {len(data):,} bytes; the limit is {limits.max_bytes:,}"
            )
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise CredentialFormatError(f"the {what} is not UTF-8 text: {exc}") from None
    elif isinstance(data, str):
        text = data
    else:
        raise CredentialFormatError(f"the {what} must be JSON text, not {type(data).__name__}")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.max_bytes:
        raise CredentialFormatError(
            f"the {what} has {size:,} bytes; the limit is {limits.max_bytes:,}"
        )
    depth = json_depth(text, limits.max_depth)
    if depth > limits.max_depth:
        raise CredentialFormatError(
            f"the {what} is nested more than {limits.max_depth} levels deep"
        )
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            object_pairs_hook=_no_duplicates,
        )
    except CredentialFormatError:
        raise
    except RecursionError:  # pragma: no cover - the depth scan prevents it
        raise CredentialFormatError(f"the {what} is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and int() past Python's digit limit
        raise CredentialFormatError(f"the {what} is not valid JSON: {exc}") from None
    check_bounds(value, limits, what)
    return value


def check_bounds(value: object, limits: Limits = DEFAULT_LIMITS, what: str = "document") -> None:
    """Walk a parsed JSON value without recursion and enforce ``limits``.

    Also refuses what JSON cannot hold (NaN, Infinity, non-string keys, other Python types),
    so a dict handed over by a caller gets the same checks as parsed text.
    """
    stack: list[tuple[object, int]] = [(value, 1)]
    values = objects = 0
    size = 0
    while stack:
        node, depth = stack.pop()
        values += 1
        if values > limits.max_values:
            raise CredentialFormatError(
                f"the {what} has more than {limits.max_values:,} JSON values"
            )
        if isinstance(node, dict):
            objects += 1
            if objects > limits.max_objects:
                raise CredentialFormatError(
                    f"the {what} has more than {limits.max_objects:,} JSON objects"
                )
            if depth > limits.max_depth:
                raise CredentialFormatError(
                    f"the {what} is nested more than {limits.max_depth} levels deep"
                )
            for key, item in node.items():
                if not isinstance(key, str):
                    raise CredentialFormatError(f"the {what} has a non-string key {key!r}")
                size += len(key) + 4
                stack.append((item, depth + 1))
        elif isinstance(node, list):
            if depth > limits.max_depth:
                raise CredentialFormatError(
                    f"the {what} is nested more than {limits.max_depth} levels deep"
                )
            size += 2 + len(node)
            stack.extend((item, depth + 1) for item in node)
        elif isinstance(node, str):
            size += len(node) + 2
        elif isinstance(node, bool) or node is None:
            size += 5
        elif isinstance(node, int):
            if node.bit_length() > 256:
                raise CredentialFormatError(f"the {what} has an integer of over 256 bits")
            size += 8
        elif isinstance(node, float):
            if not math.isfinite(node):
                raise CredentialFormatError(
                    f"the {what} holds {node!r}, which is not a JSON number"
                )
            size += 8
        else:
            raise CredentialFormatError(
                f"the {what} holds a {type(node).__name__}, which is not a JSON value"
            )
        if size > limits.max_bytes:
            raise CredentialFormatError(f"the {what} is larger than {limits.max_bytes:,} bytes")


def parse_credential(data: str | bytes, limits: Limits = DEFAULT_LIMITS) -> dict:
    """Parse an untrusted credential (JSON text) within ``limits``.

    Raises :class:`CredentialFormatError` (``malformed credential: ...``) for text that is too
    large or too deep, not JSON, holds NaN/Infinity or duplicate keys, or is not an object.
    """
    value = parse_json(data, limits, what="credential")
    if not isinstance(value, dict):
        raise CredentialFormatError("a credential is a JSON object")
    return value
