"""The version-dependent NCCL and PyTorch facts of the many-communicators chapter, its bank and
lab 09, pinned with their versions. Each was read in NVIDIA/nccl (v2.18.1-1, v2.26.2-1 to
v2.30.7-1: src/nccl.h.in, src/enqueue.cc getImplicitOrder, src/init.cc, src/group.cc and
docs/userguide/source) or PyTorch 2.13 (distributed_c10d.py, device_mesh.py and
ProcessGroupNCCL.hpp); the test fails when a page drops the version or states another one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_course import yaml_text

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = "book/practice/11-many-communicators.md"


def text(path: str) -> str:
    """A page with its line breaks folded, so a phrase matches however it is wrapped."""
    return re.sub(r"\s+", " ", (ROOT / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("ncclCommSplit", "2.18"),  # first in src/nccl.h.in at v2.18.1-1
        ("NCCL_LAUNCH_ORDER_IMPLICIT", "2.26"),  # release notes of 2.26.2-1, default 0
        ("NCCL_LAUNCH_RACE_FATAL", "2.26"),
        ("NCCL_LAUNCH_MODE", "2.1"),  # env.rst: since 2.1.0, GROUP deprecated in 2.9
    ],
)
def test_each_nccl_name_carries_its_first_release(name, version):
    page = text(CHAPTER)
    near = [page[max(0, m.start() - 40) : m.end() + 60] for m in re.finditer(re.escape(name), page)]
    dated = re.compile(rf"(NCCL {re.escape(version)}|\({re.escape(version)}\+)(?![\d.]\d|\d)")
    assert any(dated.search(s) for s in near), (
        f"{CHAPTER}: no mention of {name} says 'NCCL {version}' or '({version}+' next to it"
    )


def test_implicit_order_is_off_by_default_and_needs_cuda_12_3_to_overlap():
    page = text(CHAPTER)
    assert "NCCL 2.26+, default 0" in page
    assert "12.3 or newer" in page and "serialises them" in page
    # Captures: 2.26.x always serial; from 2.27 serial only with a driver older than 12.9.
    assert (
        "NCCL 2.26 always serialises; from 2.27 it keeps the overlap when the driver is 12.9"
        in page
    )


def test_the_bank_matches_getimplicitorder():
    bank = yaml_text.safe_load(
        (ROOT / "quizzes/many-communicators.yml").read_text(encoding="utf-8")
    )
    (question,) = [q for q in bank["questions"] if q["id"] == "launch-order-cuda"]
    pairs = {p["left"]: p["right"] for p in question["pairs"]}
    assert "may overlap" in pairs["CUDA runtime and driver 12.3 or newer, no graph capture"]
    assert "serialised" in pairs["CUDA runtime or driver older than 12.3"]
    assert "serialised" in pairs["graph capture with a driver older than 12.9"]


def test_pytorch_facts_name_pytorch_2_13():
    page = text(CHAPTER)
    for phrase in (
        "group_desc=None, device_id=None)`** (PyTorch 2.13)",
        "(PyTorch 2.13, experimental, NCCL and plugin backends only)",
        "`ncclStreams_` in PyTorch 2.13's `ProcessGroupNCCL.hpp`",
        "**`TORCH_NCCL_DESYNC_DEBUG=1`** (PyTorch 2.13)",
    ):
        assert phrase in page, phrase


def test_the_chapter_names_the_nccl_of_the_pinned_torch():
    # torch 2.13.0 on PyPI requires nvidia-nccl-cu13 2.29.7 (see test_nccl_version_claims).
    assert "PyTorch 2.13's wheels bring NCCL 2.29.7" in text(CHAPTER)


def test_the_lab_dates_the_launch_order_variable():
    for path in ("labs/09-communicator-order/README.md", "labs/09-communicator-order/lab.yaml"):
        assert re.search(
            r"NCCL_LAUNCH_ORDER_IMPLICIT=1.{0,20}NCCL 2\.26|NCCL 2\.26 added `NCCL_LAUNCH_ORDER_IMPLICIT=1`",
            text(path),
        ), path
