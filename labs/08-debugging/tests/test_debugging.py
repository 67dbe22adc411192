"""Lab 08 tests: a missing rank and mismatched collectives become clear errors within seconds;
flight-recorder records point at the skipped call; the two bugs are fixed; async results are right.

One launch per world size runs every scenario (tests/checks.py). Timeouts are seconds, and the
launch itself is bounded by lab.yaml's timeout_s, so a starter that hangs fails instead of
blocking the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CHECKS = Path(__file__).with_name("checks.py")
#: Slack on top of a timeout for a busy machine (seconds).
MARGIN_S = 3.0


@pytest.fixture
def results(lab_file, world_size, lab_once):
    # One launch per (learner file, world size) in this module; every test reads its results.
    return lab_once((str(CHECKS), "run_checks"), world_size, args=(str(lab_file),))


def _ok(result: dict, what: str):
    assert result["error"] is None, f"{what} raised {result['error']}"
    return result["value"]


def test_missing_rank_is_named_within_the_timeout(results, world_size):
    got = results[0]["missing"]
    value = _ok(got, "rank 0's find_missing_ranks")
    assert value == [world_size - 1], (
        f"rank {world_size - 1} never reached the barrier: rank 0 should report "
        f"[{world_size - 1}], got {value!r}"
    )
    assert got["elapsed_s"] < 2.0 + MARGIN_S, (
        f"the barrier's timeout was 2 s; rank 0 took {got['elapsed_s']:.1f} s to report"
    )
    for rank in range(1, world_size - 1):
        other = results[rank]["missing"]
        assert _ok(other, f"rank {rank}'s find_missing_ranks") is None, (
            f"rank {rank} reached the barrier but rank 0 failed: it cannot know who is missing "
            "and should return None"
        )


def test_no_rank_missing(results):
    for rank, res in enumerate(results):
        value = _ok(res["all_present"], f"rank {rank}'s find_missing_ranks")
        assert value == [], f"rank {rank}: every rank arrived, so [] is expected, got {value!r}"


def test_shape_mismatch_is_reported(results):
    for rank, res in enumerate(results):
        message = _ok(res["shape_mismatch"], f"rank {rank}'s detect_collective_mismatch")
        assert isinstance(message, str) and message.startswith("collective mismatch"), (
            f"rank {rank}: rank 1 all-reduces 5 elements, the others 4: expected a line "
            f"starting 'collective mismatch', got {message!r}"
        )
        for needle in ("[4]", "[5]", "rank 1", "ALLREDUCE"):
            assert needle in message, (
                f"rank {rank}: the message should mention {needle!r}: {message!r}"
            )
        assert "\n" not in message, f"rank {rank}: one line, please: {message!r}"
        assert res["shape_mismatch"]["elapsed_s"] < 5.0 + MARGIN_S


def test_op_mismatch_is_reported(results):
    for rank, res in enumerate(results):
        message = _ok(res["op_mismatch"], f"rank {rank}'s detect_collective_mismatch")
        assert isinstance(message, str) and message.startswith("collective mismatch"), (
            f"rank {rank}: rank 1 broadcasts while the others all-reduce; got {message!r}"
        )
        assert "BROADCAST" in message and "ALLREDUCE" in message, (
            f"rank {rank}: the message should name both ops: {message!r}"
        )


def test_consistent_collectives_pass(results):
    for rank, res in enumerate(results):
        value = _ok(res["consistent"], f"rank {rank}'s detect_collective_mismatch")
        assert value is None, f"rank {rank}: same ops and shapes everywhere: None, got {value!r}"


def test_diagnose_flight_records_examples(lab_module):
    diagnose = lab_module.diagnose_flight_records
    same = {0: [(1, "ar", [[4]]), (2, "bc", [[2]])], 1: [(1, "ar", [[4]]), (2, "bc", [[2]])]}
    assert diagnose(same) is None, "identical records: nothing to report"
    skipped = {
        0: [(1, "ar", [[4]]), (2, "ar", [[4]]), (3, "ag", [[8]])],
        1: [(1, "ar", [[4]]), (2, "ar", [[4]])],
        2: [(1, "ar", [[4]]), (2, "ar", [[4]]), (3, "ag", [[8]])],
    }
    assert diagnose(skipped) == {
        "seq": 3,
        "missing": [1],
        "calls": {0: ("ag", [[8]]), 2: ("ag", [[8]])},
    }, "rank 1 has no record of call 3: it is the one that never called it"
    differ = {0: [(1, "ar", [[4]]), (2, "ar", [[4]])], 1: [(1, "ar", [[4]]), (2, "ar", [[5]])]}
    assert diagnose(differ) == {
        "seq": 2,
        "missing": [],
        "calls": {0: ("ar", [[4]]), 1: ("ar", [[5]])},
    }, "call 2 has different sizes on ranks 0 and 1"


def test_diagnose_real_flight_records(results, world_size, lab_module):
    records = {rank: res["records"] for rank, res in enumerate(results)}
    if any(r is None for r in records.values()):
        pytest.skip("this PyTorch has no flight recorder")
    if not any(records.values()):
        pytest.skip("this PyTorch's flight recorder does not record gloo groups")
    found = lab_module.diagnose_flight_records(
        {rank: [tuple(entry) for entry in entries] for rank, entries in records.items()}
    )
    assert found is not None and found["seq"] == 2 and found["missing"] == [world_size - 1], (
        f"rank {world_size - 1} skipped the group's second all-reduce; the records "
        f"{records} should give seq 2, missing [{world_size - 1}], got {found!r}"
    )


def test_global_mean_loss(results, world_size):
    want = float(world_size)  # the mean of 1, 3, 5, ... (2 * rank + 1)
    for rank, res in enumerate(results):
        got = _ok(res["mean_loss"], f"rank {rank}'s global_mean_loss")
        assert got == want, (
            f"rank {rank}: ranks' losses are 1, 3, 5, ...: the mean is {want} on every rank, "
            f"got {got} (does every rank join the all-reduce?)"
        )


def test_gather_variable_length(results, world_size):
    want = [[float(i * (r + 1)) for i in range(3 + r)] for r in range(world_size)]
    for rank, res in enumerate(results):
        got = _ok(res["gathered"], f"rank {rank}'s gather_variable_length")
        assert got == want, f"rank {rank}: want every rank's values {want}, got {got}"


def test_average_async(results, world_size):
    want = [[sum(r + k for r in range(world_size)) / world_size] * (k + 1) for k in range(3)]
    for rank, res in enumerate(results):
        got = _ok(res["average"], f"rank {rank}'s average_async")
        assert got == want, f"rank {rank}: averages should be {want}, got {got}"


def test_hang_becomes_error_with_short_timeout(results):
    got = results[0]["buggy"]
    assert got["error"] is not None and "Timed out" in got["error"], (
        "rank 0 joined an all-reduce no other rank called: with a 2 s group timeout it should "
        f"raise a timeout error, got {got}"
    )
    assert got["elapsed_s"] < 2.0 + MARGIN_S, f"it took {got['elapsed_s']:.1f} s, not about 2 s"
