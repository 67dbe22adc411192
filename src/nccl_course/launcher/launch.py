"""Run a function on N local processes with torchrun's environment, and never hang doing it.

``launch(target, nproc)`` starts ``nproc`` fresh Python processes, gives each the variables
torchrun sets (RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT), initialises the process group with
:func:`nccl_course.launcher.init`, runs ``target`` and destroys the group. It returns the values the
ranks returned, in rank order.

How the processes start (``start_method``): NCCL ranks are *spawned* (a new interpreter each, as
CUDA requires). gloo ranks are forked from a *fork server* that imported torch once
(``multiprocessing``'s ``forkserver`` with torch preloaded): a rank then starts in a fraction of
a second instead of the seconds an import of torch takes, which is most of a short launch. Each
rank gets the caller's environment, working directory and ``sys.path`` as they are at the launch
(not as they were when the server started). ``NCCL_COURSE_START_METHOD=spawn`` spawns gloo
ranks too.

What can go wrong, and what the caller sees:

- a rank raises: :class:`WorkerError` naming the rank, with its traceback. The other ranks are
  usually blocked in a collective waiting for it; they get a short grace period to report their
  own errors, then are stopped.
- a rank never finishes (a mismatched collective, a recv nobody sends): after ``timeout_s`` every
  rank still running is asked for its Python stack (``faulthandler`` on SIGUSR1), then killed,
  and :class:`LaunchTimeout` names those ranks and shows where each one was waiting.
- the port picked for the rendezvous was taken in between (another test grabbed it): the launch
  is retried on a new port, a few times.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import pickle
import queue as queue_module
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nccl_course.launcher.failures import launch_timeout, worker_error

# free_port: the port of each launch, and public here too; tests replace it in this module.
from nccl_course.launcher.ports import free_port
from nccl_course.launcher.targets import (  # noqa: F401 (load_file_module: public here too)
    Target,
    load_file_module,
    resolve_target,
    target_spec,
)

#: How long the other ranks may keep running after one rank failed, to report their own errors.
FAILURE_GRACE_S = 3.0
#: How many times a launch is retried when the rendezvous port turns out to be taken.
PORT_ATTEMPTS = 5
#: "spawn" or "forkserver": how gloo ranks start (NCCL ranks are always spawned).
START_METHOD_ENV = "NCCL_COURSE_START_METHOD"
#: What the fork server imports once, so that the ranks forked from it do not.
FORKSERVER_PRELOAD = [
    "torch",
    "torch.distributed",
    "nccl_course.launcher.process_group",
    "nccl_course.launcher.placement",
]


# --- the child side ----------------------------------------------------------------------------


def _is_port_taken(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "eaddrinuse" in text or "address already in use" in text


def _worker_entry(
    rank, spec, args, kwargs, backend, pg_timeout_s, check_placement, results, stack_dir, environ
):
    """Body of every rank. Reports exactly one message: ok, error or port."""
    import faulthandler

    # A rank forked from the fork server has the server's environment: take the caller's.
    os.environ.clear()
    os.environ.update(environ)
    torch = sys.modules.get("torch")
    if torch is not None:  # imported by the fork server before OMP_NUM_THREADS was set
        torch.set_num_threads(max(1, int(environ.get("OMP_NUM_THREADS", "1") or 1)))

    stack_file = open(os.path.join(stack_dir, f"rank{rank}.stack"), "w")  # noqa: SIM115
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=stack_file, all_threads=True)
    from nccl_course.launcher import placement
    from nccl_course.launcher.process_group import destroy, init

    try:
        try:
            backend_in_use = init(backend=backend, timeout_s=pg_timeout_s)
        except Exception as exc:
            if _is_port_taken(exc):
                results.put(("port", rank, str(exc)))
                return
            raise
        results.put(("ready", rank, None))
        if check_placement and backend_in_use == "gloo":
            placement.install()
        fn = resolve_target(spec)
        value = fn(*args, **kwargs)
        try:
            payload = pickle.dumps(value)
        except Exception as exc:
            raise TypeError(
                f"rank {rank} returned a {type(value).__name__} that cannot be pickled ({exc}): "
                "return numbers, strings, lists, dicts or tensors"
            ) from exc
        results.put(("ok", rank, payload))
    except BaseException as exc:
        # Start the traceback at the worker's own frame: this function's frame is noise.
        tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
        results.put(("error", rank, "".join(traceback.format_exception(type(exc), exc, tb))))
    finally:
        with contextlib.suppress(Exception):
            destroy()
        stack_file.close()


# --- the parent side ---------------------------------------------------------------------------


@contextlib.contextmanager
def _environ(values: dict[str, str]):
    """Set variables while a child is started: spawn copies the parent's environment, so the
    child sees them before its first import (OMP_NUM_THREADS must be set before torch loads)."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


@contextlib.contextmanager
def _main_module_hidden():
    """Start children without re-running the caller's script in them.

    ``spawn`` normally re-imports ``__main__`` in every child, which re-runs a script that calls
    :func:`launch` without an ``if __name__ == "__main__":`` guard (and pays for its imports).
    The children never need it: targets travel by file path or module name.
    """
    main = sys.modules.get("__main__")
    saved = {k: getattr(main, k) for k in ("__spec__", "__file__") if hasattr(main, k)}
    try:
        if main is not None:
            if "__spec__" in saved:
                main.__spec__ = None
            if "__file__" in saved:
                del main.__file__
        yield
    finally:
        for key, value in saved.items():
            setattr(main, key, value)


def _stop(processes) -> None:
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + 1.0
    for proc in processes:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(2.0)


class _PortTaken(Exception):
    pass


def start_method(backend: str) -> str:
    """How the ranks of a launch on ``backend`` start: "spawn" for NCCL (CUDA needs a fresh
    process), "forkserver" for gloo where the platform has it, unless $NCCL_COURSE_START_METHOD
    says "spawn"."""
    chosen = os.environ.get(START_METHOD_ENV, "").strip().lower()
    if chosen not in ("", "spawn", "forkserver"):
        raise ValueError(
            f"{START_METHOD_ENV}={chosen!r}: use 'spawn' or 'forkserver' (or leave it unset)"
        )
    if backend != "gloo" or chosen == "spawn":
        return "spawn"
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def _context(backend: str):
    method = start_method(backend)
    ctx = mp.get_context(method)
    if method == "forkserver":
        # Read when the server starts (the first gloo launch of this process), then kept.
        ctx.set_forkserver_preload(FORKSERVER_PRELOAD)
    return ctx


# Seconds the ranks' process group waits in a collective beyond the launch's own limit: a hang is
# then reported by the launch, with every rank's stack, not by the first rank whose collective
# times out (ranks forked from the fork server start within a second, so the two limits would
# otherwise end together).
GROUP_TIMEOUT_MARGIN_S = 5.0


def _launch_once(spec, nproc, args, kwargs, backend, timeout_s, check_placement, port):
    ctx = _context(backend)
    results = ctx.Queue()
    stack_dir = tempfile.mkdtemp(prefix="nccl-course-launch-")
    processes = []
    try:
        group_timeout_s = timeout_s + GROUP_TIMEOUT_MARGIN_S
        worker_args = (spec, tuple(args), dict(kwargs), backend, group_timeout_s, check_placement)
        _start_ranks(ctx, nproc, port, worker_args, results, stack_dir, processes)
        values, failures, ready = _gather(results, processes, nproc, timeout_s)
        unfinished = [r for r in range(nproc) if r not in values and r not in failures]
        if failures:
            _stop(processes)
            raise worker_error(failures, unfinished, nproc)
        if unfinished:
            stacks = _collect_stacks(processes, unfinished, stack_dir)
            _stop(processes)
            raise launch_timeout(unfinished, values, ready, stacks, nproc, timeout_s)
        for proc in processes:
            proc.join(10.0)
        return [values[r] for r in range(nproc)]
    finally:
        _stop(processes)
        results.close()
        results.join_thread()
        shutil.rmtree(stack_dir, ignore_errors=True)


def _start_ranks(ctx, nproc, port, worker_args, results, stack_dir, processes) -> None:
    """Start one process per rank with torchrun's environment, appending each to
    ``processes`` as it starts (so that a failure part-way still stops the started ones)."""
    spec, args, kwargs, backend, group_timeout_s, check_placement = worker_args
    base_env = {
        "WORLD_SIZE": str(nproc),
        "LOCAL_WORLD_SIZE": str(nproc),
        "GROUP_RANK": "0",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
        # torchrun's default for several processes per machine: one math thread each, so N
        # ranks on N cores do not fight over them.
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
    }
    for rank in range(nproc):
        env = dict(base_env, RANK=str(rank), LOCAL_RANK=str(rank), ROLE_RANK=str(rank))
        environ = {**os.environ, **env}
        proc = ctx.Process(
            target=_worker_entry,
            args=(
                rank,
                spec,
                args,
                kwargs,
                backend,
                group_timeout_s,
                check_placement,
                results,
                stack_dir,
                environ,
            ),
            name=f"nccl-course-rank{rank}",
            daemon=True,
        )
        with _environ(env), _main_module_hidden():
            proc.start()
        processes.append(proc)


def _gather(results, processes, nproc, timeout_s):
    """(values, failures, ready) from the ranks' messages until every rank has answered, the
    time is up, or :data:`FAILURE_GRACE_S` after the first failure. ``failures`` keeps the
    order the failures arrived in; ``ready``: the ranks past init_process_group."""
    deadline = time.monotonic() + timeout_s
    values: dict[int, Any] = {}
    failures: dict[int, str] = {}
    dead_since: dict[int, float] = {}
    ready: set[int] = set()
    failure_deadline: float | None = None
    while len(values) + len(failures) < nproc:
        now = time.monotonic()
        if failure_deadline is not None and now >= failure_deadline:
            break
        if now >= deadline:
            break
        try:
            kind, rank, payload = results.get(timeout=0.05)
        except queue_module.Empty:
            kind = None
        if kind == "port":
            raise _PortTaken(payload)
        if kind == "ready":
            ready.add(rank)
        elif kind == "ok":
            values[rank] = pickle.loads(payload)
        elif kind == "error":
            failures[rank] = payload
            if failure_deadline is None:
                failure_deadline = time.monotonic() + FAILURE_GRACE_S
        # A process that died without a word (killed, os._exit, a crash in C code): give
        # its last message a moment to arrive through the pipe, then count it as failed.
        for rank, proc in enumerate(processes):
            if rank in values or rank in failures or proc.exitcode is None:
                continue
            first_seen = dead_since.setdefault(rank, time.monotonic())
            if time.monotonic() - first_seen > 1.0:
                failures[rank] = (
                    f"rank {rank} exited with code {proc.exitcode} without reporting a "
                    "result (killed, out of memory, or os._exit/sys.exit in the worker)"
                )
                if failure_deadline is None:
                    failure_deadline = time.monotonic() + FAILURE_GRACE_S
    return values, failures, ready


def _collect_stacks(processes, ranks, stack_dir) -> dict[int, str]:
    """Ask each stuck rank for its Python stack (faulthandler, registered on SIGUSR1)."""
    if not hasattr(signal, "SIGUSR1"):
        return {}
    for rank in ranks:
        pid = processes[rank].pid
        if processes[rank].is_alive() and pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGUSR1)
    time.sleep(0.5)
    stacks = {}
    for rank in ranks:
        path = os.path.join(stack_dir, f"rank{rank}.stack")
        with contextlib.suppress(OSError):
            stacks[rank] = _useful_frames(Path(path).read_text())
    return stacks


def _useful_frames(dump: str) -> str:
    """Keep the thread that ran the worker and drop the launcher's own frames."""
    blocks = [b for b in dump.split("\n\n") if b.strip()]
    main = [b for b in blocks if "_worker_entry" in b] or blocks
    lines = []
    for line in main[-1].splitlines() if main else []:
        if "multiprocessing" in line or "nccl_course/launcher/launch.py" in line:
            continue
        lines.append(line)
    return "\n".join(lines).strip()


def launch(
    target: Target,
    nproc: int,
    *,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    backend: str | None = None,
    timeout_s: float = 60.0,
    check_placement: bool = False,
) -> list[Any]:
    """Run ``target(*args, **kwargs)`` on ``nproc`` local ranks; return their values in rank order.

    ``target``: a function importable by name, a pair ``(path_to_py_file, function_name)`` (for
    lab files outside any package), or ``"package.module:function"``. Arguments and return values
    must be picklable. ``backend=None`` picks NCCL when ``torch.cuda.device_count() >= nproc``,
    else gloo. ``timeout_s`` (seconds) bounds the whole run, start-up included (spawning a
    process that imports torch takes a few seconds); the ranks' process group times out
    :data:`GROUP_TIMEOUT_MARGIN_S` later, so that a hang is reported with every rank's stack.

    Raises :class:`WorkerError` when a rank raises and :class:`LaunchTimeout` when ranks do not
    finish in time; the process group is destroyed in every rank in every case.

    ``check_placement=True`` (gloo only) makes every collective refuse a tensor that would stay
    on the CPU on a GPU rank (:mod:`nccl_course.launcher.placement`), so NCCL's device rule is
    checked on machines without GPUs.
    """
    if nproc < 1:
        raise ValueError(f"nproc must be at least 1, got {nproc}")
    if timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    spec = target_spec(target)
    if backend is None:
        from nccl_course.launcher.process_group import choose_backend

        backend = choose_backend(nproc)
    last_error = ""
    for _attempt in range(PORT_ATTEMPTS):
        try:
            return _launch_once(
                spec, nproc, args, kwargs or {}, backend, timeout_s, check_placement, free_port()
            )
        except _PortTaken as exc:
            last_error = str(exc)
    raise RuntimeError(
        f"could not find a free port for the rendezvous after {PORT_ATTEMPTS} tries: {last_error}"
    )


def script_main(main: Callable[[], Any], argv: Sequence[str] | None = None) -> Any:
    """The ``if __name__ == "__main__":`` body of a lab file.

    Under torchrun (RANK and WORLD_SIZE set) this process is one rank: initialise, run
    ``main()``, destroy. Run as ``python file.py [--nproc N] [--backend gloo|nccl]
    [--timeout S]``, it launches ``main`` on N local ranks itself (default: the number of GPUs
    when there are at least 2, else 4 CPU processes).
    """
    import argparse

    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        from nccl_course.launcher.process_group import process_group

        with process_group():
            return main()
    summary = (main.__doc__ or "").strip().splitlines()
    parser = argparse.ArgumentParser(description=summary[0] if summary else None)
    parser.add_argument("--nproc", type=int, default=None, help="number of ranks")
    parser.add_argument("--backend", choices=("nccl", "gloo"), default=None)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds (default 120)")
    options = parser.parse_args(argv)
    nproc = options.nproc
    if nproc is None:
        import torch

        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
        nproc = gpus if gpus >= 2 else 4
    return launch(main, nproc, backend=options.backend, timeout_s=options.timeout)
