"""``nccl-course lab check``: run a lab's tests against the learner's file and explain the result.

The tests run in a fresh ``python -m pytest`` (so a crash or a hang in the learner's code cannot
take the command down), with NCCL_COURSE_LAB_FILE naming the file. Results come back through a
small pytest plugin as JSON and are printed per test: PASS, or FAIL with what was expected and
what came, trimmed to the lines that matter.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from nccl_course.labs.discovery import LAB_FILE_ENV, WORLD_SIZES_ENV, Lab


@dataclass
class TestGroup:
    """All parametrized cases of one test function."""

    name: str
    passed: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (case id, message)
    skipped: int = 0

    @property
    def total(self) -> int:
        return self.passed + len(self.failed) + self.skipped


@dataclass
class CheckResult:
    lab: Lab
    file: Path
    groups: list[TestGroup]
    returncode: int
    output: str  # pytest's own output, for when no result came back

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and all(not g.failed for g in self.groups) and self.groups


def run_tests(
    lab: Lab,
    file: Path,
    world_sizes: list[int] | None = None,
    timeout_s: float | None = None,
    *,
    first_failure: bool = False,
) -> CheckResult:
    """Run the lab's tests against ``file`` in a subprocess; collect per-test outcomes.
    ``first_failure``: stop at the first failing test (enough to know that a file fails)."""
    with tempfile.TemporaryDirectory(prefix="nccl-course-check-") as tmp:
        report = Path(tmp) / "report.json"
        env = dict(os.environ)
        env[LAB_FILE_ENV] = str(file.resolve())
        if world_sizes:
            env[WORLD_SIZES_ENV] = ",".join(str(n) for n in world_sizes)
        # The lab's tests need no installed pytest plugin; loading them all (Schemathesis,
        # Hypothesis, anyio, xdist where the course's test tools are installed) costs about
        # 1.5 s of CPU per check. pytest-timeout stays when present: the repository's
        # configuration sets its per-test limit.
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        plugins = ["-p", "pytest_timeout"] if importlib.util.find_spec("pytest_timeout") else []
        command = [
            sys.executable,
            "-m",
            "pytest",
            str(lab.tests),
            "-q",
            *plugins,
            "-p",
            "nccl_course.labs.pytest_report",
            f"--nccl-course-report={report}",
            "-p",
            "no:cacheprovider",
            "--import-mode=importlib",
            f"--rootdir={lab.path.parent.parent}",
            *(["-x"] if first_failure else []),
        ]
        budget = timeout_s or 60 + 6 * lab.config["timeout_s"] * len(
            world_sizes or lab.config["world_sizes"]
        )
        try:
            done = subprocess.run(
                command,
                cwd=lab.path.parent.parent,
                env=env,
                capture_output=True,
                text=True,
                timeout=budget,
            )
            returncode, output = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as exc:
            returncode = 124
            output = f"the tests did not finish within {budget:.0f} s\n{exc.stdout or ''}"
        outcomes = json.loads(report.read_text()) if report.exists() else []
    return CheckResult(lab, file, _group(outcomes), returncode, output)


def _group(outcomes: list[dict]) -> list[TestGroup]:
    groups: OrderedDict[str, TestGroup] = OrderedDict()
    for item in outcomes:
        function = item["nodeid"].split("::")[-1]
        name, _, case = function.partition("[")
        group = groups.setdefault(name, TestGroup(name))
        if item["outcome"] == "passed":
            group.passed += 1
        elif item["outcome"] == "skipped":
            group.skipped += 1
        else:
            group.failed.append((case.rstrip("]"), summarize(item["message"])))
    return list(groups.values())


_NOISE = re.compile(r"^\s*(assert |where |\+  where|and  |\+)")


def summarize(message: str, max_lines: int = 8) -> str:
    """The part of a failure message a learner needs: the assertion's own text, or for a
    failed launch the first line and each failed rank's final error and line in their file."""
    message = message.strip()
    if "--- rank" in message:
        head, *sections = message.split("\n--- ")
        lines = [head.splitlines()[0]]
        for section in sections[:2]:
            body = [line for line in section.splitlines()[1:] if line.strip()]
            title = section.splitlines()[0].strip(" -")
            where = [line.strip() for line in body if line.strip().startswith("File ")]
            last = body[-1].strip() if body else ""
            lines.append(f"{title}: {last}")
            if where:
                lines.append(f"    {where[-1]}")
        return "\n".join(lines)
    kept = []
    for line in message.splitlines():
        if kept and _NOISE.match(line):
            break  # pytest's re-evaluation of the assert: the message above says it better
        kept.append(line)
    text = "\n".join(kept[:max_lines])
    return re.sub(r"^AssertionError: ", "", text)


def format_result(result: CheckResult, verbose: bool = False) -> str:
    lab = result.lab
    lines = [f"Lab {lab.number}: {lab.title}", f"checking {result.file}"]
    if not result.groups:
        lines.append("No test result came back. pytest said:")
        lines.append(result.output.strip()[-3000:])
        return "\n".join(lines)
    total = sum(g.total for g in result.groups)
    passed = sum(g.passed for g in result.groups)
    for group in result.groups:
        label = group.name.removeprefix("test_").replace("_", " ")
        if not group.failed:
            lines.append(
                f"  PASS  {label}" + (f"  ({group.passed} cases)" if group.total > 1 else "")
            )
            continue
        lines.append(
            f"  FAIL  {label}"
            + (f"  ({len(group.failed)} of {group.total} cases failed)" if group.total > 1 else "")
        )
        shown = group.failed if verbose else group.failed[:1]
        for case, message in shown:
            prefix = f"[{case}] " if case else ""
            for i, text in enumerate(message.splitlines() or ["(no message)"]):
                lines.append(f"        {prefix if i == 0 else ''}{text}")
    lines.append("")
    if passed == total and result.returncode == 0:
        lines.append(f"All {total} checks pass.")
    else:
        lines.append(f"{passed} of {total} checks pass.")
        todo = _first_todo(result)
        if todo:
            lines.append(f"Next: {todo}")
    return "\n".join(lines)


def _first_todo(result: CheckResult) -> str | None:
    steps = []
    for group in result.groups:
        for _, message in group.failed:
            for match in re.finditer(r"TODO\(step (\d+)([a-z]?)\): ([^\n(]*)", message):
                steps.append((int(match.group(1)), match.group(2), match.group(3).strip()))
    if not steps:
        return None
    number, letter, text = min(steps)
    return f"TODO(step {number}{letter}): {text}"
