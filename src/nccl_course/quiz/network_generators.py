"""Generators for the parameterized questions of ``quizzes/networks-at-scale.yml``.

Registered by name like the ones in :mod:`nccl_course.quiz.generators` (``nccl_course.quiz``
imports this module). Answers come from :mod:`nccl_course.cost.node_traffic`; the mistakes are
what a learner gets by forgetting the bytes that stay inside a node or the bits-to-bytes factor.
"""

from __future__ import annotations

import random

from nccl_course.cost.node_traffic import alltoall_split
from nccl_course.quiz.generators import Draw, generator

_NODES = [2, 3, 4, 8, 16]
_GPUS = [4, 8]
_NIC_GBIT = [200, 400, 800]  # InfiniBand HDR, NDR, XDR ports


@generator("alltoall_network_busbw")
def alltoall_network_busbw(rng: random.Random) -> Draw:
    """Bus bandwidth (GB/s) of a network-bound all-to-all with one NIC per GPU and rails.

    Params: nodes, gpus, nic_gbit, nic_gbps."""
    nodes, gpus, nic_gbit = rng.choice(_NODES), rng.choice(_GPUS), rng.choice(_NIC_GBIT)
    nic_bps = nic_gbit * 1e9 / 8
    # NVLink 4 (450 GB/s per direction) inside the node: slower than no NIC drawn here
    split = alltoall_split(2**30, nodes, gpus, nvlink_Bps=450e9, network_Bps=nic_bps)
    nic_gbps = nic_gbit / 8
    mistakes = [
        (nic_gbps, "That is the NIC speed. busbw also counts the chunks that stay in the node."),
        (float(nic_gbit), "That is the NIC speed in Gb/s; divide by 8 for GB/s first."),
    ]
    shown = {"nodes": nodes, "gpus": gpus, "nic_gbit": nic_gbit, "nic_gbps": f"{nic_gbps:g}"}
    return Draw(shown, split.busbw_GBps, mistakes)
