"""Version-dependent NCCL and PyTorch facts the book states, checked against the text.

Each fact here was read in the tagged NCCL sources (NVIDIA/nccl, v2.17.1-1 to v2.30.7-1), the
NCCL release notes or PyTorch 2.13's ProcessGroupNCCL; the test pins the wording that states it
with its version, and fails if a page goes back to a version-less or wrong form. Numbers the
course can compute (busbw, the quiz answer) are recomputed from the package.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_course import yaml_text
from nccl_course.cost import busbw_factor, closed_form_time, get_preset

ROOT = Path(__file__).resolve().parents[2]


def text(path: str) -> str:
    """A page's text with line breaks and indentation folded into single spaces, so that a
    phrase matches however the paragraph is wrapped."""
    return re.sub(r"\s+", " ", (ROOT / path).read_text(encoding="utf-8"))


def question(bank: str, qid: str) -> dict:
    data = yaml_text.safe_load((ROOT / "quizzes" / f"{bank}.yml").read_text(encoding="utf-8"))
    (found,) = [q for q in data["questions"] if q["id"] == qid]
    return found


# NCCL's two messages for two ranks on one GPU: src/init.cc at v2.29.7-1 and v2.30.7-1.
OLD_MESSAGE = "Duplicate GPU detected"
NEW_MESSAGE = "Multiple Ranks are using the same GPU/Partition"
MULTI_RANK_PAGES = (
    "book/practice/03-debugging.md",
    "book/start/01-processes-ranks.md",
    "labs/01-processes-ranks/README.md",
    "labs/01-processes-ranks/lab.yaml",
)


@pytest.mark.parametrize("path", MULTI_RANK_PAGES)
def test_two_ranks_on_one_gpu_gives_both_messages_with_versions(path):
    page = text(path)
    assert "NCCL 2.29" in page and NEW_MESSAGE in page and "NCCL 2.30.7" in page
    # Every mention of the old message is dated: it must be near "2.29".
    for m in re.finditer(OLD_MESSAGE, page):
        assert "2.29" in page[max(0, m.start() - 120) : m.end() + 60], page[m.start() - 120 :][:240]


@pytest.mark.parametrize("path", MULTI_RANK_PAGES[:3])
def test_multi_rank_variable_is_named_where_the_error_is_explained(path):
    assert "NCCL_MULTI_RANK_GPU_ENABLE" in text(path)


def test_register_mem_pool_needs_the_backends_allocator():
    page = text("book/practice/07-registration-symmetric-memory.md")
    assert "torch.cuda.MemPool(backend.mem_allocator)" in page
    assert "does not check where a pool's memory comes from" in page
    assert "a plain `torch.cuda.MemPool()` holds `cudaMalloc`" in page
    # the FAQ no longer says any registered MemPool will do
    assert "for example a `torch.cuda.MemPool` registered with `register_mem_pool`." not in page


def test_pxn_and_network_registration_as_nccl_2_30_does_it():
    page = text("book/practice/07-registration-symmetric-memory.md")
    assert "exclude each other, connection by connection" in page
    assert "`Connected all rings, use ring PXN 0 GDR 1`" in page
    assert "NCCL 2.30.7's code is narrower" in page


def test_two_node_log_shows_the_network_p2p_chunk_size():
    page = text("book/practice/01-inside-nccl.md")
    # 16 ranks on 2 nodes: NCCL_P2P_NET_CHUNKSIZE, 128 KiB (src/init.cc, computeBuffSizes)
    assert "NCCL INFO P2P Chunksize set to 131072" in page
    assert "P2P Chunksize set to 524288" not in page
    assert "`NCCL_P2P_NET_CHUNKSIZE` (default 131072)" in page
    assert "`NCCL_P2P_NVL_CHUNKSIZE` (524288, 512 KiB)" in page


def test_tuning_lines_by_release():
    page = text("book/algorithms/07-how-nccl-chooses.md")
    assert "| 2.20 to 2.22 | `524288 Bytes -> Algo 5 proto 2 time 59.553600` | yes, µs |" in page
    assert "| 2.23 | `AllReduce: 524288 Bytes -> Algo 5 proto 2 time 59.553600` | yes, µs |" in page
    assert "| 2.24 to 2.30.7 | `AllReduce: 524288 Bytes -> Algo NVLS_TREE proto SIMPLE" in page
    assert "NCCL 2.20 to 2.22 printed, for every call" not in page


def test_watchdog_timeout_is_pytorchs():
    page = text("book/practice/09-fault-tolerance.md")
    assert "NCCL default watchdog timeout" not in page
    assert "the timeout is PyTorch's, not an NCCL setting" in page


def test_nccl_2_31_names_its_release():
    page = text("book/practice/01-inside-nccl.md")
    assert "NCCL 2.31.2, the first 2.31 release" in page
    assert "reports that NCCL 2.31 changes" not in page


def test_two_node_ring_busbw_uses_every_nic_of_the_node():
    page = text("book/algorithms/05-cost-model.md")
    preset = get_preset("ib-ndr-2node")
    assert "8 InfiniBand NDR 400G NICs per node" in preset.description
    n, p, alpha, nic = 2**30, 16, 14e-6, 46e9

    def bus(bandwidth: float) -> float:
        t = closed_form_time("all_reduce", "ring", n, p, alpha, 1 / bandwidth)
        return n / t * busbw_factor("all_reduce", p) / 1e9

    assert round(bus(8 * nic)) == 342 and "about 342 GB/s for 1 GiB" in page
    assert round(bus(nic)) == 46 and "one NIC's 46 GB/s" in page
    assert "so busbw is capped by the NIC." not in page
    assert "1 / (8 * 46e9)" in page


def test_ll128_data_share_is_not_the_tuners_factor():
    q = question("nccl-tuner", "tuner-ll128-efficiency")
    assert q["answer"] == pytest.approx(100 * 120 / 128)
    assert 92 in [m["answer"] for m in q["mistakes"]]
    assert "rounds" not in q["feedback"]["correct"]
    assert "factor NCCL's tuner applies" not in q["prompt"]
    page = text("book/algorithms/07-how-nccl-chooses.md")
    assert "LL128 120 of every 128 (× 0.92)" not in page
    assert "the ring's LL128 factor is 0.92, written beside a commented-out 120/128" in page


def test_nvls_first_release_is_all_reduce_in_both_chapters():
    history = text("book/practice/01-inside-nccl.md")
    assert "| NVLS | 2.17 | all-reduce (the only one 2.17.1's release notes name)" in history
    assert "| NVLS | 2.17 | all-reduce, all-gather, reduce-scatter |" not in history
    pat = text("book/algorithms/08-pat-and-in-network-reduction.md")
    assert "NVLS arrived in 2.17.1 for all-reduce inside one node" in pat
    assert "{ref}`nccl-algorithm-history`" in pat


# PyPI's torch==2.13.0 wheel requires nvidia-nccl-cu13==2.29.7 (its METADATA's Requires-Dist).
TORCH_WHEEL_NCCL = "2.29.7"


def test_the_nccl_of_the_pinned_torch_is_the_wheels():
    """No page or docstring says the pinned torch ships an NCCL other than its wheel's."""
    pinned = re.search(r'DEFAULT_TORCH_VERSION = "([^"]+)"', text("scripts/install_torch.py"))
    assert pinned.group(1) == "2.13.0", "re-read the new wheel's nvidia-nccl requirement"
    # "torch 2.13's wheel ships 2.29.7" and "2.30.7, the NCCL the course's torch 2.13 pins"
    claims = (
        r"(?:torch|PyTorch) 2\.13\S*(?: wheels?)?(?: on PyPI)? (?:ships?|pins) (?:NCCL )?(\d\.\d+\.\d+)",
        r"(\d\.\d+\.\d+),? (?:is )?the (?:NCCL|version) (?:that )?(?:the )?(?:course's |pinned )?"
        r"torch 2\.13 (?:ships|pins)",
    )
    paths = [*ROOT.glob("book/**/*.md"), *ROOT.glob("src/nccl_course/**/*.py")]
    stated = {
        (str(p.relative_to(ROOT)), m.group(1))
        for p in paths
        for claim in claims
        for m in re.finditer(claim, re.sub(r"\s+", " ", p.read_text(encoding="utf-8")))
    }
    assert stated, "the book states which NCCL the pinned torch ships"
    assert {version for _, version in stated} == {TORCH_WHEEL_NCCL}, sorted(stated)
