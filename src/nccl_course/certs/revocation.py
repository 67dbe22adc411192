"""The ``status`` check: the credential's Bitstring Status List bit (revoked, suspended),
read from a status list credential that is itself verified: the same issuer, a key of the
issuer, a valid signature.

A list past its ``validUntil``, or older than its ``ttl`` (milliseconds from its ``validFrom``,
Bitstring Status List v1.0), is stale: it still proves a revocation (revocation is final), but
a clear bit in it proves nothing today, so the check is then ``not checked``.

The status list is taken from those supplied, else fetched when a ``fetch`` is given (HTTPS
only); otherwise the check is not made.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from nccl_course.certs.bounds import STATUS_LIST_LIMITS, CredentialFormatError, check_bounds
from nccl_course.certs.credential import parse_datetime, xsd_datetime
from nccl_course.certs.fetch import Fetch, FetchError, fetchable
from nccl_course.certs.fields import as_list, issuer_id, short
from nccl_course.certs.loader import VC_V2, OfflineDocumentLoader
from nccl_course.certs.result import (
    REVOKED_DETAIL,
    REVOKED_WORD,
    CheckFailed,
    Message,
    NotChecked,
)
from nccl_course.certs.statuslist import MIN_ENTRIES, StatusListError, bit_at, decode_bitstring
from nccl_course.certs.trust import Keys, check_key, check_signature
from nccl_course.i18n.interface import N_

#: Where a status list came from, as a detail says it.
SOURCES = {"supplied": N_("supplied"), "fetched": N_("fetched")}


def _status_list_for(url: str, supplied: list[dict], fetch: Fetch | None) -> tuple[dict, str]:
    """(status list credential, where it came from) or NotChecked."""
    for candidate in supplied:
        if candidate.get("id") == url:
            return candidate, "supplied"
    if supplied:
        ids = ", ".join(short(c.get("id")) for c in supplied)
        raise NotChecked(f"the status list supplied is {ids}, not {url}")
    if fetch is None:
        raise NotChecked(f"the status list {url} was not supplied (and fetching is off)")
    if not fetchable(url):
        raise NotChecked(
            f"the status list {url} is not served over HTTPS, so it is not fetched; supply it "
            "as a file"
        )
    try:
        document = fetch(url)
    except FetchError as exc:
        raise NotChecked(f"could not fetch the status list {url}: {exc}") from None
    if not isinstance(document, dict):
        raise NotChecked(f"the status list at {url} is not a JSON object")
    return document, "fetched"


def check_status(
    credential: dict,
    status_lists: list[dict],
    keys: Keys,
    loader: OfflineDocumentLoader,
    now: datetime,
    fetch: Fetch | None,
    trusted: frozenset[str] | None,
) -> str:
    """Check 6: each ``credentialStatus`` bit is 0 in its verified status list."""
    entries = as_list(credential.get("credentialStatus"))
    if not entries:
        return Message(N_("the credential has no credentialStatus (it cannot be revoked)"))
    details: list[Message] = []
    stale_lists: list[str] = []
    for entry in entries:
        url = entry["statusListCredential"]
        status_list, source = _status_list_for(url, status_lists, fetch)
        what = f"status list {url}: "
        try:
            check_bounds(status_list, STATUS_LIST_LIMITS, what="status list")
        except CredentialFormatError as exc:
            raise CheckFailed(f"{what}{exc}") from None
        if "BitstringStatusListCredential" not in as_list(status_list.get("type")):
            raise CheckFailed(f"{what}type is not BitstringStatusListCredential")
        if issuer_id(status_list) != issuer_id(credential):
            raise CheckFailed(
                f"{what}issued by {short(issuer_id(status_list))}, not by the credential's issuer"
            )
        contexts = as_list(status_list.get("@context"))
        if not contexts or contexts[0] != VC_V2:
            raise CheckFailed(f"{what}the first @context must be {VC_V2}")
        for ctx in contexts:
            if isinstance(ctx, str) and not loader.has(ctx):
                raise CheckFailed(f"{what}JSON-LD context {ctx} is not available offline")
        key, _ = check_key(status_list, keys, what=f"{what}its proof: ", trusted=trusted)
        check_signature(status_list, key, loader, what=f"{what}its proof fails: ")
        subject = status_list.get("credentialSubject")
        if not isinstance(subject, dict):
            raise CheckFailed(f"{what}credentialSubject must be an object")
        stale = _staleness(status_list, subject, now)
        if subject.get("statusPurpose") != entry["statusPurpose"]:
            raise CheckFailed(
                f"{what}purpose {short(subject.get('statusPurpose'))} is not "
                f"{entry['statusPurpose']!r}"
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
        if bit and (entry["statusPurpose"] == "revocation" or not stale):
            # A revocation is final, so even a stale list proves it; a suspension may have
            # been lifted since a stale list was signed.
            purpose = entry["statusPurpose"]
            word = Message(REVOKED_WORD) if purpose == "revocation" else purpose
            raise CheckFailed(
                Message(
                    REVOKED_DETAIL,
                    word=word,
                    index=index,
                    url=url,
                )
            )
        if stale:
            stale_lists.append(
                f"{what}{stale}, so it no longer says whether the credential is "
                "revoked; fetch a fresh one"
            )
            continue
        details.append(
            Message(
                N_("{purpose} bit {index} of {url} ({source}) is 0"),
                purpose=entry["statusPurpose"],
                index=index,
                url=url,
                source=Message(SOURCES[source]),
            )
        )
    if stale_lists:
        raise NotChecked("; ".join(stale_lists))
    if len(details) == 1:
        return details[0]
    return Message(
        "; ".join(f"{{d{i}}}" for i in range(len(details))),
        **{f"d{i}": d for i, d in enumerate(details)},
    )


def _staleness(status_list: dict, subject: dict, now: datetime) -> str | None:
    """Why the status list is too old to use at ``now`` (past its ``validUntil``, or older than
    its ``ttl`` in milliseconds counted from its ``validFrom``), or None. Only age counts: a
    list signed after ``now`` (verifying as of a past date) is fine. CheckFailed for values of
    the wrong type."""
    until = status_list.get("validUntil")
    if until is not None:
        try:
            expires = parse_datetime(until)
        except (TypeError, ValueError):
            raise CheckFailed(
                f"validUntil {short(until)} of the status list is not a dateTime"
            ) from None
        if now > expires:
            return f"the status list is stale: it was valid until {until}"
    ttl = subject.get("ttl")
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
        raise CheckFailed(f"the status list's ttl {short(ttl)} is not a number of milliseconds")
    since = status_list.get("validFrom")
    try:
        start = parse_datetime(since) if since is not None else None
    except (TypeError, ValueError):
        raise CheckFailed(
            f"validFrom {short(since)} of the status list is not a dateTime"
        ) from None
    # Past 10**12 ms (31 years) a ttl sets no limit worth the arithmetic (timedelta overflows).
    if start is not None and ttl <= 10**12 and now > start + timedelta(milliseconds=ttl):
        return (
            f"the status list is stale: signed {since}, it lives {ttl:,} ms (ttl), "
            f"which ended at {xsd_datetime(start + timedelta(milliseconds=ttl))}"
        )
    return None
