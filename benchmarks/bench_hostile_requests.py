"""Hostile requests against the course server: CPU per request, and health checks meanwhile.

Starts ``nccl-course serve`` as a subprocess on 127.0.0.1 (a free port, a temporary data
folder, a blueprint drawing one question per bank), then sends, kind by kind, COPIES hostile
requests of each kind at once while a separate client checks ``GET /exam/api/health`` every
HEALTH_EVERY seconds. Only loopback traffic; the number of requests and every wait are bounded
(--max-seconds stops the run early).

The kinds: answer bodies of 10 MB without a learner key and with one, answers holding NaN or
nested 4,000 levels deep, registrations holding 1e999 or a 4,000-digit integer, and credentials
sent to ``POST /exam/api/verify``: a proofValue of 60,000 characters, blank nodes all linked to
each other, chains and rings of blank nodes, 480 evidence objects, hundreds of inline JSON-LD
contexts, 900 levels of nesting, NaN, a 64 KB body, one of 70 KB, and a forged credential
(a fresh did:key calling itself "nccl-course"); the genuine credential for comparison. The
credential inputs are those of ``bench_verify_hostile.py``, made for the server's own issuer, so
they get past the issuer check.

For each kind it prints the HTTP statuses, the server's CPU seconds per request (the server and
every process under it, its verification workers included, read from /proc, so Linux only;
the CPU of the health checks answered meanwhile, measured alone first, is taken off), and the
slowest answer. Then the largest CPU per request among bodies of at most 64 KB, and the
p50/p99/max latency of the health checks. Targets: no request of at most 64 KB costs 1 s of
CPU or more; health checks answer in under 100 ms (p99); no 5xx.

    .venv/bin/python benchmarks/bench_hostile_requests.py
    .venv/bin/python benchmarks/bench_hostile_requests.py --copies 2 --kinds answer_10mb_no_key
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import importlib.util
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
CPU_TARGET_S = 1.0
HEALTH_TARGET_MS = 100.0
SMALL_BODY = 64 * 1024
HEALTH_SAMPLES = 40  # health checks alone, to take their CPU off the hostile requests'


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def percentile(values: list[float], q: float) -> float:
    return _load("bench_exam_load").percentile(values, q)


# -- the server's CPU (Linux /proc) ------------------------------------------------------
def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and its reaped children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
    return int(fields[1]), ticks / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds of ``root`` and every process under it (live ones, and the children each
    of them has reaped: a killed verification worker still counts)."""
    stats = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            found = _stat(int(entry.name))
            if found is not None:
                stats[int(entry.name)] = found
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in stats.items():
        children.setdefault(parent, []).append(pid)
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        if pid in stats:
            total += stats[pid][1]
        stack.extend(children.get(pid, []))
    return total


# -- the hostile requests ----------------------------------------------------------------
def credential_inputs(data_dir: Path) -> dict[str, bytes]:
    """name -> verify request body, made for the server's own issuer (its data folder)."""
    from nccl_course.certs import Issuer

    hostile = _load("bench_verify_hostile")
    issuer = Issuer.open_existing(data_dir)
    credential = issuer.issue(
        learner_name="Mallory",
        learner_email="mallory@example.org",
        exam_id="bench-hostile",
        score=0.85,
        passed_at=datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc),
    )
    texts = hostile.hostile_inputs(issuer, credential)
    wanted = {
        "proofValue of 60,000 characters": "verify_long_proof_value",
        "12 blank nodes all linked to each other": "verify_linked_blank_nodes",
        "chain of 400 blank nodes (flat)": "verify_blank_node_chain",
        "ring of 60 blank nodes (under the blank node limit)": "verify_blank_node_ring",
        "480 evidence objects (near the object limit)": "verify_480_evidence_objects",
        "900 levels of nested arrays": "verify_deep_nesting",
        "NaN in the subject": "verify_nan",
    }
    out = {short: texts[name].encode() for name, short in wanted.items()}
    contexts = copy.deepcopy(credential)
    contexts["@context"] = contexts["@context"] + [
        {f"t{i}x{j}": f"https://example.org/v#t{i}x{j}" for j in range(3)} for i in range(300)
    ]
    out["verify_300_inline_contexts"] = json.dumps(contexts).encode()
    padded = copy.deepcopy(credential)
    padded["credentialSubject"]["achievement"]["description"] = "x" * (
        SMALL_BODY - len(json.dumps(credential)) - 200
    )
    out["verify_64kb_body"] = json.dumps(padded).encode()
    padded["credentialSubject"]["achievement"]["description"] += "x" * 6000
    out["verify_70kb_body"] = json.dumps(padded).encode()
    out["verify_forged_issuer"] = hostile.forged(credential).encode()
    out["verify_genuine"] = json.dumps(credential).encode()
    return out


def hostile_requests(data_dir: Path, token: str, attempt_id: str) -> dict[str, dict]:
    """name -> request (method, url, body, headers) of every kind."""
    key = {"Authorization": f"Bearer {token}"}
    json_type = {"Content-Type": "application/json"}
    answer = f"/exam/api/attempts/{attempt_id}/answers/0"
    # 10 MB of small values: costly to parse (it used to be parsed before the key was checked)
    ten_mb = b'{"response": [' + b"0," * (5 * 1024 * 1024) + b"0]}"
    kinds = {
        "answer_10mb_no_key": ("PUT", "/exam/api/attempts/nope/answers/0", ten_mb, {}),
        "answer_10mb_with_key": ("PUT", answer, ten_mb, key),
        "answer_nan": ("PUT", answer, b'{"response": NaN}', key),
        "answer_4000_levels": (
            "PUT",
            answer,
            b'{"response": ' + b"[" * 4000 + b"]" * 4000 + b"}",
            key,
        ),
        "register_1e999": ("POST", "/exam/api/register", b'{"name": 1e999, "email": "a@b.c"}', {}),
        "register_4000_digits": (
            "POST",
            "/exam/api/register",
            b'{"name": "n", "email": ' + b"9" * 4000 + b"}",
            {},
        ),
    }
    for name, body in credential_inputs(data_dir).items():
        kinds[name] = ("POST", "/exam/api/verify", body, {})
    return {
        name: {"method": m, "url": u, "content": b, "headers": {**json_type, **h}}
        for name, (m, u, b, h) in kinds.items()
    }


async def health_checks(client: httpx.AsyncClient, every_s: float, stop: asyncio.Event, out: list):
    while not stop.is_set():
        start = time.perf_counter()
        try:
            response = await client.get("/exam/api/health")
            ok = response.status_code == 200
        except httpx.HTTPError:
            ok = False
        out.append((time.perf_counter() - start, ok))
        try:
            await asyncio.wait_for(stop.wait(), every_s)
        except asyncio.TimeoutError:
            pass


async def send(client: httpx.AsyncClient, request: dict) -> tuple[int, float]:
    start = time.perf_counter()
    try:
        response = await client.request(
            request["method"],
            request["url"],
            content=request["content"],
            headers=request["headers"],
        )
        status = response.status_code
    except httpx.HTTPError:
        status = 0  # the transport failed (counted as an error)
    return status, time.perf_counter() - start


async def run_kinds(
    url: str, server_pid: int, requests: dict[str, dict], copies: int, every_s: float, deadline
) -> tuple[list[dict], list]:
    health: list = []
    rows = []
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=copies + 2, max_keepalive_connections=copies + 2)
    async with (
        httpx.AsyncClient(base_url=url, timeout=60) as checker,
        httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client,
    ):
        # Warm up (not measured): the verification workers start on the first verification.
        await send(client, requests["verify_genuine"])
        # The CPU of one health check, taken off each kind's figure below.
        cpu_before = tree_cpu_seconds(server_pid)
        for _ in range(HEALTH_SAMPLES):
            await checker.get("/exam/api/health")
        per_check = (tree_cpu_seconds(server_pid) - cpu_before) / HEALTH_SAMPLES
        pinger = asyncio.create_task(health_checks(checker, every_s, stop, health))
        for name, request in requests.items():
            if time.monotonic() > deadline:
                print(f"--max-seconds reached: {name} and later kinds not sent", file=sys.stderr)
                break
            checks_before = len(health)
            cpu_before = tree_cpu_seconds(server_pid)
            results = await asyncio.gather(*(send(client, request) for _ in range(copies)))
            await asyncio.sleep(0.05)  # let a killed worker be reaped and counted
            cpu = tree_cpu_seconds(server_pid) - cpu_before
            cpu -= (len(health) - checks_before) * per_check
            rows.append(
                {
                    "kind": name,
                    "bytes": len(request["content"]),
                    "statuses": sorted({status for status, _ in results}),
                    "cpu_s_per_request": round(max(0.0, cpu) / copies, 4),
                    "slowest_s": round(max(seconds for _, seconds in results), 3),
                }
            )
        stop.set()
        await pinger
    return rows, health


def prepare_learner(url: str) -> tuple[str, str]:
    """A learner key and an open attempt, for the hostile answers sent with a valid key."""
    with httpx.Client(base_url=url, timeout=60) as client:
        registered = client.post(
            "/exam/api/register", json={"name": "Bench", "email": "bench@example.org"}
        )
        registered.raise_for_status()
        token = registered.json()["token"]
        started = client.post("/exam/api/attempts", headers={"Authorization": f"Bearer {token}"})
        started.raise_for_status()
        return token, started.json()["id"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=4, help="requests of each kind at once")
    parser.add_argument("--health-every", type=float, default=0.02, help="seconds between checks")
    parser.add_argument("--kinds", nargs="*", default=None, help="only these kinds")
    parser.add_argument("--quizzes", type=Path, default=REPO / "quizzes")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="stop sending after")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if not 1 <= args.copies <= 64:
        parser.error("--copies must be between 1 and 64")

    sys.path.insert(0, str(REPO / "src"))
    sys.path.insert(0, str(REPO))  # for tests.support
    from tests.support.server_process import ServerProcess

    load = _load("bench_exam_load")
    with tempfile.TemporaryDirectory(prefix="nccl-course-hostile-") as tmp:
        data = Path(tmp) / "data"
        blueprint = Path(tmp) / "blueprint.yml"
        load.write_blueprint(blueprint, args.quizzes, per_bank=1, minutes=60)
        server = ServerProcess(
            data,
            quizzes=args.quizzes,
            book=Path(tmp) / "no-book",
            blueprint=blueprint,
            rate_limits=False,  # --no-rate-limits: every request comes from 127.0.0.1
        )
        server.start()
        try:
            token, attempt_id = prepare_learner(server.url)
            requests = hostile_requests(data, token, attempt_id)
            if args.kinds:
                unknown = sorted(set(args.kinds) - set(requests))
                if unknown:
                    parser.error(f"unknown kinds {unknown}; known: {sorted(requests)}")
                requests = {
                    k: v for k, v in requests.items() if k in args.kinds or k == "verify_genuine"
                }
            deadline = time.monotonic() + args.max_seconds
            rows, health = asyncio.run(
                run_kinds(
                    server.url, server.proc.pid, requests, args.copies, args.health_every, deadline
                )
            )
            alive = server.proc.poll() is None
        finally:
            server.stop()
        if not alive:
            print(f"the server died during the run:\n{server.log_tail()}", file=sys.stderr)

    small = [r for r in rows if r["bytes"] <= SMALL_BODY]
    latencies = [seconds for seconds, _ in health]
    ms = 1000.0
    figures = {
        "copies": args.copies,
        "kinds": rows,
        "max_cpu_s_per_request_up_to_64kb": max((r["cpu_s_per_request"] for r in small), default=0),
        "max_cpu_s_per_request": max((r["cpu_s_per_request"] for r in rows), default=0),
        "server_errors": sorted({s for r in rows for s in r["statuses"] if s >= 500 or s == 0}),
        "health_checks": len(health),
        "health_failed": sum(1 for _, ok in health if not ok),
        "health_p50_ms": round(percentile(latencies, 0.50) * ms, 2) if latencies else None,
        "health_p99_ms": round(percentile(latencies, 0.99) * ms, 2) if latencies else None,
        "health_max_ms": round(max(latencies) * ms, 2) if latencies else None,
        "server_alive": alive,
        "cores": os.cpu_count(),
    }
    print(f"{'kind':<30} {'bytes':>10} {'statuses':<12} {'CPU s/req':>9} {'slowest s':>9}")
    for row in rows:
        statuses = ",".join(str(s) for s in row["statuses"])
        print(
            f"{row['kind']:<30} {row['bytes']:>10,} {statuses:<12} "
            f"{row['cpu_s_per_request']:>9.3f} {row['slowest_s']:>9.3f}"
        )
    print(
        f"server CPU per hostile request (max): {figures['max_cpu_s_per_request_up_to_64kb']:.3f} s"
        f" for bodies of at most 64 KB, {figures['max_cpu_s_per_request']:.3f} s for any "
        f"(target: under {CPU_TARGET_S:g} s; {args.copies} at once, {os.cpu_count()} cores)"
    )
    print(
        f"health checks meanwhile: {figures['health_checks']}, failed {figures['health_failed']};"
        f" p50 {figures['health_p50_ms']} ms, p99 {figures['health_p99_ms']} ms, "
        f"max {figures['health_max_ms']} ms (target: p99 under {HEALTH_TARGET_MS:g} ms)"
    )
    if figures["server_errors"]:
        print(f"server errors or failed transports: {figures['server_errors']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    ok = (
        alive
        and not figures["server_errors"]
        and figures["health_failed"] == 0
        and figures["max_cpu_s_per_request_up_to_64kb"] < CPU_TARGET_S
        and (figures["health_p99_ms"] or 0) < HEALTH_TARGET_MS
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
