"""The ``status`` check: the credential's Bitstring Status List bit (revoked, suspended),
read from a status list credential that is itself verified: the same issuer, a key of the
issuer, a valid signature, not expired.

The status list is taken from those supplied, else fetched when a ``fetch`` is given (HTTPS
only); otherwise the check is not made.
"""

from __future__ import annotations

from datetime import datetime

from nccl_course.certs.bounds import STATUS_LIST_LIMITS, CredentialFormatError, check_bounds
from nccl_course.certs.credential import parse_datetime
from nccl_course.certs.fetch import Fetch, FetchError, fetchable
from nccl_course.certs.fields import as_list, issuer_id, short
from nccl_course.certs.loader import VC_V2, OfflineDocumentLoader
from nccl_course.certs.result import CheckFailed, NotChecked
from nccl_course.certs.statuslist import MIN_ENTRIES, StatusListError, bit_at, decode_bitstring
from nccl_course.certs.trust import Keys, check_key, check_signature


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
        return "the credential has no credentialStatus (it cannot be revoked)"
    details = []
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
        # Only expiry: a list published after ``now`` (verifying as of a past date) is fine.
        until = status_list.get("validUntil")
        if until:
            try:
                expired = now > parse_datetime(until)
            except ValueError:
                raise CheckFailed(f"{what}validUntil is not a dateTime") from None
            if expired:
                raise CheckFailed(f"{what}the status list expired at {until}; fetch a fresh one")
        subject = status_list.get("credentialSubject")
        if not isinstance(subject, dict):
            raise CheckFailed(f"{what}credentialSubject must be an object")
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
        if bit:
            word = "revoked" if entry["statusPurpose"] == "revocation" else entry["statusPurpose"]
            raise CheckFailed(f"{word}: bit {index} of status list {url} is set")
        details.append(f"{entry['statusPurpose']} bit {index} of {url} ({source}) is 0")
    return "; ".join(details)
