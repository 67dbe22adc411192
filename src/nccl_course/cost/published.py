"""The cost model against published measurements, with the error of every prediction.

Each row pairs a number someone measured with nccl-tests (or a PyTorch loop around NCCL) with what
:func:`nccl_course.cost.predict` says for the same system, collective, algorithm and size. The
presets hold nominal hardware speeds and were *not* fitted to these rows: the errors are the
model's honest distance from practice (NCCL's protocol overheads, several channels, and
imperfect link use are not in an alpha-beta model).

Every row cites its primary source in ``source``: NVIDIA/nccl-tests issues #212, #309 and #272
(github.com/NVIDIA/nccl-tests/issues; 8-GPU H100/H200 ring and NVLS all-reduce, and in #212 why
NVLS busbw is not bytes on the wire), NVIDIA/nccl issue #946 (github.com/NVIDIA/nccl/issues/946;
busbw per InfiniBand NDR NIC across two nodes, and why a tree on two nodes can report about twice
the NIC speed) and the network benchmarks of stas00/ml-engineering
(github.com/stas00/ml-engineering; 8x H200, torch 2.9.1, NCCL 2.27.7).
"""

from __future__ import annotations

from dataclasses import dataclass

from nccl_course.cost.model import predict
from nccl_course.cost.presets import get_preset

GiB = 1024**3
KiB = 1024


@dataclass(frozen=True)
class PublishedResult:
    """One published measurement. ``metric``: "busbw_GBps", "time_s", or
    "busbw_GBps_per_nic" (busbw divided by the NICs of a node, one per GPU)."""

    system: str
    preset: str
    collective: str
    algorithm: str
    size_bytes: int
    metric: str
    value: float
    source: str
    versions: str = ""
    note: str = ""


PUBLISHED: tuple[PublishedResult, ...] = (
    PublishedResult(
        "8x H100 SXM, one node",
        "h100-nvlink",
        "all_reduce",
        "ring",
        8 * GiB,
        "busbw_GBps",
        370.0,
        "NVIDIA/nccl-tests issues #212, #309, #272 (github.com/NVIDIA/nccl-tests/issues)",
        note="large sizes; about 80% of NVLink 4's 450 GB/s per direction",
    ),
    PublishedResult(
        "8x H200 SXM, one node",
        "h200-nvlink",
        "all_reduce",
        "ring",
        8 * GiB,
        "busbw_GBps",
        370.0,
        "NVIDIA/nccl-tests issues #212, #309, #272 (github.com/NVIDIA/nccl-tests/issues)",
        note="large sizes, NCCL_ALGO=Ring",
    ),
    PublishedResult(
        "8x H100 SXM, one node",
        "h100-nvls",
        "all_reduce",
        "nvls",
        8 * GiB,
        "busbw_GBps",
        480.0,
        "NVIDIA/nccl-tests issues #212, #309, #272 (github.com/NVIDIA/nccl-tests/issues)",
        note="~275 GB/s algbw; busbw of an in-switch reduction is not bytes on the wire (#212)",
    ),
    PublishedResult(
        "8x H200 SXM, one node",
        "h200-nvls",
        "all_reduce",
        "nvls",
        16 * GiB,
        "busbw_GBps",
        482.0,
        "stas00/ml-engineering, network benchmarks (github.com/stas00/ml-engineering)",
        versions="torch 2.9.1, NCCL 2.27.7",
    ),
    PublishedResult(
        "8x H200 SXM, one node",
        "h200-nvls",
        "all_reduce",
        "",
        32 * KiB,
        "time_s",
        18e-6,
        "stas00/ml-engineering, network benchmarks (github.com/stas00/ml-engineering)",
        versions="torch 2.9.1, NCCL 2.27.7",
        note="latency of one small call; compared with the model's fastest algorithm",
    ),
    PublishedResult(
        "2 nodes x 8 GPUs, InfiniBand NDR 400G, 8 NICs per node",
        "ib-ndr-2node",
        "all_reduce",
        "ring",
        8 * GiB,
        "busbw_GBps_per_nic",
        47.0,
        "NVIDIA/nccl issue #946 (github.com/NVIDIA/nccl/issues/946)",
        note="46-48 GB/s per NDR NIC with NCCL_ALGO=RING (busbw / 8 NICs); a tree on two "
        "nodes can report ~2x",
    ),
)


def comparison_table() -> list[dict]:
    """One dict per published result: the published value and its source, the model's
    prediction of the same metric, and the relative error (predicted - published) / published."""
    rows = []
    for pub in PUBLISHED:
        pred = predict(pub.collective, pub.size_bytes, pub.preset, algorithm=pub.algorithm or None)
        if pub.metric == "busbw_GBps_per_nic":
            predicted = pred.busbw_GBps / get_preset(pub.preset).ranks_per_node
        else:
            predicted = getattr(pred, pub.metric)
        rows.append(
            {
                "system": pub.system,
                "preset": pub.preset,
                "collective": pub.collective,
                "algorithm": pred.algorithm,
                "size_bytes": pub.size_bytes,
                "metric": pub.metric,
                "published": pub.value,
                "predicted": predicted,
                "relative_error": (predicted - pub.value) / pub.value,
                "source": pub.source,
                "versions": pub.versions,
                "note": pub.note,
            }
        )
    return rows
