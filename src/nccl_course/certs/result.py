"""The outcome of a verification: a verdict, and check by check ``ok``, ``failed`` or
``not checked`` with the reason.

A check reports ``failed`` by raising :class:`CheckFailed` and ``not checked`` by raising
:class:`NotChecked`; :func:`nccl_course.certs.verify.verify` turns those into :class:`Check`
entries of a :class:`VerificationResult` and picks the verdict.

A detail or reason is English text. Where it is a :class:`Message` (a ``str`` that keeps the
template, marked with ``N_``, and the fields it was made from), the result's dictionary carries
them too, so that a page shows it in the reader's language (:func:`localized`); details
written as plain text (rare malformed-document cases) stay English.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from nccl_course.i18n.interface import N_


class Message(str):
    """English text made from a ``template`` and its ``fields`` (a field may be a Message)."""

    template: str
    fields: dict

    def __new__(cls, template: str, **fields):
        text = template.format(**{k: str(v) for k, v in fields.items()}) if fields else template
        message = super().__new__(cls, text)
        message.template = template
        message.fields = fields
        return message

    def __reduce__(self):  # keeps template and fields across the verifier's worker process
        return (_rebuild, (self.template, self.fields))

    def as_dict(self) -> dict:
        return {"template": self.template, "fields": {k: _plain(v) for k, v in self.fields.items()}}

    @classmethod
    def from_dict(cls, data: dict | str) -> Message | str:
        if not isinstance(data, dict):
            return data
        fields = {k: cls.from_dict(v) for k, v in (data.get("fields") or {}).items()}
        return cls(data["template"], **fields)


def _rebuild(template: str, fields: dict) -> Message:
    return Message(template, **fields)


def _plain(value):
    return value.as_dict() if isinstance(value, Message) else value


def message_of(text: str) -> dict | None:
    """What a result's dictionary keeps of ``text`` for translation: its template and fields
    when it is a :class:`Message`, else None (it is shown as written)."""
    return text.as_dict() if isinstance(text, Message) else None


def localized(text: str, message: dict | None, tr: Callable[..., str]) -> str:
    """``text`` in the language of ``tr`` (``tr(template, **fields)``, an interface
    translator) when ``message`` (:func:`message_of` of it) is given; else ``text``."""
    if message is None:
        return text
    return tr(
        message["template"], **{k: _localized_field(v, tr) for k, v in message["fields"].items()}
    )


def _localized_field(value, tr):
    return localized("", value, tr) if isinstance(value, dict) else value


def failure_reason(name: str, detail: str) -> Message:
    """The reason of a verdict that a check decided: the check's name and its detail."""
    return Message(N_("{check}: {detail}"), check=Message(name), detail=detail)


VALID = "VALID"
NOT_VALID = "NOT VALID"
CANNOT_CHECK = "CANNOT CHECK"
OK = "ok"
FAILED = "failed"
NOT_CHECKED = "not checked"

CHECK_NAMES = ("issuer", "schema", "key", "signature", "dates", "status")
AFTER_FAILURE = Message(N_("an earlier check failed"))
#: The status check's detail when the credential's status list bit says it is revoked.
REVOKED_DETAIL = N_("{word}: bit {index} of status list {url} is set")
REVOKED_WORD = N_("revoked")


@dataclass(frozen=True)
class Check:
    """One check: ``status`` is ``"ok"``, ``"failed"`` or ``"not checked"``; ``detail`` why."""

    name: str
    status: str
    detail: str

    @property
    def passed(self) -> bool:
        return self.status == OK

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "status": self.status,
            "detail": str(self.detail),
            "message": message_of(self.detail),
        }

    def __iter__(self):
        """Unpacks as ``(name, passed, detail)``, like the tuples of earlier versions."""
        return iter((self.name, self.passed, self.detail))


@dataclass
class VerificationResult:
    """The verdict, the issuer as the credential states it, and every check's outcome."""

    verdict: str
    reason: str
    checks: list[Check] = field(default_factory=list)
    credential_id: str | None = None
    issuer: str | None = None  # the issuer id the credential states
    issuer_name: str | None = None  # the issuer name the credential states (not verified)
    signer: str | None = None  # the DID of the proof's verification method
    trusted_issuers: tuple[str, ...] | None = None  # None: the issuer was not pinned

    @property
    def ok(self) -> bool:
        return self.verdict == VALID

    def check(self, name: str) -> Check:
        for item in self.checks:
            if item.name == name:
                return item
        raise KeyError(name)

    def as_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "ok": self.ok,
            "reason": str(self.reason),
            "reason_message": message_of(self.reason),
            "credential_id": self.credential_id,
            "issuer": self.issuer,
            "issuer_name": self.issuer_name,
            "signer": self.signer,
            "trusted_issuers": list(self.trusted_issuers)
            if self.trusted_issuers is not None
            else None,
            "checks": [c.as_dict() for c in self.checks],
        }


class CheckFailed(Exception):
    """Raised by a check that fails; the message is the check's detail (:func:`detail_of`)."""


class NotChecked(Exception):
    """Raised by a check that cannot be made (something is not at hand); the message says
    what."""


def detail_of(exc: Exception) -> str:
    """A check's detail from the exception it raised: its :class:`Message` when it was given
    one (``str(exc)`` would keep only the English)."""
    given = exc.args[0] if len(exc.args) == 1 else None
    return given if isinstance(given, Message) else str(exc)


def is_revoked(result: dict) -> bool:
    """Whether a result's dictionary says the credential is revoked (its status check failed
    on a revocation bit), whatever the language its text is later shown in."""
    for check in result.get("checks") or []:
        message = check.get("message") or {}
        if check["name"] == "status" and check["status"] == FAILED:
            word = (message.get("fields") or {}).get("word")
            if (
                message.get("template") == REVOKED_DETAIL
                and word == Message(REVOKED_WORD).as_dict()
            ):
                return True
    return False


def localized_result(result: dict, tr: Callable[..., str]) -> dict:
    """A result's dictionary (:meth:`VerificationResult.as_dict`) with its reason and each
    check's detail in the language of ``tr``, without the templates it carried."""
    result = dict(result)
    result["reason"] = localized(result["reason"], result.pop("reason_message", None), tr)
    result["checks"] = [
        {**c, "detail": localized(c["detail"], c.get("message"), tr), "message": None}
        for c in result.get("checks") or []
    ]
    return result
