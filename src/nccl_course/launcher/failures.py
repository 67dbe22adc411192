"""What the caller of :func:`~nccl_course.launcher.launch` sees when ranks fail or hang: the two
errors and their messages (which rank failed first, which were stopped, where each waited).
"""

from __future__ import annotations

from collections.abc import Sequence


class WorkerError(RuntimeError):
    """A rank raised. ``failures`` maps each failed rank to its traceback text."""

    def __init__(self, message: str, failures: dict[int, str], stopped: Sequence[int] = ()):
        super().__init__(message)
        self.failures = dict(failures)
        self.stopped = list(stopped)

    @property
    def ranks(self) -> list[int]:
        return sorted(self.failures)


class LaunchTimeout(TimeoutError):
    """Ranks did not finish in time. ``unfinished`` lists them; ``stacks`` maps each to the
    Python stack it was in when it was stopped (empty where none could be read)."""

    def __init__(self, message: str, unfinished: Sequence[int], stacks: dict[int, str]):
        super().__init__(message)
        self.unfinished = list(unfinished)
        self.stacks = dict(stacks)


def ranks_text(ranks: Sequence[int]) -> str:
    ranks = sorted(ranks)
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(str(r) for r in ranks)


def worker_error(failures: dict, unfinished: list, nproc: int) -> WorkerError:
    """The error for failed ranks: which failed first, which were stopped, each one's text."""
    first = next(iter(failures))
    parts = [
        f"{ranks_text(sorted(failures))} of {nproc} failed (rank {first} first"
        + ("; the others' errors are probably its consequence)" if len(failures) > 1 else ")")
        + (
            f"; {ranks_text(unfinished)} did not finish (probably waiting in a "
            "collective for the failed rank) and were stopped"
            if unfinished
            else ""
        )
        + "."
    ]
    for rank in failures:
        parts.append(f"\n--- rank {rank} ---\n{failures[rank].rstrip()}")
    return WorkerError("\n".join(parts), failures, stopped=unfinished)


def launch_timeout(unfinished, values, ready, stacks, nproc, timeout_s) -> LaunchTimeout:
    """The error for ranks that did not finish: which never started, the likely cause, and
    where each was waiting."""
    lines = [
        f"{ranks_text(unfinished)} of {nproc} did not finish within {timeout_s:g} s "
        f"and were stopped" + (f" ({ranks_text(sorted(values))} finished)" if values else "") + "."
    ]
    starting = [r for r in unfinished if r not in ready]
    if starting:
        lines.append(
            f"{ranks_text(starting)} never got past start-up (importing torch and "
            "init_process_group): the machine may be overloaded, or a rank cannot reach "
            "the rendezvous at MASTER_ADDR:MASTER_PORT."
        )
    if len(starting) < len(unfinished):
        lines.append(
            "A collective that not every rank calls, that ranks call in a different "
            "order or with different sizes, waits forever; so does a recv that no rank "
            "sends."
        )
    for rank in unfinished:
        if stacks.get(rank):
            lines.append(f"\n--- where rank {rank} was waiting ---\n{stacks[rank]}")
    return LaunchTimeout("\n".join(lines), unfinished, stacks)
