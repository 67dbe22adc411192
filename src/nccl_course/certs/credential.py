"""Build the unsigned Open Badges 3.0 ``OpenBadgeCredential`` for a passed exam.

The shape follows the 1EdTech Open Badges 3.0 data model on the W3C VC Data Model 2.0:
contexts VC 2.0 then OB 3.0.3; ``id``, ``type``, ``issuer`` (a ``Profile``), ``validFrom``,
``credentialSubject`` (an ``AchievementSubject`` with an ``achievement`` and a salted, hashed
``identifier``), ``evidence`` and a ``credentialStatus`` entry in a Bitstring Status List.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from datetime import datetime, timezone

# The bounds on untrusted JSON live in ``bounds``; they stay importable from here.
from nccl_course.certs.bounds import (  # noqa: F401
    DEFAULT_LIMITS,
    STATUS_LIST_LIMITS,
    CredentialFormatError,
    Limits,
    check_bounds,
    json_depth,
    parse_json,
)
from nccl_course.certs.loader import OB_V3_0_3, VC_V2
from nccl_course.i18n.interface import COURSE_TITLE, N_
from nccl_course.i18n.names import has_visible_character, printable_text

CREDENTIAL_CONTEXT = [VC_V2, OB_V3_0_3]
CREDENTIAL_TYPE = ["VerifiableCredential", "OpenBadgeCredential"]


def _path_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _as_list(value: object) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def check_credential_types(credential: object) -> None:
    """:class:`CredentialFormatError` unless the properties this code reads have usable types.

    Only types are checked here (what would otherwise crash a reader such as the renderer);
    which properties are required is the verifier's ``schema`` check.
    """
    if not isinstance(credential, dict):
        raise CredentialFormatError(f"a credential is a JSON object, not {_path_type(credential)}")

    def need(value: object, path: str, *kinds: type, optional: bool = True) -> None:
        if value is None and optional:
            return
        if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
            wanted = " or ".join(
                {
                    str: "a string",
                    dict: "an object",
                    list: "an array",
                    int: "a number",
                    float: "a number",
                }[k]
                for k in kinds
            )
            raise CredentialFormatError(f"{path} must be {wanted}, not {_path_type(value)}")

    for name in ("id", "name", "validFrom", "validUntil", "awardedDate"):
        need(credential.get(name), name, str)
    for name in ("validFrom", "validUntil"):
        if isinstance(credential.get(name), str):
            try:
                parse_datetime(credential[name])
            except ValueError:
                raise CredentialFormatError(
                    f"{name} {credential[name][:60]!r} is not a dateTime"
                ) from None
    need(credential.get("type"), "type", str, list)
    for t in _as_list(credential.get("type")):
        need(t, "type[]", str, optional=False)
    issuer = credential.get("issuer")
    need(issuer, "issuer", str, dict)
    if isinstance(issuer, dict):
        need(issuer.get("id"), "issuer.id", str)
        need(issuer.get("name"), "issuer.name", str)
    subjects = credential.get("credentialSubject")
    need(subjects, "credentialSubject", dict, list)
    for i, subject in enumerate(_as_list(subjects)):
        where = "credentialSubject" if isinstance(subjects, dict) else f"credentialSubject[{i}]"
        need(subject, where, dict, optional=False)
        need(subject.get("identifier"), f"{where}.identifier", dict, list)
        for ident in _as_list(subject.get("identifier")):
            need(ident, f"{where}.identifier[]", dict, optional=False)
            need(ident.get("identityHash"), f"{where}.identifier[].identityHash", str)
            need(ident.get("identityType"), f"{where}.identifier[].identityType", str)
            need(ident.get("salt"), f"{where}.identifier[].salt", str)
        need(subject.get("achievement"), f"{where}.achievement", dict)
        if isinstance(subject.get("achievement"), dict):
            need(subject["achievement"].get("name"), f"{where}.achievement.name", str)
        # OB 3.0: result is an array of Result objects (a single object is a common mistake).
        need(subject.get("result"), f"{where}.result", list)
        for result in subject.get("result") or []:
            need(result, f"{where}.result[]", dict, optional=False)
            need(result.get("value"), f"{where}.result[].value", str)
    need(credential.get("proof"), "proof", dict, list)
    need(credential.get("credentialStatus"), "credentialStatus", dict, list)


def xsd_datetime(moment: datetime) -> str:
    """An XML Schema dateTime in UTC with a 'Z', to the second (a naive datetime is UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_datetime(text: str) -> datetime:
    """Parse an XML Schema dateTime; one without a time zone is taken as UTC."""
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a dateTime string")
    value = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def normalise_email(email: str) -> str:
    """The form of an e-mail address that is hashed: trimmed and lower-cased."""
    return email.strip().lower()


def hash_identity(identity: str, salt: str) -> str:
    """OB 3.0 IdentityObject hash: ``'sha256$'`` + hex(SHA-256(identity + salt))."""
    return "sha256$" + hashlib.sha256((identity + salt).encode("utf-8")).hexdigest()


def _identifiers(credential: object) -> list[dict]:
    """The subject's IdentityObjects, skipping anything that is not an object."""
    subject = credential.get("credentialSubject") if isinstance(credential, dict) else None
    if isinstance(subject, list):
        subject = subject[0] if subject else None
    if not isinstance(subject, dict):
        return []
    return [i for i in _as_list(subject.get("identifier")) if isinstance(i, dict)]


def identity_matches(credential: dict, email: str) -> bool:
    """Whether the credential's hashed e-mail identifier is this address."""
    for ident in _identifiers(credential):
        if ident.get("identityType") == "emailAddress" and ident.get("hashed"):
            expected = hash_identity(normalise_email(email), ident.get("salt", ""))
            if hmac.compare_digest(expected, str(ident.get("identityHash", ""))):
                return True
    return False


def learner_name(credential: dict) -> str | None:
    """The learner's name from the plain-text ``name`` IdentityObject, if any."""
    for ident in _identifiers(credential):
        # OB 3.0's IdentifierTypeEnum has 'name'; earlier drafts used the extension 'ext:name'.
        if ident.get("identityType") in ("name", "ext:name") and not ident.get("hashed"):
            value = ident.get("identityHash")
            return value if isinstance(value, str) else None
    return None


#: The course's achievement, as its credentials name it (signed in English; a certificate in
#: another language shows its translation, ``nccl_course.certs.render``): the course's name.
COURSE_NAME = COURSE_TITLE
#: What a development server adds to the achievement's name (``nccl_course.issuing``).
LOCAL_TEST_MARK = N_("(local test, not verifiable elsewhere)")


def shown_achievement(name: str, tr) -> str:
    """An achievement's ``name`` as a page in the language of ``tr`` (an interface translator)
    shows it: the course's own, with or without the local-test mark, translated; any other
    as the credential states it."""
    if name == COURSE_NAME:
        return tr(COURSE_NAME)
    if name == f"{COURSE_NAME} {LOCAL_TEST_MARK}":
        return f"{tr(COURSE_NAME)} {tr(LOCAL_TEST_MARK)}"
    return name


def default_achievement(origin: str) -> dict:
    return {
        "id": f"{origin}/achievements/nccl-course",
        "type": ["Achievement"],
        "achievementType": "Certificate",
        "name": COURSE_NAME,
        "description": (
            "Understands collective operations (all-reduce, all-gather, reduce-scatter, "
            "broadcast, all-to-all), their ring and tree algorithms and alpha-beta costs, and "
            "how NCCL and torch.distributed run them when training large models."
        ),
        "criteria": {
            "narrative": (
                "Passed the server-graded, randomized nccl-course exam at or above its pass mark."
            )
        },
        "resultDescription": [
            {
                "id": f"{origin}/achievements/nccl-course#score",
                "type": ["ResultDescription"],
                "name": "Exam score",
                "resultType": "Percent",
            }
        ],
    }


def check_achievement(achievement: dict) -> None:
    """ValueError unless ``achievement`` has what OB 3.0 requires of an Achievement."""
    if not isinstance(achievement, dict):
        raise ValueError("achievement must be a JSON object")
    missing = [k for k in ("id", "type", "name", "description", "criteria") if k not in achievement]
    if missing:
        raise ValueError(f"achievement lacks {', '.join(missing)} (Open Badges 3.0 requires them)")
    types = achievement["type"] if isinstance(achievement["type"], list) else [achievement["type"]]
    if "Achievement" not in types:
        raise ValueError("achievement.type must include 'Achievement'")
    if ":" not in str(achievement["id"]):
        raise ValueError(f"achievement.id {achievement['id']!r} must be a URI")
    criteria = achievement["criteria"]
    if not isinstance(criteria, dict) or not ({"id", "narrative"} & set(criteria)):
        raise ValueError("achievement.criteria needs an id or a narrative")


def build_credential(
    *,
    issuer_id: str,
    issuer_name: str,
    issuer_url: str,
    learner_name: str,
    learner_email: str,
    exam_id: str,
    score: float,
    passed_at: datetime,
    achievement: dict | None,
    status_entry: dict,
    valid_until: datetime | None = None,
    credential_id: str | None = None,
    salt: str | None = None,
) -> dict:
    """The unsigned credential. ``score`` is a fraction in [0, 1] (0.85 means 85 %)."""
    if not 0.0 <= float(score) <= 1.0:
        raise ValueError(f"score must be a fraction in [0, 1] (0.85 for 85 %), not {score!r}")
    learner_name = printable_text(learner_name)  # the name as every certificate prints it
    if not has_visible_character(learner_name):
        raise ValueError("learner_name is empty (or has nothing to print)")
    if "@" not in learner_email:
        raise ValueError(f"learner_email {learner_email!r} is not an e-mail address")
    if achievement is not None:
        check_achievement(achievement)
    salt = salt or secrets.token_hex(16)
    when = xsd_datetime(passed_at)
    percent = f"{100.0 * float(score):.1f}"
    achievement = achievement or default_achievement(issuer_url)
    result: dict = {"type": ["Result"], "value": percent}
    for description in achievement.get("resultDescription") or []:
        if description.get("resultType") == "Percent":
            result["resultDescription"] = description["id"]
            break
    credential = {
        "@context": list(CREDENTIAL_CONTEXT),
        "id": credential_id or f"urn:uuid:{uuid.uuid4()}",
        "type": list(CREDENTIAL_TYPE),
        "name": achievement.get("name", "nccl-course certificate"),
        "issuer": {"id": issuer_id, "type": ["Profile"], "name": issuer_name, "url": issuer_url},
        "validFrom": when,
        "awardedDate": when,
        "credentialSubject": {
            "type": ["AchievementSubject"],
            "identifier": [
                {
                    "type": "IdentityObject",
                    "identityType": "emailAddress",
                    "hashed": True,
                    "identityHash": hash_identity(normalise_email(learner_email), salt),
                    "salt": salt,
                },
                {
                    "type": "IdentityObject",
                    "identityType": "name",
                    "hashed": False,
                    "identityHash": learner_name,
                },
            ],
            "achievement": achievement,
            "activityEndDate": when,
            "result": [result],
        },
        "evidence": [
            {
                "type": ["Evidence"],
                "name": f"Exam {exam_id}",
                "description": f"Passed exam {exam_id} with a score of {percent} % on {when}.",
                "genre": "Exam",
            }
        ],
        "credentialStatus": status_entry,
    }
    if valid_until is not None:
        credential["validUntil"] = xsd_datetime(valid_until)
    return credential


def status_entry(list_url: str, index: int, purpose: str = "revocation") -> dict:
    return {
        "id": f"{list_url}#{index}",
        "type": "BitstringStatusListEntry",
        "statusPurpose": purpose,
        "statusListIndex": str(index),
        "statusListCredential": list_url,
    }
