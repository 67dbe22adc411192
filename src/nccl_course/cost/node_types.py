"""The node types several presets share: 8-GPU Hopper and Blackwell boxes, the A100 node with
NICs, as NCCL 2.30.7's topology detection sees them (:class:`NcclHardware`), and the NVLink
links of the textbook model (alpha in seconds, bandwidth in bytes/s per direction, gamma 0:
NCCL fuses the reduction into its copies). Sources are on the presets that use them
(:mod:`nccl_course.cost.presets`).
"""

from __future__ import annotations

from nccl_course.cost.nccl.system import NcclHardware

GB = 1e9

NVLINK3_LINK = dict(alpha_s=0.6e-6, bandwidth_Bps=300 * GB, gamma_s_per_byte=0.0)
NVLINK4_LINK = dict(alpha_s=0.6e-6, bandwidth_Bps=450 * GB, gamma_s_per_byte=0.0)
NVLINK5_LINK = dict(alpha_s=0.6e-6, bandwidth_Bps=900 * GB, gamma_s_per_byte=0.0)


def hopper_node(
    gpu: str, nvls: bool, nics: int = 0, nic_gbit: float = 0.0, cpu_vendor: str = "Intel"
) -> NcclHardware:
    """8 Hopper GPUs (sm_90) with 18 NVLinks each to NVSwitch, PCIe Gen5 x16, optional NICs."""
    return NcclHardware(
        gpu,
        90,
        8,
        nvlink_links=18,
        pcie_gen=5,
        nics_per_node=nics,
        nic_gbit=nic_gbit,
        nvls=nvls,
        cpu_vendor=cpu_vendor,
    )


def blackwell_node(gpu: str, gpus: int = 8, nics: int = 0, nic_gbit: float = 0.0) -> NcclHardware:
    """Blackwell GPUs (sm_100) with 18 NVLink 5 links each to NVSwitch and NVLS, PCIe Gen5 x16,
    optional NICs."""
    return NcclHardware(
        gpu,
        100,
        gpus,
        nvlink_links=18,
        pcie_gen=5,
        nics_per_node=nics,
        nic_gbit=nic_gbit,
        nvls=True,
    )


#: 8 H100 SXM with NVLS and 8 x 400 Gb/s NICs.
H100_NET_NODE = hopper_node("H100 SXM", nvls=True, nics=8, nic_gbit=400.0)
#: 8 A100 SXM (12 NVLink 3 links each), PCIe Gen4, 8 x 200 Gb/s NICs, AMD hosts.
A100_NET_NODE = NcclHardware(
    "A100 SXM",
    80,
    8,
    nvlink_links=12,
    pcie_gen=4,
    nics_per_node=8,
    nic_gbit=200.0,
    cpu_vendor="AMD",
)
