"""The cloud-networks chapter's claims, checked against the course's code and independent sums.

The log excerpts of the chapter and of its quiz bank are public logs (NVIDIA/nccl-tests issues
185 and 188, NVIDIA/nccl issue 1597, kubernetes-sigs/dranet's KubeRay page, Oneflow-Inc/oneflow
pull request 9115, NVIDIA/nccl-tests issue 373); each is read with the course's log reader
(``nccl_course.preflight.nccl_log``) and the reading the page or the right answer gives is
asserted from the parse. Figures are recomputed: port rates from NCCL 2.30.7's lane table
(src/transport/net_ib/init.cc), perftest's unit factor, Azure's health-check floors, the ring
model of the course's presets. Version facts were read in the NCCL tags (v2.19.3-1 to
v2.30.7-1), aws-ofi-nccl's tags (v1.9.0-aws to v1.21.1) and its doc/efa-env-var.md; the test
pins the wording that states each with its version, so that a page cannot drop it.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from nccl_course import yaml_text
from nccl_course.cost import get_preset
from nccl_course.cost.fabric import (
    AZURE_IB_WRITE_BW_FLOORS,
    MIB_S_PER_GBIT,
    dscp_of,
    gbit_to_GBps,
    ib_port_gbit,
    mib_s_to_gbit,
    parse_perftest,
    roce_traffic_class,
)
from nccl_course.cost.nccl import predict
from nccl_course.cost.published import PUBLISHED
from nccl_course.preflight.nccl_log import transports_in_log
from nccl_course.quiz.generators import resolve

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "book/practice/14-cloud-networks.md"
BANK = ROOT / "quizzes/cloud-networks.yml"


def raw() -> str:
    return PAGE.read_text(encoding="utf-8")


def text() -> str:
    return re.sub(r"\s+", " ", raw())


def section(title: str) -> str:
    """The page's text from the heading ``## title`` to the next ``## `` heading."""
    page = raw()
    start = page.index(f"\n## {title}\n")
    end = page.find("\n## ", start + 1)
    return page[start : end if end > 0 else None]


def text_blocks(markdown: str) -> list[str]:
    return re.findall(r"```text\n(.*?)```", markdown, re.S)


def question(qid: str) -> dict:
    bank = yaml_text.safe_load(BANK.read_text(encoding="utf-8"))
    return next(q for q in bank["questions"] if q["id"] == qid)


def exhibit(qid: str) -> str:
    (block,) = text_blocks(question(qid)["prompt"])
    return block


_VIA = re.compile(r"via (NET/[^\s]+)")


# -- the log excerpts of the page ---------------------------------------------------------


def test_the_page_shows_four_log_excerpts():
    assert len(text_blocks(section("Reading the log: which plugin, which transport"))) == 4


def test_roce_excerpt_reads_as_ib_on_two_roce_ports():
    block = text_blocks(section("Reading the log: which plugin, which transport"))[0]
    log = transports_in_log(block)
    assert log.networks == ("IB",)
    assert log.ib_devices == ("mlx5_10:1/RoCE", "mlx5_11:1/RoCE")
    assert log.nccl_version == "2.19.3+cuda12.3"
    assert not log.uses_socket
    assert "Reading: network `IB` on `mlx5_10:1/RoCE` and `mlx5_11:1/RoCE`, NCCL 2.19.3." in text()


def test_socket_excerpt_reads_as_the_fallback():
    block = text_blocks(section("Reading the log: which plugin, which transport"))[1]
    log = transports_in_log(block)
    assert log.networks == ("Socket",) and log.uses_socket and log.ib_disabled
    assert log.socket_interfaces == ("ibs85f0", "ib0")
    assert log.channels == {"NET/Socket": 1}
    assert "Reading: network `Socket` over the IP interfaces of the InfiniBand ports" in text()


def test_efa_excerpt_reads_as_libfabric_with_the_efa_provider():
    block = text_blocks(section("Reading the log: which plugin, which transport"))[2]
    log = transports_in_log(block)
    assert log.networks == ("Libfabric",) and log.ofi_provider == "efa"
    assert "(found 16 nics)" in block
    assert "Reading: network `Libfabric`, OFI provider `efa`, 16 EFA devices" in text()


def test_gib_excerpt_reads_as_gib_channels_with_gdrdma():
    block = text_blocks(section("Reading the log: which plugin, which transport"))[3]
    log = transports_in_log(block)
    assert log.channels == {"NET/gIB": 2} and not log.uses_socket
    assert set(_VIA.findall(block)) == {"NET/gIB/2/GDRDMA"}
    assert "Initialized NET plugin gIB" in block
    assert "Reading: plugin `gIB`, channels `NET/gIB` through NIC 2 with `GDRDMA`" in text()


def test_the_reader_takes_both_formats_of_the_ofi_provider_line():
    # aws-ofi-nccl up to v1.13.2-aws, and from v1.14.0 (src/nccl_ofi_net.cpp)
    old = "h:1:2 [0] NCCL INFO NET/OFI Selected Provider is efa (found 16 nics)"
    new = "h:1:2 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)"
    assert transports_in_log(old).ofi_provider == "efa"
    assert transports_in_log(new).ofi_provider == "efa"


# -- the log exhibits of the quiz ---------------------------------------------------------


def test_socket_fallback_question_shows_no_device_then_socket():
    block = exhibit("log-socket-fallback")
    log = transports_in_log(block)
    assert "NET/IB : No device found." in block
    assert log.networks == ("Socket",) and log.uses_socket and not log.ib_disabled
    right = next(c for c in question("log-socket-fallback")["choices"] if c.get("correct"))
    assert "fell back to TCP sockets" in right["text"]


def test_gdrdma_question_uses_its_own_nic_with_gdrdma():
    block = exhibit("log-gdrdma")
    assert transports_in_log(block).channels == {"NET/gIB": 1}
    (via,) = _VIA.findall(block)
    network, nic, *flags = via.split("/")[1:]
    assert (network, nic, flags) == ("gIB", "2", ["GDRDMA"])  # no "(rank)": no PXN hop


def test_external_ib_question_names_the_plugin_and_has_no_gdrdma():
    block = exhibit("log-external-ib")
    log = transports_in_log(block)
    assert log.networks == ("IBext_v8",) and log.channels == {"NET/IBext_v8": 1}
    assert not any(v.endswith("GDRDMA") for v in _VIA.findall(block))


def test_efa_name_question_answer_is_the_logged_network():
    block = exhibit("log-efa-name")
    log = transports_in_log(block)
    assert log.networks[0] in question("log-efa-name")["answers"]
    assert log.ofi_provider == "efa"
    assert "efa" in [m["answer"] for m in question("log-efa-name")["mistakes"]]


# -- figures ------------------------------------------------------------------------------


def test_port_rates_are_lanes_times_nccls_lane_rate_over_eight():
    # ibvSpeeds of NCCL 2.30.7 (Mb/s per lane) times 4 lanes
    for generation, lane_mbps in (("HDR", 50_000), ("NDR", 100_000), ("XDR", 200_000)):
        assert ib_port_gbit(generation) == lane_mbps * 4 / 1000
    assert gbit_to_GBps(ib_port_gbit("NDR")) == 50.0
    with pytest.raises(ValueError, match="use one of"):
        ib_port_gbit("GDR")
    assert "a 400 Gb/s port is 50 GB/s raw" in text()


def test_perftest_factor_and_the_units_question():
    assert round(MIB_S_PER_GBIT, 1) == 119.2 and "1 Gb/s = 119.2 MiB/s" in text()
    q = question("perftest-units")
    assert mib_s_to_gbit(45000) == pytest.approx(q["answer"], rel=1e-4)
    assert 45000 * 2**20 * 8 / 1e9 == pytest.approx(q["answer"], rel=1e-4)
    wrong = {m["answer"] for m in q["mistakes"]}
    assert 45000 * 8 / 1000 in wrong and 45000 / 1000 in wrong


def test_azure_floors_and_the_worked_example():
    floors = {f.vm_size: f for f in AZURE_IB_WRITE_BW_FLOORS}
    nd_v5 = floors["Standard_ND96isr_H100_v5"]
    assert (nd_v5.port_gbit, nd_v5.floor_gbit, nd_v5.share) == (400.0, 375.0, 0.9375)
    assert floors["Standard_ND96asr_v4"].floor_gbit == 185.0
    assert f"{gbit_to_GBps(nd_v5.floor_gbit):.1f}" == "46.9" and "(46.9 GB/s)" in text()
    per_nic = next(r for r in PUBLISHED if r.metric == "busbw_GBps_per_nic")
    assert per_nic.value == 47.0 and "8 × 47 = 376 GB/s" in text()
    ring = predict("all_reduce", 2**30, "ib-ndr-2node", algo="ring").busbw_GBps
    assert f"about {ring:.0f} GB/s of busbw" in text()
    assert f"(the model is {(ring - 47.0) / 47.0:.0%} above it)".replace("%", " %") in text()
    assert f"About {8 * 47 / 10:.0f} GB/s, a tenth" in text()


def test_ring_model_figures_of_the_cloud_presets():
    busbw = {
        p: predict("all_reduce", 2**30, p, algo="ring").busbw_GBps
        for p in ("ib-ndr-2node", "h100-efa-2node", "a3-mega-2node")
    }
    assert (
        f"about {busbw['ib-ndr-2node']:.0f} GB/s there ({busbw['h100-efa-2node']:.0f} on p5"
        in text()
    )
    assert f"about {busbw['a3-mega-2node']:.0f} GB/s for A3 Mega" in text()
    assert get_preset("h100-efa-2node").nccl.cpu_vendor == "AMD"  # why p5's figure is lower
    for preset in (
        "ib-ndr-2node",
        "h100-efa-2node",
        "h200-efa-2node",
        "a3-ultra-2node",
        "a4-2node",
    ):
        hw = get_preset(preset).nccl
        assert (hw.nics_per_node, hw.nic_gbit) == (8, 400.0)
    assert "Eight 400 Gb/s NICs are 400 GB/s per node" in text()


def test_the_a3_ultra_perftest_run():
    cell = re.search(r'a3_ultra = """(.*?)"""', raw(), re.S).group(1)
    run = parse_perftest(cell)
    assert (run.unit, run.link_type, run.gid_index) == ("Gb/sec", "Ethernet", 3)
    assert run.best.size_bytes == 64 * 1024 and run.best_gbit == 381.41
    assert "climbed to 381 Gb/s at 64 KiB" in text()
    with pytest.raises(ValueError, match="no perftest result table"):
        parse_perftest("RDMA_Write BW Test\n")


def test_perftest_in_mib_is_converted():
    out = (
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
        " 65536      1000             45100.00            45000.00           0.720000\n"
    )
    run = parse_perftest(out)
    assert run.unit == "MB/sec" and run.best_gbit == pytest.approx(377.49, rel=1e-3)


def test_traffic_class_is_dscp_times_four():
    for dscp in range(64):
        assert roce_traffic_class(dscp) == dscp * 4 and dscp_of(dscp * 4) == dscp
    assert roce_traffic_class(26, ecn=2) == 106
    with pytest.raises(ValueError):
        roce_traffic_class(64)
    assert "NCCL's value is that DSCP times 4" in text()


@pytest.mark.parametrize("seed", range(20))
def test_generators_match_independent_sums(seed):
    draw = resolve("nic_port_GBps")(random.Random(seed))
    assert draw.answer == draw.params["nics"] * float(draw.params["lane_gbit"]) * 4 / 8
    tc = resolve("roce_tc_from_dscp")(random.Random(seed))
    assert tc.answer == tc.params["dscp"] * 4


# -- versions, pinned to their wording ----------------------------------------------------


@pytest.mark.parametrize(
    "claim",
    [
        # src/transport/net_ib.cc (v2.20.5-1: default 0) and connect.cc (v2.21.5-1 on: -1)
        "Up to NCCL 2.20 the default was 0",
        "Since 2.21 the default is -1",
        # NCCL_PARAM(IbFifoTc) first at v2.22.3-1
        "`NCCL_IB_FIFO_TC` (2.22.3+)",
        # wrap_ibv_query_ece in v2.19.3-1, NCCL_PARAM(IbEceEnable, ..., 1) first at v2.23.4-1
        "since 2.19, and 2.23 added this switch (default 1)",
        # printIbModifyQpHint, src/misc/ibvwrap.cc of v2.30.7-1
        "NCCL 2.30.7 prints a hint that a forced index is a common cause",
        # docs/userguide/source/env.rst
        "`NCCL_NET_PLUGIN=NAME` (2.11+)",
        "`NCCL_NET=<name>` (2.10+)",
        # aws-ofi-nccl: plugin name and INIT line by tag
        "`AWS Libfabric` up to v1.12 and is `Libfabric` from v1.13",
        "`NET/OFI Selected provider is efa, fabric is efa (found N nics)` in v1.14",
        "only for aws-ofi-nccl 1.5.0 and older",
        "not needed with libfabric 1.18 and aws-ofi-nccl 1.7 or newer",
        # src/plugin/plugin_open.cc of v2.30.7-1 and the 2.19.3 line of nccl-tests issue 185
        "`NET/Plugin: Could not find: libnccl-net.so` | no external plugin; NCCL 2.19 wrote",
    ],
)
def test_behaviours_name_their_version(claim):
    assert claim in text()
