"""Load benchmark of the course server: many learners taking the exam at once.

Starts ``nccl-course serve`` as a subprocess on 127.0.0.1 (a free port, SQLite in WAL mode in
a temporary data folder), then runs LEARNERS simulated learners concurrently with httpx's
async client: register, start an attempt, save an answer to every question (each answer
saved RESAVES times with a changing value, as learners change their minds), submit, read the
result. Only loopback traffic; every loop is bounded.

Prints: throughput of answer saves (answers/s), p50/p99 latency of saves, starts and submits,
and the integrity check made on the database afterwards: one row per (attempt, question)
(no duplicates), holding the last value the learner sent (no lost answers), with a revision
equal to the number of saves acknowledged (no lost or doubled updates).

    .venv/bin/python benchmarks/bench_exam_load.py               # 200 learners
    .venv/bin/python benchmarks/bench_exam_load.py --learners 50 --resaves 3 --json out.json

By default the exam is drawn from a blueprint written for the run: up to --per-bank questions
from every bank in --quizzes, so the load does not depend on how many chapter banks exist
yet; --blueprint uses a given one (e.g. quizzes/exam/blueprint.yml).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by linear interpolation between closest ranks."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def response_for(question: dict, version: int):
    """A well-formed response of the question's type; ``version`` makes each save differ."""
    kind = question["type"]
    if kind == "single":
        return version % len(question["choices"])
    if kind == "multiple":
        return [version % len(question["choices"])]
    if kind == "numeric":
        return f"{1.5 + version} {question.get('unit') or ''}".strip()
    if kind == "ordering":
        n = len(question["items"])
        return [(i + version) % n for i in range(n)]
    if kind == "matching":
        return [(i + version) % len(question["right"]) for i in range(len(question["left"]))]
    return f"answer {version}"


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux /proc)."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def write_blueprint(path: Path, quizzes: Path, per_bank: int, minutes: int) -> dict:
    from nccl_course.exam.banks import QuizEngine

    engine = QuizEngine.load(quizzes)
    if not engine.banks:
        raise SystemExit(f"error: no question banks in {quizzes}: {engine.problems}")
    zones = {ch: min(per_bank, len(b.questions)) for ch, b in sorted(engine.banks.items())}
    lines = [
        "exam:",
        "  id: load-benchmark",
        "  title: Load benchmark",
        f"  time_limit_minutes: {minutes}",
        "  max_attempts: 1",
        "  pass_score: 0.7",
        "zones:",
    ]
    lines += [f"  - {{chapter: {ch}, draw: {n}}}" for ch, n in zones.items()]
    path.write_text("\n".join(lines) + "\n")
    return zones


class Learner:
    def __init__(self, number: int):
        self.number = number
        self.headers: dict = {}
        self.attempt_id = ""
        self.sent: dict[int, object] = {}  # question index -> last value acknowledged
        self.acks: dict[int, int] = {}  # question index -> saves acknowledged
        self.errors: list[str] = []


async def take_exam(client, learner: Learner, resaves: int, lat: dict) -> None:
    try:
        await _take_exam(client, learner, resaves, lat)
    except httpx.HTTPError as exc:  # a transport failure ends this learner; it is counted
        learner.errors.append(f"{type(exc).__name__}: {exc}")


async def _take_exam(client, learner: Learner, resaves: int, lat: dict) -> None:
    t = time.perf_counter()
    reg = await client.post(
        "/exam/api/register",
        json={"name": f"Load Learner {learner.number}", "email": f"load{learner.number}@ex.org"},
    )
    lat["register"].append(time.perf_counter() - t)
    if reg.status_code != 201:
        learner.errors.append(f"register {reg.status_code}")
        return
    learner.headers = {"Authorization": f"Bearer {reg.json()['token']}"}
    t = time.perf_counter()
    start = await client.post("/exam/api/attempts", headers=learner.headers)
    lat["start"].append(time.perf_counter() - t)
    if start.status_code != 201:
        learner.errors.append(f"start {start.status_code}")
        return
    attempt = start.json()
    learner.attempt_id = attempt["id"]
    for version in range(resaves):
        for item in attempt["questions"]:
            value = response_for(item["question"], version)
            t = time.perf_counter()
            saved = await client.put(
                f"/exam/api/attempts/{learner.attempt_id}/answers/{item['index']}",
                json={"response": value},
                headers=learner.headers,
            )
            lat["save"].append(time.perf_counter() - t)
            if saved.status_code != 200:
                learner.errors.append(f"save {saved.status_code} {saved.text[:80]}")
                continue
            learner.sent[item["index"]] = value
            learner.acks[item["index"]] = learner.acks.get(item["index"], 0) + 1
            if saved.json()["revision"] != learner.acks[item["index"]]:
                learner.errors.append("revision does not count the saves")
    t = time.perf_counter()
    submitted = await client.post(
        f"/exam/api/attempts/{learner.attempt_id}/submit", headers=learner.headers
    )
    lat["submit"].append(time.perf_counter() - t)
    if submitted.status_code != 200 or submitted.json()["status"] != "submitted":
        learner.errors.append(f"submit {submitted.status_code}")


def check_database(database_url: str, learners: list[Learner]) -> dict:
    """Compare every stored answer with what the clients had acknowledged."""
    from sqlalchemy import func, select

    from nccl_course.exam.db import Database
    from nccl_course.exam.models import Answer, Attempt

    db = Database(database_url)
    by_attempt = {ln.attempt_id: ln for ln in learners if ln.attempt_id}
    lost = duplicated = wrong_value = wrong_revision = 0
    with db.read() as session:
        rows = session.execute(
            select(Attempt.public_id, Answer.question_index, Answer.response, Answer.revision)
            .join(Attempt, Attempt.id == Answer.attempt_id)
            .where(Attempt.exam_id == "load-benchmark")
        ).all()
        per_key = session.execute(
            select(Answer.attempt_id, Answer.question_index, func.count())
            .group_by(Answer.attempt_id, Answer.question_index)
            .having(func.count() > 1)
        ).all()
        submitted = session.scalar(
            select(func.count()).select_from(Attempt).where(Attempt.status == "submitted")
        )
    db.dispose()
    duplicated = len(per_key)
    stored = {(a, i): (resp, rev) for a, i, resp, rev in rows}
    for attempt_id, learner in by_attempt.items():
        for index, value in learner.sent.items():
            got = stored.get((attempt_id, index))
            if got is None:
                lost += 1
            elif got[0] != value:
                wrong_value += 1
            elif got[1] != learner.acks[index]:
                wrong_revision += 1
    acknowledged = sum(len(ln.sent) for ln in learners)
    return {
        "answer_rows": len(rows),
        "acknowledged_answers": acknowledged,
        "lost": lost,
        "duplicated": duplicated,
        "wrong_value": wrong_value,
        "wrong_revision": wrong_revision,
        "extra_rows": len(rows) - acknowledged,
        "submitted_attempts": submitted,
    }


async def run_load(url: str, learners: list[Learner], resaves: int, connections: int) -> dict:
    lat: dict[str, list[float]] = {"register": [], "start": [], "save": [], "submit": []}
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        t0 = time.perf_counter()
        await asyncio.gather(*(take_exam(client, ln, resaves, lat) for ln in learners))
        wall = time.perf_counter() - t0
    return {"wall_s": wall, "latency": lat}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--resaves", type=int, default=2, help="saves per question (>= 1)")
    parser.add_argument("--per-bank", type=int, default=10, help="questions drawn per bank")
    parser.add_argument("--quizzes", type=Path, default=REPO / "quizzes")
    parser.add_argument("--blueprint", type=Path, default=None)
    parser.add_argument("--connections", type=int, default=200, help="client connection pool")
    parser.add_argument("--data-dir", type=Path, default=None, help="default: a temp folder")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.learners < 1 or args.resaves < 1:
        parser.error("--learners and --resaves must be >= 1")

    sys.path.insert(0, str(REPO / "src"))
    sys.path.insert(0, str(REPO))  # for tests.support
    from nccl_course.exam.db import sqlite_url
    from tests.support.server_process import ServerProcess

    with tempfile.TemporaryDirectory(prefix="nccl-course-load-") as tmp:
        data = args.data_dir or Path(tmp) / "data"
        blueprint = args.blueprint
        zones = None
        if blueprint is None:
            blueprint = Path(tmp) / "blueprint.yml"
            zones = write_blueprint(blueprint, args.quizzes, args.per_bank, minutes=60)
        server = ServerProcess(
            data,
            quizzes=args.quizzes,
            book=Path(tmp) / "no-book",
            blueprint=blueprint,
            rate_limits=False,  # --no-rate-limits: every request comes from 127.0.0.1
        )
        server.start()
        try:
            learners = [Learner(i) for i in range(args.learners)]
            cpu_before = process_cpu_s(server.proc.pid)
            load = asyncio.run(run_load(server.url, learners, args.resaves, args.connections))
            alive = server.proc.poll() is None
            server_cpu_s = process_cpu_s(server.proc.pid) - cpu_before if alive else float("nan")
        finally:
            server.stop()
        if not alive:
            print(f"the server died during the run:\n{server.log_tail()}", file=sys.stderr)
        integrity = check_database(sqlite_url(data / "course.db"), learners)

    lat = load["latency"]
    saves = len(lat["save"])
    errors = [e for ln in learners for e in ln.errors]
    ms = 1000.0
    figures = {
        "learners": args.learners,
        "questions_per_attempt": max((len(ln.sent) for ln in learners), default=0),
        "zones": zones,
        "resaves": args.resaves,
        "answer_saves": saves,
        "wall_s": round(load["wall_s"], 3),
        "answers_per_s": round(saves / load["wall_s"], 1),
        "save_p50_ms": round(percentile(lat["save"], 0.50) * ms, 2),
        "save_p99_ms": round(percentile(lat["save"], 0.99) * ms, 2),
        "save_mean_ms": round(statistics.fmean(lat["save"]) * ms, 2) if saves else None,
        "start_p50_ms": round(percentile(lat["start"], 0.50) * ms, 2),
        "start_p99_ms": round(percentile(lat["start"], 0.99) * ms, 2),
        "submit_p50_ms": round(percentile(lat["submit"], 0.50) * ms, 2),
        "submit_p99_ms": round(percentile(lat["submit"], 0.99) * ms, 2),
        "server_cpu_s": round(server_cpu_s, 2),
        "server_cpu_ms_per_request": round(
            1000 * server_cpu_s / max(1, saves + 3 * args.learners), 2
        ),
        "load_average_1min": round(__import__("os").getloadavg()[0], 2),
        "errors": len(errors),
        "error_examples": errors[:5],
        **integrity,
    }
    print(f"learners               {figures['learners']} (concurrent, one server process)")
    print(
        f"questions per attempt  {figures['questions_per_attempt']}  (saves each: {args.resaves})"
    )
    print(f"answer saves           {saves} in {figures['wall_s']:.2f} s")
    print(f"throughput             {figures['answers_per_s']:.1f} answers/s")
    print(
        f"save latency           p50 {figures['save_p50_ms']:.1f} ms, "
        f"p99 {figures['save_p99_ms']:.1f} ms"
    )
    print(
        f"start latency          p50 {figures['start_p50_ms']:.1f} ms, "
        f"p99 {figures['start_p99_ms']:.1f} ms"
    )
    print(
        f"submit latency         p50 {figures['submit_p50_ms']:.1f} ms, "
        f"p99 {figures['submit_p99_ms']:.1f} ms"
    )
    print(
        f"server CPU             {figures['server_cpu_s']:.1f} s "
        f"({figures['server_cpu_ms_per_request']:.2f} ms per request; machine load average "
        f"{figures['load_average_1min']} on {__import__('os').cpu_count()} cores)"
    )
    print(f"errors                 {figures['errors']} {figures['error_examples']}")
    print(
        f"database check         {integrity['answer_rows']} rows for "
        f"{integrity['acknowledged_answers']} acknowledged answers: lost {integrity['lost']}, "
        f"duplicated {integrity['duplicated']}, wrong value {integrity['wrong_value']}, "
        f"wrong revision {integrity['wrong_revision']}; "
        f"{integrity['submitted_attempts']} attempts submitted"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    ok = (
        not errors
        and integrity["lost"] == integrity["duplicated"] == 0
        and integrity["wrong_value"] == integrity["wrong_revision"] == integrity["extra_rows"] == 0
        and integrity["submitted_attempts"] == args.learners
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
