"""A collective as a *schedule*: a sequence of steps, each a set of transfers.

Data model. The data of a collective is cut into ``num_chunks`` chunks with global ids; every rank
keeps one slot per chunk id (see :mod:`nccl_course.sim.layout` for which chunk is which piece of
which buffer). A :class:`Transfer` moves one chunk from ``src`` to ``dst``; the receiver either
overwrites its slot (``reduce=False``) or adds the incoming chunk to it (``reduce=True``).

Step semantics (bulk synchronous): every transfer of a step reads the sender's slot as it was at the
start of the step, then all writes happen. So two ranks can swap or exchange-and-reduce in one
step, as recursive doubling does. Transfers of one step with the same (src, dst) form one message
(one latency alpha in the cost model).

Internally a step is stored as four numpy arrays so that schedules with millions of transfers
(ring all-reduce on 1024 ranks) stay cheap; ``Schedule.steps`` shows them as lists of Transfers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np


class ScheduleError(ValueError):
    """A schedule that cannot run: a rank sends a chunk it does not hold, two transfers write the
    same chunk of the same rank in one step, a rank or chunk id is out of range, or a rank ends
    without a chunk its output needs."""


class Transfer(NamedTuple):
    """One chunk sent from rank ``src`` to rank ``dst``; ``reduce``: the receiver adds it to its
    own copy of the chunk instead of overwriting it."""

    src: int
    dst: int
    chunk: int
    reduce: bool = False


@dataclass(frozen=True)
class Step:
    """The transfers of one step, as parallel arrays (src, dst, chunk: int64; reduce: bool)."""

    src: np.ndarray
    dst: np.ndarray
    chunk: np.ndarray
    reduce: np.ndarray

    @classmethod
    def from_transfers(cls, transfers: Iterable[Transfer | tuple]) -> Step:
        rows = [Transfer(*t) for t in transfers]
        if not rows:
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, empty, np.zeros(0, dtype=bool))
        src, dst, chunk, red = zip(*rows, strict=True)
        return cls(
            np.asarray(src, dtype=np.int64),
            np.asarray(dst, dtype=np.int64),
            np.asarray(chunk, dtype=np.int64),
            np.asarray(red, dtype=bool),
        )

    def __len__(self) -> int:
        return int(self.src.size)

    def transfers(self) -> list[Transfer]:
        return [
            Transfer(int(s), int(d), int(c), bool(r))
            for s, d, c, r in zip(
                self.src.tolist(),
                self.dst.tolist(),
                self.chunk.tolist(),
                self.reduce.tolist(),
                strict=True,
            )
        ]

    def messages(self) -> list[tuple[int, int, int, int]]:
        """(src, dst, chunks carried, chunks reduced at dst) for each message of the step."""
        if len(self) == 0:
            return []
        pairs, inverse = np.unique(
            np.stack([self.src, self.dst], axis=1), axis=0, return_inverse=True
        )
        inverse = inverse.reshape(-1)
        counts = np.bincount(inverse, minlength=len(pairs))
        reduced = np.bincount(inverse, weights=self.reduce.astype(float), minlength=len(pairs))
        return [
            (int(s), int(d), int(c), int(r))
            for (s, d), c, r in zip(pairs.tolist(), counts.tolist(), reduced.tolist(), strict=True)
        ]


@dataclass
class Schedule:
    """A collective algorithm on ``p`` ranks as a list of steps.

    ``num_chunks``: how many chunk ids the data is cut into; ``size_chunks``: how many of those
    chunks make up the size nccl-tests reports for the collective (so one chunk is
    ``nbytes / size_chunks`` bytes); ``chunks``: the pipeline depth k the schedule was built with.
    """

    collective: str
    algorithm: str
    p: int
    num_chunks: int
    size_chunks: int
    step_arrays: list[Step] = field(default_factory=list)
    chunks: int = 1
    root: int = 0
    _steps_cache: list[list[Transfer]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_steps(
        cls,
        collective: str,
        algorithm: str,
        p: int,
        steps: Sequence[Iterable[Transfer | tuple]],
        *,
        num_chunks: int,
        size_chunks: int | None = None,
        chunks: int = 1,
        root: int = 0,
    ) -> Schedule:
        """Build a schedule from lists of Transfers (e.g. to show an invalid one)."""
        return cls(
            collective,
            algorithm,
            p,
            num_chunks,
            num_chunks if size_chunks is None else size_chunks,
            [Step.from_transfers(s) for s in steps],
            chunks,
            root,
        )

    @property
    def steps(self) -> list[list[Transfer]]:
        """Each step as a list of :class:`Transfer` (built on first use)."""
        if self._steps_cache is None:
            self._steps_cache = [s.transfers() for s in self.step_arrays]
        return self._steps_cache

    @property
    def num_steps(self) -> int:
        return len(self.step_arrays)

    @property
    def num_transfers(self) -> int:
        return sum(len(s) for s in self.step_arrays)

    def chunk_bytes(self, nbytes: float) -> float:
        """Bytes in one chunk when the collective's nccl-tests size is ``nbytes``."""
        return nbytes / self.size_chunks if self.size_chunks else 0.0

    def chunks_sent_per_rank(self) -> np.ndarray:
        sent = np.zeros(self.p, dtype=np.int64)
        for step in self.step_arrays:
            sent += np.bincount(step.src, minlength=self.p)
        return sent

    def bytes_sent_per_rank(self, nbytes: float) -> list[int]:
        """Bytes each rank sends in the whole schedule, for a collective of nccl-tests size
        ``nbytes`` (rounded to whole bytes)."""
        per_chunk = self.chunk_bytes(nbytes)
        return [int(round(c * per_chunk)) for c in self.chunks_sent_per_rank().tolist()]

    def bytes_received_per_rank(self, nbytes: float) -> list[int]:
        per_chunk = self.chunk_bytes(nbytes)
        got = np.zeros(self.p, dtype=np.int64)
        for step in self.step_arrays:
            got += np.bincount(step.dst, minlength=self.p)
        return [int(round(c * per_chunk)) for c in got.tolist()]

    def __repr__(self) -> str:
        return (
            f"Schedule({self.collective}/{self.algorithm}, p={self.p}, chunks={self.chunks}, "
            f"root={self.root}, steps={self.num_steps}, transfers={self.num_transfers})"
        )


class StepBuilder:
    """Collects transfers with their step indices; ``add`` broadcasts scalars and arrays
    together (the step index too), so a whole ring step, or a whole pipelined tree, is one
    call."""

    def __init__(self) -> None:
        self._parts: list[tuple[np.ndarray, ...]] = []

    def add(self, step, src, dst, chunk, reduce=False) -> None:
        if np.ndim(step) == np.ndim(src) == np.ndim(dst) == np.ndim(reduce) == 0:
            # common case, one message: only the chunk ids vary (skips broadcast_arrays)
            chunk = np.asarray(chunk, dtype=np.int64).ravel()
            n = chunk.size
            if n:
                self._parts.append(
                    (
                        np.full(n, step, dtype=np.int64),
                        np.full(n, src, dtype=np.int64),
                        np.full(n, dst, dtype=np.int64),
                        chunk,
                        np.full(n, bool(reduce)),
                    )
                )
            return
        cols = np.broadcast_arrays(
            np.asarray(step, dtype=np.int64),
            np.asarray(src, dtype=np.int64),
            np.asarray(dst, dtype=np.int64),
            np.asarray(chunk, dtype=np.int64),
            np.asarray(reduce, dtype=bool),
        )
        if cols[0].size:
            self._parts.append(tuple(c.ravel() for c in cols))

    def add_message(self, step: int, src: int, dst: int, chunk_ids, reduce=False) -> None:
        """A message from src to dst carrying several chunks."""
        self.add(step, src, dst, np.asarray(chunk_ids, dtype=np.int64).ravel(), reduce)

    def build(self) -> list[Step]:
        """The steps in order; step indices with nothing to do are dropped."""
        if not self._parts:
            return []
        step, src, dst, chunk, red = (np.concatenate(c) for c in zip(*self._parts, strict=True))
        order = np.argsort(step, kind="stable")
        step, src, dst, chunk, red = step[order], src[order], dst[order], chunk[order], red[order]
        bounds = np.flatnonzero(np.diff(step)) + 1
        return [
            Step(*cols)
            for cols in zip(
                np.split(src, bounds),
                np.split(dst, bounds),
                np.split(chunk, bounds),
                np.split(red, bounds),
                strict=True,
            )
        ]
