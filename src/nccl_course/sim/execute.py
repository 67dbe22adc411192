"""Run a schedule on real numpy data and check it against the collective's definition."""

from __future__ import annotations

import numpy as np

from nccl_course import collectives
from nccl_course.sim import layout
from nccl_course.sim.schedule import Schedule, ScheduleError, Step


def _locate_static_error(index: int, step: Step, p: int, num_chunks: int) -> None:
    """Raise the ScheduleError for a step known to have a bad id or a self-send."""
    for name, values, limit in (("src", step.src, p), ("dst", step.dst, p)):
        bad = (values < 0) | (values >= limit)
        if bad.any():
            i = int(np.argmax(bad))
            raise ScheduleError(
                f"step {index}: transfer {i} has {name} rank {int(values[i])}, "
                f"but ranks are 0..{p - 1}"
            )
    bad = (step.chunk < 0) | (step.chunk >= num_chunks)
    if bad.any():
        i = int(np.argmax(bad))
        raise ScheduleError(
            f"step {index}: transfer {i} names chunk {int(step.chunk[i])}, "
            f"but chunks are 0..{num_chunks - 1}"
        )
    self_sends = step.src == step.dst
    if self_sends.any():
        i = int(np.argmax(self_sends))
        raise ScheduleError(f"step {index}: rank {int(step.src[i])} sends to itself")


def check_static(schedule: Schedule) -> None:
    """Ids in range and no self-sends, for all steps at once (cheap, vectorized)."""
    steps = [s for s in schedule.step_arrays if len(s)]
    if not steps:
        return
    p, num_chunks = schedule.p, schedule.num_chunks
    lo = min(min(int(s.src.min()), int(s.dst.min()), int(s.chunk.min())) for s in steps)
    hi_rank = max(max(int(s.src.max()), int(s.dst.max())) for s in steps)
    hi_chunk = max(int(s.chunk.max()) for s in steps)
    self_send = any(bool((s.src == s.dst).any()) for s in steps)
    if lo < 0 or hi_rank >= p or hi_chunk >= num_chunks or self_send:
        for index, step in enumerate(schedule.step_arrays):
            _locate_static_error(index, step, p, num_chunks)


def _check_step(
    index: int, step: Step, p: int, num_chunks: int, held: np.ndarray, stamp: np.ndarray
) -> bool:
    """Raise ScheduleError if the step cannot run on the current holdings; return whether some
    chunk of some rank receives more than one reduction in it. ``stamp``: scratch int64 array of
    p * num_chunks entries. Ids must already be in range (``check_static``)."""
    missing = ~held[step.src, step.chunk]
    if missing.any():
        i = int(np.argmax(missing))
        raise ScheduleError(
            f"step {index}: rank {int(step.src[i])} sends chunk {int(step.chunk[i])} "
            f"to rank {int(step.dst[i])}, but rank {int(step.src[i])} does not hold that chunk"
        )
    target = step.dst * num_chunks + step.chunk
    # Repeated targets without sorting: write each transfer's index, read it back.
    order = np.arange(target.size)
    stamp[target] = order
    repeats = bool((stamp[target] != order).any())
    if repeats:
        sort = np.argsort(target, kind="stable")
        same = target[sort][1:] == target[sort][:-1]
        # Several reductions into one chunk are fine (the receiver adds every incoming piece,
        # as a tree node with two children does); a copy may not share its target.
        clash = same & ~(step.reduce[sort][1:] & step.reduce[sort][:-1])
        if clash.any():
            first = int(np.argmax(clash))
            a, b = int(sort[first]), int(sort[first + 1])
            raise ScheduleError(
                f"step {index}: two transfers write chunk {int(step.chunk[a])} of rank "
                f"{int(step.dst[a])} (from ranks {int(step.src[a])} and {int(step.src[b])}); "
                "a rank can receive a chunk it overwrites only once per step"
            )
    into_missing = step.reduce & ~held[step.dst, step.chunk]
    if into_missing.any():
        i = int(np.argmax(into_missing))
        raise ScheduleError(
            f"step {index}: rank {int(step.dst[i])} is asked to reduce into chunk "
            f"{int(step.chunk[i])}, which it does not hold"
        )
    return repeats


def apply_step(
    index: int,
    step: Step,
    data: np.ndarray,
    held: np.ndarray,
    p: int,
    num_chunks: int,
    stamp: np.ndarray | None = None,
) -> None:
    """Check step ``index`` and apply it to ``data[p, num_chunks, m]`` and
    ``held[p, num_chunks]`` in place (ids must be in range: see ``check_static``)."""
    if len(step) == 0:
        return
    if stamp is None:
        stamp = np.zeros(p * num_chunks, dtype=np.int64)
    repeats = _check_step(index, step, p, num_chunks, held, stamp)
    incoming = data[step.src, step.chunk]  # a copy: every read sees the start of the step
    red = step.reduce
    if red.all() and not repeats:
        data[step.dst, step.chunk] += incoming
    elif not red.any():
        data[step.dst, step.chunk] = incoming
    else:
        # add.at sums repeated targets (two children reducing into one parent)
        np.add.at(data, (step.dst[red], step.chunk[red]), incoming[red])
        copy = ~red
        data[step.dst[copy], step.chunk[copy]] = incoming[copy]
    held[step.dst, step.chunk] = True


def execute(schedule: Schedule, data: np.ndarray, held: np.ndarray) -> None:
    """Apply every step to ``data[p, num_chunks, m]`` and ``held[p, num_chunks]`` in place."""
    check_static(schedule)
    stamp = np.zeros(schedule.p * schedule.num_chunks, dtype=np.int64)
    for index, step in enumerate(schedule.step_arrays):
        apply_step(index, step, data, held, schedule.p, schedule.num_chunks, stamp)


def provenance_states(schedule: Schedule) -> list[tuple[np.ndarray, np.ndarray]]:
    """(held[p, C], contributions[p, C, p]) before the first step and after every step:
    ``contributions[r, c, q]`` counts how many times rank q's original data is summed into
    rank r's copy of chunk c (for a copy collective: 1 for the rank the chunk came from).
    Used to draw schedules; computed by running the schedule on one-hot data."""
    p, k, num_chunks = schedule.p, schedule.chunks, schedule.num_chunks
    pieces = num_chunks if schedule.collective in layout.BUFFER_COLLECTIVES else k
    inputs = make_inputs(schedule.collective, p, pieces, root=schedule.root)
    _, held, _ = layout.load(schedule.collective, p, k, num_chunks, inputs, schedule.root)
    data = np.zeros((p, num_chunks, p), dtype=np.int32)
    ranks, chunks = np.nonzero(held)
    if collectives.get(schedule.collective).layout == "tokens":
        data[ranks, chunks, chunks] = 1  # token t comes from rank t
    else:
        data[ranks, chunks, ranks] = 1
    states = [(held.copy(), data.copy())]
    check_static(schedule)
    for index, step in enumerate(schedule.step_arrays):
        apply_step(index, step, data, held, p, num_chunks)
        states.append((held.copy(), data.copy()))
    return states


def run_schedule(schedule: Schedule, inputs: list) -> list:
    """Execute ``schedule`` on ``inputs`` (one 1-D array per rank, shaped as
    :mod:`nccl_course.sim.layout` says) and return every rank's output (None where the
    collective gives a rank none).

    Raises :class:`ScheduleError` when the schedule is invalid or leaves a rank without a chunk
    its output needs.
    """
    p, k = schedule.p, schedule.chunks
    if len(inputs) != p:
        raise ValueError(f"need one input per rank: {p} ranks, {len(inputs)} inputs")
    data, held, count = layout.load(
        schedule.collective, p, k, schedule.num_chunks, inputs, schedule.root
    )
    execute(schedule, data, held)
    needed = layout.required(schedule.collective, p, k, schedule.num_chunks, schedule.root)
    lacking = needed & ~held
    if lacking.any():
        r, c = (int(x) for x in np.argwhere(lacking)[0])
        raise ScheduleError(
            f"{schedule.collective}/{schedule.algorithm} p={p}: after the last step rank {r} "
            f"still lacks chunk {c}, which its output needs"
        )
    return layout.extract(schedule.collective, data, count, k, schedule.root)


def make_inputs(
    collective: str, p: int, count: int, dtype=np.float32, seed: int = 0, root: int = 0
) -> list:
    """Random inputs for a check: small positive integers (1..3) stored in ``dtype``.

    Integers keep every sum exact whatever the order of additions (even in float16 for 33
    ranks), so results compare with ``==``; being positive, a missing or doubled contribution
    always changes the sum.
    """
    rng = np.random.default_rng(seed)
    n = layout.input_count(collective, p, count)
    if n is None:
        return [None] * p
    inputs = [rng.integers(1, 4, size=n).astype(dtype) for _ in range(p)]
    if collectives.get(collective).root_role == "source":
        # Only the root's buffer is input; the others must not leak into the result.
        inputs = [a if r == root else np.full(n, -1, dtype=dtype) for r, a in enumerate(inputs)]
    return inputs


def compare_outputs(expected: list, actual: list) -> str | None:
    """None when equal, else a one-line description of the first difference."""
    for r, (e, a) in enumerate(zip(expected, actual, strict=True)):
        if e is None:
            continue
        if a is None or a.shape != e.shape:
            return f"rank {r}: output shape {None if a is None else a.shape}, expected {e.shape}"
        if not np.array_equal(a, e):
            i = int(np.argmax(a != e))
            return f"rank {r}: element {i} is {a[i]!r}, expected {e[i]!r}"
    return None


def verify_schedule(
    schedule: Schedule, *, count: int | None = None, dtype=np.float32, seed: int = 0
) -> bool:
    """Run ``schedule`` on random data and compare with :func:`~nccl_course.sim.reference`.

    ``count``: elements per rank (see the layout table); default: three per chunk less one, so
    every chunk carries data and padding is exercised. Returns True when every rank's output
    equals the numpy definition exactly and False when the data are wrong; raises
    :class:`ScheduleError` for an invalid schedule (bad ids, sending a chunk the sender does not
    hold, two writes to one chunk in a step, an output chunk never delivered).
    """
    return check_schedule(schedule, count=count, dtype=dtype, seed=seed) is None


def check_schedule(
    schedule: Schedule, *, count: int | None = None, dtype=np.float32, seed: int = 0
) -> str | None:
    """Like :func:`verify_schedule` but returns None when right, else what is wrong."""
    collective, p = schedule.collective, schedule.p
    if count is None:
        # 3 elements per chunk, one short: every chunk holds real data (none is all padding)
        # and the last one exercises the padding.
        pieces = schedule.num_chunks if collective in layout.BUFFER_COLLECTIVES else schedule.chunks
        count = 3 * pieces - 1
    inputs = make_inputs(collective, p, count, dtype=dtype, seed=seed, root=schedule.root)
    actual = run_schedule(schedule, inputs)
    expected = layout.reference(collective, inputs, root=schedule.root)
    return compare_outputs(expected, actual)
