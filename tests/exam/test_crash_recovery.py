"""Kill -9 the server while learners are saving answers; after a restart every answer the
server acknowledged is there (SQLite in WAL mode, synchronous=FULL, commit before the ack)."""

from __future__ import annotations

import asyncio

import httpx

from tests.support.server_process import ServerProcess

LEARNERS = 12
ACKS_BEFORE_KILL = 250


async def _setup(client: httpx.AsyncClient):
    learners = []
    for i in range(LEARNERS):
        reg = await client.post(
            "/exam/api/register", json={"name": f"Learner {i}", "email": f"l{i}@example.org"}
        )
        headers = {"Authorization": f"Bearer {reg.json()['token']}"}
        attempt = (await client.post("/exam/api/attempts", headers=headers)).json()
        learners.append((headers, attempt["id"], len(attempt["questions"])))
    return learners


async def _hammer(client, learners, server: ServerProcess):
    """One task per (learner, question), saving new values one after another until the
    server dies. Returns {(attempt, index): (last acked value, in-flight value or None)}."""
    acked: dict = {}
    in_flight: dict = {}
    count = 0
    killed = asyncio.Event()

    async def worker(headers, attempt_id, index):
        nonlocal count
        for n in range(10_000):  # bounded; the kill ends it long before
            value = f"{attempt_id}-{index}-{n}"
            in_flight[(attempt_id, index)] = value
            try:
                response = await client.put(
                    f"/exam/api/attempts/{attempt_id}/answers/{index}",
                    json={"response": value},
                    headers=headers,
                )
            except httpx.HTTPError:
                return
            if response.status_code != 200:
                return
            acked[(attempt_id, index)] = (value, response.json()["revision"])
            in_flight[(attempt_id, index)] = None
            count += 1
            if count >= ACKS_BEFORE_KILL and not killed.is_set():
                killed.set()
                server.kill()  # SIGKILL with requests in flight
                return
            if killed.is_set():
                return

    await asyncio.gather(
        *(worker(h, a, i) for h, a, n in learners for i in range(n)), return_exceptions=True
    )
    return acked, in_flight


def test_sigkill_loses_no_acknowledged_answer(tmp_path, quizzes_dir):
    data = tmp_path / "data"
    server = ServerProcess(data, quizzes=quizzes_dir, book=tmp_path / "no-book").start()

    async def phase_one():
        limits = httpx.Limits(max_connections=64)
        async with httpx.AsyncClient(base_url=server.url, timeout=30, limits=limits) as client:
            learners = await _setup(client)
            acked, in_flight = await _hammer(client, learners, server)
            return learners, acked, in_flight

    try:
        learners, acked, in_flight = asyncio.run(phase_one())
    finally:
        server.kill()
    assert server.proc.returncode == -9
    assert len(acked) > sum(n for _, _, n in learners) // 2
    assert sum(rev for _, rev in acked.values()) >= ACKS_BEFORE_KILL

    restarted = ServerProcess(data, quizzes=quizzes_dir, book=tmp_path / "no-book").start()
    try:
        with httpx.Client(base_url=restarted.url, timeout=30) as client:
            for headers, attempt_id, _ in learners:
                view = client.get(f"/exam/api/attempts/{attempt_id}", headers=headers).json()
                for q in view["questions"]:
                    value, revision = acked.get((attempt_id, q["index"]), (None, 0))
                    pending = in_flight.get((attempt_id, q["index"]))
                    # the acknowledged value, or the one whose save was cut off by the kill
                    # (committed but never acknowledged); never anything older
                    assert q["response"] in (value, pending), (q["response"], value, pending)
                    assert q["revision"] >= revision
                    if q["response"] == value:
                        assert q["revision"] == revision
    finally:
        restarted.stop()
