"""Verification runs in worker processes under a hard CPU-time cap: a credential that costs
too much is stopped (422) and its worker replaced, the event loop stays free meanwhile, and
too many verifications at once are refused (503) rather than queued without end."""

from __future__ import annotations

import asyncio
import copy
import json
import time

import pytest

from nccl_course.exam.errors import Invalid, Unavailable
from nccl_course.issuing.verifier import CPU_LIMIT_S, VerifierPool, process_cpu_seconds
from tests.support.exam_credentials import passed_credential, verdict


@pytest.fixture()
def credential(client, learner, attempt_keys) -> dict:
    return passed_credential(client, learner, attempt_keys)


def costly(credential: dict) -> dict:
    """480 evidence objects: about 0.3 s of JSON-LD work before the verifier refuses it."""
    heavy = copy.deepcopy(credential)
    heavy["evidence"] = [
        {"type": ["Evidence"], "name": f"Exam {i}", "genre": "Exam"} for i in range(480)
    ]
    return heavy


def test_a_verification_past_the_cpu_limit_is_stopped(app, client, credential):
    pool = app.state.verifier
    pool.cpu_limit_s = 0.05
    try:
        response = client.post("/exam/api/verify", json=costly(credential))
        assert response.status_code == 422, response.text
        body = response.json()
        assert body["error"] == "verification_too_costly"
        assert "took more than 0.05 s of CPU" in body["detail"]
        assert pool.stats["too_costly"] == 1
    finally:
        pool.cpu_limit_s = CPU_LIMIT_S
    # a fresh worker took over
    assert verdict(client, credential)["ok"] is True
    assert pool.stats["started"] >= 2


def test_the_event_loop_stays_free_while_verifying(app, credential):
    heavy = costly(credential)
    options = app.state.service.desk.verification_plan(heavy).options
    text = json.dumps(heavy).encode()
    pool = VerifierPool(workers=1, cpu_limit_s=5)  # a verdict even on a busy machine

    async def main():
        gaps: list[float] = []
        done = asyncio.Event()

        async def heartbeat():
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        beat = asyncio.create_task(heartbeat())
        await pool.run("ping")  # the worker is started (not measured)
        gaps.clear()
        start = time.perf_counter()
        result = await pool.run("verify", text, options)
        took = time.perf_counter() - start
        done.set()
        await beat
        return result, took, gaps

    try:
        result, took, gaps = asyncio.run(main())
    finally:
        pool.close()
    assert result["verdict"] == "NOT VALID"  # refused by the canonicalization limits
    # Run inline, the verification would block the loop: at most a tick or two during it and
    # one gap as long as the verification. In a worker the loop keeps ticking; on a loaded
    # machine a tick can be late (CI saw 0.14 s), but never by most of the verification.
    assert took > 0.05 and len(gaps) > 3
    assert max(gaps) < max(0.1, 0.5 * took), (max(gaps), took)


def test_too_many_at_once_are_refused_and_a_stuck_worker_is_stopped(app, credential):
    heavy = costly(credential)
    options = app.state.service.desk.verification_plan(heavy).options
    text = json.dumps(heavy).encode()
    pool = VerifierPool(workers=1, max_waiting=0, wall_limit_s=0.05, cpu_limit_s=100)

    async def main():
        return await asyncio.gather(
            pool.run("verify", text, options),
            pool.run("verify", text, options),
            return_exceptions=True,
        )

    try:
        first, second = asyncio.run(main())
        workers = list(pool._running)
    finally:
        pool.close()
    # the first ran past its wall-clock limit (this pool gives 0.05 s): 503, worker killed
    assert isinstance(first, Unavailable) and first.code == "verifier_busy", first
    # the second found the only worker taken and nobody may wait: 503 at once
    assert isinstance(second, Unavailable) and second.code == "verifier_busy", second
    assert pool.stats["overloaded"] == 1
    assert all(not w.alive for w in workers)


def test_closing_the_pool_stops_its_workers(app):
    pool = VerifierPool(workers=2)
    assert asyncio.run(pool.run("ping")) == "pong"
    workers = list(pool._running)
    assert workers and all(w.alive for w in workers)
    assert process_cpu_seconds(workers[0].process.pid) is not None
    pool.close()
    assert all(not w.alive for w in workers)
    with pytest.raises(Unavailable):
        asyncio.run(pool.run("ping"))


def test_unknown_tasks_are_refused():
    pool = VerifierPool(workers=1)
    try:
        with pytest.raises(Invalid):
            asyncio.run(pool.run("no-such-task"))
    finally:
        pool.close()


def test_a_worker_ends_itself_past_its_cpu_backstop():
    """Even with no server watching, the kernel ends a worker 2 s of CPU past its cap."""
    import signal
    import subprocess
    import sys

    code = "from nccl_course.issuing.verifier import _limit_cpu\n_limit_cpu(0)\nwhile True:\n    pass\n"
    done = subprocess.run([sys.executable, "-c", code], timeout=60, capture_output=True)
    assert done.returncode == -signal.SIGXCPU, done
