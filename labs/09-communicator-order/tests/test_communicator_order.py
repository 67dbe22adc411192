"""Lab 09 checks: one order of collectives across groups, the same on every rank."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from nccl_course.launcher.launch import load_file_module

CHECKS = str(Path(__file__).with_name("checks.py"))
_checks = load_file_module(CHECKS)
#: The group timeout the checks use, seconds: a correct schedule never comes near it.
TIMEOUT_S = 4.0


def test_agreed_order_is_one_order_for_every_rank(lab_module):
    grads = [("grads", "layer1"), ("grads", "layer0"), ("grads", "embed")]
    others = [("tp", "attn"), ("metrics", "loss")]
    orders = {
        tuple(lab_module.agreed_order(list(mix)))
        for mix in itertools.permutations(grads + others)
        if [c for c in mix if c[0] == "grads"] == grads
    }
    assert len(orders) == 1, (
        "agreed_order gave different orders for the same calls reached in different orders "
        f"across groups: {sorted(orders)[:2]}; every rank must get one order"
    )
    (order,) = orders
    assert sorted(order) == sorted(grads + others), (
        f"agreed_order must return every call once; got {list(order)}"
    )
    kept = [c for c in order if c[0] == "grads"]
    assert kept == grads, (
        f"inside one group keep the calls in the order given: want {grads}, got {kept} "
        "(a group's calls are matched by position on every rank)"
    )
    names = [name for name, _ in order]
    assert names == sorted(names), f"issue the groups in sorted name order; got {names}"


@pytest.fixture()
def per_rank(lab_once, lab_file, world_size):
    return lab_once((CHECKS, "run_checks"), world_size, args=(str(lab_file), TIMEOUT_S))


def test_reductions_finish_on_every_rank(per_rank, world_size):
    for rank, result in enumerate(per_rank):
        if result["error"]:
            orders = "; ".join(f"rank {r}: {res['calls']}" for r, res in enumerate(per_rank[:2]))
            hint = ""
            if "Timed out" in result["error"] or "timed out" in result["error"]:
                hint = (
                    f"\nA deadlock, cut short by the {TIMEOUT_S:g} s group timeout: the ranks "
                    f"issued their all-reduces in different orders across groups ({orders}); "
                    "each waits in one group for peers blocked in the other. Issue them in "
                    "agreed_order on every rank (step 2)."
                )
            pytest.fail(f"reduce_in_order raised on rank {rank}: {result['error']}{hint}")
        want = {
            label: [sum(_checks.value_of(r, label)[i] for r in range(world_size)) for i in range(3)]
            for _name, label in _checks.calls_of(rank)
        }
        assert result["value"] == want, (
            f"rank {rank}: every label must hold the sum over the {world_size} ranks; "
            f"want {want}, got {result['value']}"
        )
        assert result["elapsed_s"] < TIMEOUT_S / 2, (
            f"rank {rank} took {result['elapsed_s']:.1f} s: a correct order never waits for the "
            f"{TIMEOUT_S:g} s timeout"
        )
