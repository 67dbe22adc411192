"""scripts/install_torch.py's rule for GPU machines: a torch the driver can run, read from the
CUDA version nvidia-smi prints (real headers captured in tests/preflight/captured/)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CAPTURED = REPO / "tests" / "preflight" / "captured"


@pytest.fixture(scope="module")
def installer():
    spec = importlib.util.spec_from_file_location(
        "install_torch", REPO / "scripts/install_torch.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_driver_cuda_is_read_from_real_headers(installer):
    h100 = (CAPTURED / "nvidia_smi_hgx_h100_565.txt").read_text()
    old = (CAPTURED / "nvidia_smi_header_470.txt").read_text()
    assert installer.driver_cuda(h100) == (12, 7)
    assert installer.driver_cuda(old) == (11, 4)
    assert installer.driver_cuda("NVIDIA-SMI has failed") is None


@pytest.mark.parametrize(
    ("driver", "index"),
    [
        ((13, 0), None),  # PyPI's CUDA 13.0 wheel
        ((13, 1), None),
        ((12, 9), "https://download.pytorch.org/whl/cu128"),
        ((12, 8), "https://download.pytorch.org/whl/cu128"),
        ((12, 7), "https://download.pytorch.org/whl/cu126"),  # driver 565 (the H100 capture)
        ((12, 2), "https://download.pytorch.org/whl/cu126"),  # R535: minor-version compatibility
    ],
)
def test_the_wheel_never_needs_a_newer_cuda_than_the_driver(installer, driver, index):
    assert installer.cuda_index_for(driver) == index


def test_a_cuda_11_driver_is_refused_with_what_to_do(installer):
    with pytest.raises(ValueError, match="upgrade the driver"):
        installer.cuda_index_for((11, 4))
