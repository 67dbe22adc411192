"""requirements/labs.txt, the pins `make setup-labs` installs on a GPU node: on Python 3.11+ the
same versions as requirements/lock.txt, on 3.10 a set of its own; each satisfies the core
dependencies and the [labs] extra (torch aside: scripts/install_torch.py picks it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

tomllib = pytest.importorskip("tomllib")  # Python 3.11+ runs the suite

REPO = Path(__file__).resolve().parents[1]
LABS = REPO / "requirements" / "labs.txt"
LOCK = REPO / "requirements" / "lock.txt"


def _pins(path: Path, python: str) -> dict[str, Version]:
    """The ``name==version`` lines of ``path`` that apply to ``python`` ("3.10")."""
    pins: dict[str, Version] = {}
    environment = {"python_version": python, "python_full_version": f"{python}.0"}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate(environment):
            continue
        (spec,) = req.specifier  # exactly one ==
        assert spec.operator == "==", f"{path.name}: {line!r} is not pinned with =="
        name = canonicalize_name(req.name)
        assert name not in pins, f"{path.name}: {req.name} pinned twice for Python {python}"
        pins[name] = Version(spec.version)
    return pins


def _needed() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = project["dependencies"] + project["optional-dependencies"]["labs"]
    return [Requirement(line) for line in lines if not line.startswith("torch")]


@pytest.mark.parametrize("python", ["3.10", "3.11", "3.12", "3.13"])
def test_labs_pins_satisfy_core_and_labs_extra(python):
    pins = _pins(LABS, python)
    problems = []
    for req in _needed():
        version = pins.get(canonicalize_name(req.name))
        if version is None:
            problems.append(f"{req}: not pinned for Python {python}")
        elif not req.specifier.contains(version):
            problems.append(f"{req}: pinned {version} for Python {python}")
    assert problems == []


def test_labs_pins_on_current_pythons_are_the_lock_versions():
    lock = _pins(LOCK, "3.11")
    labs = _pins(LABS, "3.11")
    differ = {n: (v, lock.get(n)) for n, v in labs.items() if lock.get(n) != v}
    assert differ == {}, "requirements/labs.txt differs from lock.txt on Python 3.11+"


def test_python_310_gets_a_numpy_that_supports_it():
    # numpy 2.3 dropped Python 3.10; the lock's 2.4.x cannot install on Ubuntu 22.04's Python.
    assert _pins(LABS, "3.10")["numpy"] < Version("2.3")
    assert _pins(LABS, "3.11")["numpy"] == _pins(LOCK, "3.11")["numpy"]
