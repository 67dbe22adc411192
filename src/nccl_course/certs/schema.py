"""The ``schema`` check: the VC 2.0 and Open Badges 3.0 required properties, with usable
types, a well-formed ``credentialStatus``, and JSON-LD contexts that are available offline
(VC 2.0 first)."""

from __future__ import annotations

import re

from nccl_course.certs.bounds import CredentialFormatError
from nccl_course.certs.credential import check_credential_types
from nccl_course.certs.fields import as_list, is_uri, short
from nccl_course.certs.loader import VC_V2, OfflineDocumentLoader
from nccl_course.certs.result import CheckFailed, Message
from nccl_course.i18n.interface import N_

OB_TYPES = {"OpenBadgeCredential", "AchievementCredential"}
OB_CONTEXT = re.compile(r"^https://purl\.imsglobal\.org/spec/ob/v3p0/context-3\.0\.\d+\.json$")
HASH_FORMAT = re.compile(r"^(sha256\$[0-9a-f]{64}|md5\$[0-9a-f]{32})$")


def check_schema(credential: dict, loader: OfflineDocumentLoader) -> str:
    """Check 2: the required properties and types, the status entries and the contexts."""
    try:
        check_credential_types(credential)
    except CredentialFormatError as exc:
        raise CheckFailed(str(exc)) from None
    for name in ("@context", "type", "issuer", "credentialSubject"):
        if name not in credential:
            raise CheckFailed(Message(N_("required property '{name}' is missing"), name=name))
    types = as_list(credential["type"])
    if "VerifiableCredential" not in types:
        raise CheckFailed(
            Message(N_("type {types} does not include 'VerifiableCredential'"), types=short(types))
        )
    subjects = as_list(credential["credentialSubject"])
    if not subjects or not all(isinstance(s, dict) and s for s in subjects):
        raise CheckFailed("credentialSubject must be a non-empty object")
    if "id" in credential and not is_uri(credential["id"]):
        raise CheckFailed(f"id {short(credential['id'])} is not a URL")
    if "proof" not in credential:
        raise CheckFailed(Message(N_("the credential has no proof (it is not signed)")))
    for entry in as_list(credential.get("credentialStatus")):
        _check_status_entry(entry)
    if OB_TYPES & set(types):
        _check_open_badge(credential, subjects[0])
        what = Message(
            N_("VC 2.0 and Open Badges 3.0 required fields present ({types})"),
            types=", ".join(types),
        )
    else:
        what = Message(N_("VC 2.0 required fields present ({types})"), types=", ".join(types))
    offline = _check_contexts(credential, loader)
    return Message(N_("{fields}; contexts {contexts}"), fields=what, contexts=offline)


def _check_open_badge(credential: dict, subject: dict) -> None:
    for name in ("id", "name", "validFrom"):
        if name not in credential:
            raise CheckFailed(f"Open Badges 3.0 requires {name!r}; it is missing")
    if "AchievementSubject" not in as_list(subject.get("type")):
        raise CheckFailed("credentialSubject.type does not include 'AchievementSubject'")
    issuer = credential["issuer"]
    if not isinstance(issuer, dict) or "Profile" not in as_list(issuer.get("type")):
        raise CheckFailed("Open Badges 3.0 requires the issuer to be a Profile object")
    achievement = subject.get("achievement")
    if not isinstance(achievement, dict):
        raise CheckFailed("credentialSubject.achievement is missing")
    for name in ("id", "type", "name", "description", "criteria"):
        if name not in achievement:
            raise CheckFailed(f"credentialSubject.achievement.{name} is missing")
    if "Achievement" not in as_list(achievement["type"]):
        raise CheckFailed("credentialSubject.achievement.type does not include 'Achievement'")
    if "id" not in subject and not subject.get("identifier"):
        raise CheckFailed("credentialSubject needs an id or an identifier")
    for ident in as_list(subject.get("identifier")):
        for name in ("type", "identityHash", "identityType", "hashed"):
            if name not in ident:
                raise CheckFailed(f"credentialSubject.identifier entry has no {name!r}")
        if ident["hashed"] is True and not HASH_FORMAT.match(str(ident["identityHash"])):
            raise CheckFailed(
                f"identityHash {short(ident['identityHash'])} is not 'sha256$' + 64 hex digits"
            )


def _check_status_entry(entry: object) -> None:
    if not isinstance(entry, dict):
        raise CheckFailed("credentialStatus must be an object")
    if entry.get("type") != "BitstringStatusListEntry":
        raise CheckFailed(f"credentialStatus type {short(entry.get('type'))} is not supported")
    for name in ("statusPurpose", "statusListIndex", "statusListCredential"):
        if name not in entry:
            raise CheckFailed(f"credentialStatus.{name} is missing")
    if not isinstance(entry["statusPurpose"], str):
        raise CheckFailed("credentialStatus.statusPurpose must be a string")
    if not re.fullmatch(r"\d{1,12}", str(entry["statusListIndex"])):
        raise CheckFailed(
            f"statusListIndex {short(entry['statusListIndex'])} is not a non-negative integer"
        )
    if not is_uri(entry["statusListCredential"]):
        raise CheckFailed("credentialStatus.statusListCredential is not a URL")


def _check_contexts(credential: dict, loader: OfflineDocumentLoader) -> str:
    contexts = as_list(credential["@context"])
    if not contexts or contexts[0] != VC_V2:
        raise CheckFailed(f"the first @context must be {VC_V2}, not {short(contexts[:1])}")
    if OB_TYPES & set(as_list(credential["type"])) and not any(
        isinstance(c, str) and OB_CONTEXT.match(c) for c in contexts
    ):
        raise CheckFailed("an Open Badges 3.0 credential needs the OB 3.0 context")
    for ctx in contexts:
        if isinstance(ctx, str) and not loader.has(ctx):
            raise CheckFailed(
                f"JSON-LD context {short(ctx, 200)[1:-1]} is not available offline: it is not "
                "vendored; supply it with --contexts DIR"
            )
        if not isinstance(ctx, (str, dict)):
            raise CheckFailed(f"@context entry {short(ctx)} is neither a URL nor an object")
    listed = ", ".join(c if isinstance(c, str) else "{...}" for c in contexts)
    return Message(N_("available offline: {contexts}"), contexts=listed)
