"""The memory and start-up chapter's numbers, checked against the course's memory and bootstrap
models and against independent arithmetic, and its release-dependent facts pinned to the text.

NCCL's facts were read in the tagged sources: NCCL_RUNTIME_CONNECT first in src/init.cc of
v2.22.3-1 (default 1); ncclCommInitRankScalable and the bootstrap stagger first in v2.23.4-1;
"Init timings" from v2.22.3-1 and "Bootstrap timings" from v2.23.4-1; splitShare and
ncclCommSplit from v2.18.1-1; config maxCTAs from v2.17.1-1; ncclCommMemStats and
ncclCommSuspend from v2.29.7-1; the NVLS layouts in src/transport/nvls.cc of v2.20.5-1, v2.21.5-1,
v2.22.3-1 and v2.30.7-1.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import torch.distributed as dist

from nccl_course.cost.nccl import memory as M
from nccl_course.cost.nccl.bootstrap import stagger_delay_s
from nccl_course.cost.nccl.estimate import system_for

ROOT = Path(__file__).resolve().parents[2]
PAGE = "book/practice/13-memory-and-startup.md"
MiB = 1 << 20


def text() -> str:
    return re.sub(r"\s+", " ", (ROOT / PAGE).read_text(encoding="utf-8"))


def num(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


NODE = system_for("h100-nvls")
PAIR = system_for("ib-ndr-2node")


def test_channel_counts_come_from_the_model():
    assert (NODE.comm_channels, PAIR.comm_channels, NODE.nvls_channels) == (24, 16, 16)
    t = text()
    assert "24 on a node of 8 H100s, 16 on H100 nodes with one NIC per GPU" in t


def test_buffer_defaults():
    t = text()
    # by hand: 8 x 512 x 8 x 16 and 120 x 640 x 8 x 8
    assert 8 * 512 * 8 * 16 == 512 * 1024
    assert 120 * 640 * 8 * 8 == 4915200
    assert "= 512 KiB" in t and "= 4,915,200 B (4.69 MiB)" in t
    assert f"{4915200 / MiB:.2f}" == "4.69"


def test_connection_and_ring_numbers():
    t = text()
    raw = M.p2p_connection(cumem=False)
    assert raw.receiver == 9637888 and "A receiver's 9,637,888 bytes become 10 MiB" in t
    assert M.p2p_connection().total == 12 * MiB and "**12 MiB per connection**" in t
    one = M.mib(M.ring_bytes(NODE.comm_channels, 8))
    two = M.mib(M.ring_bytes(PAIR.comm_channels, 8, PAIR.nodes))
    small = M.mib(M.ring_bytes(NODE.comm_channels, 8, 1, {"Simple": MiB}))
    assert (one, two, one - small) == (288, 208, 48)
    assert f"cost {num(one)} MiB per GPU on one node" in t
    assert f"make it {num(two)} MiB on average" in t
    assert f"saves only {num(one - small)} MiB" in t
    assert "1 MiB saves 2 MiB per connection" in t
    assert M.p2p_connection({"Simple": MiB}).total == 10 * MiB


def test_nvls_numbers_and_published_figure():
    t = text()
    now = M.nvls_bytes(NODE.nvls_channels, 8)
    old = M.nvls_bytes(heads=8, comm_channels=NODE.comm_channels, release="2.20")
    assert (M.mib(now), M.mib(old)) == (256, 2304)
    assert old // now == 9 and "nine times more in NCCL 2.20 (2,304 MiB)" in t
    assert "from 2.22 (256 MiB)" in t
    assert old == 2415919104 and "exactly 2,415,919,104 bytes (2,304 MiB)" in t
    assert old / 2**30 == 2.25 and "on 2.20 it cost 2.25 GiB" in t
    assert "nvlsPerRankSize 301989888 nvlsTotalSize 2415919104" in t
    # "about half a GiB": rings plus NVLS on 8 H100s
    assert 0.45 < (M.ring_bytes(24, 8) + now) / 2**30 < 0.55


def test_all_to_all_against_issue_1685():
    t = text()
    c = M.p2p_connection()
    assert (c.receiver, c.sender) == (10485760, 2097152)
    assert "allocations of 10,485,760 and 2,097,152 bytes" in t
    a2a = M.p2p_bytes(7, 32)
    assert M.mib(a2a) == 2688 and round(a2a / 1e9, 1) == 2.8
    assert "the model gives 2,688 MiB (2.8 GB) for 7 peers on 32 channels" in t
    assert "from 1.06 to 4.34 GB" in t


def test_stagger_numbers():
    t = text()
    assert round(stagger_delay_s(16384), 2) == 2.34 and "waits 2.34 s" in t
    assert round(stagger_delay_s(16384, 16), 3) == 0.146 and "with 16 roots, 0.146 s" in t
    assert stagger_delay_s(16384, 64) == 0.0 and "with 64 roots no root passes" in t
    assert "`NCCL_UID_STAGGER_THRESHOLD` = 256" in t and "`NCCL_UID_STAGGER_RATE` = 7000" in t


@pytest.mark.parametrize(
    "claim",
    [
        "`NCCL_RUNTIME_CONNECT=1` (default from 2.22, needs cuMem)",
        "lazy connection (`NCCL_RUNTIME_CONNECT`, the default since 2.22)",
        "from 2.23, `ncclCommInitRankScalable(comm, nranks, rank, nId, ids, config)`",
        "(kernels, alloc, bootstrap, allgathers, topo, graphs, connections, rest)` (2.22+)",
        "`Bootstrap timings total ... (create, send, recv, ring, delay)` (2.23+)",
        "`ncclCommSplit` with `splitShare=1` (2.18+",
        "`ncclCommSplit` (2.18+)",
        "`NCCL_MAX_CTAS` (config `maxCTAs`), 2.17+",
        "NCCL 2.29.7 and later count it for you",
        "`ncclCommSuspend(comm, NCCL_SUSPEND_MEM)` (2.29.7+)",
        "| 2.20 (checked in 2.20.5) | the communicator's (`nChannels`) | `NCCL_BUFFSIZE` + 2 MiB |",
        "| 2.21 (checked in 2.21.5) |",
        "| 2.22 to 2.30.7 |",
        "NVLS registration since 2.19",
        "`NCCL_NCHANNELS` is not read by NCCL 2.30.7",
    ],
)
def test_facts_name_their_release(claim):
    assert claim in text()


def test_device_id_is_pytorchs_eager_switch():
    doc = inspect.getdoc(dist.init_process_group)
    assert "ncclCommSplit" in doc and "immediately" in doc
    t = text()
    assert "In PyTorch 2.13, passing `device_id`" in t
    # the claim that no TORCH_NCCL_* variable for eager creation exists in the Python sources
    pkg = Path(dist.__file__).parent
    names = set()
    for f in pkg.rglob("*.py"):
        names |= set(re.findall(r"TORCH_NCCL_[A-Z_]+", f.read_text(encoding="utf-8")))
    assert not [n for n in names if "EAGER" in n or "INIT" in n]
