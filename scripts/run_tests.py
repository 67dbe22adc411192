"""The full test suite (``make test`` after lint): the book builds while the tests that do not
read it run, then the tests that read it run.

The book's build is mostly one process (Sphinx, then the notebooks one at a time), which leaves a
core of the machine idle for minutes; the tests that need no book (processes, the exam server,
the model, the quizzes) use it meanwhile. Which tests read the built book is decided by rule in
the root conftest.py (mark ``book``). The build's output goes to a log file, shown when the
build fails.

    .venv/bin/python scripts/run_tests.py                 # both phases, 2 pytest workers
    .venv/bin/python scripts/run_tests.py --jobs 0 -- -x  # in one process, stop at a failure
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD_LOG = ROOT / "_build" / "book-build.log"
# pytest's exit status when the selection is empty (e.g. -k matching only one phase's tests)
NO_TESTS = 5


def pytest_command(jobs: int, marks: str, extra: list[str]) -> list[str]:
    # worksteal: a worker that runs out of tests takes queued ones from the other, so one long
    # test (a crawl of every page) does not leave a worker idle at the end of a phase.
    spread = ["--dist", "worksteal"] if jobs > 0 else []
    return [sys.executable, "-m", "pytest", "-n", str(jobs), *spread, "-m", marks, *extra]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--jobs", type=int, default=2, help="pytest-xdist workers per phase (0: one process)"
    )
    parser.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --)")
    args = parser.parse_args()

    BUILD_LOG.parent.mkdir(exist_ok=True)
    # The suite starts hundreds of Python processes (pytest's workers, ranks, servers, the
    # command line, the book's kernels) that import the same modules. With
    # PYTHONDONTWRITEBYTECODE set (as container images often do) each of them compiles every
    # module again and pytest rewrites every test module's asserts again: about 5 s per pytest
    # process. Bytecode goes to __pycache__ folders, which git ignores.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    started = time.monotonic()
    print(f"building the book in the background (log: {BUILD_LOG.relative_to(ROOT)})", flush=True)
    with BUILD_LOG.open("w", encoding="utf-8") as log:
        book = subprocess.Popen(
            [sys.executable, str(ROOT / "scripts" / "build_book.py")],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            first = subprocess.call(
                pytest_command(args.jobs, "not book", args.pytest_args), cwd=ROOT, env=env
            )
        finally:
            book_status = book.wait()
    first_s = time.monotonic() - started
    print(f"tests without the book: {first_s:.0f} s; the book: exit status {book_status}")
    if book_status != 0:
        lines = BUILD_LOG.read_text(encoding="utf-8", errors="replace").splitlines()
        print("\n".join(lines[-60:]), file=sys.stderr)
        print(
            f"the book did not build (exit status {book_status}; whole log in {BUILD_LOG}): "
            "the tests that read it were not run. 'make book' builds it alone.",
            file=sys.stderr,
        )
        return 1
    second = subprocess.call(pytest_command(args.jobs, "book", args.pytest_args), cwd=ROOT, env=env)
    print(
        f"tests of the built book: {time.monotonic() - started - first_s:.0f} s; "
        f"whole suite {time.monotonic() - started:.0f} s"
    )
    failed = [status for status in (first, second) if status not in (0, NO_TESTS)]
    return failed[0] if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
