"""The package as others install it: extras that say what each part needs, and a wheel that
carries its data files.

- Every third-party module that ``src/nccl_course`` imports is declared (core dependency or an
  extra), and every requirement of every extra is satisfied by the pinned, tested set in
  ``requirements/lock.txt`` (torch: by the installed build, as scripts/install_torch.py picks it).
- A wheel built from a clean copy of the sources holds every file of the package, including
  the vendored JSON-LD contexts, the exam's and the quiz's static files and the Alembic
  migrations. (The wheel test builds with pip and setuptools, so the conftest hook marks it
  slow through its ``built_wheel`` fixture; the others read files and are fast.)
"""

from __future__ import annotations

import ast
import importlib.metadata
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "nccl_course"
PROJECT = "nccl-course"
EXTRAS = {"certs", "server", "postgres", "book", "labs", "narration", "cloud", "all"}
# Extras pinned outside the lock, in a file of their own resolved together with it.
EXTRA_PINS = {"cloud": REPO / "requirements" / "cloud.txt"}

# Files a user's installation cannot work without; the wheel test also checks that every other
# file under src/nccl_course made it in.
REQUIRED_FILES = [
    "nccl_course/certs/contexts/credentials-v2.jsonld",
    "nccl_course/certs/contexts/data-integrity-v1.jsonld",
    "nccl_course/certs/contexts/did-v1.jsonld",
    "nccl_course/certs/contexts/ob-v3p0-context-3.0.3.json",
    "nccl_course/store/migrations/env.py",
    "nccl_course/store/migrations/script.py.mako",
    "nccl_course/store/migrations/versions/0001_exam_core.py",
    "nccl_course/store/migrations/versions/0002_credentials.py",
    "nccl_course/server/static/exam.html",
    "nccl_course/server/static/exam.js",
    "nccl_course/server/static/exam.css",
    "nccl_course/server/static/markdown.js",
    "nccl_course/static/nccl-page.js",
    "nccl_course/server/static/verify.html",
    "nccl_course/server/static/verify.js",
    "nccl_course/quiz/static/nccl-quiz.js",
    "nccl_course/quiz/static/nccl-quiz.css",
]


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _requirements(extra: str | None) -> list[Requirement]:
    """The requirements of the core (extra=None) or of one extra, self-references expanded."""
    project = _project()
    listed = project["dependencies"] if extra is None else project["optional-dependencies"][extra]
    found: list[Requirement] = []
    for line in listed:
        req = Requirement(line)
        if canonicalize_name(req.name) == PROJECT:
            for inner in sorted(req.extras):
                found.extend(_requirements(inner))
        else:
            found.append(req)
    return found


def _lock(extra: str | None = None) -> dict[str, Version]:
    """The lock's pins, with those of ``extra``'s own pin file (EXTRA_PINS) if it has one."""
    pins = {}
    files = [REPO / "requirements" / "lock.txt"]
    if extra in EXTRA_PINS:
        files.append(EXTRA_PINS[extra])
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                name, _, version = line.partition("==")
                assert version, f"requirements/{path.name}: {line!r} is not pinned with =="
                pins[canonicalize_name(name)] = Version(version)
    return pins


def _tested_version(name: str, pins: dict[str, Version]) -> Version | None:
    if name == "torch":  # never in the lock: scripts/install_torch.py installs it per machine
        return Version(importlib.metadata.version("torch").split("+")[0])
    return pins.get(name)


def test_extras_are_the_documented_ones():
    assert set(_project()["optional-dependencies"]) == EXTRAS


@pytest.mark.parametrize("extra", [None, *sorted(EXTRAS)])
def test_lock_satisfies_every_requirement(extra):
    pins = _lock(extra)
    problems = []
    for req in _requirements(extra):
        name = canonicalize_name(req.name)
        version = _tested_version(name, pins)
        if version is None:
            problems.append(f"{req}: not in requirements/lock.txt")
        elif not req.specifier.contains(version, prereleases=True):
            problems.append(f"{req}: the lock pins {version}")
        # An extra of a dependency (psycopg[binary]) pulls in more: those must be locked too.
        for inner_extra in sorted(req.extras):
            for line in importlib.metadata.requires(req.name) or []:
                inner = Requirement(line)
                only_for_extra = (
                    inner.marker is not None
                    and inner.marker.evaluate({"extra": inner_extra})
                    and not inner.marker.evaluate({"extra": ""})
                )
                if only_for_extra and canonicalize_name(inner.name) not in pins:
                    problems.append(f"{req} needs {inner.name}: not in requirements/lock.txt")
    assert problems == [], f"extra {extra or '(core)'}:\n" + "\n".join(problems)


def _imported_top_level_modules() -> set[str]:
    modules = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    return modules - set(sys.stdlib_module_names) - {"nccl_course", "__future__"}


def test_every_third_party_import_is_declared():
    declared = {canonicalize_name(r.name) for r in _requirements(None)}
    for extra in EXTRAS:
        declared |= {canonicalize_name(r.name) for r in _requirements(extra)}
    providers = importlib.metadata.packages_distributions()
    undeclared = []
    for module in sorted(_imported_top_level_modules()):
        dists = {canonicalize_name(d) for d in providers.get(module, [])}
        if not dists:
            undeclared.append(f"{module}: no installed distribution provides it")
        elif not dists & declared:
            undeclared.append(f"{module} (from {', '.join(sorted(dists))})")
    assert undeclared == [], (
        "src/nccl_course imports modules that pyproject.toml does not declare:\n"
        + "\n".join(undeclared)
    )


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory) -> Path:
    """A wheel built with pip from a clean copy of pyproject.toml, README.md and src/ (an
    in-tree build would reuse build/lib, which can hold files deleted from src since)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(
        REPO / "src",
        source / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"),
    )
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check"]
    command += ["-q", "--wheel-dir", str(tmp / "dist"), str(source)]
    try:  # the venv's setuptools builds it offline; otherwise pip fetches the build backend
        setuptools_ok = Version(importlib.metadata.version("setuptools")) >= Version("70.1")
    except importlib.metadata.PackageNotFoundError:
        setuptools_ok = False
    if setuptools_ok:
        command.insert(4, "--no-build-isolation")
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"pip wheel failed:\n{done.stdout}\n{done.stderr}"
    wheels = list((tmp / "dist").glob("nccl_course-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_holds_the_package_data(built_wheel):
    names = set(zipfile.ZipFile(built_wheel).namelist())
    missing = [name for name in REQUIRED_FILES if name not in names]
    assert missing == [], f"the wheel lacks: {missing}"
    in_tree = {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }
    left_out = sorted(in_tree - names)
    assert left_out == [], (
        "files under src/nccl_course that the wheel leaves out (add their suffix to "
        f"[tool.setuptools.package-data] in pyproject.toml): {left_out}"
    )


def test_wheel_metadata_declares_the_extras_and_the_command(built_wheel):
    with zipfile.ZipFile(built_wheel) as wheel:
        info = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = wheel.read(info).decode()
        entry_points = wheel.read(info.replace("METADATA", "entry_points.txt")).decode()
    extras = {line.split(": ", 1)[1] for line in metadata.splitlines() if "Provides-Extra" in line}
    assert extras == EXTRAS
    assert "nccl-course = nccl_course.cli:main" in entry_points


def test_a_missing_extra_is_named_not_a_traceback(monkeypatch, capsys):
    """A subcommand whose extra is not installed says which extra to install."""
    import argparse

    from nccl_course import cli

    def needs_pyld(args):
        raise ModuleNotFoundError("No module named 'pyld'", name="pyld")

    class Parser(argparse.ArgumentParser):
        def parse_args(self, argv=None):
            return argparse.Namespace(command="cert", func=needs_pyld)

    monkeypatch.setattr(cli, "build_parser", lambda: Parser())
    assert cli.main(["cert", "keygen"]) == 1
    err = capsys.readouterr().err
    assert 'pip install "nccl-course[certs]"' in err and "'pyld'" in err

    def needs_nothing_we_know(args):
        raise ModuleNotFoundError("No module named 'not_ours'", name="not_ours")

    monkeypatch.setattr(
        Parser,
        "parse_args",
        lambda self, argv=None: argparse.Namespace(command="cert", func=needs_nothing_we_know),
    )
    with pytest.raises(ModuleNotFoundError):  # a bug of ours stays a traceback
        cli.main(["cert", "keygen"])


def test_extra_providing_reads_the_installed_metadata():
    from nccl_course.cli import extra_providing

    assert extra_providing("fastapi") == "server"
    assert extra_providing("pyld") == "certs"
    assert extra_providing("psycopg") == "postgres"
    assert extra_providing("markdown_it", "serve") == "server"
    assert extra_providing("numpy") is None  # a core dependency: no extra brings it
    assert extra_providing("not_a_dependency") is None
