"""Every lab's tests must test something: they fail against the starter and pass against the
solution. The starter of each lab runs through the checker (a subprocess, as ``nccl-course lab
check`` does) at 2 ranks; that every solution passes at every world size is the lab tests
themselves, collected from labs/ by the normal test run (their default file is solution.py),
so the checker's way of passing a solution is run once, on one lab."""

from __future__ import annotations

import pytest

from nccl_course.labs import discover_labs
from nccl_course.labs.checker import format_result, run_tests, summarize

LABS = discover_labs()


def test_labs_are_discovered_in_order():
    numbers = [lab.number for lab in LABS]
    assert numbers[:4] == ["01", "02", "03", "04"], numbers
    assert numbers == sorted(numbers)


@pytest.mark.parametrize("lab", LABS, ids=[lab.id for lab in LABS])
def test_lab_has_its_parts(lab):
    for part in ("README.md", "starter.py", "solution.py", "lab.yaml"):
        assert (lab.path / part).is_file(), f"{lab.id} has no {part}"
    assert list(lab.tests.glob("test_*.py")), f"{lab.id} has no tests/test_*.py"
    readme = (lab.path / "README.md").read_text()
    assert "literalinclude" in readme and "starter.py" in readme, "the page shows the starter"
    assert "{dropdown}" in readme and "solution.py" in readme, "the solution sits in a dropdown"


@pytest.mark.parametrize("lab", LABS, ids=[lab.id for lab in LABS])
def test_starter_fails(lab):
    starter = run_tests(lab, lab.starter, world_sizes=[2], first_failure=True)
    failed = [case for group in starter.groups for case in group.failed]
    assert starter.returncode == 1 and failed, (
        f"{lab.id}: the tests must fail against starter.py (pytest exit "
        f"{starter.returncode}, {len(failed)} failures):\n{format_result(starter)}"
    )


def test_the_checker_passes_a_solution():
    lab = LABS[0]
    solution = run_tests(lab, lab.solution, world_sizes=[2])
    assert solution.ok, f"{lab.id}: the tests must pass against solution.py:\n" + format_result(
        solution
    )
    assert sum(group.passed for group in solution.groups) > 0


def test_summaries_keep_what_teaches():
    launch_failure = (
        "nccl_course.launcher.failures.WorkerError: rank 1 of 2 failed (rank 1 first)\n"
        "\n--- rank 1 ---\nTraceback (most recent call last):\n"
        '  File "/x/starter.py", line 40, in whoami\n'
        "    raise NotImplementedError\n"
        "NotImplementedError: TODO(step 1): report rank"
    )
    text = summarize(launch_failure)
    assert "rank 1 of 2 failed" in text
    assert "NotImplementedError: TODO(step 1): report rank" in text
    assert 'File "/x/starter.py", line 40' in text
    assertion = (
        "AssertionError: rank 0: expected [1, 2], got [2, 1]\nassert [2, 1] == [1, 2]\n  At index 0"
    )
    assert summarize(assertion) == "rank 0: expected [1, 2], got [2, 1]"
