"""Verification of a credential: who issued it, and check by check, what holds.

A verification answers one of three verdicts:

- ``VALID``: every check below is ``ok``;
- ``NOT VALID``: a check ``failed`` (the first failure is the reason; later checks are then
  ``not checked``, except that a did:key signature is still checked after an issuer failure);
- ``CANNOT CHECK``: nothing failed, but something could not be checked (the issuer was not
  pinned, the issuer's DID document or the status list was not at hand, the status list is
  past its ``validUntil``, nothing binds a did:key signer to a URL issuer): the credential may
  be fine, this verification cannot say so. "signature ok, issuer binding not checked" is
  such a verdict: the document is intact, but who made it is not established.

The checks, in the order they run (cheap ones first, JSON-LD processing last):

0. bounds: the document's size, nesting depth and number of values, NaN and Infinity refused.
   A document outside them is not examined at all: :class:`CredentialFormatError` is raised
   (a server answers 4xx).
1. ``issuer``: the issuer the credential states is one of ``trusted_issuers`` (the course's
   own DIDs). Not pinned (``trusted_issuers=None``): not checked. Anyone can make a key, sign
   a credential and call themselves "nccl-course", so a signature alone proves nothing about
   *who* issued it: this check comes first. When it fails, only a did:key proof (its key is
   its identifier: nothing is fetched) goes on to the schema, key and signature checks, so the
   report still says whether the document is intact.
2. ``schema``: the VC 2.0 and Open Badges 3.0 required properties, with usable types, and the
   JSON-LD contexts (VC 2.0 first, each one available offline).
3. ``key``: the proof's verification method is a key of the issuer: the did:key itself, or an
   ``assertionMethod`` of the issuer's DID document (did:web; not checked without it). A
   did:key signing for a URL issuer is not bound to it unless that did:key is pinned: the key
   check is then ``not checked`` (the issuer binding), but the signature is still checked.
4. ``signature``: DataIntegrityProof, eddsa-rdfc-2022, RDFC-1.0 within its work limits,
   Ed25519 over the hash data.
5. ``dates``: ``validFrom`` <= now <= ``validUntil`` and the proof's ``expires``.
6. ``status``: the Bitstring Status List bit, read from a status list credential that is
   itself verified (same issuer, a key of the issuer, a valid signature); not checked when
   no status list is at hand, or when the list is stale (past its ``validUntil``, or older
   than its ``ttl``) and does not show the credential revoked.

Nothing here uses the network unless the caller passes ``fetch`` (the command line does,
without ``--offline``).

This module runs the checks in order and picks the verdict; the parts live in modules of
their own, and every name below stays importable from here: ``result`` (verdicts, ``Check``,
``VerificationResult``), ``bounds`` (``Limits``, bounded parsing), ``trust`` (issuer, key,
signature), ``schema``, ``revocation`` (status), ``fetch`` (``fetch_json``, ``FetchError``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path

from nccl_course.certs.bounds import (
    DEFAULT_LIMITS,
    STATUS_LIST_LIMITS,
    CredentialFormatError,
    Limits,
    check_bounds,
    parse_credential,
)
from nccl_course.certs.credential import parse_datetime
from nccl_course.certs.fetch import (
    FETCH_TIMEOUT_S,
    MAX_FETCH_BYTES,
    Fetch,
    FetchError,
    _SafeRedirect,  # noqa: F401 (reached through this module by the tests)
    fetch_json,
    fetchable,
)
from nccl_course.certs.fields import issuer_id, issuer_name, signer
from nccl_course.certs.loader import loader_for
from nccl_course.certs.result import (
    AFTER_FAILURE,
    CANNOT_CHECK,
    CHECK_NAMES,
    FAILED,
    NOT_CHECKED,
    NOT_VALID,
    OK,
    VALID,
    Check,
    CheckFailed,
    Message,
    NotChecked,
    VerificationResult,
    detail_of,
    failure_reason,
)
from nccl_course.certs.revocation import check_status
from nccl_course.certs.schema import HASH_FORMAT, OB_CONTEXT, OB_TYPES, check_schema
from nccl_course.certs.trust import (
    Keys,
    SignerNotBound,
    check_issuer,
    check_key,
    check_signature,
)
from nccl_course.i18n.interface import N_

# Everything the verifier offers stays importable from here, wherever it is defined.
__all__ = [
    "AFTER_FAILURE",
    "CANNOT_CHECK",
    "CHECK_NAMES",
    "DEFAULT_LIMITS",
    "FAILED",
    "FETCH_TIMEOUT_S",
    "HASH_FORMAT",
    "MAX_FETCH_BYTES",
    "NOT_CHECKED",
    "NOT_VALID",
    "OB_CONTEXT",
    "OB_TYPES",
    "OK",
    "STATUS_LIST_LIMITS",
    "VALID",
    "Check",
    "CheckFailed",
    "CredentialFormatError",
    "Fetch",
    "FetchError",
    "Limits",
    "NotChecked",
    "VerificationResult",
    "fetch_json",
    "fetchable",
    "parse_credential",
    "verify",
]


# -- 5. dates (the other checks live in trust, schema and revocation) --------------------
def _check_dates(document: dict, now: datetime, what: str = "") -> str:
    valid_from = document.get("validFrom")
    valid_until = document.get("validUntil")
    if valid_from and now < parse_datetime(valid_from):
        raise CheckFailed(
            Message(
                N_("{what}not yet valid: validFrom {valid_from} is after now ({now})"),
                what=what,
                valid_from=valid_from,
                now=_fmt(now),
            )
        )
    if valid_until and now > parse_datetime(valid_until):
        raise CheckFailed(
            Message(
                N_("{what}expired: validUntil {valid_until} is before now ({now})"),
                what=what,
                valid_until=valid_until,
                now=_fmt(now),
            )
        )
    proof = document.get("proof")
    expires = proof.get("expires") if isinstance(proof, dict) else None
    if expires and now > parse_datetime(expires):
        raise CheckFailed(
            Message(N_("{what}the proof expired at {expires}"), what=what, expires=expires)
        )
    return Message(
        N_("valid at {now} (validFrom {valid_from}, validUntil {valid_until})"),
        now=_fmt(now),
        valid_from=valid_from or "-",
        valid_until=valid_until or "-",
    )


def _fmt(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _status_lists(status_list: object) -> list[dict]:
    if status_list is None:
        return []
    items = status_list if isinstance(status_list, list) else [status_list]
    return [item for item in items if isinstance(item, dict)]


def verify(
    credential: dict | str | bytes,
    *,
    trusted_issuers: Iterable[str] | None = None,
    did_document: dict | None = None,
    status_list: dict | list[dict] | None = None,
    extra_contexts: Path | None = None,
    now: datetime | None = None,
    fetch: Fetch | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> VerificationResult:
    """Verify a credential; see the module docstring for the checks, their order and verdicts.

    ``credential``: the parsed JSON object, or its JSON text (bytes or str), which is then
    parsed within ``limits``. ``trusted_issuers``: the issuer DIDs this verifier accepts (the
    course's current and earlier DIDs); ``None`` leaves the issuer not pinned, hence the
    verdict at best ``CANNOT CHECK``. ``did_document``: the issuer's DID document (did:web).
    ``status_list``: the status list credential(s) the credential points to. ``fetch``: a
    callable ``fetch(url) -> JSON value`` that raises :class:`FetchError`, used for a DID
    document or a status list that was not supplied; ``None`` (the default) never fetches.

    Raises :class:`CredentialFormatError` (a ``ValueError``; message ``malformed credential:
    ...``) when the input is outside ``limits`` or is not a JSON object; any other problem is
    a verdict, never an exception.
    """
    credential = _credential_object(credential, limits)
    now = now or datetime.now(timezone.utc)
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    trusted = frozenset(trusted_issuers) if trusted_issuers is not None else None
    cid = credential.get("id")
    result = VerificationResult(
        verdict=NOT_VALID,
        reason="",
        credential_id=cid if isinstance(cid, str) else None,
        issuer=issuer_id(credential),
        issuer_name=issuer_name(credential),
        signer=signer(credential),
        trusted_issuers=tuple(sorted(trusted)) if trusted is not None else None,
    )
    keys = Keys(given=did_document, fetch=fetch)
    state: dict = {}

    def key_step() -> str:
        try:
            state["key"], detail = check_key(credential, keys, trusted=trusted)
        except SignerNotBound as exc:
            state["key"] = exc.key  # the signature is checked all the same
            raise
        return detail

    def signature_step() -> str:
        if "key" not in state:
            raise NotChecked(Message(N_("the issuer's key is not at hand (see the key check)")))
        return check_signature(credential, state["key"], state["loader"])

    def schema_step() -> str:
        try:
            state["loader"] = loader_for(extra_contexts)
        except ValueError as exc:
            raise CheckFailed(f"contexts: {exc}") from None
        return check_schema(credential, state["loader"])

    def status_step() -> str:
        return check_status(
            credential, _status_lists(status_list), keys, state["loader"], now, fetch, trusted
        )

    steps: tuple[tuple[str, Callable[[], str]], ...] = (
        ("issuer", lambda: check_issuer(credential, trusted)),
        ("schema", schema_step),
        ("key", key_step),
        ("signature", signature_step),
        ("dates", lambda: _check_dates(credential, now)),
        ("status", status_step),
    )
    # A did:key resolves offline, so its signature is checked even when the issuer is not a
    # trusted one: the report then says whether the document is intact, apart from who made it.
    offline_key = (signer(credential) or "").startswith("did:key:")
    failed = _run_checks(steps, result.checks, after_issuer=offline_key)
    _conclude(result, failed)
    return result


def _credential_object(credential, limits: Limits) -> dict:
    """The credential as a JSON object: parsed within ``limits`` from text, or an object
    checked against them; CredentialFormatError otherwise."""
    if isinstance(credential, (str, bytes, bytearray, memoryview)):
        return parse_credential(credential, limits)
    check_bounds(credential, limits, what="credential")
    if not isinstance(credential, dict):
        raise CredentialFormatError("a credential is a JSON object")
    return credential


# The checks that still run after the issuer check failed, when the key is a did:key.
AFTER_ISSUER = ("schema", "key", "signature")


def _run_checks(steps, checks: list, after_issuer: bool = False) -> Check | None:
    """Run ``steps`` in order, appending each outcome to ``checks``; after a failure the rest
    are not checked, except :data:`AFTER_ISSUER` after an issuer failure when
    ``after_issuer`` (their key resolves offline: nothing is fetched). The first failed
    check, or None."""
    failed: Check | None = None
    for name, step in steps:
        go_on = (
            failed is not None and failed.name == "issuer" and after_issuer and name in AFTER_ISSUER
        )
        if failed is not None and not go_on:
            checks.append(Check(name, NOT_CHECKED, AFTER_FAILURE))
            continue
        try:
            checks.append(Check(name, OK, step()))
        except NotChecked as exc:
            checks.append(Check(name, NOT_CHECKED, detail_of(exc)))
        except (CheckFailed, CredentialFormatError) as exc:
            checks.append(Check(name, FAILED, detail_of(exc)))
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            # A malformed value the earlier checks did not anticipate: still a verdict.
            checks.append(
                Check(name, FAILED, f"malformed {name} data: {type(exc).__name__}: {exc}")
            )
        if failed is None and checks[-1].status == FAILED:
            failed = checks[-1]
    return failed


# What a check that could not run leaves open once the signature is known to hold.
_UNCHECKED_LABEL = {"key": N_("issuer binding")}


def _conclude(result: VerificationResult, failed: Check | None) -> None:
    """The verdict and its reason from the checks: NOT VALID on a failure, CANNOT CHECK when a
    check could not run, VALID when all passed."""
    unchecked = [c for c in result.checks if c.status == NOT_CHECKED]
    if failed is not None:
        result.verdict = NOT_VALID
        result.reason = failure_reason(failed.name, failed.detail)
    elif unchecked:
        result.verdict = CANNOT_CHECK
        signed = result.check("signature").status == OK
        parts = [
            Message(
                N_("{check} not checked: {detail}"),
                check=Message(_UNCHECKED_LABEL.get(c.name, c.name) if signed else c.name),
                detail=c.detail,
            )
            for c in unchecked
        ]
        listed = _joined("; ", parts)
        result.reason = Message(N_("signature ok, {rest}"), rest=listed) if signed else listed
    else:
        result.verdict = VALID
        passed = [Message(N_("{check} ok"), check=Message(c.name)) for c in result.checks]
        result.reason = Message(
            N_("issued by {issuer}; {checks}"), issuer=result.issuer, checks=_joined(", ", passed)
        )


def _joined(separator: str, messages: list[Message]) -> Message:
    """``messages`` joined by ``separator`` (", " or "; "), each translatable on its own."""
    if len(messages) == 1:
        return messages[0]
    fields = {f"m{i}": m for i, m in enumerate(messages)}
    return Message(separator.join(f"{{m{i}}}" for i in range(len(messages))), **fields)
