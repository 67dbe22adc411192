"""Run the catalog's checks against a probe and turn their findings into report lines."""

from __future__ import annotations

from nccl_course.preflight.catalog import CATALOG
from nccl_course.preflight.check import FAIL, Check
from nccl_course.preflight.context import Context, Options
from nccl_course.preflight.probe import Probe, SystemProbe


def run_checks(probe: Probe | None = None, options: Options | None = None) -> list[Check]:
    """Every check in catalog order, on ``probe`` (default: this machine)."""
    ctx = Context(probe if probe is not None else SystemProbe(), options)
    checks = []
    for info in CATALOG:
        finding = info.run(ctx)
        checks.append(Check(info.id, info.title, finding.status, finding.detail, finding.fix))
    return checks


def any_failed(checks: list[Check]) -> bool:
    return any(check.status == FAIL for check in checks)


_SHOWN = {"ok": "ok", "warn": "WARN", "fail": "FAIL", "n/a": "n/a"}


def format_checks(checks: list[Check]) -> str:
    """One line per check (status, title, detail), and "fix: ..." under a warning or failure."""
    width = max(len(check.title) for check in checks)
    lines = []
    for check in checks:
        lines.append(f"  {_SHOWN[check.status]:<4}  {check.title:<{width}}  {check.detail}")
        if check.fix:
            lines.append(f"        {'':<{width}}  fix: {check.fix}")
    return "\n".join(lines)
