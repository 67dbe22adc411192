"""The foundation: the CLI, doctor, sizes with units, the torch installer, repo hygiene."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nccl_course.units import format_size, parse_size


def run_cli(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nccl_course", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_help_lists_doctor():
    done = run_cli("--help")
    assert done.returncode == 0
    assert "doctor" in done.stdout


def test_doctor_reports_this_machine():
    import torch

    done = run_cli("doctor")
    assert done.returncode == 0, done.stderr
    assert f"torch          {torch.__version__}" in done.stdout
    assert "gloo           available" in done.stdout
    expected = "nccl" if torch.cuda.is_available() else "gloo"
    assert f"Labs will use  {expected}" in done.stdout


def test_doctor_json_is_machine_readable():
    import json

    done = run_cli("doctor", "--json")
    report = json.loads(done.stdout)
    assert report["environment"]["gloo_available"] is True
    assert report["environment"]["python"].count(".") == 2


def test_doctor_without_torch_exits_with_advice(tmp_path):
    # A sitecustomize that hides torch makes the import fail the way a missing install does.
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ModuleNotFoundError(\"No module named 'torch'\")\n"
        "sys.meta_path.insert(0, _Hide())\n"
    )
    import os

    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    done = run_cli("doctor", env=env)
    assert done.returncode == 1
    assert "torch          not importable" in done.stdout
    assert "make setup" in done.stderr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8", 8),
        ("64KiB", 64 * 1024),
        ("64MiB", 64 * 1024**2),
        ("1GiB", 1024**3),
        ("1.5GB", 1_500_000_000),
        ("4 kB", 4000),
        (1024, 1024),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["", "MiB", "12 parsecs", "-4", "0.5B"])
def test_parse_size_rejects_with_a_message(bad):
    with pytest.raises(ValueError, match="size|unit"):
        parse_size(bad)


def test_format_size_round_trips():
    for nbytes in (1, 1023, 1024, 3 * 1024**2, 5 * 1024**3):
        assert parse_size(format_size(nbytes).replace(" ", "")) == nbytes


def test_format_size_never_writes_an_exponent():
    # 1073740800 B: a 1 GiB row of nccl-tests rounded down to a multiple of the ranks' share
    assert format_size(1_073_740_800) == "1024 MiB"
    assert format_size(1.5 * 1024**2) == "1.5 MiB"
    assert format_size(123.4 * 1024**2) == "123 MiB"
    assert all("e" not in format_size(n).split()[0] for n in range(1000 * 1024, 1024**2, 997))


def test_install_torch_keeps_an_existing_torch(repo_root):
    done = subprocess.run(
        [sys.executable, str(repo_root / "scripts" / "install_torch.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    assert "already installed" in done.stdout
    assert "keeping it" in done.stdout


def test_no_ipynb_is_committed(repo_root):
    tracked = subprocess.run(
        ["git", "ls-files", "*.ipynb"], cwd=repo_root, capture_output=True, text=True
    ).stdout.split()
    assert tracked == [], f"notebooks must be MyST text, not .ipynb: {tracked}"


def test_book_config_loads_nothing_from_a_cdn(repo_root):
    """The offline extension is configured and the JavaScript it ships is locked; the built
    pages themselves are scanned for external loads in tests/test_built_book.py."""
    config = (repo_root / "_config.yml").read_text()
    assert "nccl_course.book.offline_assets" in config
    lock = (repo_root / "package-lock.json").read_text()
    for package in ("mathjax", "uplot"):
        assert f'"node_modules/{package}"' in lock


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8", 8),
        ("1K", 1024),
        ("1k", 1024),
        ("1M", 2**20),
        ("64MB", 64 * 2**20),  # nccl-tests reads the first letter only
        ("64MiB", 64 * 2**20),
        ("1G", 2**30),
        ("1.5G", 3 * 2**29),
        (16, 16),
    ],
)
def test_parse_nccl_tests_size_reads_like_nccl_tests(text, expected):
    from nccl_course.units import parse_nccl_tests_size

    assert parse_nccl_tests_size(text) == expected


@pytest.mark.parametrize("text", ["1T", "", "K", "1.3K", "-5", "1X"])
def test_parse_nccl_tests_size_refuses_what_nccl_tests_refuses(text):
    from nccl_course.units import parse_nccl_tests_size

    with pytest.raises(ValueError, match="nccl-tests"):
        parse_nccl_tests_size(text)
