"""The GPUs, the driver and the torch build: can torch see every GPU the driver lists, can this
driver run this torch, which NCCL torch loads, and can the GPUs reach each other directly."""

from __future__ import annotations

from nccl_course.environment import IMAGE_NCCL_LABEL
from nccl_course.preflight.check import Finding, fail, not_applicable, ok, warn
from nccl_course.preflight.context import Context

# The legend of `nvidia-smi topo -p2p`.
P2P_STATUS = {
    "OK": "OK",
    "CNS": "chipset not supported",
    "GNS": "GPU not supported",
    "TNS": "topology not supported",
    "NS": "not supported",
    "DR": "disabled by regkey",
    "U": "unknown",
}


def version_tuple(version: str) -> tuple[int, ...]:
    """ "12.4" -> (12, 4); the parts that are numbers, in order."""
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def _driver(ctx: Context) -> str:
    header = ctx.smi_header
    if header.driver is None:
        return "driver unknown"
    return f"driver {header.driver}" + (f" (CUDA {header.cuda})" if header.cuda else "")


def gpu_p2p(ctx: Context) -> Finding:
    if ctx.gpu_count < 2:
        return not_applicable(f"{ctx.gpu_count} GPU(s): no pair to connect")
    matrix = ctx.p2p
    if not matrix:
        return not_applicable("nvidia-smi topo -p2p r gave no matrix")
    pairs: dict[tuple[int, int], set[str]] = {}
    for (a, b), status in matrix.items():
        pairs.setdefault((min(a, b), max(a, b)), set()).add(status)
    blocked = {pair: s - {"OK"} for pair, s in sorted(pairs.items()) if s - {"OK"}}
    if not blocked:
        return ok(f"peer access OK between all {len(pairs)} GPU pairs")
    shown = [
        f"GPU{a}-GPU{b} {'/'.join(sorted(s))} ({P2P_STATUS.get(sorted(s)[0], 'unknown')})"
        for (a, b), s in list(blocked.items())[:4]
    ]
    more = f" and {len(blocked) - 4} more" if len(blocked) > 4 else ""
    return warn(
        f"no peer access for {len(blocked)} of {len(pairs)} GPU pairs: {', '.join(shown)}{more}; "
        "NCCL copies through host memory (SHM) instead",
        "in a VM ask for PCIe ACS disabled and the IOMMU in passthrough (or a bare-metal node); "
        "if NCCL hangs in P2P, NCCL_P2P_DISABLE=1 is the workaround",
    )


def gpus_visible(ctx: Context) -> Finding:
    listed = ctx.gpu_count
    if listed == 0:
        return not_applicable("nvidia-smi lists no GPU (no NVIDIA driver here)")
    torch = ctx.torch
    if torch is None:
        return fail(
            f"nvidia-smi lists {listed} GPU(s) but torch does not import",
            "python scripts/install_torch.py --force",
        )
    visible = ctx.probe.env("CUDA_VISIBLE_DEVICES")
    expected = listed if visible is None else min(listed, len([v for v in visible.split(",") if v]))
    build = f"torch {torch.version} (CUDA {torch.cuda or 'none: a CPU build'})"
    masked = f", CUDA_VISIBLE_DEVICES={visible}" if visible is not None else ""
    if torch.device_count >= expected:
        return ok(f"{build} sees {torch.device_count} of {listed} GPUs{masked}")
    detail = f"nvidia-smi lists {listed} GPU(s), {build} sees {torch.device_count}; {_driver(ctx)}"
    error = (torch.cuda_error or "").splitlines()
    if error:
        detail += f"; torch: {error[0][:160]}"
    driver_cuda = ctx.smi_header.cuda
    if torch.cuda is None:
        fix = "install a CUDA build of torch: python scripts/install_torch.py --force"
    elif driver_cuda and version_tuple(torch.cuda)[0] > version_tuple(driver_cuda)[0]:
        fix = f"this torch needs a newer driver: install a torch built for CUDA {driver_cuda} or older, or upgrade the driver"
    elif "802" in (torch.cuda_error or "") or "not yet initialized" in (torch.cuda_error or ""):
        fix = "on NVSwitch systems (HGX/DGX) start nvidia-fabricmanager, of the driver's version"
    else:
        fix = (
            "check CUDA_VISIBLE_DEVICES and that the container got the GPUs (docker run --gpus all)"
        )
    return fail(detail, fix)


def cuda_driver(ctx: Context) -> Finding:
    # The rule (NVIDIA's CUDA Compatibility guide, "Minor Version Compatibility",
    # https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html): since
    # CUDA 11 a program built with any toolkit of a major release runs on a driver of that same
    # major release (>= 450 for 11.x, >= 525 for 12.x, >= 580 for 13.x), without the features of
    # the newer minor; a newer major release needs a newer driver.
    driver_cuda = ctx.smi_header.cuda
    if driver_cuda is None:
        return not_applicable("no NVIDIA driver (nvidia-smi shows no CUDA Version)")
    torch = ctx.torch
    if torch is None or torch.cuda is None:
        which = (
            "torch does not import" if torch is None else f"torch {torch.version} is a CPU build"
        )
        return not_applicable(f"{_driver(ctx)}; {which}, so no CUDA to compare")
    wheel, driver = version_tuple(torch.cuda), version_tuple(driver_cuda)
    found = f"torch {torch.version} is built for CUDA {torch.cuda}; {_driver(ctx)}"
    if wheel[0] > driver[0]:
        index = f"https://download.pytorch.org/whl/cu{''.join(map(str, driver[:2]))}"
        return fail(
            f"{found}: the driver is too old for this torch",
            f"install a torch built for CUDA {driver_cuda} or older (pip's index {index}) or "
            "upgrade the NVIDIA driver",
        )
    if wheel > driver:
        return ok(f"{found}: runs under CUDA minor-version compatibility")
    return ok(found)


def nccl_version(ctx: Context) -> Finding:
    label = ctx.probe.env(IMAGE_NCCL_LABEL)
    note = (
        f"; {IMAGE_NCCL_LABEL}={label} is the container image's label, not the NCCL torch loads"
        if label
        else ""
    )
    torch = ctx.torch
    if torch is None or torch.cuda is None or not torch.nccl:
        return not_applicable(f"no CUDA build of torch, so no NCCL{note}")
    return ok(f"torch {torch.version} loads NCCL {torch.nccl}{note}")
