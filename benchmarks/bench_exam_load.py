"""Load benchmark of the course server: a class of learners taking the exam.

Open loop (the default) models a class: learners ARRIVE at a given rate (--arrival-rate
learners/s, or --learners spread evenly over --ramp-s seconds), whatever the server's speed;
each registers, starts an attempt, then answers one question every --think-s seconds (default
20, with +/- --jitter) for --answers questions, reads the attempt back (--reads) and submits.
Latency is then what a learner waits, not the length of a queue the benchmark builds itself.

--closed-loop is the stress mode: all --learners at once, no think time, every question saved
--resaves times back to back (a queue: throughput, not what a class sees).

The servers are started for the run (``nccl-course serve`` on 127.0.0.1, free ports; SQLite in
WAL mode in a temporary data folder unless --database-url names e.g. PostgreSQL, or --postgres
starts a throw-away PostgreSQL cluster; --workers N per server; --servers 2 starts two servers
on one PostgreSQL database, no proxy in front, the learners spread over both) with
--no-rate-limits and --no-email-confirmation (simulated learners have one address and no
mailbox), or an existing one is used with --url (loopback only; start it with those two options
too; give --database-url or --data-dir to have its database checked). --server-src runs the
servers from another source tree (a git worktree of an older commit: before/after figures).

The learners are driven by --clients processes (each an asyncio loop with a small HTTP/1.1
keep-alive client: a few tens of microseconds of CPU per request), so that the client is not
what limits the run. The benchmark says when it is: a client process near a full core, or
its event loop running late, means latencies measure the client, not the server.

Prints p50/p95/p99/max latency of every request type, errors, the servers' CPU (read from
/proc for the server processes and their workers: per request, and per request type as a
least-squares fit of each interval's CPU to the requests finished in it), the clients' CPU,
and the integrity check made on the database afterwards, restricted to the attempts of this
run: every acknowledged answer stored (none lost), one row per (attempt, question) (none
doubled), holding the last value acknowledged, with a revision equal to the number of saves
acknowledged. --max-seconds bounds the whole load phase: learners still running are cancelled
and counted.

--one-at-a-time N measures instead: N learners, one request at a time, each request's server
CPU read from /proc (per thread, in nanoseconds) just before it and just after its answer;
medians by request type and the flow's mean per request. --baseline FILE prints a run's
figures beside those of an earlier run's --json (e.g. before and after a change).

    .venv/bin/python benchmarks/bench_exam_load.py --learners 500 --ramp-s 20 --answers 6
    .venv/bin/python benchmarks/bench_exam_load.py --closed-loop --learners 200 --resaves 2
    .venv/bin/python benchmarks/bench_exam_load.py --one-at-a-time 30 --answers 10
    .venv/bin/python benchmarks/bench_exam_load.py --postgres --servers 2 --clients 2 \\
        --learners 2000 --ramp-s 100 --answers 10 --blueprint quizzes/exam/blueprint.yml

By default the exam is drawn from a blueprint written for the run: up to --per-bank questions
from every bank in --quizzes; --blueprint uses a given one (e.g. quizzes/exam/blueprint.yml).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
KINDS = ("register", "start", "save", "read", "submit")
# A client process busier than this share of one core is what limits the run.
CLIENT_BUSY_SHARE = 0.85
# Its event loop running this late (p99, seconds) delays every request it times.
CLIENT_LAG_S = 0.05
# CPU sampling interval for the per-type fit (seconds).
CPU_SAMPLE_S = 0.5


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


# ---- CPU of processes (Linux /proc) ---------------------------------------------------------


def _stat_fields(pid: int | str) -> list[str]:
    # Fields after the command name (which may contain spaces): state is [0], ppid [1],
    # utime [11], stime [12] (proc(5)).
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux /proc)."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_tree(pid: int) -> list[int]:
    """A process and its live descendants (a server's worker processes)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                children.setdefault(int(_stat_fields(entry.name)[1]), []).append(int(entry.name))
            except OSError:  # the process ended while we looked
                continue
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(children.get(current, []))
    return out


def threads_cpu_ns(pids: list[int]) -> int:
    """CPU nanoseconds the live threads of these processes have run (``schedstat``: exact,
    where ``stat`` counts clock ticks of 10 ms)."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
    return total


class ServerCpu:
    """The CPU of the server processes (and their workers), sampled every ``CPU_SAMPLE_S``."""

    def __init__(self, pids: list[int]):
        self.roots = pids
        self.samples: list[tuple[float, int]] = []

    def sample(self) -> int:
        # The tree again each time: worker processes start after the server answers.
        ns = threads_cpu_ns([p for root in self.roots for p in process_tree(root)])
        self.samples.append((time.perf_counter(), ns))
        return ns

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.sample()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), CPU_SAMPLE_S)
        self.sample()

    @property
    def peak_cores(self) -> float:
        """The most cores the servers used over one sampling interval."""
        pairs = zip(self.samples, self.samples[1:], strict=False)
        return max(((n2 - n1) / 1e9 / (t2 - t1) for (t1, n1), (t2, n2) in pairs), default=0.0)

    @property
    def total_s(self) -> float:
        return (self.samples[-1][1] - self.samples[0][1]) / 1e9 if len(self.samples) > 1 else 0.0


# Request types that always come together in the flow (a learner registers then starts at
# once; reads back then submits): the fit cannot tell their CPU apart, so it prices the pair.
CPU_GROUPS = (("register", "start"), ("save",), ("read", "submit"))


def cpu_by_type(samples: list[tuple[float, int]], when: dict) -> dict:
    """Server CPU (ms) per request of each type, or per pair of requests that always come
    together (``CPU_GROUPS``: "register+start", "read+submit"), fitted by least squares: each
    sampling interval's CPU = sum over groups of (the group's last requests finished in it) x
    (CPU per group). Groups with no requests are left out; negative fits are dropped and the
    rest refitted (the mix must vary over the run for the fit to separate groups: the ramp,
    think times and submits make it so in an open loop)."""
    import numpy as np

    if len(samples) < 3:
        return {}
    edges = np.array([t for t, _ in samples])
    cpu = np.diff(np.array([ns for _, ns in samples], dtype=float)) / 1e6  # ms per interval
    groups = []
    for group in CPU_GROUPS:
        present = [k for k in group if when.get(k)]
        if present:
            groups.append(("+".join(present), present[-1]))
    counts = np.zeros((len(cpu), len(groups)))
    for j, (_, kind) in enumerate(groups):
        done = np.array([d for _, d in when[kind]])
        index = np.searchsorted(edges, done) - 1
        inside = (index >= 0) & (index < len(cpu))
        np.add.at(counts[:, j], index[inside], 1)
    active = list(range(len(groups)))
    fitted = np.zeros(len(groups))
    while active:
        solution, *_ = np.linalg.lstsq(counts[:, active], cpu, rcond=None)
        if (solution >= 0).all():
            fitted[active] = solution
            break
        active = [a for a, v in zip(active, solution, strict=True) if v > 0]
    return {name: round(float(v), 3) for (name, _), v in zip(groups, fitted, strict=True)}


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


# ---- a small HTTP/1.1 client ----------------------------------------------------------------


class HttpError(Exception):
    """A transport failure: the connection closed, or the answer was not HTTP."""


class Response:
    def __init__(self, status_code: int, content: bytes):
        self.status_code = status_code
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.content)


class HttpClient:
    """Keep-alive HTTP/1.1 connections to one server (``base_url``), at most ``connections``
    open at once; a request waits for a free one. About 30 microseconds of CPU per request
    where httpx takes a millisecond: the benchmark's clients share the machine with the
    servers they measure."""

    IDLE_S = 50.0  # reopen a connection idle this long (the server closes them after 75 s)

    def __init__(self, base_url: str, connections: int, timeout_s: float):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.host_header = f"{self.host}:{self.port}".encode()
        self.timeout_s = timeout_s
        self._idle: list = []  # (reader, writer, last used)
        self._slots = asyncio.Semaphore(connections)

    async def request(self, method: str, path: str, *, json_body=None, headers=None):
        async with self._slots:
            conn = None
            while self._idle:
                reader, writer, used = self._idle.pop()
                if time.monotonic() - used < self.IDLE_S and not reader.at_eof():
                    conn = (reader, writer)
                    break
                writer.close()
            if conn is None:
                conn = await asyncio.wait_for(
                    asyncio.open_connection(self.host, self.port), self.timeout_s
                )
            try:
                response, keep = await asyncio.wait_for(
                    self._exchange(*conn, method, path, json_body, headers), self.timeout_s
                )
            except BaseException:
                conn[1].close()
                raise
            if keep:
                self._idle.append((*conn, time.monotonic()))
            else:
                conn[1].close()
            return response

    async def _exchange(self, reader, writer, method, path, json_body, headers):
        body = b"" if json_body is None else json.dumps(json_body).encode()
        lines = [f"{method} {path} HTTP/1.1".encode(), b"Host: " + self.host_header]
        lines += [f"{k}: {v}".encode() for k, v in (headers or {}).items()]
        if json_body is not None:
            lines.append(b"Content-Type: application/json")
        if body or method in ("POST", "PUT"):
            lines.append(b"Content-Length: %d" % len(body))
        writer.write(b"\r\n".join(lines) + b"\r\n\r\n" + body)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            raise HttpError(f"no answer to {method} {path}: {exc}") from None
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        try:
            status = int(status_line.split(" ", 2)[1])
        except (IndexError, ValueError):
            raise HttpError(f"not an HTTP answer: {status_line[:80]!r}") from None
        fields = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        if fields.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunks.append(await reader.readexactly(size + 2))
                if size == 0:
                    break
            content = b"".join(c[:-2] for c in chunks)
        else:
            content = await reader.readexactly(int(fields.get("content-length", 0)))
        return Response(status, content), fields.get("connection", "").lower() != "close"

    def close(self) -> None:
        for _, writer, _ in self._idle:
            writer.close()
        self._idle.clear()


TRANSPORT_ERRORS = (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, HttpError)


# ---- learners -------------------------------------------------------------------------------


class Learner:
    def __init__(self, number: int, tag: str = "", server: int = 0):
        self.number = number
        self.tag = tag
        self.server = server  # which of the servers this learner talks to
        self.headers: dict = {}
        self.attempt_id = ""
        self.sent: dict[int, object] = {}  # question index -> last value acknowledged
        self.acks: dict[int, int] = {}  # question index -> saves acknowledged
        self.uncertain: set[int] = set()  # a save cut off (timeout/cancel): outcome unknown
        self.errors: list[str] = []
        self.submitted = False
        self.finished = False

    def state(self) -> dict:
        """What the parent process needs back from a client process (plain data)."""
        return {
            "number": self.number,
            "attempt_id": self.attempt_id,
            "sent": self.sent,
            "acks": self.acks,
            "uncertain": sorted(self.uncertain),
            "errors": self.errors,
            "submitted": self.submitted,
        }

    @classmethod
    def from_state(cls, state: dict, tag: str) -> Learner:
        learner = cls(state["number"], tag)
        learner.attempt_id = state["attempt_id"]
        learner.sent = state["sent"]
        learner.acks = state["acks"]
        learner.uncertain = set(state["uncertain"])
        learner.errors = state["errors"]
        learner.submitted = state["submitted"]
        return learner


async def _timed(client, lat: dict, kind: str, method: str, path: str, **kw):
    t = time.perf_counter()
    response = await client.request(method, path, **kw)
    done = time.perf_counter()
    lat[kind].append(done - t)
    lat["_when"][kind].append((t, done))  # for the steady-state window and the CPU fit
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
        json_body={"name": f"Load Learner {n}", "email": f"load{n}.{learner.tag}@ex.org"},
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
        json_body={"response": value},
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


async def _read(client, learner: Learner, lat: dict) -> None:
    """Read the attempt back (what a learner's page does on reload) and check the answers."""
    got = await _timed(
        client,
        lat,
        "read",
        "GET",
        f"/exam/api/attempts/{learner.attempt_id}",
        headers=learner.headers,
    )
    if got.status_code != 200:
        learner.errors.append(f"read {got.status_code} {got.text[:80]}")
        return
    stored = {q["index"]: q["response"] for q in got.json()["questions"]}
    if any(stored.get(i) != v for i, v in learner.sent.items() if i not in learner.uncertain):
        learner.errors.append("the attempt read back does not hold the answers acknowledged")


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


async def closed_loop_learner(client, learner: Learner, lat: dict, resaves: int, reads: int):
    """Stress mode: no think time, every question saved ``resaves`` times back to back."""
    questions = await _begin(client, learner, lat)
    if questions is None:
        return
    for version in range(resaves):
        for item in questions:
            await _save(client, learner, item, version, lat)
    for _ in range(reads):
        await _read(client, learner, lat)
    await _submit(client, learner, lat)


async def open_loop_learner(
    client,
    learner: Learner,
    lat: dict,
    *,
    arrive_at: float,
    t0: float,
    answers: int,
    reads: int,
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
    for _ in range(reads):
        await _read(client, learner, lat)
    await _submit(client, learner, lat)


async def _guarded(coro, learner: Learner) -> None:
    try:
        await coro
    except TRANSPORT_ERRORS as exc:  # a transport failure ends this learner; it is counted
        learner.errors.append(f"{type(exc).__name__}: {exc}"[:200])
    finally:
        learner.finished = True


async def _loop_lag(lags: list, busy: list, stop: asyncio.Event, every_s: float = 0.05) -> None:
    """How late this event loop wakes up (seconds), and (perf_counter, process CPU) samples
    for the process's busiest second: a busy client delays every request it times."""
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(every_s)
        now = time.perf_counter()
        lags.append(now - t - every_s)
        busy.append((now, time.process_time()))


def peak_share(samples: list[tuple[float, float]], window_s: float = 1.0) -> float:
    """The largest share of one core used over any ``window_s`` of (time, CPU time) samples."""
    peak, j = 0.0, 0
    for i in range(len(samples)):
        while samples[i][0] - samples[j][0] > window_s:
            j += 1
        span = samples[i][0] - samples[j][0]
        if span >= window_s * 0.8:
            peak = max(peak, (samples[i][1] - samples[j][1]) / span)
    return peak


async def drive(urls: list[str], learners: list[Learner], options: dict, t0: float) -> dict:
    """Run these learners against their servers in this process (one event loop)."""
    lat: dict = {k: [] for k in KINDS}
    lat["_when"] = {k: [] for k in KINDS}
    clients = [
        HttpClient(url, options["connections"], options["request_timeout_s"]) for url in urls
    ]
    stop, lags, busy = asyncio.Event(), [], []
    lag_task = asyncio.ensure_future(_loop_lag(lags, busy, stop))
    cpu0, wall0 = time.process_time(), time.perf_counter()
    if options["closed_loop"]:
        coros = [
            closed_loop_learner(clients[ln.server], ln, lat, options["resaves"], options["reads"])
            for ln in learners
        ]
    else:
        rate = options["rate"]
        coros = [
            open_loop_learner(
                clients[ln.server],
                ln,
                lat,
                arrive_at=(ln.number / rate if rate else 0.0),
                t0=t0,
                answers=options["answers"],
                reads=options["reads"],
                think_s=options["think_s"],
                jitter=options["jitter"],
                rng=random.Random(f"{options['seed']}:{ln.number}"),
            )
            for ln in learners
        ]
    tasks = [asyncio.ensure_future(_guarded(c, ln)) for c, ln in zip(coros, learners, strict=True)]
    remaining = options["max_seconds"] - (time.perf_counter() - t0)
    pending: set = set()
    if tasks:
        _done, pending = await asyncio.wait(tasks, timeout=max(0.1, remaining))
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=10)
    stop.set()
    await lag_task
    for client in clients:
        client.close()
    return {
        "latency": {k: lat[k] for k in KINDS},
        "when": lat["_when"],
        "learners": [ln.state() for ln in learners],
        "cut_off": len(pending),
        "cpu_s": time.process_time() - cpu0,
        "wall_s": time.perf_counter() - wall0,
        "lags": lags,
        "peak_share": peak_share(busy),
        "end": time.perf_counter(),
    }


def _client_process(urls, numbers, tag, options, t0, out) -> None:
    """One client process: its share of the learners, the result sent back as plain data."""
    learners = [Learner(n, tag, n % len(urls)) for n in numbers]
    try:
        out.send(asyncio.run(drive(urls, learners, options, t0)))
    except BaseException as exc:  # the parent reports it
        out.send({"failed": f"{type(exc).__name__}: {exc}"})
    finally:
        out.close()


def run_clients(urls: list[str], count: int, tag: str, options: dict, server_cpu) -> dict:
    """The learners spread over ``options['clients']`` processes (learner i in process
    i mod clients, on server i mod servers), while this process samples the servers' CPU."""
    processes = max(1, options["clients"])
    t0 = time.perf_counter() + (0.5 + 0.1 * processes if processes > 1 else 0.05)
    if processes == 1:

        async def alone():
            stop = asyncio.Event()
            sampler = asyncio.ensure_future(server_cpu.run(stop)) if server_cpu else None
            learners = [Learner(n, tag, n % len(urls)) for n in range(count)]
            result = await drive(urls, learners, options, t0)
            stop.set()
            if sampler:
                await sampler
            return result

        results = [asyncio.run(alone())]
    else:
        context = multiprocessing.get_context("fork")
        pipes, procs = [], []
        for k in range(processes):
            receive, send = context.Pipe(duplex=False)
            numbers = list(range(k, count, processes))
            proc = context.Process(
                target=_client_process, args=(urls, numbers, tag, options, t0, send)
            )
            proc.start()
            send.close()
            pipes.append(receive)
            procs.append(proc)
        results = [None] * processes

        async def sample_until_done():
            stop = asyncio.Event()
            sampler = asyncio.ensure_future(server_cpu.run(stop)) if server_cpu else None
            loop = asyncio.get_running_loop()
            for k, pipe in enumerate(pipes):
                results[k] = await loop.run_in_executor(None, _receive, pipe)
            stop.set()
            if sampler:
                await sampler

        asyncio.run(sample_until_done())
        for proc in procs:
            proc.join(30)
    failed = [r["failed"] for r in results if "failed" in r]
    if failed:
        raise RuntimeError(f"a client process failed: {failed[0]}")
    merged = {
        "latency": {k: [v for r in results for v in r["latency"][k]] for k in KINDS},
        "when": {k: [v for r in results for v in r["when"][k]] for k in KINDS},
        "learners": sorted(
            (Learner.from_state(s, tag) for r in results for s in r["learners"]),
            key=lambda ln: ln.number,
        ),
        "cut_off": sum(r["cut_off"] for r in results),
        "client_cpu_s": [r["cpu_s"] for r in results],
        "client_wall_s": [r["wall_s"] for r in results],
        "lags": [v for r in results for v in r["lags"]],
        "client_peak_share": [r["peak_share"] for r in results],
    }
    merged["wall_s"] = max(r["end"] for r in results) - t0
    return merged


def _receive(pipe):
    try:
        return pipe.recv()
    except EOFError:
        return {"failed": "the client process ended without sending its results"}


def steady_window(when: dict) -> dict:
    """Saves made while the whole class is in: after the last start was answered and before
    the first read or submit was sent (empty when learners finish before the last one arrives)."""
    if not when["start"] or not when["save"]:
        return {"from_s": None, "to_s": None, "save": []}
    t_first = min(t for t, _ in when["register"])
    begin = max(done for _, done in when["start"])
    end = min((t for kind in ("read", "submit") for t, _ in when[kind]), default=float("inf"))
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


# ---- servers --------------------------------------------------------------------------------


@contextlib.contextmanager
def throwaway_postgres(max_connections: int = 300):
    """A PostgreSQL cluster for the run (``initdb``/``pg_ctl`` on 127.0.0.1, a free port),
    removed afterwards; yields its SQLAlchemy URL. Durable as configured by default (fsync on,
    synchronous_commit on): an acknowledged answer is on disk."""
    from nccl_course.launcher import free_port
    from tests.support.postgres import as_postgres_user, pg_tool

    initdb, pg_ctl = pg_tool("initdb"), pg_tool("pg_ctl")
    if not initdb or not pg_ctl:
        raise SystemExit("error: --postgres needs initdb and pg_ctl (PostgreSQL's server tools)")
    folder = Path(tempfile.mkdtemp(prefix="nccl-course-bench-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, user="postgres")
    data, port = folder / "data", free_port()
    try:
        subprocess.run(
            as_postgres_user([initdb, "-D", str(data), "-A", "trust", "-U", "postgres"]),
            check=True,
            capture_output=True,
            timeout=120,
        )
        options = (
            f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 "
            f"-c max_connections={max_connections}"
        )
        subprocess.run(
            as_postgres_user(
                [pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            as_postgres_user([pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"]),
            capture_output=True,
            timeout=120,
        )
        shutil.rmtree(folder, ignore_errors=True)


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


def start_servers(args, data: Path, blueprint: Path, database_url: str | None) -> list:
    """``args.servers`` servers on one database and one data folder (keys, admin token),
    started one after the other (the first migrates the database and creates the keys)."""
    from tests.support.server_process import ServerProcess

    extra = []
    if args.workers:
        if serve_supports_workers():
            extra = ["--workers", str(args.workers)]
        else:
            args.workers_note = "nccl-course serve has no --workers: ran 1 process"
    env = {}
    if args.server_src:
        env["PYTHONPATH"] = str(Path(args.server_src).resolve() / "src")

    class Server(ServerProcess):
        def command(self) -> list[str]:
            return super().command() + extra

    servers = []
    try:
        for k in range(args.servers):
            server = Server(
                data,
                quizzes=args.quizzes,
                book=data.parent / "no-book",
                blueprint=blueprint,
                database_url=database_url,
                log_path=data.parent / f"server-{k}.log",
                env=env,
                rate_limits=False,  # --no-rate-limits: every simulated learner is 127.0.0.1
                email_confirmation=False,  # --no-email-confirmation: no mailbox to read
            )
            servers.append(server)
            server.start()
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


# ---- one request at a time ------------------------------------------------------------------


def one_at_a_time(url: str, pids: list[int], args, tag: str) -> dict:
    """``args.one_at_a_time`` learners through the whole flow, one request at a time; each
    request's server CPU (ms) read from /proc just before it and just after its answer (and
    a 2 ms pause, for the work a server does after answering). The first learners warm the
    server up and are left out."""
    warm = min(3, max(0, args.one_at_a_time - 1))
    cpu: dict = {k: [] for k in KINDS}

    async def flows():
        client = HttpClient(url, 1, args.request_timeout_s)
        pool = [p for root in pids for p in process_tree(root)]

        async def measured(kind, learner, method, path, **kw):
            before = threads_cpu_ns(pool)
            response = await client.request(method, path, **kw)
            await asyncio.sleep(0.002)
            if learner.number >= warm:
                cpu[kind].append((threads_cpu_ns(pool) - before) / 1e6)
            return response

        for n in range(args.one_at_a_time):
            learner = Learner(n, tag)
            reg = await measured(
                "register",
                learner,
                "POST",
                "/exam/api/register",
                json_body={"name": f"Learner {n}", "email": f"one{n}.{tag}@ex.org"},
            )
            headers = {"Authorization": f"Bearer {reg.json()['token']}"}
            start = await measured("start", learner, "POST", "/exam/api/attempts", headers=headers)
            if start.status_code != 201:
                raise RuntimeError(f"start refused: {start.status_code} {start.text[:300]}")
            attempt = start.json()
            questions, path = attempt["questions"], f"/exam/api/attempts/{attempt['id']}"
            for k in range(args.answers):
                item = questions[k % len(questions)]
                saved = await measured(
                    "save",
                    learner,
                    "PUT",
                    f"{path}/answers/{item['index']}",
                    json_body={"response": response_for(item["question"], k)},
                    headers=headers,
                )
                if saved.status_code != 200:
                    raise RuntimeError(f"save refused: {saved.status_code} {saved.text[:200]}")
            for _ in range(args.reads):
                await measured("read", learner, "GET", path, headers=headers)
            done = await measured("submit", learner, "POST", f"{path}/submit", headers=headers)
            if done.status_code != 200:
                raise RuntimeError(f"submit refused: {done.status_code} {done.text[:200]}")
        client.close()

    asyncio.run(flows())
    return cpu


def print_one_at_a_time(cpu: dict, args, baseline: dict | None) -> dict:
    figures = {f"{k}_cpu_ms": round(statistics.median(v), 3) for k, v in cpu.items() if v}
    total = sum(sum(v) for v in cpu.values())
    count = sum(len(v) for v in cpu.values())
    figures["flow_cpu_ms_per_request"] = round(total / count, 3) if count else None
    figures["flow"] = (
        f"register, start, {args.answers} saves, {args.reads} reads, submit; "
        f"{args.one_at_a_time} learners ({min(3, max(0, args.one_at_a_time - 1))} warm-up)"
    )
    old = (baseline or {}).get("one_at_a_time") or {}
    print(f"server CPU, one request at a time ({figures['flow']}), medians:")
    header = f"  {'request':<22}{'ms':>9}"
    print(header + (f"{'baseline ms':>14}{'ratio':>8}" if old else ""))
    for key in [f"{k}_cpu_ms" for k in KINDS] + ["flow_cpu_ms_per_request"]:
        if key not in figures:
            continue
        label = "flow mean per request" if key.startswith("flow") else key.split("_")[0]
        line = f"  {label:<22}{figures[key]:>9.3f}"
        if old.get(key):
            line += f"{old[key]:>14.3f}{figures[key] / old[key]:>8.2f}"
        print(line)
    return figures


# ---- figures --------------------------------------------------------------------------------


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


def client_verdict(load: dict, server_cpu_s: float, server_peak_cores: float = 0.0):
    """Whether the clients, not the servers, limited the run, and the sentence saying so:
    a client process near a full core in its busiest second, its event loop running late
    (p99 lag: every latency it timed includes that wait), or a machine whose cores are all
    busy with the clients using more of them than the servers."""
    wall = max(load["client_wall_s"] or [0.0]) or 1.0
    peak = max(load.get("client_peak_share") or [0.0])
    lag = percentile(load["lags"], 0.99) if load["lags"] else 0.0
    client_cores = sum(load["client_cpu_s"]) / wall
    server_cores = server_cpu_s / wall if server_cpu_s == server_cpu_s else 0.0
    cores = os.cpu_count() or 1
    reasons = []
    if peak >= CLIENT_BUSY_SHARE:
        reasons.append(f"a client process used {peak:.0%} of a core in its busiest second")
    if lag >= CLIENT_LAG_S:
        why = (
            "the machine was busy: its own use peaked at"
            if peak < CLIENT_BUSY_SHARE
            else "its use peaked at"
        )
        reasons.append(
            f"the client's event loop ran {lag * 1000:.0f} ms late (p99; {why} {peak:.0%} "
            "of a core)"
        )
    if client_cores + server_cores >= 0.9 * cores and client_cores > server_cores:
        reasons.append(
            f"the machine's {cores} cores were busy and the clients used more of them "
            f"({client_cores:.2f}) than the servers ({server_cores:.2f})"
        )
    summary = (
        f"clients: {len(load['client_cpu_s'])} processes, {sum(load['client_cpu_s']):.1f} s "
        f"CPU ({client_cores:.2f} cores on average; busiest second {peak:.0%} of a core), "
        f"event loop lag p99 {lag * 1000:.1f} ms; servers {server_cores:.2f} cores on average, "
        f"{server_peak_cores:.2f} in their busiest half second, of {cores}"
    )
    if reasons:
        return True, (
            f"{summary}\nCLIENT-BOUND: {'; '.join(reasons)}: these latencies measure the "
            "benchmark's clients and machine as much as the server (use more --clients, "
            "a quieter machine, or a second one)"
        )
    return False, f"{summary}; the client is not the bottleneck"


def print_baseline(figures: dict, baseline: dict) -> None:
    """This run's latencies and CPU beside an earlier run's (``--baseline``)."""
    keys = [(f"{k}_{q}_ms", f"{k} {q}") for k in KINDS for q in ("p50", "p99")]
    keys += [("steady_save_p99_ms", "steady save p99"), ("server_cpu_ms_per_request", "")]
    keys += [(f"cpu_{'_'.join(g)}_ms", f"server CPU {'+'.join(g)}") for g in CPU_GROUPS]
    print(f"{'':<30}{'baseline':>12}{'this run':>12}")
    for key, label in keys:
        old, new = baseline.get(key), figures.get(key)
        if old is None and new is None:
            continue
        label = label or "server CPU per request (ms)"
        print(f"  {label:<28}{_fmt(old):>12}{_fmt(new):>12}")


def parse_args(argv):
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
        help="answers per learner (open loop and --one-at-a-time; default: one per question "
        "in the open loop, 10 one at a time)",
    )
    parser.add_argument(
        "--reads",
        type=int,
        default=1,
        help="times each learner reads the attempt back before submitting (default 1)",
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
        "--clients",
        type=int,
        default=1,
        help="client processes driving the learners (default 1)",
    )
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        help="server processes on one database, no proxy: learner i uses server i mod N "
        "(more than 1 needs PostgreSQL: --postgres or --database-url)",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="start a throw-away PostgreSQL cluster for the run (initdb, pg_ctl)",
    )
    parser.add_argument(
        "--one-at-a-time",
        type=int,
        default=0,
        metavar="N",
        help="instead of a load: N learners, one request at a time, each request's server "
        "CPU measured; medians by request type",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="an earlier run's --json: print its figures beside this run's",
    )
    parser.add_argument(
        "--server-src",
        type=Path,
        default=None,
        help="run the servers from this source tree (its src/ first on PYTHONPATH), e.g. a "
        "git worktree of an older commit, for before/after figures",
    )
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
        help="worker processes per server (only if 'nccl-course serve' has --workers)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL of the server's database (default: SQLite in the data folder)",
    )
    parser.add_argument("--per-bank", type=int, default=10, help="questions drawn per bank")
    parser.add_argument("--quizzes", type=Path, default=REPO / "quizzes")
    parser.add_argument("--blueprint", type=Path, default=None)
    parser.add_argument(
        "--connections",
        type=int,
        default=200,
        help="connections per client process and server",
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="default: a temp folder")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.learners < 1 or args.resaves < 1 or args.clients < 1 or args.servers < 1:
        parser.error("--learners, --resaves, --clients and --servers must be >= 1")
    if args.max_seconds <= 0 or args.think_s < 0 or not 0 <= args.jitter < 1 or args.reads < 0:
        parser.error("--max-seconds must be > 0, --think-s >= 0, 0 <= --jitter < 1, --reads >= 0")
    if args.url:
        if urlsplit(args.url).hostname not in ("127.0.0.1", "localhost", "::1"):
            parser.error("--url must be a loopback address")
        if args.servers > 1 or args.postgres:
            parser.error("--url uses one running server: no --servers or --postgres with it")
    postgres = args.postgres or (args.database_url or "").startswith("postgres")
    if args.servers > 1 and not postgres:
        parser.error(
            "--servers 2 shares one database between servers: give --postgres or a "
            "PostgreSQL --database-url (SQLite has one writer per file)"
        )
    if args.postgres and args.database_url:
        parser.error("give --postgres (a throw-away cluster) or --database-url, not both")
    if not args.closed_loop and args.arrival_rate is None and args.ramp_s is None:
        args.ramp_s = 20.0
    args.workers_note = None
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str(REPO / "src"))
    sys.path.insert(0, str(REPO))  # for tests.support
    baseline = json.loads(args.baseline.read_text()) if args.baseline else None
    tag = secrets.token_hex(4)
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nccl-course-load-")))
        pg_url = stack.enter_context(throwaway_postgres()) if args.postgres else None
        return run(args, tmp, pg_url, tag, baseline)


def run(args, tmp: Path, pg_url: str | None, tag: str, baseline: dict | None) -> int:
    from nccl_course.store.db import sqlite_url

    data = args.data_dir or tmp / "data"
    given_url = pg_url or args.database_url
    database_url = given_url or (
        sqlite_url(data / "course.db") if (args.data_dir or not args.url) else None
    )
    zones = None
    servers: list = []
    if args.url:
        urls = [args.url.rstrip("/")]
    else:
        blueprint = args.blueprint
        if blueprint is None:
            blueprint = tmp / "blueprint.yml"
            zones = write_blueprint(blueprint, args.quizzes, args.per_bank, minutes=600)
        servers = start_servers(args, data, blueprint, given_url)
        urls = [server.url for server in servers]
    pids = [server.proc.pid for server in servers]
    if args.one_at_a_time:
        if not servers:
            raise SystemExit("error: --one-at-a-time measures a server it starts (no --url)")
        args.answers = 10 if args.answers is None else args.answers
        try:
            cpu = one_at_a_time(urls[0], pids, args, tag)
        finally:
            for server in servers:
                server.stop()
        figures = {"one_at_a_time": print_one_at_a_time(cpu, args, baseline)}
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n")
        return 0
    server_cpu = ServerCpu(pids) if servers else None
    alive = True
    try:
        if not args.closed_loop and args.answers is None:
            args.answers = sum(zones.values()) if zones else 10
        rate = args.arrival_rate or (args.learners / args.ramp_s if args.ramp_s else 0.0)
        options = {
            "clients": args.clients,
            "connections": args.connections,
            "request_timeout_s": args.request_timeout_s,
            "closed_loop": args.closed_loop,
            "resaves": args.resaves,
            "reads": args.reads,
            "rate": rate,
            "answers": args.answers,
            "think_s": args.think_s,
            "jitter": args.jitter,
            "seed": args.seed,
            "max_seconds": args.max_seconds,
        }
        load = run_clients(urls, args.learners, tag, options, server_cpu)
        if servers:
            alive = all(server.proc.poll() is None for server in servers)
    finally:
        for server in servers:
            server.stop()
    if not alive:
        tails = "\n".join(server.log_tail() for server in servers)
        print(f"a server died during the run:\n{tails}", file=sys.stderr)
    learners = load["learners"]
    integrity = check_database(database_url, learners) if database_url else None
    return report(args, load, learners, integrity, server_cpu, zones, alive, baseline)


def report(args, load, learners, integrity, server_cpu, zones, alive, baseline) -> int:
    lat = load["latency"]
    saves = len(lat["save"])
    errors = [e for ln in learners for e in ln.errors]
    requests = sum(len(v) for v in lat.values())
    steady = steady_window(load["when"])
    server_cpu_s = server_cpu.total_s if server_cpu and alive else float("nan")
    by_type = cpu_by_type(server_cpu.samples, load["when"]) if server_cpu and alive else {}
    client_bound, client_line = client_verdict(
        load, server_cpu_s, server_cpu.peak_cores if server_cpu else 0.0
    )
    figures = {
        "mode": "closed-loop" if args.closed_loop else "open-loop",
        "learners": args.learners,
        "arrival_rate_per_s": None
        if args.closed_loop
        else (args.arrival_rate or round(args.learners / args.ramp_s, 3)),
        "think_s": None if args.closed_loop else args.think_s,
        "answers_per_learner": None if args.closed_loop else args.answers,
        "resaves": args.resaves if args.closed_loop else None,
        "reads_per_learner": args.reads,
        "servers": args.servers,
        "workers": args.workers,
        "workers_note": args.workers_note,
        "clients": args.clients,
        "database": "postgresql (throw-away)"
        if args.postgres
        else ("url given" if args.database_url else ("sqlite" if integrity else "unchecked")),
        "questions_per_attempt": max((len(ln.sent) for ln in learners), default=0),
        "zones": zones,
        "answer_saves": saves,
        "wall_s": round(load["wall_s"], 3),
        "answers_per_s": round(saves / load["wall_s"], 1) if load["wall_s"] else None,
        **summarise(lat),
        "steady_from_s": _round(steady["from_s"]),
        "steady_to_s": _round(steady["to_s"]),
        "steady_save_count": len(steady["save"]),
        "steady_save_p50_ms": _ms(steady["save"], 0.50),
        "steady_save_p95_ms": _ms(steady["save"], 0.95),
        "steady_save_p99_ms": _ms(steady["save"], 0.99),
        "steady_save_max_ms": _ms(steady["save"]),
        "server_cpu_s": round(server_cpu_s, 2),
        "server_cpu_ms_per_request": round(1000 * server_cpu_s / max(1, requests), 3),
        **{f"cpu_{kind.replace('+', '_')}_ms": value for kind, value in by_type.items()},
        "client_cpu_s": round(sum(load["client_cpu_s"]), 2),
        "client_bound": client_bound,
        "client_loop_lag_p99_ms": _ms(load["lags"], 0.99),
        "client_peak_share": round(max(load["client_peak_share"] or [0.0]), 3),
        "server_peak_cores": round(server_cpu.peak_cores, 2) if server_cpu else None,
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
    print(
        f"setup                  {args.servers} server(s) x {args.workers or 1} worker(s) on "
        f"{figures['database']}, {args.clients} client process(es), "
        f"{figures['questions_per_attempt']} questions answered per attempt"
    )
    if args.workers_note:
        print(f"workers                {args.workers_note}")
    print(
        f"answer saves           {saves} in {figures['wall_s']:.2f} s "
        f"({figures['answers_per_s']} answers/s)"
    )
    for kind in ("save", "start", "register", "read", "submit"):
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
    fitted = ", ".join(f"{k} {v:.2f}" for k, v in by_type.items()) or "-"
    print(
        f"server CPU             {figures['server_cpu_s']:.1f} s "
        f"({figures['server_cpu_ms_per_request']:.2f} ms per request; by type, fitted, ms: "
        f"{fitted}); machine load average {figures['load_average_1min']} on "
        f"{os.cpu_count()} cores"
    )
    print(client_line)
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
    if baseline:
        print_baseline(figures, baseline)
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
