"""NCCL's device rule checked on gloo: launch(check_placement=True) refuses, in a collective, a
tensor that would stay on the CPU on a GPU rank, and lets every placed idiom through."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.labs import discover_labs
from nccl_course.launcher import WorkerError, launch

WORKERS = str(Path(__file__).with_name("placement_workers.py"))
REPO = Path(__file__).resolve().parents[2]


def run(name: str, check: bool = True):
    return launch((WORKERS, name), 2, backend="gloo", timeout_s=120, check_placement=check)


@pytest.mark.parametrize(
    ("worker", "call"),
    [
        ("reduce_unplaced_result", "dist.all_reduce"),
        ("reduce_moved_back_to_cpu", "dist.all_reduce"),
        ("gather_into_unplaced_list", "dist.all_gather"),
        ("send_unplaced_in_a_batch", "dist.batch_isend_irecv"),
    ],
)
def test_unplaced_tensor_is_refused_with_the_call_named(worker, call):
    with pytest.raises(WorkerError) as caught:
        run(worker)
    text = "\n".join(caught.value.failures.values())
    assert "PlacementError" in text
    assert f"{call} got a" in text
    assert "would be on the CPU on a GPU rank" in text


def test_without_the_check_gloo_accepts_the_same_code():
    # Why the check exists: plain gloo runs lab 05's old mistake without a word.
    assert run("reduce_unplaced_result", check=False) == [[0.5, 0.25], [0.5, 0.25]]


def test_placed_idioms_pass_and_compute_the_right_values():
    values = run("placed_idioms")
    # total = [2, 4] on 2 ranks; derived = sum(total * 2) summed over 2 ranks = 24;
    # counts = 3 + 3; received = the neighbour's total.
    assert values == [[2.0, 4.0, 24.0, 6.0, 2.0, 4.0]] * 2


@pytest.mark.parametrize("lab", discover_labs(REPO / "labs"), ids=lambda lab: lab.id)
def test_every_lab_main_places_its_tensors_as_nccl_needs(lab, tmp_path, monkeypatch):
    """Each lab's solution, run as 'nccl-course lab run' runs it, on gloo with the check on:
    a CPU tensor in a collective (lab 05 had one) would have failed on the first GPU run."""
    monkeypatch.chdir(tmp_path)  # what a lab's main writes (lab 10's traces) stays out of the repo
    timeout = max(120.0, float(lab.config["timeout_s"]) * 2)
    launch(
        (str(lab.solution), "main"),
        2,
        backend="gloo",
        timeout_s=timeout,
        check_placement=True,
    )
