"""Generators for the parameterized questions of ``quizzes/networks-at-scale.yml`` and
``quizzes/cloud-networks.yml``.

Registered by name like the ones in :mod:`nccl_course.quiz.generators` (``nccl_course.quiz``
imports this module). Answers come from :mod:`nccl_course.cost.node_traffic` and
:mod:`nccl_course.cost.fabric`; the mistakes are what a learner gets by forgetting the bytes that
stay inside a node, the bits-to-bytes factor, a port's lanes or where the DSCP sits in a byte.
"""

from __future__ import annotations

import random

from nccl_course.cost.fabric import PORT_LANES, gbit_to_GBps, ib_port_gbit, roce_traffic_class
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


# Generations whose x4 ports GPU servers use: HDR (200G), NDR (400G), XDR (800G).
_GENERATIONS = ["HDR", "NDR", "XDR"]


@generator("nic_port_GBps")
def nic_port_GBps(rng: random.Random) -> Draw:
    """GB/s that a node's x4 InfiniBand (or RoCE) ports carry together, per direction, at raw rate.

    Params: nics, generation, lane_gbit (Gb/s per lane, NCCL's table)."""
    nics, generation = rng.choice([1, 2, 4, 8]), rng.choice(_GENERATIONS)
    port_gbit = ib_port_gbit(generation)
    lane_gbit = port_gbit / PORT_LANES
    mistakes = [
        (nics * port_gbit, "That is the rate in Gb/s; divide by 8 for GB/s."),
        (gbit_to_GBps(port_gbit), "That is one port; multiply by the number of ports."),
        (nics * gbit_to_GBps(lane_gbit), "That counts one lane per port; an x4 port has four."),
        (nics * port_gbit / 10, "Eight bits make a byte; dividing by 10 is a line-coding habit."),
    ]
    shown = {"nics": nics, "generation": generation, "lane_gbit": f"{lane_gbit:g}"}
    return Draw(shown, nics * gbit_to_GBps(port_gbit), mistakes)


@generator("roce_tc_from_dscp")
def roce_tc_from_dscp(rng: random.Random) -> Draw:
    """The NCCL_IB_TC value that puts RoCE v2 traffic in a given DSCP (ECN bits left 0).

    Params: dscp."""
    dscp = rng.choice([10, 18, 24, 26, 34, 40, 46, 48])
    mistakes = [
        (
            float(dscp),
            "That is the DSCP itself; NCCL_IB_TC is the whole byte, DSCP in its upper six bits.",
        ),
        (float(dscp * 2), "The DSCP sits two bits up, so multiply by 4, not 2."),
    ]
    return Draw({"dscp": dscp}, float(roce_traffic_class(dscp)), mistakes)
