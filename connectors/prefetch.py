"""Read-ahead for sources: fetch and decode the next batches on a thread of their own.

A source task's thread spends much of its time in consuming and decoding (librdkafka's
``consume``, pyarrow's JSON reader): native code that releases the GIL. :class:`Prefetcher`
runs a source's ``fetch`` callable on a daemon thread into a bounded queue, so that the task's
thread runs the operators, the sink and the checkpoints of batch *n* while batch *n + 1* is
being read. The queue bound (:data:`DEPTH` batches) is the backpressure: the fetch thread
blocks while the task is behind.

What it must never change is what a checkpoint records. A fetched item carries everything the
source needs to move its position past it, and the source moves it only when the task takes
the item (:meth:`Prefetcher.take`), so a barrier injected between two takes records exactly the
rows emitted before it; items still queued are simply read again after a restore. An exception
raised by ``fetch`` (a bad record, a Kafka error) is queued in order and raised by the
:meth:`~Prefetcher.take` that reaches it, so it surfaces at the same record as without
read-ahead.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

#: Batches read ahead at most (each up to ``'execution.batch-size'`` rows).
DEPTH = 2
#: The fetch thread's longest wait in ``fetch`` (s): how soon it notices :meth:`Prefetcher.close`.
FETCH_TIMEOUT_S = 0.1


class Prefetcher(Generic[T]):
    """Calls ``fetch(max_rows, timeout_s)`` on a thread of its own, up to :data:`DEPTH` ahead.

    Args:
        fetch: returns the next item, or None when nothing arrived within ``timeout_s``. It runs
            on the fetch thread only: whatever state it touches must be its own or thread-safe.
        max_rows: the ``max_rows`` passed to ``fetch``.
        name: the thread's name.
    """

    def __init__(self, fetch: Callable[[int, float], T | None], max_rows: int, name: str):
        self._fetch = fetch
        self._max_rows = max_rows
        self._queue: queue.Queue[tuple[T | None, BaseException | None]] = queue.Queue(DEPTH)
        self._closed = threading.Event()
        self._error: BaseException | None = None  # what fetch raised, once take() reached it
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        while not self._closed.is_set():
            try:
                item = self._fetch(self._max_rows, FETCH_TIMEOUT_S)
            except BaseException as e:  # raised by take(), in order
                self._put((None, e))
                return
            if item is not None:
                self._put((item, None))

    def _put(self, entry: tuple[T | None, BaseException | None]) -> None:
        while not self._closed.is_set():
            try:
                self._queue.put(entry, timeout=FETCH_TIMEOUT_S)
                return
            except queue.Full:
                continue

    def take(self, timeout_s: float) -> T | None:
        """The next item, waiting up to ``timeout_s``; None when none is ready.

        Raises:
            BaseException: what ``fetch`` raised, once every item fetched before it was taken
                (and again on every later call: the fetch thread has stopped).
        """
        if self._error is not None:
            raise self._error
        try:
            item, error = self._queue.get(timeout=timeout_s) if timeout_s > 0 else self._queue.get_nowait()
        except queue.Empty:
            return None
        if error is not None:
            self._error = error
            raise error
        return item

    def close(self) -> None:
        """Stop the fetch thread and wait for it (at most one ``fetch`` call); queued items are dropped."""
        self._closed.set()
        self._thread.join()
