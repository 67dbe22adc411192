"""NCCL's buffer memory model against hand computations from NCCL 2.30.7's sources and against
figures published in NCCL's and vLLM's issue trackers."""

import pytest

from nccl_course.cost.nccl import memory as M

MiB = 1 << 20

# By hand from src/init.cc and src/include/device.h: LL = 8 lines x 512 threads x 8 steps x
# 16 B, LL128 = 120 x 640 x 8 x 8 B, Simple = 4 MiB; the header is one 4096-byte page.
LL, LL128, SIMPLE = 524288, 4915200, 4194304


def test_connection_sizes_by_hand():
    raw = M.p2p_connection(cumem=False)
    assert raw.receiver == 4096 + LL + LL128 + SIMPLE == 9637888
    assert raw.sender == 4096
    rounded = M.p2p_connection()
    # 9637888 B is 4.6 granules of 2 MiB: five of them
    assert rounded.receiver == 5 * 2 * MiB
    assert rounded.sender == 2 * MiB


def test_published_allocation_sizes_issue_1685():
    # NVIDIA/nccl issue 1685 (8x H100, P2P/CUMEM, NCCL_DEBUG_SUBSYS=ALLOC): allocations of
    # 10485760 and 2097152 bytes.
    c = M.p2p_connection()
    assert (c.receiver, c.sender) == (10485760, 2097152)


def test_read_mode_moves_simple_to_sender():
    raw = M.p2p_connection(read=True, cumem=False)
    assert raw.receiver == 4096 + LL + LL128
    assert raw.sender == 4096 + SIMPLE
    assert M.p2p_connection(read=True).total == 6 * MiB + 6 * MiB


def test_buffsize_override_changes_only_simple():
    small = M.p2p_connection({"Simple": 1 * MiB}, cumem=False)
    assert small.receiver == 4096 + LL + LL128 + MiB


def test_unknown_protocol_is_refused():
    with pytest.raises(ValueError, match="unknown protocol"):
        M.p2p_connection({"simple": MiB})


def test_ring_one_node_and_two_nodes():
    assert M.ring_bytes(24, 8, 1) == 24 * 12 * MiB
    net = M.net_connection()
    # net receiver: LL + LL128 + Simple = 9633792 B -> 10 MiB; sender LL128 + Simple -> 10 MiB
    assert (net.receiver, net.sender) == (10 * MiB, 10 * MiB)
    # two nodes of 8: per channel 7 NVLink links (12 MiB each) and one network link (20 MiB)
    assert M.ring_bytes(16, 8, 2) == pytest.approx(16 * (7 * 12 + 20) / 8 * MiB)
    assert M.ring_bytes(16, 1, 1) == 0.0


def test_nvls_current_layout():
    # 2.22+: 16 channels x 2 x (128 KiB x 8 steps) x 8 heads = 256 MiB
    assert M.nvls_bytes(16, 8) == 256 * MiB


def test_nvls_published_figure_vllm_9699():
    # vLLM issue 9699 (8x H200, NCCL 2.20.x): "nHeads 8 buffSize 4194304 memSize 2097152
    # nvlsPerRankSize 301989888 nvlsTotalSize 2415919104" with 24 communicator channels.
    total = M.nvls_bytes(heads=8, comm_channels=24, release="2.20")
    assert total == 2415919104
    assert total // 8 == 301989888


def test_nvls_older_layout_needs_comm_channels():
    with pytest.raises(ValueError, match="comm_channels"):
        M.nvls_bytes(release="2.21")
    assert M.nvls_bytes(heads=8, comm_channels=24, release="2.21") == 24 * 2 * 3 * MiB * 8


def test_p2p_and_footprint():
    assert M.p2p_bytes(7, 32) == 7 * 32 * 12 * MiB
    fp = M.footprint(8, 1, 24, nvls=True, p2p_peers=7, p2p_channels_per_peer=32)
    assert fp.total == 24 * 12 * MiB + 256 * MiB + 7 * 32 * 12 * MiB
    assert M.footprint(8, 1, 24).nvls == 0


def test_round_up():
    assert M.round_up(1, 2 * MiB) == 2 * MiB
    assert M.round_up(2 * MiB, 2 * MiB) == 2 * MiB
    assert M.round_up(5, 1) == 5
