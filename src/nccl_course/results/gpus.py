"""Which hardware preset (:mod:`nccl_course.cost.presets`) describes the GPUs a bundle names.

GPU names are what ``torch.cuda.get_device_name`` returns ("NVIDIA H100 80GB HBM3", "NVIDIA
A100-SXM4-80GB", "NVIDIA H100 PCIe"). A :class:`GpuFamily` ties a name pattern to the presets
whose node holds such GPUs: the one-node presets (without NVLink SHARP first, then with it)
and the preset whose node, with its NICs, stands for several nodes (8 NICs of 400 Gb/s for
H100 and H200, 8 of 200 Gb/s for A100, 8 of 800 Gb/s for B200; a cloud's own preset, such as
``h100-efa-2node`` or ``b200-ib-ndr-2node``, is there to pick by name). The L40S (PCIe only) has no multi-node
preset. Names no family matches (H100 NVL and H200 NVL: PCIe cards paired by NVLink bridges;
H800; GH200; GB200 and GB300, whose trays are either one NVLink domain or 4-GPU nodes, see
``gb200-nvl72`` and ``gb200-4gpu-2node``) get no preset, and the report says so rather than
price them on the wrong node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class GpuFamily:
    """GPUs whose name matches ``pattern`` (case-insensitive): ``one_node``: preset names for
    one node, NVLS-less first; ``multi_node``: the preset for several nodes (None: none)."""

    name: str
    pattern: str
    one_node: tuple[str, ...]
    multi_node: str | None = None

    def matches(self, gpu_name: str) -> bool:
        return re.search(self.pattern, gpu_name, re.IGNORECASE) is not None


#: In the order tried: the PCIe cards before the SXM parts whose names they share.
FAMILIES = (
    GpuFamily("H100 PCIe", r"\bH100\b.*\bPCIe\b", ("pcie-gen5",)),
    GpuFamily("A100 PCIe", r"\bA100\b.*\bPCIe\b", ("pcie-gen4",)),
    GpuFamily("L40S", r"\bL40S\b", ("l40s-pcie",)),
    GpuFamily(
        "H100 SXM", r"\bH100\b(?!.*\b(PCIe|NVL)\b)", ("h100-nvlink", "h100-nvls"), "ib-ndr-2node"
    ),
    GpuFamily(
        "H200 SXM",
        r"\bH200\b(?!.*\b(PCIe|NVL)\b)",
        ("h200-nvlink", "h200-nvls"),
        "a3-ultra-2node",
    ),
    GpuFamily("A100 SXM", r"\bA100\b(?!.*\bPCIe\b)", ("a100-nvlink",), "a100-ib-hdr-2node"),
    GpuFamily("B200", r"\bB200\b", ("b200-nvls",), "ib-xdr-2node"),
)


def family_of(gpu_names: list[str] | tuple[str, ...]) -> GpuFamily | None:
    """The family every one of ``gpu_names`` belongs to; None for no names, an unknown GPU, or
    a mix of families (a preset describes one kind of node)."""
    families = set()
    for name in gpu_names:
        family = next((f for f in FAMILIES if f.matches(name)), None)
        if family is None:
            return None
        families.add(family)
    return families.pop() if len(families) == 1 else None


def describe_families() -> str:
    """One line naming the GPUs that have a preset, for messages."""
    return ", ".join(f.name for f in FAMILIES)
