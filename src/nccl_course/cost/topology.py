"""Topologies (links with bandwidth and latency) and the cost of a schedule on one.

Every message of a schedule step travels a path of links; messages that share a link share its
bandwidth. A step (bulk synchronous, as the simulator defines it) takes

    max over messages m of ( latency(m) + max over links l on m's path of load(l) / bandwidth(l) )
    + gamma * (most bytes any one rank reduces in the step)

where load(l) is the bytes all of the step's messages put on link l. A schedule's time is the sum
over its steps. Units: bytes, seconds, bytes/s.

The topologies here give each rank one way out and one way in (full duplex), through a
non-blocking switch: a rank can send one message and receive one message at full speed at the same
time, and several messages through one port share it. This is the model under which Thakur,
Rabenseifner & Gropp (2005) state their closed forms, and how an NVSwitch box or a rail-optimised
network behaves to first order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nccl_course.sim.schedule import Schedule


@dataclass
class Topology:
    """``p`` ranks; link l has ``bandwidth_Bps[l]``. ``route(src, dst)`` gives, for arrays of
    message endpoints, the two links each message crosses (its sender's way out, its receiver's
    way in) and its latency in seconds."""

    name: str
    p: int
    bandwidth_Bps: np.ndarray
    gamma_s_per_byte: float
    _out_link: np.ndarray = field(repr=False)  # [p, p] link id leaving src towards dst
    _in_link: np.ndarray = field(repr=False)  # [p, p] link id entering dst from src
    _latency: np.ndarray = field(repr=False)  # [p, p] seconds

    def route(self, src: np.ndarray, dst: np.ndarray):
        return self._out_link[src, dst], self._in_link[src, dst], self._latency[src, dst]

    @classmethod
    def fully_connected(
        cls, p: int, alpha_s: float, bandwidth_Bps: float, gamma_s_per_byte: float = 0.0
    ) -> Topology:
        """Uniform, fully connected: every pair of ranks alpha seconds apart, each rank with one
        full-duplex port of ``bandwidth_Bps`` into a non-blocking switch."""
        ranks = np.arange(p)
        out_link = np.repeat(ranks[:, None], p, axis=1)
        in_link = p + np.repeat(ranks[None, :], p, axis=0)
        return cls(
            name=f"fully connected, {p} ranks",
            p=p,
            bandwidth_Bps=np.full(2 * p, float(bandwidth_Bps)),
            gamma_s_per_byte=gamma_s_per_byte,
            _out_link=out_link,
            _in_link=in_link,
            _latency=np.full((p, p), float(alpha_s)),
        )

    @classmethod
    def multi_node(
        cls,
        p: int,
        ranks_per_node: int,
        *,
        intra_alpha_s: float,
        intra_bandwidth_Bps: float,
        inter_alpha_s: float,
        inter_bandwidth_Bps: float,
        gamma_s_per_byte: float = 0.0,
    ) -> Topology:
        """Nodes of ``ranks_per_node`` GPUs on a switch (NVLink/NVSwitch or PCIe), every GPU with
        its own NIC into a non-blocking network (rail-optimised, one NIC per GPU). Rank r lives
        on node r // ranks_per_node (the last node may be partly filled). Traffic inside a node
        uses the GPUs' switch ports; traffic between nodes uses the two GPUs' NICs."""
        nodes = -(-p // ranks_per_node)
        ranks = np.arange(p)
        node = ranks // ranks_per_node
        same = node[:, None] == node[None, :]
        src = np.repeat(ranks[:, None], p, axis=1)
        dst = np.repeat(ranks[None, :], p, axis=0)
        # links: [0, p) GPU out, [p, 2p) GPU in, [2p, 3p) NIC out, [3p, 4p) NIC in
        out_link = np.where(same, src, 2 * p + src)
        in_link = np.where(same, p + dst, 3 * p + dst)
        bandwidth = np.concatenate(
            [np.full(2 * p, float(intra_bandwidth_Bps)), np.full(2 * p, float(inter_bandwidth_Bps))]
        )
        latency = np.where(same, float(intra_alpha_s), float(inter_alpha_s))
        return cls(
            name=f"{nodes} node(s) x {ranks_per_node} GPUs",
            p=p,
            bandwidth_Bps=bandwidth,
            gamma_s_per_byte=gamma_s_per_byte,
            _out_link=out_link,
            _in_link=in_link,
            _latency=latency,
        )


@dataclass
class StepCosts:
    """A schedule's cost on a topology, kept as the affine pieces of each step so that any number
    of sizes can be evaluated at once: step time(S) = max_m(latency_m + slope_m * S) + g * S,
    where S is the collective's nccl-tests size in bytes. ``starts[i]`` is the index of step i's
    first piece in ``latency`` and ``slope``."""

    latency: np.ndarray
    slope: np.ndarray
    starts: np.ndarray
    gamma_slope: np.ndarray

    @property
    def num_steps(self) -> int:
        return int(self.starts.size)

    def time(self, size_bytes) -> np.ndarray | float:
        sizes = np.atleast_1d(np.asarray(size_bytes, dtype=np.float64))
        if self.starts.size == 0:
            total = np.zeros_like(sizes)
        else:
            lines = self.latency[:, None] + self.slope[:, None] * sizes[None, :]
            total = np.maximum.reduceat(lines, self.starts, axis=0).sum(axis=0)
            total += float(np.sum(self.gamma_slope)) * sizes
        return total if np.ndim(size_bytes) else float(total[0])


def step_costs(schedule: Schedule, topology: Topology) -> StepCosts:
    """Per-step affine cost pieces of ``schedule`` on ``topology`` (see :class:`StepCosts`)."""
    if topology.p != schedule.p:
        raise ValueError(f"topology has {topology.p} ranks, schedule {schedule.p}")
    p = schedule.p
    steps = [s for s in schedule.step_arrays if len(s)]
    empty = np.zeros(0)
    if not steps:
        return StepCosts(empty, empty, np.zeros(0, dtype=np.int64), empty)
    per_chunk = 1.0 / schedule.size_chunks if schedule.size_chunks else 0.0  # bytes per S-byte
    n_links = topology.bandwidth_Bps.size
    step_id = np.repeat(np.arange(len(steps)), [len(s) for s in steps])
    src = np.concatenate([s.src for s in steps])
    dst = np.concatenate([s.dst for s in steps])
    red = np.concatenate([s.reduce for s in steps])
    # One message per (step, src, dst); its size in chunks.
    keys, chunks = np.unique((step_id * p + src) * p + dst, return_counts=True)
    m_step, m_src, m_dst = keys // (p * p), (keys // p) % p, keys % p
    out_l, in_l, lat = topology.route(m_src, m_dst)
    # Bytes (in chunks) each step puts on each link; links shared by messages share bandwidth.
    load = np.bincount(m_step * n_links + out_l, weights=chunks, minlength=len(steps) * n_links)
    load += np.bincount(m_step * n_links + in_l, weights=chunks, minlength=len(steps) * n_links)
    drain = load.reshape(len(steps), n_links) / topology.bandwidth_Bps  # s per chunk-byte
    slope = np.maximum(drain[m_step, out_l], drain[m_step, in_l]) * per_chunk
    # Messages with the same (step, latency, slope) are one line: keep one of each.
    rows = np.unique(np.stack([m_step.astype(float), lat, slope], axis=1), axis=0)
    starts = np.flatnonzero(np.r_[True, rows[1:, 0] != rows[:-1, 0]])
    reduced = np.bincount(step_id[red] * p + dst[red], minlength=len(steps) * p)
    gamma = topology.gamma_s_per_byte * reduced.reshape(len(steps), p).max(axis=1) * per_chunk
    return StepCosts(rows[:, 1].copy(), rows[:, 2].copy(), starts, gamma)


def schedule_time(schedule: Schedule, topology: Topology, size_bytes):
    """Seconds ``schedule`` takes on ``topology`` for a collective of nccl-tests size
    ``size_bytes`` (a number or an array of sizes)."""
    return step_costs(schedule, topology).time(size_bytes)
