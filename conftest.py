"""Which tests are slow, and which drive a browser: decided here, in one place, by rule.

This file sits at the repository root so that its hook sees the items of both test paths,
``tests/`` and ``labs/`` (a hook in tests/conftest.py would not see the labs). Test files carry
no ``slow`` or ``browser`` marks of their own. ``make test-fast`` runs ``-m "not slow"``; ``make
test`` runs everything.

A test is marked ``slow`` when

1. it lives in a folder of ``SLOW_DIRS`` (the browser tests; the labs' own tests, which
   ``make test`` and ``nccl-course lab check`` run);
2. it uses, directly or through other fixtures, a fixture of ``SLOW_FIXTURES`` (the built book,
   a browser);
3. its code, the code of a fixture it uses, or a function of the same module that either calls,
   refers to one of ``PROCESS_NAMES``: something that starts a process (``subprocess``, the
   course server in a subprocess, the rank launcher, the lab checker's pytest run, Playwright's
   chromium). This reads names in the compiled code, not text, so comments do not count;
4. its node id starts with an entry of ``SLOW_TESTS``: those that start processes through code
   the rule cannot see.

Tests in ``BROWSER_DIRS`` are also marked ``browser`` (``-m "not browser"`` leaves them out).
Tests that read the built book are marked ``book``: those in ``BROWSER_DIRS`` and those that use
the ``built_book`` fixture, directly or through another fixture. ``make test``
(scripts/run_tests.py) runs the others while the book builds, then these.
"""

from __future__ import annotations

import inspect
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent

SLOW_DIRS = ("tests/browser", "labs")
BROWSER_DIRS = ("tests/browser",)
BOOK_FIXTURE = "built_book"
SLOW_FIXTURES = frozenset({"built_book", "book_url", "browser", "offline_page"})
PROCESS_NAMES = frozenset(
    {"subprocess", "Popen", "ServerProcess", "launch", "run_tests", "sync_playwright"}
)
SLOW_TESTS = (
    # benchmarks/bench_exam_load.py starts `nccl-course serve` in a subprocess
    "tests/exam/test_bench_smoke.py::test_bench_exam_load_small",
    # in-process, but about 900 generated requests (30 s): part of `make test`, not the inner loop
    "tests/exam/test_fuzz.py::test_no_request_makes_a_server_error",
)


def _names(code: types.CodeType):
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):  # nested functions, lambdas, comprehensions
            yield from _names(const)


def _starts_processes(func, seen: set) -> bool:
    """Whether ``func``, or a function of its module that it refers to, names a process starter."""
    func = inspect.unwrap(func)
    code = getattr(func, "__code__", None)
    if code is None or code in seen:
        return False
    seen.add(code)
    names = set(_names(code))
    if names & PROCESS_NAMES:
        return True
    scope = getattr(func, "__globals__", {})
    return any(
        inspect.isfunction(helper)
        and helper.__module__ == func.__module__
        and _starts_processes(helper, seen)
        for helper in (scope.get(name) for name in names)
    )


def _fixture_functions(item):
    # Every fixture the test uses, its dependencies included. pytest has no public accessor for
    # the definitions; _fixtureinfo has carried them for many releases, and without it only rules
    # 1, 2 and 4 and the test's own code apply.
    info = getattr(item, "_fixtureinfo", None)
    for definitions in getattr(info, "name2fixturedefs", {}).values():
        for definition in definitions:
            yield definition.func


def _is_slow(item, relative: str) -> bool:
    if relative.startswith(tuple(f"{folder}/" for folder in SLOW_DIRS)):
        return True
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    if item.nodeid.startswith(SLOW_TESTS):
        return True
    seen: set = set()
    function = getattr(item, "function", None)
    if function is not None and _starts_processes(function, seen):
        return True
    return any(_starts_processes(func, seen) for func in _fixture_functions(item))


def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            relative = Path(str(item.path)).resolve().relative_to(ROOT).as_posix()
        except ValueError:  # a test outside the repository (a lab checked from elsewhere)
            continue
        in_browser_dirs = relative.startswith(tuple(f"{folder}/" for folder in BROWSER_DIRS))
        if in_browser_dirs:
            item.add_marker(pytest.mark.browser)
        if in_browser_dirs or BOOK_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.book)
        if _is_slow(item, relative):
            item.add_marker(pytest.mark.slow)
