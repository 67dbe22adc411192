"""Credential verification in worker processes, under a hard CPU-time cap.

The certs code bounds its input and counts the steps of its own canonicalization
(``nccl_course.certs.bounds``, ``nccl_course.certs.canon``), but it cannot interrupt pyld's
JSON-LD expansion, which runs before. So the server never verifies in its own process: a
``VerifierPool`` runs each verification in a worker process and stops it from outside.

- Up to ``workers`` worker processes, started on first use, forked from a forkserver that has
  already imported the verifier (a new worker starts in milliseconds, with no thread of the
  server copied into it). A worker takes one task at a time.
- While a task runs, a thread of the pool watches the worker: past ``cpu_limit_s`` of CPU
  (read from ``/proc/PID/stat``; wall time where there is no ``/proc``) the worker is killed and
  the request refused as too costly (422, ``verification_too_costly``); a worker that got no
  CPU for ``wall_limit_s`` (the machine is overloaded) is killed too (503, try again). A fresh
  worker replaces a killed one; a worker is also replaced after ``RECYCLE_AFTER`` tasks. As a
  backstop (a server that died mid-task), each worker also sets its own ``RLIMIT_CPU`` so the
  kernel ends it 2 s of CPU past the cap.
- At most ``max_waiting`` tasks wait for a worker; more are refused at once (503).
- The route only awaits the result: the event loop stays free for health checks and answer
  saves, and no thread of the server's shared thread pool waits on a worker.

A credential the course issues verifies in about 15 ms of CPU (its status list included); the
worst hostile input of at most 64 KiB that ``benchmarks/bench_verify_hostile.py`` tries takes
about 0.3 s. ``CPU_LIMIT_S`` stops anything that would take longer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from nccl_course.exam.errors import Invalid, Unavailable

log = logging.getLogger("nccl_course.exam")

CPU_LIMIT_S = 0.5  # CPU seconds one verification may use
WALL_LIMIT_S = 10.0  # seconds one verification may take, however little CPU it got
MAX_WAITING = 16  # verifications waiting for a worker; more are refused (503)
RECYCLE_AFTER = 500  # tasks before a worker is replaced (bounds any slow growth)
START_TIMEOUT_S = 60.0
POLL_S = 0.02  # how often a running task's CPU time is read

try:
    _CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
    _CLOCK_TICKS = 100


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux ``/proc``); None where unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None


# -- the worker side ---------------------------------------------------------------------
def task_verify(data: bytes, options: dict) -> dict:
    """``nccl_course.certs.verify.verify(data, **options)`` as a JSON-ready dict, or
    ``{"format_error": what}`` for input the verifier does not examine."""
    from nccl_course.certs.verify import CredentialFormatError, verify

    try:
        result = verify(data, **options)
    except CredentialFormatError as exc:
        return {"format_error": exc.what}
    return json.loads(json.dumps(result.as_dict(), default=str))


def task_ping() -> str:
    return "pong"


TASKS = {"verify": task_verify, "ping": task_ping}


def _warm() -> None:
    """Import the verifier and load its JSON-LD contexts before taking tasks."""
    from nccl_course.certs.loader import default_loader
    from nccl_course.certs.verify import verify  # noqa: F401

    default_loader()


def _limit_cpu(seconds: float) -> None:
    """A backstop to the server's watch: the kernel ends this worker (SIGXCPU) once the task
    has used ``seconds`` of CPU and two more, even if the server is gone (no core file)."""
    try:
        import resource

        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        soft = int(time.process_time() + seconds) + 2
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not POSIX
        pass


def _worker_main(conn) -> None:
    """A worker: run tasks sent over ``conn`` until it closes (the server stopped)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not POSIX
        pass
    _warm()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            name, args, cpu_limit_s = conn.recv()
        except (EOFError, OSError):
            return
        _limit_cpu(cpu_limit_s)
        try:
            reply = ("ok", TASKS[name](*args))
        except Exception as exc:  # reported to the server, which refuses the request
            reply = ("error", f"{type(exc).__name__}: {str(exc)[:300]}")
        try:
            conn.send(reply)
        except OSError:
            return


# -- the server side ---------------------------------------------------------------------
class _TooCostly(Exception):
    pass


class _Overloaded(Exception):
    pass


class _Died(Exception):
    pass


def _context():
    """Workers are forked from a forkserver that imported the verifier first; spawned where
    there is no forkserver. Never forked from the server itself, which runs threads."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["nccl_course.certs.verify", __name__])
        return ctx
    return multiprocessing.get_context("spawn")  # pragma: no cover - not POSIX


class _Worker:
    def __init__(self, ctx):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker_main, args=(child,), name="nccl-course-verifier", daemon=True
        )
        self.process.start()
        child.close()
        self.tasks = 0
        try:
            if not self.conn.poll(START_TIMEOUT_S):
                raise _Died("the worker did not start")
            self.conn.recv()
        except (EOFError, OSError) as exc:
            self.stop()
            raise _Died(f"the worker did not start: {exc}") from None
        except _Died:
            self.stop()
            raise

    @property
    def alive(self) -> bool:
        return self.process.is_alive()

    def run(self, name: str, args: tuple, cpu_limit_s: float, wall_limit_s: float):
        self.tasks += 1
        pid = self.process.pid
        cpu_start = process_cpu_seconds(pid)
        start = time.monotonic()
        try:
            self.conn.send((name, args, cpu_limit_s))
            while not self.conn.poll(POLL_S):
                elapsed = time.monotonic() - start
                cpu_now = process_cpu_seconds(pid)
                used = (
                    cpu_now - cpu_start
                    if cpu_now is not None and cpu_start is not None
                    else elapsed
                )
                if used > cpu_limit_s:
                    raise _TooCostly(used)
                if elapsed > wall_limit_s:
                    raise _Overloaded(elapsed)
                if not self.process.is_alive():
                    raise _Died(f"the worker exited with {self.process.exitcode}")
            return self.conn.recv()
        except (EOFError, OSError) as exc:
            raise _Died(str(exc)) from None

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class VerifierPool:
    """Worker processes for verification; ``await pool.run("verify", data, options)``."""

    def __init__(
        self,
        workers: int | None = None,
        *,
        cpu_limit_s: float = CPU_LIMIT_S,
        wall_limit_s: float = WALL_LIMIT_S,
        max_waiting: int = MAX_WAITING,
    ):
        self.workers = workers or max(1, min(2, os.cpu_count() or 1))
        self.cpu_limit_s = cpu_limit_s
        self.wall_limit_s = wall_limit_s
        self.max_waiting = max_waiting
        self.stats = {"tasks": 0, "too_costly": 0, "overloaded": 0, "died": 0, "started": 0}
        self._threads = ThreadPoolExecutor(self.workers, thread_name_prefix="verifier")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._running: set[_Worker] = set()
        self._ctx = None
        self._pending = 0  # tasks submitted and not finished (read and written on the loop)
        self._closed = False

    async def run(self, name: str, *args):
        """Run task ``name`` in a worker; its result, or an ExamError (see the module)."""
        if self._closed:
            raise Unavailable("shutting_down", "the server is stopping; try again shortly")
        if self._pending >= self.workers + self.max_waiting:
            raise Unavailable(
                "verifier_busy", "the server is verifying many credentials; try again shortly"
            )
        self._pending += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._threads, self._run_in_thread, name, args)
        finally:
            self._pending -= 1

    def _run_in_thread(self, name: str, args: tuple):
        worker = getattr(self._local, "worker", None)
        if worker is None or not worker.alive:
            worker = self._local.worker = self._start_worker()
        self.stats["tasks"] += 1
        try:
            status, value = worker.run(name, args, self.cpu_limit_s, self.wall_limit_s)
        except _TooCostly as exc:
            self._drop(worker, "too_costly")
            log.warning("verification stopped after %.2f s of CPU", exc.args[0])
            raise Invalid(
                "verification_too_costly",
                f"verifying this credential took more than {self.cpu_limit_s:g} s of CPU, so it "
                "was stopped (the course's own credentials take a few milliseconds)",
            ) from None
        except _Overloaded:
            self._drop(worker, "overloaded")
            raise Unavailable(
                "verifier_busy", "verification took too long: the server is busy; try again"
            ) from None
        except _Died as exc:
            self._drop(worker, "died")
            log.warning("verifier worker failed: %s", exc)
            raise Unavailable("verifier_failed", "the verifier stopped; try again") from None
        if worker.tasks >= RECYCLE_AFTER:
            self._drop(worker, None)
        if status != "ok":
            log.warning("verification task %s failed in the worker: %s", name, value)
            raise Invalid("unverifiable", f"this credential could not be processed: {value}")
        return value

    def _start_worker(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise Unavailable("shutting_down", "the server is stopping; try again shortly")
            if self._ctx is None:
                self._ctx = _context()
        try:
            worker = _Worker(self._ctx)
        except _Died as exc:
            log.error("cannot start a verifier worker: %s", exc)
            raise Unavailable("verifier_failed", "the verifier cannot start; try again") from None
        with self._lock:
            self._running.add(worker)
            self.stats["started"] += 1
        return worker

    def _drop(self, worker: _Worker, reason: str | None) -> None:
        if reason:
            self.stats[reason] += 1
        worker.stop()
        with self._lock:
            self._running.discard(worker)
        if getattr(self._local, "worker", None) is worker:
            self._local.worker = None

    def close(self) -> None:
        """Stop every worker (a task still running is killed)."""
        with self._lock:
            self._closed = True
            workers, self._running = list(self._running), set()
        for worker in workers:
            worker.stop()
        self._threads.shutdown(wait=False, cancel_futures=True)
