"""A sink's encode/produce stage on a thread of its own, behind the job thread.

:class:`PipelinedSink` hands each ``write`` to a sink thread through a bounded queue (a full
queue blocks the job thread: backpressure) and returns, so the producing of one batch
(librdkafka's produce and delivery reports) overlaps the operators of the next one. What the
wrapped sink can do before (:meth:`~streamsql.core.connector.Sink.prepare`: the Kafka sink's
encoding, mostly pyarrow) runs on the job thread before the handoff, where it overlaps the
sink thread's produce of the batch before; its failure is raised by that ``write`` itself.

``pre_commit`` and ``commit`` move too, as markers in the same queue: the sink thread makes the
wrapped call when it reaches the marker, after every batch handed before it and before every
batch handed after it. So a pre-commit flushes everything written before its barrier and
nothing after it, the job thread does not wait for the flush at the barrier (the checkpoint's
commit does: :meth:`PipelinedSink.flushed`, called by the coordinator before the commit point,
:mod:`streamsql.checkpoint.coordinator`), and a ``commit`` releases the rows a transactional
sink held since its pre-commit in order, on the sink thread. The wrapped sink is never called
from two threads at once: ``finish`` and ``close`` first wait until the sink thread is idle (or
stop it), then run on the caller's thread. The transaction protocol
(:mod:`streamsql.connectors.kafka.transactions`) is unchanged: between a pre-commit and its
commit a transactional sink holds new rows and produces nothing, so the committer's
``commit_transaction`` (on the job's commit thread, :mod:`streamsql.checkpoint.background`)
never races a produce.

A failure of the sink thread is raised on the job thread by the next ``write``, ``pre_commit``
or ``commit``, by :meth:`PipelinedSink.flushed` (failing the checkpoint's commit), by the wait
before ``finish``, or by :meth:`PipelinedSink.raise_failure`, which the job's loop calls on
every round (the same exception object): an idle input or a long checkpoint interval must not
leave a failed sink unnoticed. Work handed after it is dropped (the attempt fails, and a restore
replays from the last checkpoint).
"""

from __future__ import annotations

import collections
import logging
import threading

from streamsql.core.connector import Sink
from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError

log = logging.getLogger(__name__)

#: How often a waiting thread looks at the stop flag (s).
WAIT_S = 0.1
#: How long :meth:`PipelinedSink.close` waits for the sink thread (s).
JOIN_TIMEOUT_S = 60.0


class _Marker:
    """A call the sink thread makes in queue order: ``pre_commit`` or ``commit`` of a checkpoint."""

    __slots__ = ("call", "checkpoint_id")

    def __init__(self, call: str, checkpoint_id: int):
        self.call = call
        self.checkpoint_id = checkpoint_id


class _Prepared:
    """A write the sink thread makes: what the wrapped sink's ``prepare`` returned for a batch."""

    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value


class PipelinedSink(Sink):
    """Wraps ``inner`` so that its writes run on a sink thread (see module docstring).

    Args:
        inner: the connector's sink (not opened yet); its :attr:`Sink.pipelined` is True.
        depth: batches that may wait for the sink thread (the queue's bound, at least 1).
        name: for the thread's name.
        prepare_here: ``write`` runs the wrapped sink's ``prepare`` on the caller's (job)
            thread; False: the sink thread writes whole batches.
    """

    def __init__(self, inner: Sink, depth: int, name: str, prepare_here: bool = True):
        self.inner = inner
        self.accepts_updates = inner.accepts_updates
        self.requires_primary_key = inner.requires_primary_key
        self.upserts = inner.upserts
        self.transactional = inner.transactional
        self.guarantee_reason = inner.guarantee_reason
        self.name = name
        self.depth = max(1, depth)
        self.prepare_here = prepare_here
        self._pending: collections.deque[_Prepared | Batch | _Marker] = collections.deque()
        self._busy = False  # the sink thread is inside a call of the wrapped sink
        self._flushed = 0  # the last checkpoint whose pre-commit the sink thread made
        self._cv = threading.Condition()
        self._stop = False
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def open(self) -> None:
        """Open the wrapped sink (on the caller's thread), then start the sink thread."""
        self.inner.open()
        self._thread = threading.Thread(target=self._run, name=f"sink-{self.name}", daemon=True)
        self._thread.start()

    def write(self, batch: Batch) -> None:
        """Hand ``batch`` to the sink thread; blocks while ``depth`` batches wait.

        Raises:
            BaseException: a failure of an earlier write on the sink thread.
        """
        # e.g. the encoding, while the sink thread produces the batch before
        prepared = _Prepared(self.inner.prepare(batch)) if self.prepare_here else batch
        with self._cv:
            while len(self._pending) >= self.depth and self._error is None and not self._stop:
                self._cv.wait(WAIT_S)
            self.raise_failure()
            self._raise_stopped()
            self._pending.append(prepared)
            self._cv.notify_all()

    def raise_failure(self) -> None:
        """Raise the sink thread's failure, if any (the job's loop asks on every round).

        Raises:
            BaseException: a failure of a write on the sink thread.
        """
        if self._error is not None:
            raise self._error

    def _raise_stopped(self) -> None:
        if self._stop:
            msg = f"Sink '{self.name}' is closed (the job is cancelled)"
            raise ExecutionError(msg)

    def wait_idle(self) -> None:
        """Wait until every batch handed so far is written.

        Raises:
            BaseException: a failure of a write on the sink thread.
        """
        with self._cv:
            while (self._pending or self._busy) and self._error is None and not self._stop:
                self._cv.wait(WAIT_S)
            self.raise_failure()
            self._raise_stopped()

    def _mark(self, call: str, checkpoint_id: int) -> None:
        with self._cv:
            self.raise_failure()
            self._raise_stopped()
            self._pending.append(_Marker(call, checkpoint_id))
            self._cv.notify_all()

    def pre_commit(self, checkpoint_id: int) -> None:
        """Queue the wrapped pre-commit (flush) behind the writes before the barrier; returns at once.

        Raises:
            BaseException: a failure of the sink thread.
        """
        self._mark("pre_commit", checkpoint_id)

    def flushed(self, checkpoint_id: int) -> None:
        """From any thread: wait until the sink thread made the pre-commit of ``checkpoint_id``.

        Raises:
            BaseException: a failure of the sink thread (its pre-commit's included).
            ExecutionError: the sink was closed first.
        """
        with self._cv:
            while self._flushed < checkpoint_id and self._error is None and not self._stop:
                self._cv.wait(WAIT_S)
            self.raise_failure()
            if self._flushed < checkpoint_id:
                msg = f"Sink '{self.name}' closed before it flushed checkpoint {checkpoint_id}"
                raise ExecutionError(msg)

    def commit(self, checkpoint_id: int) -> None:
        """Queue the wrapped commit (release the held rows) behind the writes so far; returns at once.

        Raises:
            BaseException: a failure of the sink thread.
        """
        self._mark("commit", checkpoint_id)

    def finish(self) -> None:
        """Wait for the sink thread, then the wrapped finish (end of input)."""
        self.wait_idle()
        self.inner.finish()

    def abort(self) -> None:
        """From any thread (a cancel): stop the sink thread and ask the wrapped sink to end its call.

        The batches not written yet are dropped, the sink thread stops after its call in
        progress, which the wrapped sink's ``abort`` makes return soon. A ``write`` waiting for
        room then raises, and so does :meth:`flushed`: a checkpoint whose flush was not made does
        not commit. The wrapped sink is closed by :meth:`close` only.
        """
        with self._cv:
            self._stop = True
            self._pending.clear()
            self._cv.notify_all()
        self.inner.abort()

    def close(self) -> None:
        """Stop the sink thread (batches not written yet are dropped), then close the wrapped sink.

        A sink thread that does not stop within :data:`JOIN_TIMEOUT_S` (a write stuck in
        native code) is left behind with its sink unclosed.
        """
        with self._cv:
            self._stop = True
            self._pending.clear()
            self._cv.notify_all()
        th = self._thread
        if th is not None:
            th.join(JOIN_TIMEOUT_S)
            if th.is_alive():
                log.error("sink %s: the sink thread did not stop within %.0f s; leaving it open",
                          self.name, JOIN_TIMEOUT_S)
                return
        self.inner.close()

    # -- the sink thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        cv = self._cv
        while True:
            with cv:
                while not self._pending and not self._stop:
                    cv.wait(WAIT_S)
                if self._stop:
                    return
                item = self._pending.popleft()
                self._busy = True
                cv.notify_all()  # room in the queue
            flushed = None
            try:
                if self._error is None:
                    flushed = self._call(item)
            except BaseException as e:  # raised on the job thread by write / flushed / wait_idle
                self._error = e
            finally:
                with cv:
                    self._busy = False
                    if flushed is not None:
                        self._flushed = flushed
                    cv.notify_all()

    def _call(self, item: _Prepared | Batch | _Marker) -> int | None:
        """Make the wrapped call ``item`` stands for; the checkpoint id of a pre-commit made."""
        if isinstance(item, _Prepared):
            self.inner.write_prepared(item.value)
            return None
        if isinstance(item, Batch):
            self.inner.write(item)
            return None
        if item.call == "pre_commit":
            self.inner.pre_commit(item.checkpoint_id)
            return item.checkpoint_id
        self.inner.commit(item.checkpoint_id)
        return None
