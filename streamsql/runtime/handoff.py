"""Calls another thread hands to the thread that owns a source, made by that thread between polls.

A Kafka source's consumer belongs to the thread that polls it (the job thread, or the fetch
thread of :mod:`streamsql.runtime.prefetch`). confluent-kafka (2.16) serializes the calls on a
consumer: a call from a second thread waits until no call is in progress, checking every
millisecond, and a thread that polls in a loop takes the consumer again before the waiter looks,
so the waiter can wait for ever. SHOW JOBS asked each running task's input lag from the caller's
thread and hung so (``test_rescale_from_two_to_three_tasks_through_a_savepoint`` waited minutes in
``Consumer.position`` while the fetch thread consumed); with an older confluent-kafka, a call
racing the owner's ``close()`` used a destroyed client. So such a call is handed over: the
owner makes it between two polls (:meth:`Handoff.serve`), the asker waits for the answer.
"""

from __future__ import annotations

import threading
from typing import Any, Callable


class _Call:
    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        self.result: Any = None
        self.done = threading.Event()


class Handoff:
    """Calls waiting for the owner thread (see module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[_Call] = []

    def __bool__(self) -> bool:
        """True while calls wait (a cheap check for the owner's loop)."""
        return bool(self._calls)

    def call(self, fn: Callable[..., Any], timeout_s: float) -> Any:
        """From any thread: ``fn(*args)`` as the owner's next :meth:`serve` makes it; its result.

        None when the owner does not serve within ``timeout_s`` seconds (it is blocked, or no
        longer polls), or when ``fn`` raised.
        """
        call = _Call(fn)
        with self._lock:
            self._calls.append(call)
        call.done.wait(timeout_s)
        return call.result

    def serve(self, *args: Any) -> None:
        """On the owner thread: make every waiting call with ``args``; never raises."""
        with self._lock:
            calls, self._calls = self._calls, []
        for call in calls:
            try:
                call.result = call.fn(*args)
            except Exception:  # an answer nobody gets is no reason to fail the job
                call.result = None
            finally:
                call.done.set()
