"""The :class:`Preset`: one system to predict on, its nominal links, NCCL's view of its nodes,
its network class and, for a learner's own preset, a calibration. The course's presets are in
:mod:`nccl_course.cost.presets`.

Units: seconds, bytes/s (GB/s = 1e9 bytes/s).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from nccl_course.cost.nccl.call_cost import Calibration
from nccl_course.cost.nccl.system import NcclHardware
from nccl_course.cost.topology import Topology


@dataclass(frozen=True)
class Preset:
    """A system to predict on. ``ranks``: GPUs in the default configuration; ``alpha_s`` and
    ``bandwidth_Bps``: latency and per-direction bandwidth of one GPU's link into its node's
    switch; ``gamma_s_per_byte``: reduction time per byte; multi-node presets also have
    ``inter_alpha_s`` and ``inter_bandwidth_Bps`` (one NIC per GPU). ``in_network_reduction``:
    the switch can add (NVLS), which enables the ``nvls`` all-reduce. ``nccl``: the node as
    NCCL's own model sees it (None: NCCL's model does not apply). ``network``: the class of
    network between nodes, which sets its achievable bandwidth in the call-cost model
    (:data:`nccl_course.cost.nccl.call_cost.NETWORKS`: "ib", "roce", "efa", "tcpxo"; None:
    one node). ``calibration``: a learner's fitted call-cost constants (a personal preset
    from ``nccl-course model --calibrate``; None for the course's presets)."""

    name: str
    description: str
    ranks: int
    alpha_s: float
    bandwidth_Bps: float
    gamma_s_per_byte: float
    source: tuple[str, ...]
    ranks_per_node: int = 8
    inter_alpha_s: float | None = None
    inter_bandwidth_Bps: float | None = None
    in_network_reduction: bool = False
    nccl: NcclHardware | None = None
    network: str | None = None
    calibration: Calibration | None = None

    def as_dict(self) -> dict:
        """The preset's numbers and sources as plain data (JSON-ready); with an NCCL description,
        also the GPU, its compute capability and the layout (GPUs per node, nodes)."""
        data = {
            "description": self.description,
            "ranks": self.ranks,
            "alpha_s": self.alpha_s,
            "bandwidth_Bps": self.bandwidth_Bps,
            "gamma_s_per_byte": self.gamma_s_per_byte,
            "ranks_per_node": self.ranks_per_node,
            "inter_alpha_s": self.inter_alpha_s,
            "inter_bandwidth_Bps": self.inter_bandwidth_Bps,
            "in_network_reduction": self.in_network_reduction,
            "source": list(self.source),
        }
        if self.nccl is not None:
            data["nccl"] = {
                "gpu": self.nccl.gpu,
                "compute_capability": self.nccl.compute_capability,
                "gpus_per_node": self.nccl.gpus_per_node,
                "nodes": self.nodes,
            }
        return data

    @property
    def nodes(self) -> int:
        return -(-self.ranks // self.ranks_per_node)

    @property
    def beta_s_per_byte(self) -> float:
        return 1.0 / self.bandwidth_Bps

    def topology(self, ranks: int | None = None) -> Topology:
        """The preset's topology for ``ranks`` GPUs (default: the preset's own count). A
        single-node preset asked for more ranks than it has is treated as one bigger switch."""
        p = self.ranks if ranks is None else int(ranks)
        if p < 1:
            raise ValueError(f"rank count must be at least 1, got {p}")
        if self.inter_bandwidth_Bps is None:
            return Topology.fully_connected(
                p, self.alpha_s, self.bandwidth_Bps, self.gamma_s_per_byte
            )
        return Topology.multi_node(
            p,
            self.ranks_per_node,
            intra_alpha_s=self.alpha_s,
            intra_bandwidth_Bps=self.bandwidth_Bps,
            inter_alpha_s=self.inter_alpha_s,
            inter_bandwidth_Bps=self.inter_bandwidth_Bps,
            gamma_s_per_byte=self.gamma_s_per_byte,
        )

    def one_gpu_per_node(self, nodes: int) -> Preset:
        """One GPU of each of ``nodes`` nodes of this multi-node preset, each with its own NIC:
        the group of GPUs that share a local rank (a rail), such as HSDP's replicate group or
        the communicator PAT needs (one rank per node). NCCL's model sees ``nodes`` nodes of
        one GPU and one NIC each."""
        if self.inter_bandwidth_Bps is None or self.nccl is None or not self.nccl.nics_per_node:
            raise ValueError(f"preset {self.name!r} has no network between nodes")
        if nodes < 2:
            raise ValueError(f"a group across nodes needs at least 2 nodes, got {nodes}")
        return replace(
            self,
            name=f"{self.name}-1gpu-x{nodes}",
            description=f"{nodes} nodes x 1 GPU of {self.name}, one NIC each",
            ranks=nodes,
            ranks_per_node=1,
            # the rail's GPU is the first of its node: on the first socket, where the NICs sit
            nccl=replace(self.nccl, gpus_per_node=1, nics_per_node=1, sockets=1),
        )
