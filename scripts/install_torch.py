"""Install the pinned torch into the current interpreter without pulling the wrong build.

Rules, in order:
1. A torch that already imports is kept as it is (a CUDA build on a GPU box is never replaced),
   unless --force is given.
2. On Linux without an NVIDIA driver, the CPU build (``torch==X+cpu``) is installed: first from
   whatever pip already sees (a local wheel folder or a mirror), then from PyTorch's CPU index.
   Plain ``pip install torch`` on Linux would download a multi-GB CUDA build.
3. With an NVIDIA driver (``nvidia-smi`` works), the default CUDA build from PyPI is installed.
4. On macOS and Windows PyPI's wheels are CPU builds already.

Environment: TORCH_VERSION (default below), TORCH_CPU_INDEX_URL (default PyTorch's CPU index).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys

DEFAULT_TORCH_VERSION = "2.13.0"
DEFAULT_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def installed_torch() -> str | None:
    """Return the version string of an importable torch, or None."""
    probe = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__, torch.version.cuda)"],
        capture_output=True,
        text=True,
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


def has_nvidia_driver() -> bool:
    if shutil.which("nvidia-smi") is None:
        return False
    return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


def pip_install(*args: str) -> int:
    cmd = [sys.executable, "-m", "pip", "install", "--only-binary=torch", *args]
    print("+", " ".join(cmd), flush=True)
    return subprocess.call(cmd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="reinstall even if torch imports")
    parser.add_argument("--version", default=os.environ.get("TORCH_VERSION", DEFAULT_TORCH_VERSION))
    args = parser.parse_args(argv)

    present = installed_torch()
    if present and not args.force:
        print(f"torch already installed ({present}); keeping it. Use --force to replace it.")
        return 0

    system = platform.system()
    if system == "Linux" and not has_nvidia_driver():
        spec = f"torch=={args.version}+cpu"
        if pip_install(spec) == 0:
            return 0
        index = os.environ.get("TORCH_CPU_INDEX_URL", DEFAULT_CPU_INDEX)
        print(f"{spec} not found where pip looks; trying PyTorch's CPU index {index}", flush=True)
        rc = pip_install(spec, "--extra-index-url", index)
        if rc != 0:
            print(
                f"error: could not install {spec}. Set TORCH_CPU_INDEX_URL to a mirror of PyTorch's"
                " CPU wheels, or install a torch yourself and run make setup again.",
                file=sys.stderr,
            )
        return rc
    # A GPU box (CUDA build from PyPI) or macOS/Windows (CPU builds on PyPI).
    return pip_install(f"torch=={args.version}")


if __name__ == "__main__":
    sys.exit(main())
