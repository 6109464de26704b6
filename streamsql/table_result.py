"""What a statement returns to the embedding API: :class:`TableResult` (Flink's ``TableResult``).

A result is either ready (DDL, SHOW, DESCRIBE, EXPLAIN) or attached to a running job: a query's
changelog is read from its collect sink's queue (:meth:`TableResult.collect`, :meth:`poll`,
:meth:`collect_async`), an INSERT's job is awaited with :meth:`TableResult.wait`.
"""

from __future__ import annotations

import asyncio
import queue
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

from streamsql.core.elements import RowKind
from streamsql.runtime.collect import END, CollectSink
from streamsql.runtime.job import JobHandle


@dataclass
class TableResult:
    """What :meth:`StreamEnvironment.execute_sql` returns.

    Attributes:
        kind: ``"ok"`` (DDL, SET), ``"rows"`` (SHOW/DESCRIBE: rows ready), ``"query"`` (a SELECT:
            iterate :meth:`collect`), ``"job"`` (INSERT: see :attr:`job`), ``"text"`` (EXPLAIN).
        columns: column names for rows and queries.
        rows: ready rows for ``"rows"``.
        job: the job handle for ``"job"`` and ``"query"``.
        message: a one-line message (``"[INFO] Table has been created."``) or the text.
        column_types: a query's column types (SqlType), in the order of ``columns``.
        time_zone: a query's ``'table.local-time-zone'`` (how its TIMESTAMP_LTZ values are shown).
        warnings: positioned warnings about the statement (an ignored option at its key), each
            also in :attr:`message` as ``[WARNING] ...``, before the ``[INFO]`` line.
    """

    kind: str
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    job: JobHandle | None = None
    message: str = ""
    column_types: list = field(default_factory=list)
    time_zone: str | None = None
    warnings: list = field(default_factory=list)
    _sink: CollectSink | None = None
    _ended: bool = field(default=False, repr=False)

    def __iter__(self) -> Iterator[tuple[RowKind, tuple]]:
        """Same as :meth:`collect` without a timeout: ``for kind, row in result: ...``."""
        return self.collect()

    def collect(self, timeout: float | None = None) -> Iterator[tuple[RowKind, tuple]]:
        """Iterate ``(row kind, row)`` pairs: a query's changelog.

        Until it ends (bounded) or forever (unbounded; cancel the job or stop iterating). For
        ``"rows"``, yields +I rows.

        Args:
            timeout: give up after this many seconds without a row (None: wait).

        Raises:
            StreamSQLError: when the query's job fails.
        """
        if self.kind == "rows":
            yield from ((RowKind.INSERT, r) for r in self.rows)
            return
        if self._sink is None:
            return
        q = self._sink.queue
        last = time.monotonic()
        try:
            while True:
                try:
                    item = q.get(timeout=0.1)
                except queue.Empty:
                    if self.job.done:
                        if q.empty():
                            self.job.wait(0)
                            return
                        continue
                    if timeout is not None and time.monotonic() - last > timeout:
                        return
                    continue
                if item is END:
                    self.job.wait(5)
                    return
                last = time.monotonic()
                yield item
        finally:
            if not self.job.done:
                self.job.cancel()

    def poll(self, max_rows: int = 1000, timeout: float = 0.1) -> list[tuple[RowKind, tuple]] | None:
        """Take the ``(row kind, row)`` pairs of a query that are ready, without iterating.

        Waits at most ``timeout`` seconds for the first row, then takes up to ``max_rows`` rows
        already queued. Unlike :meth:`collect`, it never cancels the job: call
        ``result.job.cancel()`` when done with an unbounded query.

        Returns:
            A list of rows (empty: none arrived within ``timeout``), or None once the query has
            ended and every row was taken. For ``"rows"`` results: all rows, then None.

        Raises:
            StreamSQLError: when the query's job fails.
        """
        if self._ended:
            return None
        if self._sink is None:
            self._ended = True
            return [(RowKind.INSERT, r) for r in self.rows] if self.kind == "rows" else None
        q = self._sink.queue
        out: list[tuple[RowKind, tuple]] = []
        try:
            item = q.get(timeout=timeout) if timeout > 0 else q.get_nowait()
        except queue.Empty:
            if self.job.done and q.empty():
                self._ended = True
                self.job.wait(0)  # raises the job's failure
                return None
            return out
        while True:
            if item is END:
                self._ended = True
                self.job.wait(5)
                return out or None
            out.append(item)
            if len(out) >= max_rows:
                return out
            try:
                item = q.get_nowait()
            except queue.Empty:
                return out

    async def collect_async(self, timeout: float | None = None,
                            max_rows: int = 1000) -> AsyncIterator[tuple[RowKind, tuple]]:
        """Asynchronously iterate ``(row kind, row)`` pairs, as :meth:`collect` does.

        The blocking queue reads run in a worker thread (:func:`asyncio.to_thread`), a fraction of
        a second at a time, so the event loop stays free and cancelling the consuming task works
        promptly. Use ``async for kind, row in result.collect_async(): ...``; leaving the loop
        early (or cancelling) cancels the query's job once the generator is closed (wrap it in
        :func:`contextlib.aclosing` to close it at once).

        Args:
            timeout: stop after this many seconds without a row (None: wait).
            max_rows: rows taken from the queue per thread hop.

        Raises:
            StreamSQLError: when the query's job fails.
        """
        if self._sink is None:  # "rows" results (SHOW, DESCRIBE ...): ready, no job
            for r in self.rows if self.kind == "rows" else []:
                yield RowKind.INSERT, r
            return
        last = time.monotonic()
        try:
            while True:
                chunk = await asyncio.to_thread(self.poll, max_rows, 0.1)
                if chunk is None:
                    return
                if not chunk:
                    if timeout is not None and time.monotonic() - last > timeout:
                        return
                    continue
                last = time.monotonic()
                for item in chunk:
                    yield item
        finally:
            if self.job is not None and not self.job.done:
                await asyncio.to_thread(self.job.cancel)

    def wait(self, timeout: float | None = None) -> str | None:
        """Block until the job of an INSERT, statement set or query ends (Flink's ``await()``).

        Returns:
            The job's final status (``FINISHED``, ``CANCELED``; ``RUNNING`` after a timeout), or
            None for results without a job.

        Raises:
            StreamSQLError: the job's failure, if it failed.
        """
        return self.job.wait(timeout) if self.job is not None else None

    async def wait_async(self, timeout: float | None = None) -> str | None:
        """``await`` the end of this result's job without blocking the event loop; see :meth:`wait`."""
        if self.job is None:
            return None
        return await wait_job_async(self.job, timeout)


async def wait_job_async(job: JobHandle, timeout: float | None) -> str:
    """Poll ``job`` from the event loop (no thread left blocked if the awaiting task is cancelled)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not job.done:
        if deadline is not None and time.monotonic() >= deadline:
            break
        await asyncio.sleep(0.05)
    return job.wait(0)
