"""The set-up targets as make runs them, with python3, npm and the venv's python replaced by
scripts that log their arguments: which commands each target runs, in a scratch copy."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PREREQUISITES = [
    "requirements/lock.txt",
    "requirements/labs.txt",
    "pyproject.toml",
    "package.json",
    "package-lock.json",
    "scripts/install_torch.py",
]


def _logger(path: Path, log: Path, body: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "{path.name} $*" >> "{log}"\n{body}exit 0\n')
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def scratch(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    for name in ["Makefile", *PREREQUISITES]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    log = tmp_path / "calls.log"
    venv_python = tmp_path / ".venv" / "bin" / "python"
    # python3 -m venv ... creates the venv's python (itself a logger), as the real one would.
    make_venv = f'[ "$1" = "-m" ] && [ "$2" = "venv" ] && {{ mkdir -p .venv/bin; cp "{tmp_path}/venv-python" "{venv_python}"; }}\n'
    _logger(tmp_path / "venv-python", log)
    _logger(tmp_path / "bin" / "python3", log, make_venv)
    _logger(tmp_path / "bin" / "npm", log)
    env = dict(os.environ, PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    return tmp_path, log, env


def _make(scratch, target: str) -> list[str]:
    folder, log, env = scratch
    done = subprocess.run(["make", target], cwd=folder, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    calls = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return calls


def test_setup_labs_reuses_the_image_packages_and_needs_no_node(scratch):
    calls = _make(scratch, "setup-labs")
    assert calls[0] == "python3 -m venv --system-site-packages .venv"
    assert any("-r requirements/labs.txt" in c for c in calls)
    assert any(c.startswith("venv-python scripts/install_torch.py") for c in calls)
    assert not any(c.startswith("npm") for c in calls)


def test_setup_keeps_an_existing_venv(scratch):
    folder, _, _ = scratch
    _make(scratch, "setup-labs")  # a GPU node's venv, made with the system's site packages
    calls = _make(scratch, "setup")
    # Re-running 'python3 -m venv .venv' would switch the system site packages off again.
    assert not any(c.startswith("python3 -m venv") for c in calls)
    assert any("-r requirements/lock.txt" in c for c in calls)
    assert "npm ci --no-audit --no-fund --loglevel=error" in calls
    assert (folder / ".venv" / ".setup-done").exists()
