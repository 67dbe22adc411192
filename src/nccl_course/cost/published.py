"""The cost model against published measurements, with the error of every prediction.

Each row pairs a number someone measured with nccl-tests (or a PyTorch loop around NCCL) with what
:func:`nccl_course.cost.predict` says for the same system, collective, algorithm and size. The
presets hold nominal hardware speeds and were *not* fitted to these rows: the errors are the
model's honest distance from practice (NCCL's protocol overheads, several channels, and
imperfect link use are not in an alpha-beta model).

Every row cites its primary source in ``source``: NVIDIA/nccl-tests issues #212, #309 and #272
(github.com/NVIDIA/nccl-tests/issues; 8-GPU H100/H200 ring and NVLS all-reduce, and in #212 why
NVLS busbw is not bytes on the wire), NVIDIA/nccl-tests issue #290 (a maintainer: "For NDR @
400Gbps you should see 46-48GB/s per NIC", and NCCL_ALGO=RING to benchmark two nodes), NVIDIA/nccl
issue #307 and nccl-tests issue #196 (on two nodes NCCL uses a tree, which can report up to about
twice the network bandwidth) and the 8x H200 sweep of stas00/ml-engineering (torch 2.9.1, NCCL
2.27.7), whose rows are read from :mod:`nccl_course.cost.sweeps` rather than restated here.
"""

from __future__ import annotations

from dataclasses import dataclass

from nccl_course.cost.model import predict
from nccl_course.cost.presets import get_preset
from nccl_course.cost.sweeps import get_sweep

GiB = 1024**3
KiB = 1024

#: The stas00/ml-engineering 8x H200 sweep (:mod:`nccl_course.cost.sweeps`) two rows quote.
_H200 = get_sweep("stas00-8xh200-nvls")
_H200_SOURCE = f"stas00/ml-engineering, network benchmarks ({_H200.source_url})"
_H200_VERSIONS = (
    f"{_H200.metadata['other_versions']}, CUDA {_H200.metadata['cuda']}, NCCL {_H200.nccl_version}"
)


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
        _H200.row(16 * GiB).busbw_GBps,
        _H200_SOURCE,
        versions=_H200_VERSIONS,
    ),
    PublishedResult(
        "8x H200 SXM, one node",
        "h200-nvls",
        "all_reduce",
        "",
        32 * KiB,
        "time_s",
        _H200.measured_time_s(_H200.row(32 * KiB))[0],
        _H200_SOURCE,
        versions=_H200_VERSIONS,
        note="latency of one small call (~40 us: 32 KiB / the printed algbw 0.82 GB/s; the "
        "benchmark prints no time); compared with the model's fastest algorithm",
    ),
    PublishedResult(
        "2 nodes x 8 GPUs, InfiniBand NDR 400G, 8 NICs per node",
        "ib-ndr-2node",
        "all_reduce",
        "ring",
        8 * GiB,
        "busbw_GBps_per_nic",
        47.0,
        "NVIDIA/nccl-tests issue #290 (https://github.com/NVIDIA/nccl-tests/issues/290); the "
        "tree on two nodes: NVIDIA/nccl issue #307 (https://github.com/NVIDIA/nccl/issues/307)",
        note="46-48 GB/s per NDR NIC: what an NVIDIA maintainer says to expect from "
        "NCCL_ALGO=RING on two nodes (busbw / 8 NICs); a tree on two nodes can report up to ~2x",
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
