"""Load benchmark of the course server: a class of learners taking the exam.

Open loop (the default) models a class: learners ARRIVE at a given rate (--arrival-rate
learners/s, or --learners spread evenly over --ramp-s seconds), whatever the server's speed;
each registers, starts an attempt, then answers one question every --think-s seconds (default
20, with +/- --jitter) for --answers questions, and submits. Latency is then what a learner
waits, not the length of a queue the benchmark builds itself.

--closed-loop is the stress mode: all --learners at once, no think time, every question saved
--resaves times back to back (a queue: throughput, not what a class sees).

The server is started for the run (``nccl-course serve`` on 127.0.0.1, a free port; SQLite in
WAL mode in a temporary data folder unless --database-url names e.g. PostgreSQL; --workers N
passed on only if ``nccl-course serve --help`` offers it) with --no-rate-limits and
--no-email-confirmation (simulated learners have one address and no mailbox), or an existing
one is used with --url (loopback only; start it with those two options too; give
--database-url or --data-dir to have its database checked).

Prints p50/p95/p99/max latency of saves, starts, registers and submits, errors, and the
integrity check made on the database afterwards, restricted to the attempts of this run: every
acknowledged answer stored (none lost), one row per (attempt, question) (none doubled), holding
the last value acknowledged, with a revision equal to the number of saves acknowledged.
--max-seconds bounds the whole load phase: learners still running are cancelled and counted.

    .venv/bin/python benchmarks/bench_exam_load.py --learners 500 --ramp-s 20 --answers 6
    .venv/bin/python benchmarks/bench_exam_load.py --closed-loop --learners 200 --resaves 2

By default the exam is drawn from a blueprint written for the run: up to --per-bank questions
from every bank in --quizzes; --blueprint uses a given one (e.g. quizzes/exam/blueprint.yml).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
KINDS = ("register", "start", "save", "submit")


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


def _stat_fields(pid: int | str) -> list[str]:
    # Fields after the command name (which may contain spaces): state is [0], ppid [1],
    # utime [11], stime [12], cutime [13], cstime [14] (proc(5)).
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux /proc)."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_tree_cpu_s(pid: int) -> float:
    """CPU seconds of a process and all its live descendants, plus the children it has reaped:
    the server's figure when it runs worker processes (``--workers N``)."""
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = _stat_fields(entry.name)
        except OSError:  # the process ended while we looked
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += ticks.get(current, 0)
        todo.extend(children.get(current, []))
    reaped = _stat_fields(pid)
    total += int(reaped[13]) + int(reaped[14])
    return total / os.sysconf("SC_CLK_TCK")


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
    def __init__(self, number: int, tag: str = ""):
        self.number = number
        self.tag = tag
        self.headers: dict = {}
        self.attempt_id = ""
        self.sent: dict[int, object] = {}  # question index -> last value acknowledged
        self.acks: dict[int, int] = {}  # question index -> saves acknowledged
        self.uncertain: set[int] = set()  # a save cut off (timeout/cancel): outcome unknown
        self.errors: list[str] = []
        self.submitted = False
        self.finished = False


async def _timed(client, lat: dict, kind: str, method: str, url: str, **kw):
    t = time.perf_counter()
    response = await client.request(method, url, **kw)
    done = time.perf_counter()
    lat[kind].append(done - t)
    lat["_when"][kind].append((t, done))  # for the steady-state window
    return response


async def _begin(client, learner: Learner, lat: dict) -> list | None:
    """Register and start an attempt; the attempt's questions, or None on an error."""
    n = learner.number
    reg = await _timed(
        client,
        lat,
        "register",
        "POST",
        "/exam/api/register",
        json={"name": f"Load Learner {n}", "email": f"load{n}.{learner.tag}@ex.org"},
    )
    if reg.status_code != 201:
        learner.errors.append(f"register {reg.status_code} {reg.text[:80]}")
        return None
    learner.headers = {"Authorization": f"Bearer {reg.json()['token']}"}
    start = await _timed(
        client, lat, "start", "POST", "/exam/api/attempts", headers=learner.headers
    )
    if start.status_code != 201:
        learner.errors.append(f"start {start.status_code} {start.text[:80]}")
        return None
    attempt = start.json()
    learner.attempt_id = attempt["id"]
    return attempt["questions"]


async def _save(client, learner: Learner, item: dict, version: int, lat: dict) -> None:
    index = item["index"]
    value = response_for(item["question"], version)
    learner.uncertain.add(index)
    saved = await _timed(
        client,
        lat,
        "save",
        "PUT",
        f"/exam/api/attempts/{learner.attempt_id}/answers/{index}",
        json={"response": value},
        headers=learner.headers,
    )
    learner.uncertain.discard(index)
    if saved.status_code != 200:
        learner.errors.append(f"save {saved.status_code} {saved.text[:80]}")
        return
    learner.sent[index] = value
    learner.acks[index] = learner.acks.get(index, 0) + 1
    if saved.json().get("revision") != learner.acks[index]:
        learner.errors.append("revision does not count the saves")


async def _submit(client, learner: Learner, lat: dict) -> None:
    submitted = await _timed(
        client,
        lat,
        "submit",
        "POST",
        f"/exam/api/attempts/{learner.attempt_id}/submit",
        headers=learner.headers,
    )
    if submitted.status_code != 200 or submitted.json().get("status") != "submitted":
        learner.errors.append(f"submit {submitted.status_code} {submitted.text[:80]}")
    else:
        learner.submitted = True


async def closed_loop_learner(client, learner: Learner, lat: dict, resaves: int) -> None:
    """Stress mode: no think time, every question saved ``resaves`` times back to back."""
    questions = await _begin(client, learner, lat)
    if questions is None:
        return
    for version in range(resaves):
        for item in questions:
            await _save(client, learner, item, version, lat)
    await _submit(client, learner, lat)


async def open_loop_learner(
    client,
    learner: Learner,
    lat: dict,
    *,
    arrive_at: float,
    t0: float,
    answers: int,
    think_s: float,
    jitter: float,
    rng: random.Random,
) -> None:
    """Arrive at ``t0 + arrive_at``, then answer one question every ~think_s seconds."""
    await asyncio.sleep(max(0.0, t0 + arrive_at - time.perf_counter()))
    questions = await _begin(client, learner, lat)
    if questions is None:
        return
    for k in range(answers):
        await asyncio.sleep(think_s * rng.uniform(1 - jitter, 1 + jitter))
        item = questions[k % len(questions)]
        await _save(client, learner, item, k // len(questions), lat)
    await _submit(client, learner, lat)


async def _guarded(coro, learner: Learner) -> None:
    try:
        await coro
    except httpx.HTTPError as exc:  # a transport failure ends this learner; it is counted
        learner.errors.append(f"{type(exc).__name__}: {exc}"[:200])
    finally:
        learner.finished = True


async def run_load(url: str, learners: list[Learner], args) -> dict:
    lat: dict = {k: [] for k in KINDS}
    lat["_when"] = {k: [] for k in KINDS}
    limits = httpx.Limits(
        max_connections=args.connections, max_keepalive_connections=args.connections
    )
    rng = random.Random(args.seed)
    timeout = httpx.Timeout(args.request_timeout_s, pool=args.request_timeout_s)
    async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as client:
        t0 = time.perf_counter()
        if args.closed_loop:
            coros = [closed_loop_learner(client, ln, lat, args.resaves) for ln in learners]
        else:
            rate = args.arrival_rate or (len(learners) / args.ramp_s if args.ramp_s else 0.0)
            coros = [
                open_loop_learner(
                    client,
                    ln,
                    lat,
                    arrive_at=(i / rate if rate else 0.0),
                    t0=t0,
                    answers=args.answers,
                    think_s=args.think_s,
                    jitter=args.jitter,
                    rng=random.Random(rng.random()),
                )
                for i, ln in enumerate(learners)
            ]
        tasks = [
            asyncio.ensure_future(_guarded(c, ln)) for c, ln in zip(coros, learners, strict=True)
        ]
        _done, pending = await asyncio.wait(tasks, timeout=args.max_seconds)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=10)
        wall = time.perf_counter() - t0
    when = lat.pop("_when")
    steady = steady_window(when)
    return {"wall_s": wall, "latency": lat, "cut_off": len(pending), "steady": steady}


def steady_window(when: dict) -> dict:
    """Saves made while the whole class is in: after the last start was answered and before
    the first submit was sent (empty when learners finish before the last one arrives)."""
    if not when["start"] or not when["save"]:
        return {"from_s": None, "to_s": None, "save": []}
    t_first = min(t for t, _ in when["register"])
    begin = max(done for _, done in when["start"])
    end = min((t for t, _ in when["submit"]), default=float("inf"))
    end = min(end, max(done for _, done in when["save"]))
    if end <= begin:  # learners finished (or were cut off) before the last one started
        return {"from_s": None, "to_s": None, "save": []}
    save = [done - t for t, done in when["save"] if begin <= t and done <= end]
    return {"from_s": begin - t_first, "to_s": end - t_first, "save": save}


def check_database(database_url: str, learners: list[Learner]) -> dict:
    """Compare the stored answers of this run's attempts with what the clients acknowledged.

    Restricted to the attempts this run started (by their public ids), whatever the exam id
    of the blueprint and whatever else the database holds."""
    from sqlalchemy import func, select

    from nccl_course.store.db import Database
    from nccl_course.store.models import Answer, Attempt

    by_attempt = {ln.attempt_id: ln for ln in learners if ln.attempt_id}
    ids = list(by_attempt)
    rows, doubled, submitted = [], 0, 0
    db = Database(database_url)
    try:
        with db.read() as session:
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                rows += session.execute(
                    select(
                        Attempt.public_id, Answer.question_index, Answer.response, Answer.revision
                    )
                    .join(Attempt, Attempt.id == Answer.attempt_id)
                    .where(Attempt.public_id.in_(chunk))
                ).all()
                doubled += len(
                    session.execute(
                        select(Answer.attempt_id, Answer.question_index)
                        .join(Attempt, Attempt.id == Answer.attempt_id)
                        .where(Attempt.public_id.in_(chunk))
                        .group_by(Answer.attempt_id, Answer.question_index)
                        .having(func.count() > 1)
                    ).all()
                )
                submitted += (
                    session.scalar(
                        select(func.count())
                        .select_from(Attempt)
                        .where(Attempt.public_id.in_(chunk), Attempt.status == "submitted")
                    )
                    or 0
                )
    finally:
        db.dispose()
    stored = {(a, i): (resp, rev) for a, i, resp, rev in rows}
    lost = wrong_value = wrong_revision = extra = 0
    for attempt_id, learner in by_attempt.items():
        for index, value in learner.sent.items():
            if index in learner.uncertain:
                continue  # a later save was cut off: the row may hold either value
            got = stored.get((attempt_id, index))
            if got is None:
                lost += 1
            elif got[0] != value:
                wrong_value += 1
            elif got[1] != learner.acks[index]:
                wrong_revision += 1
    for attempt_id, index in stored:
        learner = by_attempt[attempt_id]
        if index not in learner.sent and index not in learner.uncertain:
            extra += 1
    return {
        "checked_attempts": len(ids),
        "answer_rows": len(rows),
        "acknowledged_answers": sum(len(ln.sent) for ln in learners),
        "uncertain_answers": sum(len(ln.uncertain) for ln in learners),
        "lost": lost,
        "duplicated": doubled,
        "wrong_value": wrong_value,
        "wrong_revision": wrong_revision,
        "extra_rows": extra,
        "submitted_attempts": submitted,
    }


def serve_supports_workers() -> bool:
    """Whether ``nccl-course serve`` has a --workers option (read from its --help)."""
    try:
        out = subprocess.run(
            [sys.executable, "-m", "nccl_course", "serve", "--help"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--workers" in out


def _ms(values: list[float], q: float | None = None):
    if not values:
        return None
    if q is None:
        return round(max(values) * 1000, 2)
    return round(percentile(values, q) * 1000, 2)


def summarise(lat: dict) -> dict:
    out = {}
    for kind in KINDS:
        v = lat[kind]
        out[f"{kind}_count"] = len(v)
        for name, q in (("p50", 0.50), ("p95", 0.95), ("p99", 0.99), ("max", None)):
            out[f"{kind}_{name}_ms"] = _ms(v, q)
    out["save_mean_ms"] = round(statistics.fmean(lat["save"]) * 1000, 2) if lat["save"] else None
    return out


def _round(x, digits: int = 1):
    return None if x is None else round(x, digits)


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument(
        "--closed-loop",
        action="store_true",
        help="stress mode: all learners at once, no think time",
    )
    parser.add_argument(
        "--resaves", type=int, default=2, help="closed loop: saves per question (>= 1)"
    )
    parser.add_argument(
        "--arrival-rate", type=float, default=None, help="open loop: learners arriving per second"
    )
    parser.add_argument(
        "--ramp-s",
        type=float,
        default=None,
        help="open loop: spread the arrivals evenly over this many seconds "
        "(default 20 unless --arrival-rate)",
    )
    parser.add_argument(
        "--think-s",
        type=float,
        default=20.0,
        help="open loop: seconds between a learner's answers (default 20)",
    )
    parser.add_argument(
        "--jitter",
        type=float,
        default=0.25,
        help="open loop: think time varies by +/- this fraction (default 0.25)",
    )
    parser.add_argument(
        "--answers",
        type=int,
        default=None,
        help="open loop: answers per learner (default: one per question)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=600.0,
        help="hard bound on the load phase; learners still running are cut off",
    )
    parser.add_argument("--request-timeout-s", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--url",
        default=None,
        help="use this running server (loopback) instead of starting one; start it with "
        "--no-rate-limits --no-email-confirmation (the server the benchmark starts has both: "
        "simulated learners cannot open a mailed confirmation link)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="server worker processes (only if 'nccl-course serve' has --workers)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL of the server's database (default: SQLite in the data folder)",
    )
    parser.add_argument("--per-bank", type=int, default=10, help="questions drawn per bank")
    parser.add_argument("--quizzes", type=Path, default=REPO / "quizzes")
    parser.add_argument("--blueprint", type=Path, default=None)
    parser.add_argument("--connections", type=int, default=200, help="client connection pool")
    parser.add_argument("--data-dir", type=Path, default=None, help="default: a temp folder")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.learners < 1 or args.resaves < 1:
        parser.error("--learners and --resaves must be >= 1")
    if args.max_seconds <= 0 or args.think_s < 0 or not 0 <= args.jitter < 1:
        parser.error("--max-seconds must be > 0, --think-s >= 0, 0 <= --jitter < 1")
    if args.url:
        host = httpx.URL(args.url).host
        if host not in ("127.0.0.1", "localhost", "::1"):
            parser.error("--url must be a loopback address")
    if not args.closed_loop and args.arrival_rate is None and args.ramp_s is None:
        args.ramp_s = 20.0

    sys.path.insert(0, str(REPO / "src"))
    sys.path.insert(0, str(REPO))  # for tests.support
    from nccl_course.store.db import sqlite_url
    from tests.support.server_process import ServerProcess

    tag = secrets.token_hex(4)
    workers_note = None
    with tempfile.TemporaryDirectory(prefix="nccl-course-load-") as tmp:
        data = args.data_dir or Path(tmp) / "data"
        database_url = args.database_url or (
            sqlite_url(data / "course.db") if (args.data_dir or not args.url) else None
        )
        zones = None
        server = None
        server_cpu_s = float("nan")
        alive = True
        if args.url:
            url = args.url.rstrip("/")
        else:
            blueprint = args.blueprint
            if blueprint is None:
                blueprint = Path(tmp) / "blueprint.yml"
                zones = write_blueprint(blueprint, args.quizzes, args.per_bank, minutes=600)
            extra = []
            if args.workers:
                if serve_supports_workers():
                    extra = ["--workers", str(args.workers)]
                else:
                    workers_note = "nccl-course serve has no --workers: ran 1 process"

            class Server(ServerProcess):
                def command(self) -> list[str]:
                    return super().command() + extra

            server = Server(
                data,
                quizzes=args.quizzes,
                book=Path(tmp) / "no-book",
                blueprint=blueprint,
                database_url=args.database_url,
                rate_limits=False,  # --no-rate-limits: every simulated learner is 127.0.0.1
                email_confirmation=False,  # --no-email-confirmation: no mailbox to read
            )
            server.start()
            url = server.url
        try:
            learners = [Learner(i, tag) for i in range(args.learners)]
            if not args.closed_loop and args.answers is None:
                args.answers = sum(zones.values()) if zones else 10
            cpu_before = process_tree_cpu_s(server.proc.pid) if server else 0.0
            client_cpu_before = process_cpu_s(os.getpid())
            load = asyncio.run(run_load(url, learners, args))
            client_cpu_s = process_cpu_s(os.getpid()) - client_cpu_before
            if server:
                alive = server.proc.poll() is None
                server_cpu_s = (
                    process_tree_cpu_s(server.proc.pid) - cpu_before if alive else float("nan")
                )
        finally:
            if server:
                server.stop()
        if not alive:
            print(f"the server died during the run:\n{server.log_tail()}", file=sys.stderr)
        integrity = check_database(database_url, learners) if database_url else None

    lat = load["latency"]
    saves = len(lat["save"])
    errors = [e for ln in learners for e in ln.errors]
    requests = sum(len(v) for v in lat.values())
    figures = {
        "mode": "closed-loop" if args.closed_loop else "open-loop",
        "learners": args.learners,
        "arrival_rate_per_s": None
        if args.closed_loop
        else (args.arrival_rate or round(args.learners / args.ramp_s, 3)),
        "think_s": None if args.closed_loop else args.think_s,
        "answers_per_learner": None if args.closed_loop else args.answers,
        "resaves": args.resaves if args.closed_loop else None,
        "workers": args.workers,
        "workers_note": workers_note,
        "database": "url given"
        if args.database_url
        else ("sqlite" if database_url else "unchecked"),
        "questions_per_attempt": max((len(ln.sent) for ln in learners), default=0),
        "zones": zones,
        "answer_saves": saves,
        "wall_s": round(load["wall_s"], 3),
        "answers_per_s": round(saves / load["wall_s"], 1) if load["wall_s"] else None,
        **summarise(lat),
        "steady_from_s": _round(load["steady"]["from_s"]),
        "steady_to_s": _round(load["steady"]["to_s"]),
        "steady_save_count": len(load["steady"]["save"]),
        "steady_save_p50_ms": _ms(load["steady"]["save"], 0.50),
        "steady_save_p95_ms": _ms(load["steady"]["save"], 0.95),
        "steady_save_p99_ms": _ms(load["steady"]["save"], 0.99),
        "steady_save_max_ms": _ms(load["steady"]["save"]),
        "server_cpu_s": round(server_cpu_s, 2),
        "client_cpu_s": round(client_cpu_s, 2),
        "server_cpu_ms_per_request": round(1000 * server_cpu_s / max(1, requests), 2),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cut_off_learners": load["cut_off"],
        "errors": len(errors),
        "error_examples": errors[:5],
        "integrity": integrity,
        **(integrity or {}),
    }
    if args.closed_loop:
        print(
            f"mode                   closed loop (stress): {args.learners} learners at once, "
            f"{args.resaves} saves per question, no think time"
        )
    else:
        print(
            f"mode                   open loop: {args.learners} learners arriving at "
            f"{figures['arrival_rate_per_s']}/s, answering every {args.think_s} s "
            f"(+/-{int(args.jitter * 100)}%), {args.answers} answers each"
        )
    if workers_note:
        print(f"workers                {workers_note}")
    print(
        f"answer saves           {saves} in {figures['wall_s']:.2f} s "
        f"({figures['answers_per_s']} answers/s)"
    )
    for kind in ("save", "start", "register", "submit"):
        print(
            f"{kind + ' latency':<23}p50 {_fmt(figures[kind + '_p50_ms'])} ms, "
            f"p95 {_fmt(figures[kind + '_p95_ms'])} ms, p99 {_fmt(figures[kind + '_p99_ms'])} ms, "
            f"max {_fmt(figures[kind + '_max_ms'])} ms  (n={figures[kind + '_count']})"
        )
    if not args.closed_loop and figures["steady_from_s"] is None:
        print("steady save latency    - (no moment with every learner in and none done)")
    elif not args.closed_loop:
        print(
            f"steady save latency    p50 {_fmt(figures['steady_save_p50_ms'])} ms, "
            f"p95 {_fmt(figures['steady_save_p95_ms'])} ms, "
            f"p99 {_fmt(figures['steady_save_p99_ms'])} ms, "
            f"max {_fmt(figures['steady_save_max_ms'])} ms  (n={figures['steady_save_count']}, "
            f"all learners in: {figures['steady_from_s']}..{figures['steady_to_s']} s)"
        )
    print(
        f"server CPU             {figures['server_cpu_s']:.1f} s "
        f"({figures['server_cpu_ms_per_request']:.2f} ms per request; machine load average "
        f"{figures['load_average_1min']} on {os.cpu_count()} cores); "
        f"benchmark client CPU {figures['client_cpu_s']:.1f} s"
    )
    print(
        f"errors                 {figures['errors']} {figures['error_examples']}; "
        f"cut off by --max-seconds: {load['cut_off']} learners"
    )
    if integrity is None:
        print("database check         skipped (give --database-url or --data-dir with --url)")
    else:
        print(
            f"database check         {integrity['answer_rows']} rows for "
            f"{integrity['acknowledged_answers']} acknowledged answers of "
            f"{integrity['checked_attempts']} attempts: lost {integrity['lost']}, "
            f"duplicated {integrity['duplicated']}, wrong value {integrity['wrong_value']}, "
            f"wrong revision {integrity['wrong_revision']}, extra {integrity['extra_rows']} "
            f"(uncertain {integrity['uncertain_answers']}); "
            f"{integrity['submitted_attempts']} attempts submitted"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    ok = not errors and load["cut_off"] == 0 and alive
    if integrity is not None:
        ok = ok and (
            integrity["lost"] == integrity["duplicated"] == 0
            and integrity["wrong_value"]
            == integrity["wrong_revision"]
            == integrity["extra_rows"]
            == 0
            and integrity["submitted_attempts"] == args.learners
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
