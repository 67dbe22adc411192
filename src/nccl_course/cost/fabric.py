"""The network between nodes on its own: port rates, perftest's output, RoCE traffic classes.

Testing a fabric before NCCL runs on it means comparing what ``ib_write_bw`` (perftest) reports
with the port's rate, and that rate follows from the link generation. This module holds the
conversions and readers the chapter "Networks in the cloud" computes its figures with:

* port rates as NCCL 2.30.7 computes them: Mb/s per lane (``ibvSpeeds``) times the lanes of the
  port (``ibvWidths``; 4 for the x4 ports of HDR, NDR and XDR NICs), src/transport/net_ib/init.cc
  lines 116-139 of NVIDIA/nccl v2.30.7-1;
* perftest's units: MiB/s by default, Gb/s (1e9 bits) with ``--report_gbits``; perftest's own
  help gives the factor 10^9 / (2^20 x 8) = 119.2 (src/perftest_parameters.c, linux-rdma/perftest
  26.04);
* the pass floors Azure's node health checks apply to ``ib_write_bw`` from GPU memory
  (``check_ib_bw_gdr``, Azure/azurehpc-health-checks conf/nd96isr_h100_v5.conf and
  conf/nd96asr_v4.conf);
* the RoCE traffic class NCCL puts in the GRH (``NCCL_IB_TC``): RoCE v2 carries it as the IP
  header's traffic class byte, whose upper six bits are the DSCP (RFC 2474) and lower two the ECN
  field (RFC 3168).

Units: Gb/s = 1e9 bits/s, GB/s = 1e9 bytes/s, MiB/s = 2^20 bytes/s, as the names say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Mb/s per lane of each InfiniBand generation, NCCL 2.30.7's ``ibvSpeeds`` (QDR appears twice
#: there, for two verbs speed codes; once here). RoCE ports report the same codes.
IB_LANE_MBPS: dict[str, int] = {
    "SDR": 2_500,
    "DDR": 5_000,
    "QDR": 10_000,
    "FDR": 14_000,
    "EDR": 25_000,
    "HDR": 50_000,
    "NDR": 100_000,
    "XDR": 200_000,
}
#: Lanes of the ports GPU servers use (x4; NCCL's ``ibvWidths`` also knows 1, 2, 8 and 12).
PORT_LANES = 4
#: perftest's conversion: MiB/s per Gb/s (``--report_gbits`` help text).
MIB_S_PER_GBIT = 1e9 / (2**20 * 8)


def ib_port_gbit(generation: str, lanes: int = PORT_LANES) -> float:
    """Gb/s of a port of ``generation`` (e.g. "NDR") with ``lanes`` lanes, as NCCL computes it."""
    key = generation.upper()
    if key not in IB_LANE_MBPS:
        raise ValueError(
            f"unknown link generation {generation!r}; use one of {', '.join(IB_LANE_MBPS)}"
        )
    if lanes not in (1, 2, 4, 8, 12):
        raise ValueError(f"a port has 1, 2, 4, 8 or 12 lanes, not {lanes}")
    return IB_LANE_MBPS[key] * lanes / 1000


def gbit_to_GBps(gbit: float) -> float:
    """GB/s (1e9 bytes/s) of a rate in Gb/s (1e9 bits/s): eight bits to the byte."""
    return gbit / 8


def mib_s_to_gbit(mib_s: float) -> float:
    """Gb/s of a perftest figure printed in MiB/s (its default unit)."""
    return mib_s / MIB_S_PER_GBIT


@dataclass(frozen=True)
class HealthFloor:
    """A provider's pass floor for ``ib_write_bw`` from GPU memory on one port, in Gb/s."""

    vm_size: str
    port_gbit: float
    floor_gbit: float
    source: str

    @property
    def share(self) -> float:
        """The floor as a share of the port rate."""
        return self.floor_gbit / self.port_gbit


_AZNHC = "https://github.com/Azure/azurehpc-health-checks"
#: Azure's node health checks: ``check_hw_ib`` (the port's rate) and ``check_ib_bw_gdr`` (the
#: floor for ib_write_bw with 8 MiB messages from GPU memory, --use_cuda, each port alone).
AZURE_IB_WRITE_BW_FLOORS: tuple[HealthFloor, ...] = (
    HealthFloor(
        "Standard_ND96isr_H100_v5",
        400.0,
        375.0,
        f"{_AZNHC}/blob/06114325109659ce3c260b56d46aeab436fcfc15/conf/nd96isr_h100_v5.conf",
    ),
    HealthFloor(
        "Standard_ND96asr_v4",
        200.0,
        185.0,
        f"{_AZNHC}/blob/120095246e74e58a4414650c77e6d851520a838f/conf/nd96asr_v4.conf",
    ),
)


@dataclass(frozen=True)
class PerftestRow:
    """One result line of a perftest bandwidth test: message size in bytes, iterations, peak and
    average bandwidth (in the result's unit), message rate in millions per second."""

    size_bytes: int
    iterations: int
    peak: float
    average: float
    msg_rate_mpps: float


@dataclass(frozen=True)
class PerftestResult:
    """What a perftest bandwidth run printed: its rows, the unit ("Gb/sec" or "MB/sec", which is
    MiB/s), and the link type and GID index of its header ("" or None where not printed)."""

    rows: tuple[PerftestRow, ...]
    unit: str
    link_type: str = ""
    gid_index: int | None = None

    def average_gbit(self, row: PerftestRow) -> float:
        """A row's average bandwidth in Gb/s, whichever unit the run printed."""
        return row.average if self.unit == "Gb/sec" else mib_s_to_gbit(row.average)

    @property
    def best(self) -> PerftestRow:
        """The row with the highest average bandwidth."""
        return max(self.rows, key=lambda r: r.average)

    @property
    def best_gbit(self) -> float:
        """The highest average bandwidth, in Gb/s."""
        return self.average_gbit(self.best)


_PERF_HEADER = re.compile(r"#bytes\s+#iterations\s+BW peak\[(Gb/sec|MB/sec)\]\s+BW average\[")
_PERF_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$")
_LINK = re.compile(r"Link type\s*:\s*(\S+)")
_GID = re.compile(r"GID index\s*:\s*(\d+)")


def parse_perftest(text: str) -> PerftestResult:
    """Read the output of ``ib_write_bw``, ``ib_read_bw`` or ``ib_send_bw`` (either side).

    Raises ValueError, saying what is missing, when the text has no result table."""
    header = _PERF_HEADER.search(text)
    if header is None:
        raise ValueError(
            "no perftest result table found: expected a line '#bytes #iterations BW peak[...] "
            "BW average[...] ...'; pass the whole output of the client side"
        )
    rows = []
    for line in text[header.end() :].splitlines()[1:]:
        match = _PERF_ROW.match(line)
        if match is None:
            if rows:
                break
            continue
        size, iters, peak, avg, rate = match.groups()
        rows.append(PerftestRow(int(size), int(iters), float(peak), float(avg), float(rate)))
    if not rows:
        raise ValueError("the perftest result table has no rows: the run stopped before any size")
    link = _LINK.search(text)
    gid = _GID.search(text)
    return PerftestResult(
        tuple(rows),
        header.group(1),
        link.group(1) if link else "",
        int(gid.group(1)) if gid else None,
    )


def roce_traffic_class(dscp: int, ecn: int = 0) -> int:
    """The 8-bit traffic class (``NCCL_IB_TC``, perftest's ``--tclass``) that puts RoCE v2
    packets in DSCP ``dscp`` (0-63) with ECN field ``ecn`` (0-3): DSCP in the upper six bits."""
    if not 0 <= dscp <= 63:
        raise ValueError(f"a DSCP is 6 bits (0-63), not {dscp}")
    if not 0 <= ecn <= 3:
        raise ValueError(f"the ECN field is 2 bits (0-3), not {ecn}")
    return dscp << 2 | ecn


def dscp_of(traffic_class: int) -> int:
    """The DSCP (upper six bits) of an 8-bit traffic class such as ``NCCL_IB_TC``."""
    if not 0 <= traffic_class <= 255:
        raise ValueError(f"a traffic class is one byte (0-255), not {traffic_class}")
    return traffic_class >> 2
