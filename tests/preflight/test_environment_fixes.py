"""environment.py: the topology matrix without terminal escapes, and NCCL_VERSION shown as the
image's label rather than the NCCL in use."""

from __future__ import annotations

import os
import stat

from nccl_course.environment import collect, report, strip_ansi


def test_strip_ansi_leaves_plain_text_alone(captured):
    plain = captured("topo_m_hgx_h100.txt")
    assert strip_ansi(plain) == plain
    assert strip_ansi("\x1b[1;31mFAIL\x1b[0m") == "FAIL"


def test_collect_strips_escapes_from_nvidia_smi(tmp_path, monkeypatch, captured):
    """A stand-in nvidia-smi on PATH that prints the terminal (underlined) capture."""
    topo = tmp_path / "topo.txt"
    topo.write_text(captured("topo_m_hgx_h100_tty.txt"))
    script = tmp_path / "nvidia-smi"
    script.write_text(f'#!/bin/sh\nif [ "$1" = topo ]; then cat {topo}; else echo 565.57.01; fi\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    env = collect()
    assert env.topology_matrix == captured("topo_m_hgx_h100.txt")
    assert "\x1b" not in report(env)


def test_image_nccl_version_is_a_label(monkeypatch):
    monkeypatch.setenv("NCCL_VERSION", "2.28.3-1")
    monkeypatch.setenv("NCCL_DEBUG", "WARN")
    env = collect()
    assert env.image_nccl_label == "2.28.3-1"
    assert env.nccl_env.get("NCCL_DEBUG") == "WARN"
    assert "NCCL_VERSION" not in env.nccl_env
    text = report(env)
    assert (
        "Image label    NCCL_VERSION=2.28.3-1 (set by the container image; not the NCCL torch loads)"
        in text
    )
    assert "NCCL_VERSION" not in next(
        line for line in text.splitlines() if line.startswith("NCCL variables")
    )
