"""The numbers of "Inside the proxy", recomputed: NCCL 2.30.7's buffer geometry from the defines
it is built from (src/include/device.h, collectives.h, src/init.cc at tag v2.30.7-1), the ring
all-reduce's steps and slices with the counting rules written out here, and the figures the
chapter reads off its tables from the course's model.

Each test pins the sentence that states a number next to the computation that gives it, so a
change of the model or of the page that breaks the claim fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_course.cost.nccl import predict
from nccl_course.cost.nccl.call_cost import BUFFER_BYTES, FILL_FRACTION
from nccl_course.cost.nccl.pipeline import (
    NCCL_STEPS,
    P2P_CHUNK_BYTES,
    channels_used,
    ring_all_reduce_plan,
    ring_chunking,
    step_bytes,
)

ROOT = Path(__file__).resolve().parents[2]
PAGE = "book/practice/16-inside-the-proxy.md"
PRESET, RING = "ib-ndr-2node", "allreduce:ring"
KiB, MiB, GiB = 2**10, 2**20, 2**30


def text() -> str:
    return re.sub(r"\s+", " ", (ROOT / PAGE).read_text(encoding="utf-8"))


def pick(size: int, proto: str | None = None):
    q = predict("all_reduce", size, PRESET, algo=RING, proto=proto)
    return q, ring_all_reduce_plan(size, q.ranks, q.channels, q.protocol)


def test_buffer_geometry_is_nccls():
    # DEFAULT_LL_BUFFSIZE: 8 lines/thread x 512 threads x NCCL_STEPS x 16-byte line;
    # DEFAULT_LL128_BUFFSIZE: 120 words/thread x 640 threads x NCCL_STEPS x 8 bytes
    assert NCCL_STEPS == 8
    assert BUFFER_BYTES == {"LL": 8 * 512 * 8 * 16, "LL128": 120 * 640 * 8 * 8, "Simple": 4 * MiB}
    assert [step_bytes(p) for p in ("LL", "LL128", "Simple")] == [64 * KiB, 600 * KiB, 512 * KiB]
    ll, ll128, simple = (ring_chunking("all_reduce", p) for p in ("LL", "LL128", "Simple"))
    assert (ll.chunk, ll.slice, ll.slices_in_flight) == (32 * KiB, 32 * KiB, 8)
    assert ll128.chunk == 600 * KiB * 15 // 16 == 576000
    assert (simple.slice_steps, simple.chunk_steps) == (2, 4)
    assert (simple.chunk, simple.slice, simple.slices_in_flight) == (2 * MiB, 1 * MiB, 4)
    assert ring_chunking("broadcast", "Simple").chunk == 512 * KiB
    assert P2P_CHUNK_BYTES == {"net": 131072, "nvlink": 524288, "pci": 131072}
    page = text()
    for claim in (
        "NCCL 2.30.7 source (tag v2.30.7-1)",
        "are the same in the 2.19.3 and 2.23.4 sources",
        "8 lines × 512 threads × 8 steps × 16 bytes = 512 KiB for LL, 120 words × 640 threads × "
        "8 steps × 8 bytes (about 4.69 MiB) for LL128",
        "`NCCL_P2P_NET_CHUNKSIZE` (since 2.14, default 128 KiB)",
        "`NCCL_P2P_NVL_CHUNKSIZE` (512 KiB)",
        "`NCCL_P2P_PCI_CHUNKSIZE` (128 KiB)",
        "`NCCL_P2P_LL_THRESHOLD` bytes (16384)",
        "`NCCL_NVLS_CHUNKSIZE` (128 KiB",
        "`NCCL_PROGRESS_APPENDOP_FREQ` iterations (default 8)",
        "`NCCL_PROXY_APPEND_BATCH_SIZE` (default 16)",
        "up to 2.30.4, only with `NCCL_SHM_USE_CUDA_MEMCPY=1`",
        "(`needsProxyProgress = 0`, an interface NCCL has had since 2.19)",
    ):
        assert claim in page, claim


def test_worked_example_64_mib():
    plan = ring_all_reduce_plan(64 * MiB, ranks=16, channels=16, protocol="Simple")
    assert (plan.channel_bytes, plan.loops) == (4 * MiB, 1)
    assert (plan.proxy_steps, plan.sends, plan.send_bytes) == (120, 60, 128 * KiB)
    assert plan.slice_fill == 1 / 8
    assert 2 * 15 * 1 * 4 == 120 and 2 * 15 * 2 == 60
    small = ring_all_reduce_plan(64 * MiB, 16, 16, "Simple", buffsize=1 * MiB)
    assert (small.chunking.step, small.chunking.chunk, small.chunking.slice) == (
        128 * KiB,
        512 * KiB,
        256 * KiB,
    )
    assert (small.loops, small.proxy_steps, small.sends, small.send_bytes) == (
        1,
        120,
        60,
        128 * KiB,
    )
    assert small.slice_fill == 0.5
    page = text()
    assert "$2 \\times 15 \\times 1 \\times 4 = 120$" in page
    assert "the network sees the same 60 messages of 128 KiB, now half of a smaller slice" in page


def test_ring_table_reading():
    rows = {s: pick(s) for s in (64 * KiB, MiB, 16 * MiB, 64 * MiB, 256 * MiB, GiB, 4 * GiB)}
    for size in (64 * KiB, MiB, 16 * MiB, 64 * MiB):
        assert rows[size][1].proxy_steps == 30 and rows[size][1].loops == 1
    assert rows[256 * MiB][0].protocol == "Simple" and rows[256 * MiB][1].proxy_steps == 120
    assert rows[GiB][1].loops == 2 and rows[256 * MiB][1].loops == 1
    assert 16 * 16 * 2 * MiB == 512 * MiB
    q, plan = rows[MiB]
    assert plan.send_bytes == 4 * KiB and plan.slice_fill < 0.01
    assert q.call_time_s * 1e6 / plan.sends == pytest.approx(2.8, abs=0.05)
    for size in (GiB, 4 * GiB):
        q, plan = rows[size]
        assert plan.slice_fill == 1.0
        assert 44.5 <= q.call_time_s * 1e6 / plan.sends <= 47.5
    q, plan = rows[64 * KiB]
    assert (q.protocol, plan.channels, q.threads) == ("LL", 1, 512)
    # Ring/LL: fewer channels while bytes < channels x threads x 8 x ranks (tuning.cc, enqueue.cc)
    assert 64 * KiB < 2 * 512 * 8 * 16 and not 64 * KiB < 1 * 512 * 8 * 16
    assert channels_used(64 * KiB, 16, "LL") == 16  # the split alone would allow 16 cells of 4 KiB
    page = text()
    for claim in (
        "Up to 64 MiB every call makes each connection count the same 30 steps",
        "only at 1 GiB does a second loop start",
        "16 × 16 × 2 MiB = 512 MiB",
        "at 1 MiB each slice carries 4 KiB, under 1 % of an LL128 slice, and the call costs "
        "about 2.8 µs per slice",
        "one 1 MiB slice takes about 45 to 47 µs",
        "for LL, 8 bytes times the number of ranks, `src/graph/tuning.cc`), so on 16 ranks a "
        "64 KiB all-reduce in LL runs on one channel of 512 threads",
    ):
        assert claim in page, claim


def test_protocol_switches():
    switches, previous = [], None
    for k in range(3, 33):
        q = predict("all_reduce", 2**k, PRESET, algo=RING)
        if q.protocol != previous:
            switches.append((2**k, q.protocol))
            previous = q.protocol
    assert switches == [(8, "LL"), (MiB, "LL128"), (128 * MiB, "Simple")]
    _, plan = pick(128 * MiB)
    assert plan.send_bytes == 256 * KiB and plan.slice_fill == 0.25
    page = text()
    assert "LL up to 512 KiB, LL128 from 1 MiB, Simple from 128 MiB on this system" in page
    assert "where its slices are a quarter full (256 KiB each)" in page
    assert "eight 32 KiB data slots per connection" in page


def test_fill_term_reading():
    share = {}
    for size in (MiB, 16 * MiB, 64 * MiB, 256 * MiB, GiB, 4 * GiB):
        q, plan = pick(size, "Simple")
        share[size] = q.call_terms_us["fill_us"] / (q.call_time_s * 1e6)
        if size < 512 * MiB:
            assert plan.sends == 60
    assert max(share, key=share.get) in (16 * MiB, 64 * MiB)
    assert 0.18 <= share[16 * MiB] <= 0.25 and 0.18 <= share[64 * MiB] <= 0.25
    assert round(share[GiB], 2) == 0.04 and share[4 * GiB] < share[GiB]
    assert pick(16 * MiB, "Simple")[1].slice_fill == 1 / 32
    assert pick(64 * MiB, "Simple")[1].slice_fill == 1 / 8
    assert 16 * BUFFER_BYTES["Simple"] == 64 * MiB
    assert FILL_FRACTION["Simple"] == 0.75 and FILL_FRACTION["LL128"] == 0
    page = text()
    for claim in (
        "about a fifth, from 16 to 64 MiB, where each slice is 1/32 to 1/8 full",
        "by 1 GiB, with full slices, it is 4 %",
        "(0.75 for Simple, 0 for LL128)",
        "$\\text{cap}$ = 64 MiB here",
        "the slices themselves fill only from 512 MiB",
        "the same 60 slices per channel",
    ):
        assert claim in page, claim


def test_narration_numbers():
    page = (ROOT / PAGE).read_text(encoding="utf-8")
    script = page.split(":::{narration}")[1].split(":::")[0]
    assert ring_chunking("all_reduce", "Simple").step == MiB // 2  # "half a mebibyte"
    assert "a step is half a mebibyte" in script
    assert "one hundred and twenty steps per loop" in script
    assert ring_all_reduce_plan(MiB, 16, 16, "Simple").send_bytes == 4 * KiB
    assert "puts only four kibibytes in each send" in script
    assert "Only from about half a gibibyte are the slices full" in script
    assert "slices one eighth full" in script
