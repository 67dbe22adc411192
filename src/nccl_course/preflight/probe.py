"""The one seam between the checks and the machine.

Every check reads the machine through a :class:`Probe`: file text, directory listings, a
filesystem's size, environment variables, the locked-memory limit, a command's output, a TCP
connection and what torch reports. :class:`SystemProbe` asks the operating system; the tests give
the checks a probe built from outputs captured on real machines, so each check is tested on the
machines it is meant for without having them.
"""

from __future__ import annotations

import os
import resource
import shutil
import socket
import subprocess
import time
import warnings
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class FsStats:
    """A filesystem's size as ``statvfs`` reports it: ``block_size`` bytes per block."""

    block_size: int
    blocks: int
    blocks_free: int

    @property
    def total_bytes(self) -> int:
        return self.block_size * self.blocks

    @property
    def free_bytes(self) -> int:
        return self.block_size * self.blocks_free


@dataclass(frozen=True)
class TorchInfo:
    """What the installed torch says about CUDA. ``cuda`` is ``torch.version.cuda`` (None for a
    CPU build); ``nccl`` the NCCL version torch loads ("2.27.7"); ``cuda_error`` the warning torch
    gave when CUDA failed to initialise (e.g. "Error 802: system not yet initialized")."""

    version: str
    cuda: str | None = None
    device_count: int = 0
    nccl: str | None = None
    cuda_error: str | None = None


@dataclass(frozen=True)
class Connection:
    """The result of a TCP connect: ``error`` is None when something accepted it."""

    error: str | None = None
    seconds: float = 0.0


class Probe(Protocol):
    """How the checks read the machine. Every method answers None for "not there"."""

    def read_text(self, path: str) -> str | None: ...

    def list_dir(self, path: str) -> list[str] | None: ...

    def statvfs(self, path: str) -> FsStats | None: ...

    def env(self, name: str) -> str | None: ...

    def memlock_limit(self) -> int | None:
        """RLIMIT_MEMLOCK's soft limit in bytes; None when unlimited."""
        ...

    def run(self, *argv: str) -> str | None:
        """The command's standard output when it exits 0; None when missing or failing."""
        ...

    def connect(self, host: str, port: int, timeout_s: float) -> Connection: ...

    def torch(self) -> TorchInfo | None:
        """None when torch does not import."""
        ...


@dataclass
class SystemProbe:
    """The real machine. ``command_timeout_s`` bounds each command (nvidia-smi can hang on a
    GPU that fell off the bus)."""

    command_timeout_s: float = 20.0
    _torch: tuple[TorchInfo | None] | None = field(default=None, init=False, repr=False)

    def read_text(self, path: str) -> str | None:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError:
            return None

    def list_dir(self, path: str) -> list[str] | None:
        try:
            return sorted(os.listdir(path))
        except OSError:
            return None

    def statvfs(self, path: str) -> FsStats | None:
        try:
            st = os.statvfs(path)
        except OSError:
            return None
        return FsStats(block_size=st.f_frsize, blocks=st.f_blocks, blocks_free=st.f_bavail)

    def env(self, name: str) -> str | None:
        return os.environ.get(name)

    def memlock_limit(self) -> int | None:
        soft, _hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)
        return None if soft == resource.RLIM_INFINITY else soft

    def run(self, *argv: str) -> str | None:
        exe = shutil.which(argv[0])
        if exe is None:
            return None
        try:
            done = subprocess.run(
                [exe, *argv[1:]], capture_output=True, text=True, timeout=self.command_timeout_s
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    def connect(self, host: str, port: int, timeout_s: float) -> Connection:
        start = time.monotonic()
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                pass
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            if isinstance(exc, TimeoutError):
                reason = f"no answer within {timeout_s:g} s"
            return Connection(error=reason, seconds=time.monotonic() - start)
        return Connection(error=None, seconds=time.monotonic() - start)

    def torch(self) -> TorchInfo | None:
        if self._torch is None:
            self._torch = (_read_torch(),)
        return self._torch[0]


def _read_torch() -> TorchInfo | None:
    try:
        import torch
    except Exception:  # an ImportError, or a broken CUDA install raising at import
        return None
    # torch reports a failed CUDA start (old driver, fabric manager down) as a warning and
    # answers "no GPU"; keep the warning, it names the cause.
    errors: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            available = torch.cuda.is_available()
            count = torch.cuda.device_count() if available else 0
        except Exception as exc:  # a driver error raised instead of warned
            errors.append(str(exc))
            count = 0
    errors += [str(w.message) for w in caught]
    cuda_error = next((e.strip() for e in errors if "CUDA" in e or "cuda" in e), None)
    nccl = None
    if torch.version.cuda:
        try:
            nccl = ".".join(str(part) for part in torch.cuda.nccl.version())
        except Exception:  # a build without NCCL
            nccl = None
    return TorchInfo(
        version=torch.__version__,
        cuda=torch.version.cuda,
        device_count=count,
        nccl=nccl,
        cuda_error=cuda_error,
    )
