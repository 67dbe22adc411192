"""The launcher on real gloo processes: results, errors, hangs, port clashes."""

from __future__ import annotations

import importlib
import socket
import time
from pathlib import Path

import pytest

from nccl_course.launcher import LaunchTimeout, WorkerError, launch

launch_module = importlib.import_module("nccl_course.launcher.launch")
WORKERS = str(Path(__file__).with_name("workers.py"))


def test_results_come_back_in_rank_order_with_torchrun_variables():
    results = launch((WORKERS, "report"), 3, args=(10,), backend="gloo", timeout_s=60)
    assert [r["rank"] for r in results] == [0, 1, 2]
    for rank, r in enumerate(results):
        assert r["env"] == {
            "RANK": str(rank),
            "WORLD_SIZE": "3",
            "LOCAL_RANK": str(rank),
            "LOCAL_WORLD_SIZE": "3",
        }
        assert r["world_size"] == 3
        assert r["master_addr"] == "127.0.0.1"
        assert r["backend"] == "gloo"
        assert r["init_again"] == "gloo"  # init() in an initialised process changes nothing
        assert r["device"] == "cpu"
        assert r["sum"] == 10 + 11 + 12


def test_an_exception_names_the_rank_and_keeps_its_traceback():
    with pytest.raises(WorkerError) as info:
        launch((WORKERS, "fail_on_rank"), 2, args=(1,), backend="gloo", timeout_s=60)
    error = info.value
    assert 1 in error.ranks
    assert "ValueError: rank 1 cannot go on" in error.failures[1]
    assert "workers.py" in error.failures[1]  # the traceback points into the worker's file
    assert "rank 1 first" in str(error)


def test_a_deadlock_is_stopped_and_reports_where_each_rank_waited():
    start = time.monotonic()
    with pytest.raises(LaunchTimeout) as info:
        launch((WORKERS, "recv_from_next"), 2, backend="gloo", timeout_s=10)
    elapsed = time.monotonic() - start
    assert elapsed < 10 + 6, f"stopping hung ranks took {elapsed:.1f} s"
    assert info.value.unfinished == [0, 1]
    for rank in (0, 1):
        assert "recv_from_next" in info.value.stacks[rank]
    assert "recv that no rank sends" in str(info.value)
    assert "did not finish within 10 s" in str(info.value)


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_ranks_see_the_callers_environment_and_folder_at_the_launch(method, monkeypatch, tmp_path):
    # The fork server keeps the environment and folder it started with; the ranks forked from
    # it must still see what the caller has at the time of each launch, as spawned ranks do.
    monkeypatch.setenv(launch_module.START_METHOD_ENV, method)
    assert launch_module.start_method("gloo") == method
    assert launch_module.start_method("nccl") == "spawn"
    # Fork server: a first launch starts it, the next two must not see its state. Spawn: one
    # launch (each starts new interpreters).
    values = ("first", "second") if method == "forkserver" else ("first",)
    if method == "forkserver":
        launch((WORKERS, "where_am_i"), 2, args=("NCCL_COURSE_TEST_MARK",), backend="gloo")
    for value in values:
        monkeypatch.setenv("NCCL_COURSE_TEST_MARK", value)
        folder = tmp_path / value
        folder.mkdir()
        monkeypatch.chdir(folder)
        ranks = launch((WORKERS, "where_am_i"), 2, args=("NCCL_COURSE_TEST_MARK",), backend="gloo")
        assert [r["variable"] for r in ranks] == [value, value]
        assert [Path(r["cwd"]) for r in ranks] == [folder, folder]
        assert [r["threads"] for r in ranks] == [1, 1]  # OMP_NUM_THREADS=1, as torchrun sets
        assert len({r["pid"] for r in ranks}) == 2


def test_an_unknown_start_method_is_refused_with_the_choices(monkeypatch):
    monkeypatch.setenv(launch_module.START_METHOD_ENV, "threads")
    with pytest.raises(ValueError, match="use 'spawn' or 'forkserver'"):
        launch((WORKERS, "report"), 1, args=(0,), backend="gloo")


def test_a_rank_that_dies_without_a_word_is_reported():
    with pytest.raises(WorkerError) as info:
        launch((WORKERS, "exit_silently"), 2, backend="gloo", timeout_s=60)
    assert info.value.ranks == [1]
    assert "exited with code 3" in info.value.failures[1]


def test_an_unpicklable_result_is_an_error_that_says_what_to_return():
    with pytest.raises(WorkerError, match="cannot be pickled"):
        launch((WORKERS, "unpicklable"), 1, backend="gloo", timeout_s=60)


def test_a_taken_port_is_retried_on_another(monkeypatch):
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    taken = holder.getsockname()[1]
    ports = [taken]
    real_free_port = launch_module.free_port

    def first_taken_then_free():
        port = ports.pop(0) if ports else real_free_port()
        tried.append(port)
        return port

    tried: list[int] = []
    monkeypatch.setattr(launch_module, "free_port", first_taken_then_free)
    try:
        results = launch((WORKERS, "report"), 2, args=(0,), backend="gloo", timeout_s=60)
    finally:
        holder.close()
    assert tried[0] == taken and len(tried) >= 2
    assert [r["sum"] for r in results] == [1.0, 1.0]


def test_targets_that_cannot_reach_a_spawned_process_are_refused_before_spawning():
    with pytest.raises(TypeError, match="top level"):
        launch(lambda: 1, 2, backend="gloo")
    with pytest.raises(FileNotFoundError):
        launch(("/nonexistent/lab.py", "main"), 2, backend="gloo")
    with pytest.raises(ValueError, match="nproc"):
        launch((WORKERS, "report"), 0)
