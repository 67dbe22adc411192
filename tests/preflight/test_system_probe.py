"""The real probe on this machine: files, folders, a filesystem, commands, limits."""

from __future__ import annotations

import os
import resource

from nccl_course.preflight import SystemProbe


def test_files_and_folders(tmp_path):
    (tmp_path / "a.conf").write_text("NCCL_DEBUG=WARN\n")
    (tmp_path / "sub").mkdir()
    probe = SystemProbe()
    assert probe.read_text(str(tmp_path / "a.conf")) == "NCCL_DEBUG=WARN\n"
    assert probe.read_text(str(tmp_path / "missing")) is None
    assert probe.list_dir(str(tmp_path)) == ["a.conf", "sub"]
    assert probe.list_dir(str(tmp_path / "missing")) is None


def test_filesystem_size_matches_statvfs(tmp_path):
    stats = SystemProbe().statvfs(str(tmp_path))
    st = os.statvfs(tmp_path)
    assert stats.total_bytes == st.f_frsize * st.f_blocks > 0
    assert SystemProbe().statvfs(str(tmp_path / "missing")) is None


def test_commands():
    probe = SystemProbe()
    assert probe.run("sh", "-c", "echo hello") == "hello\n"
    assert probe.run("sh", "-c", "echo partial; exit 3") is None
    assert probe.run("no-such-command-for-nccl-course") is None


def test_memlock_limit_is_the_soft_limit():
    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    expected = None if soft == resource.RLIM_INFINITY else soft
    assert SystemProbe().memlock_limit() == expected


def test_environment(monkeypatch):
    monkeypatch.setenv("NCCL_SOCKET_IFNAME", "=eth0")
    assert SystemProbe().env("NCCL_SOCKET_IFNAME") == "=eth0"
    assert SystemProbe().env("NCCL_COURSE_NOT_SET_ANYWHERE") is None
