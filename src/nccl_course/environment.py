"""What a lab user needs to know about this machine: Python, torch, CUDA, GPUs, NCCL, topology.

Used by ``nccl-course doctor`` and recorded by the benchmark harness next to every result, so a
number never travels without the versions and topology that produced it.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import socket
import subprocess
from dataclasses import asdict, dataclass, field

# nvidia-smi underlines the header of `topo -m` and `topo -p2p` with ESC[4m ... ESC[0m (CSI "select
# graphic rendition" sequences); kept, they corrupt the JSON record and the first column's name.
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

# NVIDIA's CUDA and framework images set NCCL_VERSION to the NCCL their Dockerfile installed. It
# labels the image; it is not a setting NCCL reads, and the NCCL torch loads may be another one.
IMAGE_NCCL_LABEL = "NCCL_VERSION"


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences (colours, underline)."""
    return _ANSI_ESCAPE.sub("", text)


@dataclass
class Environment:
    python: str
    platform: str
    host: str
    torch: str | None = None
    torch_error: str | None = None
    cuda_available: bool = False
    cuda_version: str | None = None
    nccl_version: str | None = None
    gloo_available: bool = False
    nccl_available: bool = False
    gpu_count: int = 0
    gpu_names: list[str] = field(default_factory=list)
    driver_version: str | None = None
    topology_matrix: str | None = None
    nccl_env: dict[str, str] = field(default_factory=dict)
    # the image's NCCL_VERSION label (see IMAGE_NCCL_LABEL), kept apart from the NCCL in use
    image_nccl_label: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def _nvidia_smi(*args: str) -> str | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def collect() -> Environment:
    """Gather the environment without failing: missing pieces are recorded as None."""
    env = Environment(
        python=platform.python_version(),
        platform=platform.platform(),
        host=socket.gethostname(),
        nccl_env={
            k: v
            for k, v in sorted(os.environ.items())
            if k.startswith(("NCCL_", "TORCH_NCCL_")) and k != IMAGE_NCCL_LABEL
        },
        image_nccl_label=os.environ.get(IMAGE_NCCL_LABEL),
    )
    try:
        import torch
        import torch.distributed as dist
    except Exception as exc:  # an ImportError, or a broken CUDA install raising at import
        env.torch_error = f"{type(exc).__name__}: {exc}"
        return env
    env.torch = torch.__version__
    env.cuda_version = torch.version.cuda
    env.gloo_available = dist.is_available() and dist.is_gloo_available()
    env.nccl_available = dist.is_available() and dist.is_nccl_available()
    env.cuda_available = torch.cuda.is_available()
    if env.cuda_available:
        env.gpu_count = torch.cuda.device_count()
        env.gpu_names = [torch.cuda.get_device_name(i) for i in range(env.gpu_count)]
        try:
            env.nccl_version = ".".join(str(x) for x in torch.cuda.nccl.version())
        except Exception:
            env.nccl_version = None
    driver = _nvidia_smi("--query-gpu=driver_version", "--format=csv,noheader")
    if driver:
        env.driver_version = driver.splitlines()[0].strip()
    matrix = _nvidia_smi("topo", "-m")
    env.topology_matrix = strip_ansi(matrix) if matrix else None
    return env


def report(env: Environment) -> str:
    """A human-readable report, one fact per line, with advice where something is missing."""
    lines = [
        f"Python         {env.python} on {env.platform}",
        f"Host           {env.host}",
    ]
    if env.torch is None:
        lines.append(f"torch          not importable ({env.torch_error})")
        return "\n".join(lines)
    lines += [
        f"torch          {env.torch}",
        f"CUDA           {'available, CUDA ' + str(env.cuda_version) if env.cuda_available else 'not available (labs run on CPU with gloo)'}",
        f"GPUs           {env.gpu_count}"
        + (": " + ", ".join(env.gpu_names) if env.gpu_names else ""),
    ]
    if env.driver_version:
        lines.append(f"Driver         {env.driver_version}")
    lines.append(
        f"NCCL           {env.nccl_version} (the library torch loads)"
        if env.nccl_version
        else "NCCL           not in use (no CUDA GPU)"
    )
    if env.image_nccl_label:
        lines.append(
            f"Image label    {IMAGE_NCCL_LABEL}={env.image_nccl_label} (set by the container "
            "image; not the NCCL torch loads)"
        )
    lines.append(f"gloo           {'available' if env.gloo_available else 'NOT available'}")
    backend = "nccl" if env.cuda_available and env.nccl_available and env.gpu_count > 0 else "gloo"
    lines.append(
        f"Labs will use  {backend}"
        + (f" on {env.gpu_count} GPU(s)" if backend == "nccl" else " on CPU processes")
    )
    if env.nccl_env:
        lines.append("NCCL variables " + " ".join(f"{k}={v}" for k, v in env.nccl_env.items()))
    if env.topology_matrix:
        lines.append("GPU topology (nvidia-smi topo -m):")
        lines.append(env.topology_matrix.rstrip())
    elif env.cuda_available:
        lines.append("GPU topology   nvidia-smi not found: cannot print the link matrix")
    return "\n".join(lines)
