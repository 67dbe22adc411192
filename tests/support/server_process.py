"""Run the course server as a separate process on a loopback port (test support).

Used by the crash-recovery, serve-command and browser tests and by the load benchmark
(``benchmarks/bench_exam_load.py``): ``ServerProcess`` starts ``python -m nccl_course serve`` on
127.0.0.1 with a free port, waits until it answers, and stops it (gently, or with SIGKILL to
test durability). Scripted learners answer with ``nccl_course.quiz.keys.correct_response``.

Import it as ``from tests.support.server_process import ServerProcess``: pytest's importlib
mode resolves ``tests`` from the repository root, and a script puts the root on ``sys.path``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from nccl_course.launcher import free_port


class ServerProcess:
    """``nccl-course serve`` in a subprocess. Use as a context manager or call start/stop."""

    def __init__(
        self,
        data_dir: Path,
        *,
        quizzes: Path = Path("quizzes"),
        book: Path = Path("_build/html"),
        blueprint: Path | None = None,
        database_url: str | None = None,
        admin_token: str | None = None,
        port: int | None = None,
        log_path: Path | None = None,
        env: dict | None = None,
        rate_limits: bool = False,
        email_confirmation: bool = False,
    ):
        self.data_dir = Path(data_dir)
        self.quizzes = Path(quizzes)
        self.book = Path(book)
        self.blueprint = blueprint
        self.database_url = database_url
        self.admin_token = admin_token
        self.port = port or free_port()
        self.log_path = Path(log_path) if log_path else self.data_dir / "server.log"
        self.extra_env = env or {}
        # Off unless asked for: tests and benchmarks send more from 127.0.0.1 than a learner.
        self.rate_limits = rate_limits
        # Off unless asked for, as for a closed class: learners start without a mailed link.
        self.email_confirmation = email_confirmation
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        cmd = [
            sys.executable,
            "-m",
            "nccl_course",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--quizzes",
            str(self.quizzes),
            "--book",
            str(self.book),
            "--log-level",
            "warning",
        ]
        if self.blueprint:
            cmd += ["--blueprint", str(self.blueprint)]
        if self.database_url:
            cmd += ["--database-url", self.database_url]
        if not self.rate_limits:
            cmd.append("--no-rate-limits")
        if not self.email_confirmation:
            cmd.append("--no-email-confirmation")
        return cmd

    def start(self, timeout_s: float = 60.0) -> ServerProcess:
        import httpx

        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env.pop("DATABASE_URL", None)
        env.update(self.extra_env)
        if self.admin_token:
            env["NCCL_COURSE_ADMIN_TOKEN"] = self.admin_token
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self._log = log
        self.proc = subprocess.Popen(
            self.command(), stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                if httpx.get(self.url + "/exam/api/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not answer within {timeout_s} s: {self.log_tail()}")

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)
        self._close_log()

    def stop(self, timeout_s: float = 20.0) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self._close_log()

    def _close_log(self) -> None:
        log = getattr(self, "_log", None)
        if log is not None:
            log.close()
            self._log = None

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
