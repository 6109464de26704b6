"""A source's fetch and decode stages on threads of their own, ahead of the job thread.

A Kafka source's ``poll`` spends most of its time in native code that releases the GIL
(librdkafka's ``consume()``, waiting for a fetch or copying messages, and pyarrow's JSON
reader); run on the job thread, that time is lost to the operators. :class:`PrefetchingSource`
runs the wrapped source's ``poll`` on a fetch thread that stays up to ``depth`` batches ahead,
through a bounded queue (a full queue blocks the fetch thread: backpressure), so one job can use
a second core.

A source that decodes apart from its fetch (``Source.decode_apart``: the Kafka sources) gets two
stages instead: the fetch thread only calls ``fetch`` (consume and
move the position) and queues what it read, with the state as of that fetch, to a **decode
thread**, which calls ``decode`` on each item in order and queues the batch, with the state it
came with, for the job thread; both queues hold at most ``depth`` items. One thread consumes
while the other decodes (pyarrow's JSON reader releases the GIL), so the decode no longer waits
for the next ``consume()`` and the other way round. The rule below holds unchanged: the state
travels with its batch through both queues, and the decode keeps their order.

With ``decoders`` > 1 and a source whose decodes may run at the same time
(:meth:`Source.decode_copy`: the ``kafka`` source, whose decode keeps nothing from one batch to
the next), that many decode threads take fetched items one after another, each decoding with a
decoder of its own, and hand them on **in the order they were taken**, which is the fetch order:
each item gets a turn as it is taken, and a thread whose decode is done waits for its turn before
it queues the batch (:meth:`PrefetchingSource._hand_on`). So the job thread sees exactly the
sequence one decode thread would give it, failures included; only the decodes overlap.

Exactly-once depends on one rule: **the position the job thread sees is the one after the last
batch it was handed**, never where the fetch thread has read to. Each queued item carries the
source's state as of right after its ``poll`` — position, finished splits, finished, the source's
own watermark — and :meth:`PrefetchingSource.position` answers from the item last handed out.
A barrier injected between two handed batches therefore records exactly the position after the
first; batches the fetch thread read past it are processed after the barrier, in order, and a
restore from that checkpoint reads them again (what was prefetched and not processed is simply
dropped with the failed attempt).

Every call on the wrapped source runs on the fetch thread while it lives (``poll`` or
``fetch``, ``position``, ``finished_splits``, ``finished``, ``watermark``,
``checkpoint_committed``, queued to it, and ``lag``, handed to it:
:mod:`streamsql.runtime.handoff`), but ``decode``, which runs on the decode thread and touches
nothing the others touch (the source's contract, :mod:`streamsql.core.connector`). A failure of
either thread is queued behind the items read before it and raised on the job thread by the
``poll`` that reaches it (the same exception object, so the job fails with the source's own
error).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from streamsql.core.connector import Source
from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.core.faults import fault_point
from streamsql.runtime.handoff import Handoff

log = logging.getLogger(__name__)

#: How long the fetch thread's ``poll`` waits for records (s); also how soon it sees a stop.
FETCH_TIMEOUT_S = 0.1
#: How long :meth:`PrefetchingSource.close` waits for the fetch thread (s).
JOIN_TIMEOUT_S = 60.0
#: How long :meth:`PrefetchingSource.lag` waits for the fetch thread's answer (s).
LAG_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class SourceState:
    """What the job thread asks of a source besides batches, as of one ``poll``.

    Attributes:
        position: :meth:`Source.position` right after the poll.
        finished_splits: :meth:`Source.finished_splits`.
        finished: ``bounded and finished()``.
        watermark: :meth:`Source.watermark`.
    """

    position: Any
    finished_splits: frozenset
    finished: bool
    watermark: int | None


class _Failure:
    """A stage's failure, queued behind the items it read before it."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error


#: What the queues hold: a batch (the job's queue) or a fetch's result (the decode queue), None
#: for a change of state without rows, or a failure; and the state as of its fetch.
_Item = tuple[Any, SourceState | None]


class PrefetchingSource(Source):
    """Wraps ``inner`` so that its polls run on a fetch thread (see module docstring).

    Args:
        inner: the connector's source (not opened yet).
        max_rows: most rows per poll (``'execution.batch-size'``).
        depth: batches each stage may hold ready (the queues' bound, at least 1).
        name: for the threads' names and messages.
        apart: decode on a decode thread when the source allows it (``Source.decode_apart``);
            False: ``poll`` on the fetch thread.
        decoders: decode threads, when apart and the source gives decodes that may run at the same
            time (``Source.decode_copy``); else one.
    """

    def __init__(self, inner: Source, max_rows: int, depth: int, name: str, apart: bool = True,
                 decoders: int = 1):
        self.inner = inner
        self.schema = inner.schema
        self.bounded = inner.bounded
        self.changelog = inner.changelog
        self.max_rows = max_rows
        self.name = name
        self.apart = apart and bool(inner.decode_apart)
        self._queue: queue.Queue[_Item] = queue.Queue(max(1, depth))  # batches for the job thread
        # fetched items for the decode thread (only when the source decodes apart)
        self._fetched: queue.Queue[_Item] | None = queue.Queue(max(1, depth)) if self.apart else None
        self.decoders = max(1, decoders) if self.apart else 0
        self._take = threading.Lock()  # a decode thread takes a fetched item and its turn at once
        self._taken = 0  # turns given out: the next fetched item's
        self._turns = threading.Condition()
        self._handed = 0  # turns handed on to the job's queue: the next one's
        self._commands: list[tuple[int, Any]] = []  # checkpoint_committed calls, in order
        self._handoff = Handoff()  # lag() calls, answered by the fetch thread
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._error: BaseException | None = None  # a stage's failure, once poll reached it
        self._failing = False  # a stage queued a failure (and ended)
        self._threads: list[threading.Thread] = []
        self._state: SourceState | None = None  # as of the last item handed out

    # -- attributes the runtime reads ------------------------------------------------------------
    @property
    def split_names(self) -> list[str]:
        """The wrapped source's splits (fixed from open to close)."""
        return self.inner.split_names

    def _snapshot(self) -> SourceState:
        s = self.inner
        return SourceState(s.position(), frozenset(s.finished_splits()), bool(s.bounded and s.finished()),
                           s.watermark())

    # -- the job thread's side ---------------------------------------------------------------------
    def open(self, position: dict | None) -> None:
        """Open the wrapped source (on the caller's thread), then start the fetch (and decode) thread."""
        self.inner.open(position)
        self._state = self._snapshot()
        self._threads = [threading.Thread(target=self._run, name=f"fetch-{self.name}", daemon=True)]
        for i, decode in enumerate(self._decodes()):
            name = f"decode-{self.name}" if i == 0 else f"decode-{self.name}-{i + 1}"
            self._threads.append(threading.Thread(target=self._decode_run, args=(decode,), name=name,
                                                  daemon=True))
        for th in self._threads:
            th.start()

    def _decodes(self) -> list[Callable[[Any], Batch | None]]:
        """One decode per decode thread: the source's own, then copies while it gives them."""
        if not self.apart:
            return []
        decodes = [self.inner.decode]
        while len(decodes) < self.decoders:
            other = self.inner.decode_copy()
            if other is None:  # its decodes share state: one at a time
                break
            decodes.append(other)
        return decodes

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """The next prefetched batch, or None when none is ready within ``timeout_s``.

        ``max_rows`` is the constructor's (the fetch thread polls ahead with it). An item without
        rows still moves the state on (a partition's end, a bounded read complete).

        Raises:
            BaseException: a stage's failure, once every batch read before it was handed.
        """
        if self._error is not None:
            raise self._error
        try:
            if timeout_s > 0:
                batch, state = self._queue.get(timeout=timeout_s)
            else:
                batch, state = self._queue.get_nowait()
        except queue.Empty:
            self._raise_failure()
            return None
        if isinstance(batch, _Failure):
            self._error = batch.error
            raise self._error
        self._state = state
        return batch

    def _raise_failure(self) -> None:
        if self._stop.is_set() or self._failing or not self._queue.empty():
            return  # stopping, or a failure is on its way through the queues
        if any(not th.is_alive() for th in self._threads):
            msg = f"Source '{self.name}': its fetch or decode thread ended unexpectedly"
            raise ExecutionError(msg)

    def position(self) -> Any:
        """The wrapped source's position after the last batch :meth:`poll` handed out."""
        return self._state.position

    def finished(self) -> bool:
        """True once the last item handed out said the bounded read is complete."""
        fetched = self._fetched
        return self._state.finished and self._queue.empty() and (fetched is None or fetched.empty())

    def finished_splits(self) -> set[int]:
        """The splits finished as of the last item handed out."""
        return set(self._state.finished_splits)

    def watermark(self) -> int | None:
        """The source's own watermark as of the last item handed out."""
        return self._state.watermark

    def lag(self) -> int | None:
        """The wrapped source's lag, asked on the fetch thread; counts prefetched records as read.

        None while the fetch thread does not run, or when it does not answer within
        :data:`LAG_TIMEOUT_S`.
        """
        if not self._threads or not self._threads[0].is_alive() or self._stop.is_set():
            return None
        return self._handoff.call(self.inner.lag, LAG_TIMEOUT_S)

    def checkpoint_committed(self, checkpoint_id: int, position: dict) -> None:
        """Queue the call for the fetch thread (run between its polls, in order)."""
        with self._lock:
            self._commands.append((checkpoint_id, position))

    def close(self) -> None:
        """Stop and join the threads, run queued commits, then close the wrapped source.

        A thread that does not stop within :data:`JOIN_TIMEOUT_S` (a poll or a decode stuck in
        native code) is left behind with its source unclosed: closing a client under a running
        call could crash the process.
        """
        self._stop.set()
        deadline = time.monotonic() + JOIN_TIMEOUT_S
        for th in self._threads:
            while th.is_alive() and time.monotonic() < deadline:
                self._drain()  # not needed for the stop (puts time out), but frees the batches now
                th.join(0.05)
            if th.is_alive():
                log.error("source %s: the %s thread did not stop within %.0f s; leaving it open",
                          self.name, th.name, JOIN_TIMEOUT_S)
                return
        self._drain()
        self._run_commands()
        self.inner.close()

    def _drain(self) -> None:
        for q in (self._queue, self._fetched):
            try:
                while q is not None:
                    q.get_nowait()
            except queue.Empty:
                pass

    # -- the fetch thread --------------------------------------------------------------------------
    def _run_commands(self) -> None:
        with self._lock:
            commands, self._commands = self._commands, []
        for checkpoint_id, position in commands:
            self.inner.checkpoint_committed(checkpoint_id, position)

    def _serve(self) -> None:
        """Make the calls waiting for the fetch thread (commits, lag)."""
        if self._commands:
            self._run_commands()
        if self._handoff:
            self._handoff.serve()

    def _run(self) -> None:
        out = self._fetched if self.apart else self._queue
        read = self.inner.fetch if self.apart else self.inner.poll
        try:
            last = self._state
            while not self._stop.is_set():
                self._serve()
                if last.finished:  # nothing more to read: serve commits until stopped
                    self._stop.wait(FETCH_TIMEOUT_S)
                    continue
                got = read(self.max_rows, FETCH_TIMEOUT_S)
                state = self._snapshot()
                if not self.apart and got is not None and not got.num_rows:
                    got = None
                if got is None and state == last:
                    continue
                self._put(out, (got, state), self._serve)
                last = state
        except BaseException as e:  # raised on the job thread by the poll that reaches it
            self._failing = True
            self._put(out, (_Failure(e), None), self._serve)

    # -- the decode threads ------------------------------------------------------------------------
    def _decode_run(self, decode: Callable[[Any], Batch | None]) -> None:
        turn = -1  # the turn of the item this thread holds, if any
        try:
            while not self._stop.is_set():
                with self._take:  # the item and its turn together: turns follow the fetch order
                    try:
                        got, state = self._fetched.get(timeout=FETCH_TIMEOUT_S)
                    except queue.Empty:
                        continue
                    turn, self._taken = self._taken, self._taken + 1
                if got is not None and not isinstance(got, _Failure):
                    if not self._queue.empty() and not self._fetched.empty():
                        fault_point("during_decode")  # batches waiting in both queues
                    got = decode(got)
                    if got is not None and not got.num_rows:
                        got = None
                self._hand_on(turn, (got, state))
                turn = -1
                if isinstance(got, _Failure):
                    return
        except BaseException as e:  # raised on the job thread by the poll that reaches it
            self._failing = True
            if turn < 0:
                with self._take:
                    turn, self._taken = self._taken, self._taken + 1
            self._hand_on(turn, (_Failure(e), None))

    def _hand_on(self, turn: int, item: _Item) -> None:
        """Queue ``item`` for the job thread once the items of every earlier turn are queued."""
        with self._turns:
            while self._handed != turn:
                if self._stop.is_set():
                    return
                self._turns.wait(FETCH_TIMEOUT_S)
        try:
            self._put(self._queue, item, None)
        finally:
            with self._turns:
                self._handed += 1
                self._turns.notify_all()

    def _put(self, q: queue.Queue[_Item], item: _Item, serve: Callable[[], None] | None) -> None:
        """Put ``item`` on ``q``, waiting while it is full (``serve`` meanwhile), until stopped."""
        while not self._stop.is_set():
            try:
                q.put(item, timeout=FETCH_TIMEOUT_S)
                return
            except queue.Full:
                if serve is not None:
                    serve()
