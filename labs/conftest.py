"""Fixtures for every lab's tests (see labs/README.md, "Conventions").

- ``lab_dir``: the lab's folder, found from the test file's location (nearest lab.yaml above it).
- ``lab_config``: its lab.yaml, parsed, with defaults (``nccl_course.labs.load_lab_config``).
- ``lab_file``: the file under test: $NCCL_COURSE_LAB_FILE if set, else the lab's solution.py.
- ``lab_module``: that file, imported (tests may call its single-process helpers directly).
- ``lab_launch``: ``lab_launch("worker", world_size, args=...)`` runs a function of the file on
  ``world_size`` ranks with the lab's timeout and returns the per-rank results.
- ``lab_once``: like ``lab_launch`` for any target, run once per module and cached.
- ``world_size``: any test taking it runs once per lab.yaml ``world_sizes`` (override with
  $NCCL_COURSE_WORLD_SIZES, e.g. "2" or "2,4").

Backend: $NCCL_COURSE_LAB_BACKEND if set; else NCCL when this machine has a GPU for every rank
of the lab's largest world size, else gloo. On gloo every collective also checks NCCL's device
rule (``launch(check_placement=True)``): a tensor that would stay on the CPU on a GPU rank fails
the test here instead of on the learner's first GPU run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nccl_course.labs import LAB_FILE_ENV, WORLD_SIZES_ENV, lab_of_path, load_lab_config
from nccl_course.launcher import launch
from nccl_course.launcher.launch import load_file_module

BACKEND_ENV = "NCCL_COURSE_LAB_BACKEND"


def _world_sizes(test_path: Path) -> list[int]:
    override = os.environ.get(WORLD_SIZES_ENV, "").strip()
    if override:
        try:
            return [int(part) for part in override.split(",") if part.strip()]
        except ValueError:
            raise pytest.UsageError(
                f"{WORLD_SIZES_ENV}={override!r}: write rank counts separated by commas, e.g. 2,4"
            ) from None
    return load_lab_config(lab_of_path(test_path))["world_sizes"]


def pytest_generate_tests(metafunc):
    if "world_size" in metafunc.fixturenames:
        sizes = _world_sizes(Path(str(metafunc.definition.path)))
        metafunc.parametrize("world_size", sizes, ids=[f"ranks{n}" for n in sizes])


@pytest.fixture(scope="module")
def lab_dir(request) -> Path:
    return lab_of_path(Path(str(request.path)))


@pytest.fixture(scope="module")
def lab_config(lab_dir) -> dict:
    return load_lab_config(lab_dir)


@pytest.fixture(scope="module")
def lab_file(lab_dir) -> Path:
    chosen = os.environ.get(LAB_FILE_ENV)
    path = Path(chosen).resolve() if chosen else lab_dir / "solution.py"
    if not path.is_file():
        pytest.fail(f"{LAB_FILE_ENV}={chosen!r}: no such file" if chosen else f"{path} is missing")
    return path


@pytest.fixture(scope="module")
def lab_module(lab_file):
    try:
        return load_file_module(lab_file)
    except Exception as exc:  # a syntax error in the learner's file is feedback, not a crash
        pytest.fail(f"cannot import {lab_file}: {type(exc).__name__}: {exc}", pytrace=False)


@pytest.fixture(scope="module")
def lab_backend(lab_config) -> str:
    chosen = os.environ.get(BACKEND_ENV, "").strip().lower()
    if chosen:
        return chosen
    from nccl_course.launcher import choose_backend

    return choose_backend(max(lab_config["world_sizes"]))


@pytest.fixture(scope="module")
def lab_launch(lab_file, lab_config, lab_backend):
    def run(worker: str, world_size: int, *, args=(), kwargs=None, timeout_s=None):
        return launch(
            (str(lab_file), worker),
            world_size,
            args=args,
            kwargs=kwargs,
            backend=lab_backend,
            timeout_s=timeout_s or lab_config["timeout_s"],
            check_placement=lab_backend == "gloo",
        )

    return run


@pytest.fixture(scope="module")
def lab_once(lab_config, lab_backend):
    """``lab_once(target, world_size, args=())``: like ``launch``, but each (target, world size,
    args) runs once per test module and later calls get the same results (or the same error).
    Lets several small tests check one launch."""
    done: dict = {}

    def run(target, world_size: int, *, args=(), timeout_s=None):
        key = (tuple(str(t) for t in target) if isinstance(target, tuple) else target, world_size)
        key = (*key, repr(args))
        if key not in done:
            try:
                done[key] = (
                    True,
                    launch(
                        target,
                        world_size,
                        args=args,
                        backend=lab_backend,
                        timeout_s=timeout_s or lab_config["timeout_s"],
                        check_placement=lab_backend == "gloo",
                    ),
                )
            except Exception as exc:
                done[key] = (False, exc)
        ok, value = done[key]
        if not ok:
            raise value
        return value

    return run
