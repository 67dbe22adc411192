"""A probe that answers from outputs captured on real machines (tests/preflight/captured/).

The checks read the machine only through the probe, so a check fed a captured ``nvidia-smi``,
NCCL log or ``df`` behaves as it would on the machine that printed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from nccl_course.preflight import Connection, FsStats, TorchInfo

CAPTURED = Path(__file__).parent / "captured"


def read_captured(name: str) -> str:
    return (CAPTURED / name).read_text(encoding="utf-8")


@dataclass
class FakeProbe:
    """``files``: path -> text; ``dirs``: path -> names (listings not implied by ``files``);
    ``commands``: argv tuple -> stdout; ``fs``: path -> FsStats; ``memlock``: bytes or None for
    unlimited; ``torch_info``: what torch reports (None: torch does not import);
    ``connections``: (host, port) -> Connection (default: refused)."""

    files: dict[str, str] = field(default_factory=dict)
    dirs: dict[str, list[str]] = field(default_factory=dict)
    commands: dict[tuple[str, ...], str] = field(default_factory=dict)
    environ: dict[str, str] = field(default_factory=dict)
    fs: dict[str, FsStats] = field(default_factory=dict)
    memlock: int | None = 8 << 20
    torch_info: TorchInfo | None = None
    connections: dict[tuple[str, int], Connection] = field(default_factory=dict)

    def read_text(self, path: str) -> str | None:
        return self.files.get(path)

    def list_dir(self, path: str) -> list[str] | None:
        prefix = path.rstrip("/") + "/"
        implied = {key[len(prefix) :].split("/")[0] for key in self.files if key.startswith(prefix)}
        implied |= {key[len(prefix) :].split("/")[0] for key in self.dirs if key.startswith(prefix)}
        if path not in self.dirs and not implied:
            return None
        return sorted(set(self.dirs.get(path, [])) | implied)

    def statvfs(self, path: str) -> FsStats | None:
        return self.fs.get(path)

    def env(self, name: str) -> str | None:
        return self.environ.get(name)

    def memlock_limit(self) -> int | None:
        return self.memlock

    def run(self, *argv: str) -> str | None:
        return self.commands.get(tuple(argv))

    def connect(self, host: str, port: int, timeout_s: float) -> Connection:
        return self.connections.get((host, port), Connection(error="Connection refused"))

    def torch(self) -> TorchInfo | None:
        return self.torch_info


def sysfs_from_ibstat(ibstat: str) -> dict[str, str]:
    """The /sys/class/infiniband files of the HCAs an ``ibstat`` printout shows (each CA's port 1
    link layer, the file NCCL and the check read)."""
    files = {}
    for block in re.split(r"(?m)^CA '", ibstat)[1:]:
        name = block.split("'", 1)[0]
        layer = re.search(r"Link layer: (\S+)", block).group(1)
        files[f"/sys/class/infiniband/{name}/ports/1/link_layer"] = layer + "\n"
    return files


def efa_devices_from_fi_info(fi_info: str) -> list[str]:
    """The EFA verbs devices behind ``fi_info -p efa``'s RDM domains (``rdmap79s0-rdm``)."""
    return re.findall(r"domain: (\S+)-rdm", fi_info)


@pytest.fixture
def captured():
    return read_captured


@pytest.fixture
def fake_probe():
    return FakeProbe


@pytest.fixture
def ibstat_sysfs():
    return sysfs_from_ibstat


@pytest.fixture
def efa_devices():
    return efa_devices_from_fi_info
