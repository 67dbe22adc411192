"""NCCL's rules for GPUs and NICs behind CPUs (two sockets, no PCIe switch, NICs on CPU root
ports): the paths, peer-to-peer and GPUDirect RDMA decisions, and the rings the search keeps,
each checked against a computation by hand or by brute force over ring orders."""

from __future__ import annotations

from itertools import combinations_with_replacement, permutations

import pytest

from nccl_course.cost import get_preset
from nccl_course.cost.nccl import system_for
from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.system import NcclHardware, NcclSystem, gpu_path, nic_path
from nccl_course.cost.presets import PRESETS
from nccl_course.cost.sweeps import get_sweep

SKYLAKE_GEN3 = NcclHardware(
    "A100 PCIe", 80, 4, pcie_gen=3, sockets=2, cpu_model="SKL", pcie_switch=False
)


def test_paths_of_a_two_socket_intel_box_by_hand():
    # PCIe Gen3 x16: 16 lanes x 8 GT/s -> 16 x 60 / 80 = 12 GB/s in NCCL's units
    same = gpu_path(SKYLAKE_GEN3, True, 4)
    cross = gpu_path(SKYLAKE_GEN3, False, 4)
    assert (same.type, same.bw, same.direct) == ("PHB", 12.0, False)
    # across the sockets the Skylake-class link (10 GB/s) is narrower than PCIe
    assert (cross.type, cross.bw, cross.direct) == ("SYS", 10.0, False)


@pytest.mark.parametrize(
    ("vendor", "model", "gpus", "bw", "direct"),
    [
        ("Intel", "BDW", 4, 6.0, False),
        ("Intel", "SRP", 2, 22.0, False),
        ("Intel", "ERP", 2, 24.0, False),  # Gen4 x16 (24) is narrower than 40
        ("AMD", "", 2, 16.0, True),  # AMD: P2P across sockets with at most 2 GPUs
        ("AMD", "", 4, 16.0, False),
    ],
)
def test_cross_socket_bandwidth_and_p2p_by_cpu(vendor, model, gpus, bw, direct):
    hw = NcclHardware(
        "GPU", 80, 4, pcie_gen=4, sockets=2, cpu_vendor=vendor, cpu_model=model, pcie_switch=False
    )
    path = gpu_path(hw, False, gpus)
    assert (path.type, path.bw, path.direct) == ("SYS", bw, direct)


def test_a_shared_switch_keeps_p2p_and_nics_on_the_cpu_lose_gdr():
    switch = NcclHardware("GPU", 80, 8, pcie_gen=4, nics_per_node=8, nic_gbit=200.0)
    assert gpu_path(switch, True, 8).direct and nic_path(switch, 0).direct
    node = get_preset("l40s-roce-2x2").nccl
    near, far = nic_path(node, 0), nic_path(node, 1)
    # 400 Gb/s = 50 GB/s, PCIe Gen4 x16 = 24, AMD's inter-socket link 16
    assert (near.type, near.bw, near.direct) == ("PHB", 24.0, False)
    assert (far.type, far.bw, far.direct) == ("SYS", 16.0, False)


def _best_ring_total(loads_of, capacity, speeds, max_bw, max_channels=4):
    """The largest channels x speed over every multiset of ring orders, at the speeds NCCL's
    first pass tries (search.cc lines 1170-1173 and 1244-1248: from the fastest not above the
    fastest path, down while the next speed is above 0.49 of the best graph's), where
    ``loads_of[order]`` gives the units of speed one channel puts on each link."""
    orders = list(loads_of)
    best, best_speed = 0.0, None
    tried = [s for s in speeds if s <= max_bw]
    for s in tried:
        if best_speed is not None and s / best_speed <= 0.49:
            break
        for k in range(1, max_channels + 1):
            for chosen in combinations_with_replacement(orders, k):
                load: dict = {}
                for order in chosen:
                    for link, units in loads_of[order].items():
                        load[link] = load.get(link, 0.0) + units * s
                if all(v <= capacity[link] + 1e-9 for link, v in load.items()) and k * s > best:
                    best, best_speed = k * s, s
    return best


def test_four_gpu_two_socket_ring_is_the_best_by_brute_force():
    hw = SKYLAKE_GEN3
    socket = {g: g // 2 for g in range(4)}
    capacity = {("up", g): hw.pcie_bw for g in range(4)}
    capacity |= {("down", g): hw.pcie_bw for g in range(4)}
    capacity |= {("qpi", 0): hw.inter_cpu_bw, ("qpi", 1): hw.inter_cpu_bw}
    loads_of = {}
    for rest in permutations(range(1, 4)):
        order = (0, *rest)
        loads: dict = {}
        for a, b in zip(order, order[1:] + order[:1], strict=True):
            # a hop within a socket goes through the Intel root complex: 6/5 on PCIe
            units = 1.0 if socket[a] != socket[b] else 1.2
            loads[("up", a)] = loads.get(("up", a), 0) + units
            loads[("down", b)] = loads.get(("down", b), 0) + units
            if socket[a] != socket[b]:
                loads[("qpi", socket[a])] = loads.get(("qpi", socket[a]), 0) + 1
        loads_of[order] = loads
    # the fastest GPU-GPU path is one socket's: 12 GB/s
    best = _best_ring_total(loads_of, capacity, T.SPEEDS_INTRA["pre_sm90"], hw.pcie_bw)
    ring = NcclSystem(hw, 1, 4).graphs["Ring"]
    assert best == 10.0  # the link between the sockets, once each way per channel
    assert (ring.n_channels, ring.bw_intra, ring.type_intra) == (1, 10.0, "SYS")
    assert ring.n_channels * ring.bw_intra == best


def test_two_by_two_l40s_ring_is_the_best_by_brute_force():
    hw = get_preset("l40s-roce-2x2").nccl
    capacity = {("up", g): hw.pcie_bw for g in range(2)}
    capacity |= {("down", g): hw.pcie_bw for g in range(2)}
    capacity |= {("qpi", 0): hw.inter_cpu_bw, ("qpi", 1): hw.inter_cpu_bw}
    capacity |= {("nic", n): min(hw.nic_bw, hw.pcie_bw) for n in range(hw.nics_per_node)}
    loads_of = {}
    for nic in range(hw.nics_per_node):
        for first, last in ((0, 1), (1, 0)):
            # NIC (socket 0) -> first GPU -> last GPU -> NIC, GPU g on socket g
            loads = {("nic", nic): 1, ("down", first): 1, ("up", first): 1}
            loads |= {("down", last): 1, ("up", last): 1}
            loads[("qpi", 0)] = 1  # into socket 1 once
            loads[("qpi", 1)] = 1  # and back once
            loads_of[(nic, first)] = loads
    # the fastest GPU-NIC path is the first socket's: 24 GB/s
    best = _best_ring_total(loads_of, capacity, T.SPEEDS_INTER["pre_sm90"], 24.0)
    system = system_for("l40s-roce-2x2")
    ring = system.graphs["Ring"]
    assert (system.nodes, system.gpus_per_node) == (2, 2)
    assert best == 15.0  # the fastest of NCCL's speeds under AMD's 16 GB/s
    assert (ring.n_channels, ring.bw_intra, ring.type_inter) == (1, 15.0, "SYS")


def test_fewer_gpus_fill_the_first_socket():
    system = NcclSystem(SKYLAKE_GEN3, 1, 2)
    assert system.sockets_used == 1
    assert system.graphs["Ring"].type_intra == "PHB"
    assert NcclSystem(SKYLAKE_GEN3, 1, 3).sockets_used == 2


def test_hardware_the_rules_do_not_cover_is_refused():
    with pytest.raises(ValueError, match="cpu_model"):
        NcclHardware("GPU", 80, 4, sockets=2)
    with pytest.raises(ValueError, match="2 sockets|1 or 2"):
        NcclHardware("GPU", 80, 3, sockets=2, cpu_vendor="AMD")


def test_only_the_two_socket_presets_go_through_the_cpus():
    # every other preset keeps one switch (or NVSwitch) per node and its numbers
    through = {n for n, p in PRESETS.items() if p.nccl is not None and p.nccl.through_cpus}
    assert through == {"a100-pcie-2socket", "l40s-roce-2x2"}


@pytest.mark.parametrize(
    ("sweep_id", "preset"),
    [
        ("panoramic-4xa100-pcie", "a100-pcie-2socket"),
        ("nvidia-tools-image-2x2xl40s-allreduce", "l40s-roce-2x2"),
    ],
)
def test_the_sweeps_are_priced_on_their_machines(sweep_id, preset):
    sweep = get_sweep(sweep_id)
    assert sweep.preset == preset
    hw = get_preset(preset).nccl
    assert hw.gpus_per_node == sweep.metadata["gpus_per_node"]
    assert get_preset(preset).nodes == sweep.metadata["nodes"]


def test_one_gpu_per_node_of_a_two_socket_preset_is_the_first_sockets_gpu():
    from nccl_course.cost.presets import one_gpu_per_node

    rail = one_gpu_per_node("l40s-roce-2x2", 2)
    system = system_for(rail)
    assert (rail.nccl.sockets, system.sockets_used) == (1, 1)
    # the NIC on the same socket's root port: PHB, and the GPU's PCIe Gen4 x16 (24 GB/s)
    # carries the channel's send and receive, one each way
    assert system.graphs["Ring"].type_inter == "PHB"
    assert system.graphs["Ring"].n_channels * system.graphs["Ring"].bw_inter == 24.0
