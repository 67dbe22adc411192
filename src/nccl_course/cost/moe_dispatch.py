"""One MoE layer's forward communication (dispatch and combine), issued by the host or initiated
by a kernel: a latency-bound model that counts what each way costs on the host's side.

**Host-initiated** (``torch.distributed.all_to_all_single`` with unequal splits, as lab 07 does):

1. an all-to-all of the token counts, so that every rank knows how much it will receive;
2. a round trip to the host: the host reads those counts (a device-to-host copy it waits for)
   to size the receive buffer and pass the splits of the next call;
3. the all-to-all of the tokens (dispatch);
4. later, the all-to-all that brings the experts' outputs back (combine), whose splits are
   known by then.

**Device-initiated** (a kernel that puts data itself: NCCL's device API, DeepEP, NCCL EP): one
kernel for dispatch writes each peer's tokens straight into that peer's registered buffer and
then a count (a signal) the peer's kernel waits for; one kernel for combine. Two launches, no
round trip to the host.

Every host-issued call, and the host's wait, costs the fixed per-call cost of the harness that
drives it (:data:`nccl_course.cost.nccl.call_cost.HARNESSES`, fitted on published sweeps). Pricing
the round trip as one more such cost is this model's assumption: it is a copy the host launches
and then waits for. The device path pays the same cost for each of its own launches.

Transfers are direct exchanges: every rank sends one message to every other rank at once,
priced on the preset's topology (:class:`nccl_course.cost.topology.Topology`): the slowest
message's latency plus the time the busiest port it uses needs to drain. Both paths move the
same bytes with the same exchange, so the difference between them is only calls and waits.
Routing is uniform: each token goes to ``top_k`` experts spread evenly over the ranks, one copy
per (token, expert) pair, none merged.

Units: seconds, bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nccl_course.cost.nccl.call_cost import HARNESSES
from nccl_course.cost.preset import Preset
from nccl_course.cost.presets import get_preset
from nccl_course.cost.topology import Topology

__all__ = [
    "COUNT_BYTES",
    "DEVICE_LAUNCHES",
    "HOST_CALLS",
    "HOST_ROUND_TRIPS",
    "MoeLayerCost",
    "bytes_per_peer",
    "exchange_time",
    "moe_layer_cost",
]

#: Host-initiated: collective calls per layer's forward (counts, dispatch, combine).
HOST_CALLS = 3
#: Host-initiated: waits of the host for the device per layer's forward (reading the counts).
HOST_ROUND_TRIPS = 1
#: Device-initiated: kernel launches per layer's forward (dispatch, combine).
DEVICE_LAUNCHES = 2
#: Bytes of the count each rank sends each peer (one int64: how many token copies follow).
COUNT_BYTES = 8


def bytes_per_peer(
    tokens: int, hidden: int, top_k: int, bytes_per_element: int, ranks: int
) -> float:
    """Bytes one rank sends each other rank in a dispatch (and gets back in the combine):
    ``tokens x top_k`` token copies of ``hidden x bytes_per_element`` bytes, spread evenly over
    ``ranks`` ranks."""
    for name, value in (
        ("tokens", tokens),
        ("hidden", hidden),
        ("top_k", top_k),
        ("bytes_per_element", bytes_per_element),
    ):
        if value < 0 or (name != "tokens" and value == 0):
            raise ValueError(f"{name} must be positive (tokens may be 0), got {value}")
    if ranks < 2:
        raise ValueError(f"an exchange needs at least 2 ranks, got {ranks}")
    return tokens * top_k * hidden * bytes_per_element / ranks


def exchange_time(topology: Topology, nbytes: float) -> float:
    """Seconds for every rank to send ``nbytes`` to every other rank at once (one message per
    ordered pair): max over messages of (latency + the longer drain of its two ports), where a
    port's drain is the bytes all messages put on it over its bandwidth."""
    p = topology.p
    src, dst = np.nonzero(~np.eye(p, dtype=bool))
    out_link, in_link, latency = topology.route(src, dst)
    n_links = topology.bandwidth_Bps.size
    load = np.bincount(out_link, minlength=n_links) + np.bincount(in_link, minlength=n_links)
    drain = load * float(nbytes) / topology.bandwidth_Bps
    return float(np.max(latency + np.maximum(drain[out_link], drain[in_link])))


@dataclass(frozen=True)
class MoeLayerCost:
    """One MoE layer's forward communication on one preset, in seconds. ``tokens_s``: one
    exchange of the tokens (dispatch or combine); ``counts_s``: one exchange of the counts;
    ``fixed_s``: the harness's cost of one host-issued call, launch or wait."""

    tokens_s: float
    counts_s: float
    fixed_s: float

    @property
    def host_s(self) -> float:
        """Host-initiated: counts, round trip, dispatch, combine."""
        return (HOST_CALLS + HOST_ROUND_TRIPS) * self.fixed_s + self.counts_s + 2 * self.tokens_s

    @property
    def device_s(self) -> float:
        """Device-initiated: two launches; dispatch sends the counts after its tokens."""
        return DEVICE_LAUNCHES * self.fixed_s + self.counts_s + 2 * self.tokens_s

    @property
    def saved_s(self) -> float:
        return self.host_s - self.device_s

    @property
    def saved_share(self) -> float:
        """Share of the host-initiated time that the device-initiated path saves (0 to 1)."""
        return self.saved_s / self.host_s


def moe_layer_cost(
    preset: str | Preset,
    tokens: int,
    *,
    hidden: int,
    top_k: int,
    bytes_per_element: int = 2,
    ranks: int | None = None,
    harness: str = "torch.distributed",
) -> MoeLayerCost:
    """The forward communication of one MoE layer with ``tokens`` tokens per rank on ``preset``
    (``ranks``: default the preset's own count), host calls priced as ``harness``."""
    if harness not in HARNESSES:
        raise ValueError(f"unknown harness {harness!r}; known: {', '.join(HARNESSES)}")
    system = get_preset(preset)
    topology = system.topology(ranks)
    per_peer = bytes_per_peer(tokens, hidden, top_k, bytes_per_element, topology.p)
    return MoeLayerCost(
        tokens_s=exchange_time(topology, per_peer),
        counts_s=exchange_time(topology, COUNT_BYTES),
        fixed_s=HARNESSES[harness].fixed_us * 1e-6,
    )
