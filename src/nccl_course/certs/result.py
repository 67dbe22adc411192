"""The outcome of a verification: a verdict, and check by check ``ok``, ``failed`` or
``not checked`` with the reason.

A check reports ``failed`` by raising :class:`CheckFailed` and ``not checked`` by raising
:class:`NotChecked`; :func:`nccl_course.certs.verify.verify` turns those into :class:`Check`
entries of a :class:`VerificationResult` and picks the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field

VALID = "VALID"
NOT_VALID = "NOT VALID"
CANNOT_CHECK = "CANNOT CHECK"
OK = "ok"
FAILED = "failed"
NOT_CHECKED = "not checked"

CHECK_NAMES = ("issuer", "schema", "key", "signature", "dates", "status")
AFTER_FAILURE = "an earlier check failed"


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
        return {"name": self.name, "status": self.status, "detail": self.detail}

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
            "reason": self.reason,
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
    """Raised by a check that fails; the message is the check's detail."""


class NotChecked(Exception):
    """Raised by a check that cannot be made (something is not at hand); the message says
    what."""
