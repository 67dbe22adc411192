"""Offline verification of a credential, check by check, with a precise reason on failure.

The checks run in this order and stop at the first failure (a later check means nothing once
an earlier one failed: a status bit read from an unauthenticated document proves nothing):

1. ``structure``: the VC 2.0 required fields, and for Open Badges 3.0 credentials the OB 3.0
   required fields (id, validFrom, a Profile issuer, an achievement, an identifier);
2. ``contexts``: VC 2.0 first, OB 3.0 where needed, each one available offline;
3. ``proof``: DataIntegrityProof, cryptosuite eddsa-rdfc-2022, purpose assertionMethod, key
   from the issuer's DID (did:key) or DID document (did:web), 64-byte signature, RDFC-1.0;
4. ``validity``: ``validFrom`` <= now <= ``validUntil``;
5. ``status``: the Bitstring Status List bit, from a status list credential that is itself
   verified (same issuer, valid proof); not checked when no status list is supplied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from nccl_course.certs import did as dids
from nccl_course.certs import eddsa
from nccl_course.certs.canon import CanonicalizationError
from nccl_course.certs.credential import parse_datetime
from nccl_course.certs.loader import VC_V2, OfflineDocumentLoader, loader_for
from nccl_course.certs.statuslist import MIN_ENTRIES, StatusListError, bit_at, decode_bitstring

CHECK_NAMES = ("structure", "contexts", "proof", "validity", "status")
OB_TYPES = {"OpenBadgeCredential", "AchievementCredential"}
OB_CONTEXT = re.compile(r"^https://purl\.imsglobal\.org/spec/ob/v3p0/context-3\.0\.\d+\.json$")
HASH_FORMAT = re.compile(r"^(sha256\$[0-9a-f]{64}|md5\$[0-9a-f]{32})$")


@dataclass
class VerificationResult:
    """``ok``; ``reason`` (the first failure, or a one-line success); ``checks`` in order."""

    ok: bool
    reason: str
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    credential_id: str | None = None
    issuer: str | None = None

    def as_dict(self) -> dict:
        return {
            "ok": self.ok,
            "reason": self.reason,
            "credential_id": self.credential_id,
            "issuer": self.issuer,
            "checks": [{"name": n, "passed": p, "detail": d} for n, p, d in self.checks],
        }


class CheckFailed(Exception):
    pass


def _types(value: object) -> list:
    if isinstance(value, list):
        return value
    return [value] if value is not None else []


def _issuer_id(credential: dict) -> str | None:
    issuer = credential.get("issuer")
    return issuer.get("id") if isinstance(issuer, dict) else issuer


def _is_uri(value: object) -> bool:
    return isinstance(value, str) and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$", value) is not None


def _check_structure(credential: object) -> str:
    if not isinstance(credential, dict):
        raise CheckFailed("the credential is not a JSON object")
    for name in ("@context", "type", "issuer", "credentialSubject"):
        if name not in credential:
            raise CheckFailed(f"required property {name!r} is missing")
    types = _types(credential["type"])
    if "VerifiableCredential" not in types:
        raise CheckFailed(f"type {types} does not include 'VerifiableCredential'")
    issuer_id = _issuer_id(credential)
    if not _is_uri(issuer_id):
        raise CheckFailed(f"issuer {issuer_id!r} is not a URL or DID")
    subjects = _types(credential["credentialSubject"])
    if not subjects or not all(isinstance(s, dict) and s for s in subjects):
        raise CheckFailed("credentialSubject must be a non-empty object")
    if "id" in credential and not _is_uri(credential["id"]):
        raise CheckFailed(f"id {credential['id']!r} is not a URL")
    for name in ("validFrom", "validUntil"):
        if name in credential:
            try:
                parse_datetime(credential[name])
            except ValueError:
                raise CheckFailed(f"{name} {credential[name]!r} is not a dateTime") from None
    if "proof" not in credential:
        raise CheckFailed("the credential has no proof (it is not signed)")
    for entry in _types(credential.get("credentialStatus")):
        _check_status_entry(entry)
    if OB_TYPES & set(types):
        _check_open_badge(credential, subjects[0])
        return f"VC 2.0 and Open Badges 3.0 required fields present ({', '.join(types)})"
    return f"VC 2.0 required fields present ({', '.join(types)})"


def _check_open_badge(credential: dict, subject: dict) -> None:
    for name in ("id", "name", "validFrom"):
        if name not in credential:
            raise CheckFailed(f"Open Badges 3.0 requires {name!r}; it is missing")
    if "AchievementSubject" not in _types(subject.get("type")):
        raise CheckFailed("credentialSubject.type does not include 'AchievementSubject'")
    issuer = credential["issuer"]
    if not isinstance(issuer, dict) or "Profile" not in _types(issuer.get("type")):
        raise CheckFailed("Open Badges 3.0 requires the issuer to be a Profile object")
    achievement = subject.get("achievement")
    if not isinstance(achievement, dict):
        raise CheckFailed("credentialSubject.achievement is missing")
    for name in ("id", "type", "name", "description", "criteria"):
        if name not in achievement:
            raise CheckFailed(f"credentialSubject.achievement.{name} is missing")
    if "Achievement" not in _types(achievement["type"]):
        raise CheckFailed("credentialSubject.achievement.type does not include 'Achievement'")
    if "id" not in subject and not subject.get("identifier"):
        raise CheckFailed("credentialSubject needs an id or an identifier")
    for ident in _types(subject.get("identifier")):
        for name in ("type", "identityHash", "identityType", "hashed"):
            if name not in ident:
                raise CheckFailed(f"credentialSubject.identifier entry has no {name!r}")
        if ident["hashed"] is True and not HASH_FORMAT.match(str(ident["identityHash"])):
            raise CheckFailed(
                f"identityHash {ident['identityHash']!r} is not 'sha256$' + 64 hex digits"
            )


def _check_status_entry(entry: object) -> None:
    if not isinstance(entry, dict):
        raise CheckFailed("credentialStatus must be an object")
    if entry.get("type") != "BitstringStatusListEntry":
        raise CheckFailed(f"credentialStatus type {entry.get('type')!r} is not supported")
    for name in ("statusPurpose", "statusListIndex", "statusListCredential"):
        if name not in entry:
            raise CheckFailed(f"credentialStatus.{name} is missing")
    if not re.fullmatch(r"\d+", str(entry["statusListIndex"])):
        raise CheckFailed(f"statusListIndex {entry['statusListIndex']!r} is not an integer")


def _check_contexts(credential: dict, loader: OfflineDocumentLoader) -> str:
    contexts = _types(credential["@context"])
    if not contexts or contexts[0] != VC_V2:
        raise CheckFailed(f"the first @context must be {VC_V2}, not {contexts[:1]}")
    if OB_TYPES & set(_types(credential["type"])) and not any(
        isinstance(c, str) and OB_CONTEXT.match(c) for c in contexts
    ):
        raise CheckFailed("an Open Badges 3.0 credential needs the OB 3.0 context")
    for ctx in contexts:
        if isinstance(ctx, str) and not loader.has(ctx):
            raise CheckFailed(
                f"JSON-LD context {ctx} is not available offline: it is not vendored; supply "
                "it with --contexts DIR"
            )
        if not isinstance(ctx, (str, dict)):
            raise CheckFailed(f"@context entry {ctx!r} is neither a URL nor an object")
    return "all available offline: " + ", ".join(
        c if isinstance(c, str) else "{...}" for c in contexts
    )


def _check_proof(
    document: dict, did_document: dict | None, loader: OfflineDocumentLoader, what: str = ""
) -> str:
    try:
        proof = eddsa.check_proof_shape(document.get("proof"))
    except eddsa.ProofError as exc:
        raise CheckFailed(f"{what}{exc}") from None
    if proof["proofPurpose"] != "assertionMethod":
        raise CheckFailed(f"{what}proofPurpose is {proof['proofPurpose']!r}, not 'assertionMethod'")
    if "created" in proof:
        try:
            parse_datetime(proof["created"])
        except ValueError:
            raise CheckFailed(
                f"{what}proof created {proof['created']!r} is not a dateTime"
            ) from None
    issuer = _issuer_id(document)
    try:
        key = dids.resolve_key(proof["verificationMethod"], issuer=issuer, did_doc=did_document)
    except dids.KeyResolutionError as exc:
        raise CheckFailed(f"{what}{exc}") from None
    try:
        eddsa.verify_proof(document, key, loader)
    except (eddsa.ProofError, CanonicalizationError) as exc:
        raise CheckFailed(f"{what}{exc}") from None
    binding = (
        ""
        if issuer and issuer.startswith("did:")
        else f"; issuer {issuer} is not a DID, so only the did:key signature is checked"
    )
    return f"eddsa-rdfc-2022 signature valid, key {proof['verificationMethod']}{binding}"


def _check_validity(document: dict, now: datetime, what: str = "") -> str:
    valid_from = document.get("validFrom")
    valid_until = document.get("validUntil")
    if valid_from and now < parse_datetime(valid_from):
        raise CheckFailed(f"{what}not yet valid: validFrom {valid_from} is after now ({_fmt(now)})")
    if valid_until and now > parse_datetime(valid_until):
        raise CheckFailed(f"{what}expired: validUntil {valid_until} is before now ({_fmt(now)})")
    expires = (document.get("proof") or {}).get("expires")
    if expires and now > parse_datetime(expires):
        raise CheckFailed(f"{what}the proof expired at {expires}")
    return f"valid at {_fmt(now)} (validFrom {valid_from or '-'}, validUntil {valid_until or '-'})"


def _check_status(
    credential: dict,
    status_list: dict | None,
    did_document: dict | None,
    loader: OfflineDocumentLoader,
    now: datetime,
) -> str:
    entries = _types(credential.get("credentialStatus"))
    if not entries:
        return "the credential has no credentialStatus"
    if status_list is None:
        return "not checked: no status list supplied (pass --status-list FILE)"
    details = []
    for entry in entries:
        url = entry["statusListCredential"]
        what = f"status list {url}: "
        if not isinstance(status_list, dict) or status_list.get("id") != url:
            got = status_list.get("id") if isinstance(status_list, dict) else None
            raise CheckFailed(f"the status list supplied is {got!r}, not {url}")
        if "BitstringStatusListCredential" not in _types(status_list.get("type")):
            raise CheckFailed(f"{what}type is not BitstringStatusListCredential")
        if _issuer_id(status_list) != _issuer_id(credential):
            raise CheckFailed(
                f"{what}issued by {_issuer_id(status_list)!r}, not by the credential's issuer"
            )
        for ctx in _types(status_list.get("@context")):
            if isinstance(ctx, str) and not loader.has(ctx):
                raise CheckFailed(f"{what}JSON-LD context {ctx} is not available offline")
        _check_proof(status_list, did_document, loader, what=f"{what}its proof fails: ")
        # Only expiry: a list published after ``now`` (verifying as of a past date) is fine.
        until = status_list.get("validUntil")
        if until and now > parse_datetime(until):
            raise CheckFailed(f"{what}the status list expired at {until}; fetch a fresh one")
        subject = status_list.get("credentialSubject") or {}
        if subject.get("statusPurpose") != entry["statusPurpose"]:
            raise CheckFailed(
                f"{what}purpose {subject.get('statusPurpose')!r} is not {entry['statusPurpose']!r}"
            )
        index = int(entry["statusListIndex"])
        try:
            bitstring = decode_bitstring(subject.get("encodedList", ""))
            if len(bitstring) * 8 < MIN_ENTRIES:
                # STATUS_LIST_LENGTH_ERROR: a short list would tell the issuer who is checked.
                raise StatusListError(
                    f"the list has {len(bitstring) * 8} entries, fewer than the minimum "
                    f"{MIN_ENTRIES:,}"
                )
            bit = bit_at(bitstring, index)
        except StatusListError as exc:
            raise CheckFailed(f"{what}{exc}") from None
        if bit:
            word = "revoked" if entry["statusPurpose"] == "revocation" else entry["statusPurpose"]
            raise CheckFailed(f"{word}: bit {index} of status list {url} is set")
        details.append(f"{entry['statusPurpose']} bit {index} of {url} is 0")
    return "; ".join(details)


def _fmt(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def verify(
    credential: dict,
    *,
    did_document: dict | None = None,
    status_list: dict | None = None,
    extra_contexts: Path | None = None,
    now: datetime | None = None,
) -> VerificationResult:
    """Verify a credential offline. See the module docstring for the checks and their order."""
    now = now or datetime.now(timezone.utc)
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    result = VerificationResult(ok=False, reason="")
    if isinstance(credential, dict):
        result.credential_id = credential.get("id")
        result.issuer = _issuer_id(credential) if "issuer" in credential else None
    try:
        loader = loader_for(extra_contexts)
    except ValueError as exc:
        result.reason = f"contexts: {exc}"
        result.checks.append(("contexts", False, str(exc)))
        return result
    steps = (
        ("structure", lambda: _check_structure(credential)),
        ("contexts", lambda: _check_contexts(credential, loader)),
        ("proof", lambda: _check_proof(credential, did_document, loader)),
        ("validity", lambda: _check_validity(credential, now)),
        ("status", lambda: _check_status(credential, status_list, did_document, loader, now)),
    )
    for name, step in steps:
        try:
            detail = step()
        except CheckFailed as exc:
            result.checks.append((name, False, str(exc)))
            result.reason = f"{name}: {exc}"
            return result
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            # A malformed value the earlier checks did not anticipate: still a verdict.
            detail = f"malformed {name} data: {type(exc).__name__}: {exc}"
            result.checks.append((name, False, detail))
            result.reason = f"{name}: {detail}"
            return result
        result.checks.append((name, True, detail))
    result.ok = True
    result.reason = "valid: " + "; ".join(f"{n} ok" for n, _, _ in result.checks)
    return result
