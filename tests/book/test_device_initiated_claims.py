"""The device-initiated chapter's numbers and version-dependent facts.

The MoE model (:mod:`nccl_course.cost.moe_dispatch`) is checked against an independent closed
form of a direct exchange on a two-level topology, computed here from the preset's own links; the
numbers the chapter states are recomputed and looked up in its text. NCCL's facts were read in the
tagged NCCL sources and release notes (v2.27.3-1 to v2.30.7-1), DeepEP's in its README and docs at
commit dd758ca; the test pins the wording that states each with its release, so that a page
cannot drop the version. PyTorch's come from the installed torch 2.13.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from nccl_course.cost import get_preset
from nccl_course.cost.moe_dispatch import (
    COUNT_BYTES,
    MoeLayerCost,
    bytes_per_peer,
    exchange_time,
    moe_layer_cost,
)
from nccl_course.cost.nccl.call_cost import HARNESSES

ROOT = Path(__file__).resolve().parents[2]
PAGE = "book/practice/15-device-initiated.md"
SHAPE = dict(hidden=7168, top_k=8, bytes_per_element=2)


def text(path: str) -> str:
    return re.sub(r"\s+", " ", (ROOT / path).read_text(encoding="utf-8"))


def two_level_exchange(preset_name: str, nbytes: float) -> float:
    """Every rank sends nbytes to every other rank at once, written out by hand: a rank's GPU
    port carries its (ranks per node - 1) intra-node messages, its NIC the messages to the other
    nodes; each class takes its latency plus its port's drain, and the slower class decides."""
    preset = get_preset(preset_name)
    p, per_node = preset.ranks, preset.ranks_per_node
    intra = preset.alpha_s + (per_node - 1) * nbytes / preset.bandwidth_Bps
    if preset.inter_bandwidth_Bps is None:
        return intra
    inter = preset.inter_alpha_s + (p - per_node) * nbytes / preset.inter_bandwidth_Bps
    return max(intra, inter)


@pytest.mark.parametrize("preset", ["h100-nvlink", "ib-ndr-2node", "ib-ndr-4node"])
@pytest.mark.parametrize("nbytes", [8, 4096, 917_504, 29_360_128])
def test_exchange_matches_the_closed_form(preset, nbytes):
    topology = get_preset(preset).topology()
    assert exchange_time(topology, nbytes) == pytest.approx(two_level_exchange(preset, nbytes))


def test_bytes_per_peer_counts_token_copies():
    # 128 tokens x top-8 x 7168 x 2 bytes over 16 ranks
    assert bytes_per_peer(128, 7168, 8, 2, 16) == 128 * 8 * 7168 * 2 / 16 == 917_504


@pytest.mark.parametrize("tokens", [1, 8, 128, 4096])
def test_layer_times_are_the_chapters_formula(tokens):
    """T_host = 4F + C + 2X and T_device = 2F + C + 2X, with X and C from the closed form."""
    cost = moe_layer_cost("ib-ndr-2node", tokens, **SHAPE)
    fixed = HARNESSES["torch.distributed"].fixed_us * 1e-6
    x = two_level_exchange("ib-ndr-2node", tokens * 8 * 7168 * 2 / 16)
    c = two_level_exchange("ib-ndr-2node", 8)
    assert cost.host_s == pytest.approx(4 * fixed + c + 2 * x)
    assert cost.device_s == pytest.approx(2 * fixed + c + 2 * x)
    assert cost.saved_s == pytest.approx(2 * fixed)


def test_the_chapters_numbers():
    page = text(PAGE)
    shares = {t: moe_layer_cost("ib-ndr-2node", t, **SHAPE).saved_share for t in (1, 8, 128, 4096)}
    for tokens, share in shares.items():
        assert f"{100 * share:.1f}%" in page, (tokens, share)
    loop = moe_layer_cost("ib-ndr-2node", 1, **SHAPE)
    tests = moe_layer_cost("ib-ndr-2node", 1, **SHAPE, harness="nccl-tests")
    assert f"Each layer saves {loop.saved_s * 1e6:.0f} µs" in page
    assert f"the saving is {tests.saved_s * 1e6:.0f} µs per layer" in page
    assert f"{HARNESSES['torch.distributed'].fixed_us:.0f} µs for a Python loop" in page
    assert f"{HARNESSES['nccl-tests'].fixed_us:.0f} µs for nccl-tests" in page
    big = moe_layer_cost("ib-ndr-2node", 4096, **SHAPE)
    per_pair_mib = bytes_per_peer(4096, 7168, 8, 2, 16) / 2**20
    assert (
        f"exchange of {per_pair_mib:.0f} MiB per pair of ranks then takes {big.tokens_s * 1e3:.1f} ms"
        in page
    )
    assert f"({COUNT_BYTES} bytes per peer)" in page
    # the narration says the same in words
    assert "thirty-four microseconds per layer" in page
    assert shares[1] > 0.40 and shares[4096] < 0.01


def test_saving_share_is_independent_of_the_exchange_model():
    cost = MoeLayerCost(tokens_s=10e-6, counts_s=2e-6, fixed_s=17e-6)
    assert cost.saved_share == pytest.approx(34 / (68 + 2 + 20))


def test_moe_layer_cost_refuses_bad_input():
    with pytest.raises(ValueError, match="unknown harness"):
        moe_layer_cost("ib-ndr-2node", 1, **SHAPE, harness="mpi")
    with pytest.raises(ValueError, match="top_k must be positive"):
        moe_layer_cost("ib-ndr-2node", 1, hidden=7168, top_k=0)
    with pytest.raises(ValueError, match="at least 2 ranks"):
        bytes_per_peer(1, 7168, 8, 2, 1)


@pytest.mark.parametrize(
    "claim",
    [
        # release commits' notes: windows 2.27.3, device API 2.28.3, GIN 2.28.7, 2.29.2 additions
        "| 2.27.3 | windows: `ncclCommWindowRegister` and `ncclCommWindowDeregister`",
        "| 2.28.3 | the device API, marked experimental: `src/include/nccl_device.h`",
        "| 2.28.7 | **GIN** (GPU-initiated networking)",
        "| 2.29.2 | versioned device structures, `ncclCommQueryProperties`",
        # contrib/nccl_ep first at v2.30.3-1
        "| 2.30.3 | NCCL EP in `contrib/nccl_ep`",
        "NCCL EP** (`contrib/nccl_ep`, in the NCCL repository from 2.30.3)",
        # src/gin and src/transport/net_ib/gin.cc at v2.30.7-1
        "In NCCL 2.30.7, GIN has two backends (`NCCL_GIN_TYPE` 3 and 2 force one or the other)",
        # gin.h: Weak/Strong signal variants only at v2.30.7-1
        "`ncclGin_WeakSignalInc` (2.30.7; `ncclGin_SignalInc` before it)",
        # examples/06_device_api/02_gin_alltoall_pure first at v2.28.9-1
        "NCCL 2.28.9 or newer and ConnectX NICs",
        # DeepEP README at dd758ca
        "needs NCCL 2.30.4 or later (and PyTorch 2.10 or later)",
        "released April 2026",
    ],
)
def test_facts_name_their_release(claim):
    assert claim in text(PAGE)


def test_all_to_all_vdev_is_pytorch_2_13s():
    """The operator the chapter names exists in the installed torch with device-side splits."""
    assert torch.__version__.startswith("2.13")
    schema = str(torch.ops.symm_mem.all_to_all_vdev.default._schema)
    assert "Tensor in_splits" in schema and "Tensor(a!) out_splits_offsets" in schema
    header = (
        Path(torch.__file__).parent
        / "include/torch/csrc/distributed/c10d/symm_mem/nvshmem_extension.hpp"
    )
    assert "void all_to_all_vdev(" in header.read_text()
    assert (
        "torch.ops.symm_mem.all_to_all_vdev(input, out, in_splits, out_splits_offsets, group_name)"
        in text(PAGE)
    )
