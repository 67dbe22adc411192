"""gpu_p2p, gpus_visible, cuda_driver and nccl_version on captured nvidia-smi outputs."""

from __future__ import annotations

from nccl_course.preflight import TorchInfo
from nccl_course.preflight.checks_gpu import cuda_driver, gpu_p2p, gpus_visible, nccl_version
from nccl_course.preflight.context import Context


def gpus(n: int) -> str:
    return "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i})\n" for i in range(n))


def smi(captured, header="nvidia_smi_hgx_h100_565.txt", listing=None, p2p=None) -> dict:
    commands = {("nvidia-smi",): captured(header)}
    commands[("nvidia-smi", "-L")] = listing if listing is not None else gpus(8)
    if p2p:
        commands[("nvidia-smi", "topo", "-p2p", "r")] = captured(p2p)
    return commands


def test_blocked_peer_access_warns(fake_probe, captured):
    probe = fake_probe(commands=smi(captured, listing=gpus(2), p2p="topo_p2p_gns_2gpu.txt"))
    found = gpu_p2p(Context(probe))
    assert found.status == "warn"
    assert found.detail == (
        "no peer access for 1 of 1 GPU pairs: GPU0-GPU1 GNS (GPU not supported); "
        "NCCL copies through host memory (SHM) instead"
    )
    assert "NCCL_P2P_DISABLE=1" in found.fix and "ACS" in found.fix


def test_full_peer_access_passes(fake_probe, captured):
    probe = fake_probe(commands=smi(captured, listing=gpus(5), p2p="topo_p2p_ok_5gpu.txt"))
    found = gpu_p2p(Context(probe))
    assert (found.status, found.detail) == ("ok", "peer access OK between all 10 GPU pairs")


def test_peer_access_needs_two_gpus(fake_probe, captured):
    assert gpu_p2p(Context(fake_probe())).status == "n/a"
    assert gpu_p2p(Context(fake_probe(commands=smi(captured, listing=gpus(1))))).status == "n/a"


# torch's warning when the NVSwitch fabric is not up (dstackai/dstack#2348 quotes it in full)
ERROR_802 = (
    "CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
    "functions before calling NumCudaDevices() that might have already set an error? Error 802: "
    "system not yet initialized"
)


def test_fabric_manager_down_fails(fake_probe, captured):
    listing = captured("nvidia_smi_L_h200.txt")
    torch = TorchInfo(
        "2.7.0+cu128", cuda="12.8", device_count=0, nccl="2.26.2", cuda_error=ERROR_802
    )
    probe = fake_probe(commands=smi(captured, listing=listing), torch_info=torch)
    found = gpus_visible(Context(probe))
    assert found.status == "fail"
    assert found.detail.startswith(
        "nvidia-smi lists 1 GPU(s), torch 2.7.0+cu128 (CUDA 12.8) sees 0; "
        "driver 565.57.01 (CUDA 12.7); torch: CUDA initialization: Unexpected error"
    )
    assert "nvidia-fabricmanager" in found.fix


def test_cpu_wheel_on_a_gpu_node_fails(fake_probe, captured):
    torch = TorchInfo("2.13.0+cpu", cuda=None, device_count=0)
    probe = fake_probe(commands=smi(captured), torch_info=torch)
    found = gpus_visible(Context(probe))
    assert found.status == "fail"
    assert found.detail == (
        "nvidia-smi lists 8 GPU(s), torch 2.13.0+cpu (CUDA none: a CPU build) sees 0; "
        "driver 565.57.01 (CUDA 12.7)"
    )
    assert found.fix == "install a CUDA build of torch: python scripts/install_torch.py --force"


def test_wheel_newer_than_the_driver_is_named_as_the_cause(fake_probe, captured):
    torch = TorchInfo("2.5.1+cu121", cuda="12.1", device_count=0)
    probe = fake_probe(commands=smi(captured, header="nvidia_smi_header_470.txt"), torch_info=torch)
    found = gpus_visible(Context(probe))
    assert found.status == "fail"
    assert found.fix.startswith("this torch needs a newer driver")


def test_all_gpus_visible_passes(fake_probe, captured):
    torch = TorchInfo("2.6.0+cu124", cuda="12.4", device_count=8, nccl="2.21.5")
    found = gpus_visible(Context(fake_probe(commands=smi(captured), torch_info=torch)))
    assert (found.status, found.detail) == ("ok", "torch 2.6.0+cu124 (CUDA 12.4) sees 8 of 8 GPUs")


def test_cuda_visible_devices_lowers_the_expectation(fake_probe, captured):
    torch = TorchInfo("2.6.0+cu124", cuda="12.4", device_count=2)
    probe = fake_probe(
        commands=smi(captured), torch_info=torch, environ={"CUDA_VISIBLE_DEVICES": "0,1"}
    )
    found = gpus_visible(Context(probe))
    assert (found.status, found.detail) == (
        "ok",
        "torch 2.6.0+cu124 (CUDA 12.4) sees 2 of 8 GPUs, CUDA_VISIBLE_DEVICES=0,1",
    )


def test_no_driver_means_no_gpu_checks(fake_probe):
    ctx = Context(fake_probe(torch_info=TorchInfo("2.13.0+cpu")))
    assert [f.status for f in (gpus_visible(ctx), cuda_driver(ctx), nccl_version(ctx))] == [
        "n/a"
    ] * 3


def test_cuda_12_wheel_on_a_cuda_11_driver_fails(fake_probe, captured):
    torch = TorchInfo("2.5.1+cu121", cuda="12.1", device_count=0)
    probe = fake_probe(commands=smi(captured, header="nvidia_smi_header_470.txt"), torch_info=torch)
    found = cuda_driver(Context(probe))
    assert found.status == "fail"
    assert found.detail == (
        "torch 2.5.1+cu121 is built for CUDA 12.1; driver 470.86 (CUDA 11.4): "
        "the driver is too old for this torch"
    )
    assert "https://download.pytorch.org/whl/cu114" in found.fix


def test_older_wheel_on_a_newer_driver_passes(fake_probe, captured):
    torch = TorchInfo("2.6.0+cu124", cuda="12.4", device_count=8)
    found = cuda_driver(Context(fake_probe(commands=smi(captured), torch_info=torch)))
    assert (found.status, found.detail) == (
        "ok",
        "torch 2.6.0+cu124 is built for CUDA 12.4; driver 565.57.01 (CUDA 12.7)",
    )


def test_newer_minor_of_the_same_major_passes(fake_probe, captured):
    torch = TorchInfo("2.7.0+cu128", cuda="12.8", device_count=8)
    found = cuda_driver(Context(fake_probe(commands=smi(captured), torch_info=torch)))
    assert found.status == "ok"
    assert found.detail.endswith("runs under CUDA minor-version compatibility")


def test_nccl_version_separates_the_image_label(fake_probe, captured):
    torch = TorchInfo("2.9.0+cu128", cuda="12.8", device_count=8, nccl="2.28.9")
    probe = fake_probe(
        commands=smi(captured), torch_info=torch, environ={"NCCL_VERSION": "2.28.3-1"}
    )
    found = nccl_version(Context(probe))
    assert (found.status, found.detail) == (
        "ok",
        "torch 2.9.0+cu128 loads NCCL 2.28.9; NCCL_VERSION=2.28.3-1 is the container image's "
        "label, not the NCCL torch loads",
    )


def test_nccl_version_without_cuda(fake_probe):
    probe = fake_probe(torch_info=TorchInfo("2.13.0+cpu"), environ={"NCCL_VERSION": "2.28.3-1"})
    found = nccl_version(Context(probe))
    assert found.status == "n/a"
    assert "image's label" in found.detail
