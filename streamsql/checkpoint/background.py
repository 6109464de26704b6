"""A checkpoint's commit on a thread of its own, while the job thread goes on with the next epoch.

Committing checkpoint n takes round trips to the brokers (the sinks' flushes, the marker and the
transactional offset commit, ``commit_transaction``) or a durable file write; on the job thread
the sources and operators stood still meanwhile. With the pipelined hot path the coordinator
(:mod:`.coordinator`) hands phases 3 and 4 of checkpoint n (metadata, commit point) to a
:class:`BackgroundCommit` and returns; the job thread processes epoch n+1 and asks again on its
next round. Why that keeps exactly-once:

- the checkpoint is not complete until the commit returned: no next checkpoint is triggered
  (one at a time), sinks are told ``commit(n)`` and sources ``checkpoint_committed`` only on
  the job thread, after it;
- the state and source positions of checkpoint n were taken at its barrier, before the handoff;
- from its pre-commit until its ``commit(n)`` a transactional sink holds the rows of epoch n+1
  (:mod:`streamsql.connectors.kafka.sink`), so nothing is produced into the transaction while it
  commits, and a commit that fails leaves nothing of epoch n+1 anywhere: the job fails, restarts
  from the last committed checkpoint and reads epoch n+1 again;
- the job's resources are closed only after an in-flight commit returned
  (:meth:`BackgroundCommit.join`), so no producer is closed under ``commit_transaction``.

The job thread goes on for at most :data:`AHEAD_S` while a commit is in flight, then waits for
it: the rows a transactional sink holds meanwhile stay bounded when the brokers are slow to
commit (a commit takes tens of milliseconds; the held rows of one second are a few MB).

A failure on the commit thread is raised on the job thread (the same exception object, so a
fenced producer still ends the job as :class:`~streamsql.core.errors.FencedError`).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

log = logging.getLogger(__name__)

#: How long closing a job waits for an in-flight commit (s): above the transaction calls' own
#: timeouts (60 s in :mod:`streamsql.connectors.kafka.transactions`).
JOIN_TIMEOUT_S = 120.0
#: How long the job thread goes on while a commit is in flight before it waits for it (s).
AHEAD_S = 1.0


class BackgroundCommit:
    """Runs ``work`` (phases 3-4 of checkpoint ``checkpoint_id``) on a commit thread.

    Args:
        checkpoint_id: the checkpoint being committed.
        work: the commit; raises on failure.
        name: for the thread's name (the job's).
    """

    def __init__(self, checkpoint_id: int, work: Callable[[], None], name: str):
        self.checkpoint_id = checkpoint_id
        self._work = work
        self._error: BaseException | None = None
        self._done = threading.Event()
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name=f"commit-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._work()
        except BaseException as e:  # raised on the job thread by outcome()
            self._error = e
        finally:
            self._done.set()

    def done(self, timeout_s: float | None = 0.0) -> bool:
        """True once the commit returned or failed; waits up to ``timeout_s`` (None: for ever)."""
        return self._done.wait(timeout_s) if timeout_s != 0 else self._done.is_set()

    def outcome(self) -> None:
        """After :meth:`done`: return if the commit succeeded.

        Raises:
            BaseException: the commit's failure (the same object).
        """
        if self._error is not None:
            raise self._error

    def join(self) -> None:
        """Wait for the commit to return (at most :data:`JOIN_TIMEOUT_S`); never raises."""
        if not self._done.wait(JOIN_TIMEOUT_S):
            log.error("checkpoint %d: its commit did not return within %.0f s", self.checkpoint_id,
                      JOIN_TIMEOUT_S)
