"""Counting sources for the pipeline's stage tests (streamsql.runtime.prefetch).

Batch ``i`` holds the rows ``[i, i]`` and the position is the number of batches read so far, so
a test can tell which batch a position is after. :class:`CountingSource` polls;
:class:`ApartSource` fetches and decodes apart (as the Kafka sources), recording on which thread
each call ran and optionally slowing or failing its decode.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import pyarrow as pa

from streamsql.core.connector import Source
from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.core.types import Schema


def counted_batch(i: int) -> Batch:
    """Batch ``i``: the rows ``[i, i]`` of column ``x``."""
    return Batch(pa.table({"x": [i, i]}))


def wait_until(cond, timeout: float = 5.0) -> None:
    """Wait until ``cond()`` (at most ``timeout`` seconds, then fail the test)."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


class CountingSource(Source):
    """Batch i holds rows [i, i]; the position is the number of batches polled so far."""

    prefetch = True

    def __init__(self, batches: int, bounded: bool = True, fail_at: int | None = None):
        self.schema = Schema.from_arrow(pa.schema([("x", pa.int64())]))
        self.bounded = bounded
        self.n = batches
        self.next = 0
        self.fail_at = fail_at
        self.threads: set[str] = set()
        self.committed: list[tuple[int, dict]] = []
        self.closed = False

    def open(self, position):
        self.next = (position or {}).get("next", 0)

    def _read(self, timeout_s) -> int | None:
        """The index of the next batch (the position moves past it), or None at the end."""
        self.threads.add(threading.current_thread().name)
        if self.fail_at is not None and self.next == self.fail_at:
            msg = f"bad record at {self.next}"
            raise ExecutionError(msg)
        if self.next >= self.n:
            time.sleep(min(timeout_s, 0.01))
            return None
        self.next += 1
        return self.next - 1

    def poll(self, max_rows, timeout_s):
        i = self._read(timeout_s)
        return None if i is None else counted_batch(i)

    def position(self):
        self.threads.add(threading.current_thread().name)
        return {"next": self.next}

    def finished(self):
        return self.next >= self.n

    def checkpoint_committed(self, checkpoint_id, position):
        self.committed.append((checkpoint_id, position, threading.current_thread().name))

    def lag(self):
        self.threads.add(threading.current_thread().name)
        return self.n - self.next

    def close(self):
        self.closed = True


class ApartSource(CountingSource):
    """A :class:`CountingSource` that fetches and decodes apart.

    Args:
        decode_fail_at: the batch whose decode fails (a bad record), or None.
        decode_s: seconds each decode takes, or a function of the batch's index giving them.
        copies: :meth:`decode_copy` gives decodes that may overlap (else None: one at a time).
    """

    decode_apart = True

    def __init__(self, batches: int, bounded: bool = True, fail_at: int | None = None,
                 decode_fail_at: int | None = None, decode_s: float | Callable[[int], float] = 0.0,
                 copies: bool = False):
        super().__init__(batches, bounded, fail_at)
        self.decode_fail_at = decode_fail_at
        self.decode_s = decode_s
        self.copies = copies
        self.decode_threads: set[str] = set()
        self.decoding = 0  # decodes running now
        self.most_decoding = 0  # the most that ran at once
        self._lock = threading.Lock()

    def poll(self, max_rows, timeout_s):
        msg = "the pipeline calls fetch and decode apart"
        raise AssertionError(msg)

    def fetch(self, max_rows, timeout_s):
        return self._read(timeout_s)

    def decode(self, fetched):
        with self._lock:
            self.decode_threads.add(threading.current_thread().name)
            self.decoding += 1
            self.most_decoding = max(self.most_decoding, self.decoding)
        try:
            time.sleep(self.decode_s(fetched) if callable(self.decode_s) else self.decode_s)
            if fetched == self.decode_fail_at:
                msg = f"cannot decode batch {fetched}"
                raise ExecutionError(msg)
            return counted_batch(fetched)
        finally:
            with self._lock:
                self.decoding -= 1

    def decode_copy(self):
        return self.decode if self.copies else None
