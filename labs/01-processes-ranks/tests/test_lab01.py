"""Lab 01 checks: ranks and environment, node numbering, parity subgroups, device placement."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.labs.parts import values_of

CHECKS = str(Path(__file__).with_name("checks.py"))


@pytest.fixture()
def per_rank(lab_once, lab_file, world_size):
    return lab_once((CHECKS, "check_all"), world_size, args=(str(lab_file),))


def test_whoami_reports_each_process_place(per_rank, world_size, lab_backend):
    got = values_of(per_rank, "whoami")
    for rank, info in enumerate(got):
        want = {"rank": rank, "world_size": world_size, "local_rank": rank}
        seen = {key: info.get(key) for key in want}
        assert seen == want, f"rank {rank}: whoami() should contain {want}, got {seen}"
        assert info.get("local_world_size") == world_size, (
            f"rank {rank}: LOCAL_WORLD_SIZE is {world_size} (one node), whoami() gave "
            f"{info.get('local_world_size')!r}; read it from os.environ and convert it to int"
        )
        assert info.get("backend") == lab_backend, (
            f"rank {rank}: backend should be {lab_backend!r} here, got {info.get('backend')!r}"
        )
    pids = [info["pid"] for info in got]
    assert len(set(pids)) == world_size, f"every rank is its own process: pids {pids}"


@pytest.mark.parametrize(
    ("rank", "per_node", "want"),
    [
        (0, 8, (0, 0)),
        (7, 8, (0, 7)),
        (8, 8, (1, 0)),
        (13, 8, (1, 5)),
        (5, 2, (2, 1)),
        (4, 1, (4, 0)),
    ],
)
def test_node_and_local_rank(lab_module, rank, per_node, want):
    got = lab_module.node_and_local_rank(rank, per_node)
    assert tuple(got) == want, (
        f"with {per_node} processes per node, global rank {rank} is local rank {want[1]} on "
        f"node {want[0]}; node_and_local_rank gave {got}"
    )


def test_parity_groups_reduce_inside_each_group_only(per_rank, world_size):
    got = values_of(per_rank, "parity_groups")
    evens, odds = list(range(0, world_size, 2)), list(range(1, world_size, 2))
    for rank, info in enumerate(got):
        members = evens if rank % 2 == 0 else odds
        want = {
            "group": "even" if rank % 2 == 0 else "odd",
            "members": members,
            "rank_in_group": members.index(rank),
            "group_size": len(members),
            "sum_of_ranks": sum(members),
        }
        assert info == want, f"rank {rank} of {world_size}: expected {want}, got {info}. " + (
            f"sum_of_ranks {info.get('sum_of_ranks')} = {sum(range(world_size))} means the "
            "all-reduce ran over the whole world: pass group=..."
            if info.get("sum_of_ranks") == sum(range(world_size)) and world_size > 2
            else ""
        )


def test_placements_are_gathered_from_every_rank(per_rank, world_size, lab_backend):
    got = values_of(per_rank, "placements")
    first = [tuple(p) for p in got[0]]
    assert len(first) == world_size, f"placements() should list {world_size} ranks, got {first}"
    if lab_backend == "gloo":
        assert all(dev == "cpu" for _, dev in first), f"gloo ranks compute on cpu, got {first}"
    else:
        want = [f"cuda:{rank}" for rank in range(world_size)]
        assert [dev for _, dev in first] == want, f"NCCL rank r uses cuda:r, got {first}"
    for rank, seen in enumerate(got):
        assert [tuple(p) for p in seen] == first, f"rank {rank} sees a different list: {seen}"


@pytest.mark.parametrize(
    ("local_rank", "gpus", "want"),
    [(0, 0, "cpu"), (3, 0, "cpu"), (0, 8, "cuda:0"), (7, 8, "cuda:7"), (2, 4, "cuda:2")],
)
def test_device_for(lab_module, local_rank, gpus, want):
    got = lab_module.device_for(local_rank, gpus)
    assert got == want, f"device_for({local_rank}, {gpus}) should be {want!r}, got {got!r}"


def test_device_for_refuses_a_rank_without_its_own_gpu(lab_module):
    with pytest.raises(ValueError):
        lab_module.device_for(4, 4)  # local ranks 0-3 have GPUs 0-3; rank 4 would share one


def test_duplicate_devices(lab_module):
    spread = [("a", "cuda:0"), ("a", "cuda:1"), ("b", "cuda:0"), ("b", "cuda:1")]
    assert lab_module.duplicate_devices(spread) == {}, "same GPU index on two hosts is fine"
    forgot_set_device = [("a", "cuda:0")] * 4
    got = lab_module.duplicate_devices(forgot_set_device)
    assert got == {"a/cuda:0": [0, 1, 2, 3]}, (
        f"four ranks of one host on cuda:0 (set_device forgotten) should give "
        f"{{'a/cuda:0': [0, 1, 2, 3]}}, got {got}"
    )
    assert lab_module.duplicate_devices([("a", "cpu"), ("a", "cpu")]) == {}, "CPUs never clash"
