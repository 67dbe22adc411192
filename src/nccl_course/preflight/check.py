"""A check's result: what was found on this machine and, when something is wrong, what to do.

Check functions return a :class:`Finding` (status, detail, fix); the runner adds the check's id
and title from the catalog, so a check never restates its own name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

OK = "ok"
WARN = "warn"
FAIL = "fail"
NOT_APPLICABLE = "n/a"
STATUSES = (OK, WARN, FAIL, NOT_APPLICABLE)


@dataclass(frozen=True)
class Finding:
    """What one check found: ``detail`` says what (one line), ``fix`` what to do (one line,
    empty unless the status is warn or fail)."""

    status: str
    detail: str
    fix: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status {self.status!r} is not one of {STATUSES}")
        if self.status in (WARN, FAIL) and not self.fix:
            raise ValueError(f"a {self.status} finding needs a fix: {self.detail}")
        if self.status in (OK, NOT_APPLICABLE) and self.fix:
            raise ValueError(f"a {self.status} finding has nothing to fix: {self.fix}")


def ok(detail: str) -> Finding:
    return Finding(OK, detail)


def not_applicable(detail: str) -> Finding:
    return Finding(NOT_APPLICABLE, detail)


def warn(detail: str, fix: str) -> Finding:
    return Finding(WARN, detail, fix)


def fail(detail: str, fix: str) -> Finding:
    return Finding(FAIL, detail, fix)


@dataclass(frozen=True)
class Check:
    """One line of the pre-flight report: ``id`` is stable (the book and other code use it)."""

    id: str
    title: str
    status: str
    detail: str
    fix: str

    def as_dict(self) -> dict:
        return asdict(self)
