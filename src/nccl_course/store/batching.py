"""Group commit for answer saves.

Every acknowledged answer must be on disk first, and a durable commit costs an fsync (about
5 ms on the development machine; SQLite in WAL mode with ``synchronous=FULL`` does one per
commit, and SQLite has one writer at a time). One commit per answer caps a server near
1 / fsync time answers per second, whatever the number of learners. So answers that arrive
while a commit is under way are written together in the next transaction, committed once,
and only then acknowledged, each with its own result: a refused answer (closed attempt, time
up, no such question) is refused alone, because every refusal happens before its write.

If a batch fails for any other reason, it is rolled back and its answers are retried one
transaction each, so one bad answer cannot take the others down with it.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from concurrent.futures import Future

from nccl_course.exam.answers import check_response
from nccl_course.exam.errors import ExamError, Unavailable
from nccl_course.i18n.interface import N_
from nccl_course.store.answers import AnswerStore

log = logging.getLogger("nccl_course.exam")


class GroupCommitWriter:
    def __init__(self, store: AnswerStore, max_batch: int = 128):
        self.store = store
        self.max_batch = max_batch
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="answer-writer", daemon=True)
        self._thread.start()
        self.batches = 0
        self.answers = 0
        self._closed = False

    def close(self, timeout_s: float = 10.0) -> None:
        """Finish the answers already queued, then stop the writer thread."""
        self._closed = True
        self._queue.put(None)
        self._thread.join(timeout_s)

    def save(self, token, attempt_id: str, index: int, response) -> dict:
        """Blocking save (for threads); returns the acknowledgement or raises ExamError."""
        return self._enqueue(token, attempt_id, index, response).result()

    async def save_async(self, token, attempt_id: str, index: int, response) -> dict:
        """Awaitable save for async routes: no worker thread waits while the batch commits."""
        return await asyncio.wrap_future(self._enqueue(token, attempt_id, index, response))

    def _enqueue(self, token, attempt_id, index, response) -> Future:
        check_response(response)
        if self._closed:
            raise Unavailable("shutting_down", N_("the server is stopping; save again shortly"))
        future: Future = Future()
        self._queue.put(((token, attempt_id, index, response), future))
        return future

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < self.max_batch:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            try:
                self._write(batch)
            except Exception:  # never let the writer thread die
                log.exception("answer writer: unexpected failure")
                for _, future in batch:
                    if not future.done():
                        future.set_exception(Unavailable("retry", "answer not saved; retry"))

    def _write(self, batch) -> None:
        try:
            results = self.store.save_many([args for args, _ in batch])
        except Exception:
            log.warning("answer batch of %d failed; retrying one by one", len(batch))
            for args, future in batch:
                try:
                    future.set_result(self.store.save(*args))
                except Exception as exc:
                    future.set_exception(exc)
            return
        # Committed: only now acknowledge.
        self.batches += 1
        self.answers += len(batch)
        for (_, future), result in zip(batch, results, strict=True):
            if isinstance(result, ExamError):
                future.set_exception(result)
            else:
                future.set_result(result)
