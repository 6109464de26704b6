"""Reading the binlog: a background thread of ``mysql-replication`` and the row changes it yields.

:class:`BinlogReader` registers as a replica (``'server-id'``) and streams the binlog from a
position in a thread, into a bounded queue, so that :meth:`Source.poll
<streamsql.core.connector.Source.poll>` never blocks longer than its timeout. It yields
:class:`Change` (one row-event row: kind, table, before/after values, event time and position)
and :class:`Boundary` (the end of a transaction: XID or COMMIT, or a DDL statement), which the
source uses to keep its checkpointed position at a transaction boundary plus the number of
rows of the next transaction already emitted.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

from streamsql.connectors.cdc.options import CdcOptions, connection_error, settings

_STOP = object()
# The server sends a heartbeat this often (at most) when the binlog is idle: the thread sees it
# and can stop; closing the connection from another thread would block on its reader's lock.
_HEARTBEAT_S = 0.5
# How long a server-id still held by a gone connection is waited for (MariaDB error 4052).
_BUSY_S = 30.0


@dataclass
class Change:
    """One changed row: ``op`` is ``'c'``, ``'u'`` or ``'d'``; values keyed by column name."""

    op: str
    database: str
    table: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    timestamp_s: int
    pos: tuple[str, int]


@dataclass
class Boundary:
    """The binlog position ``pos`` is between transactions."""

    pos: tuple[str, int]
    gtid: str | None


class BinlogReader:
    """Streams changes of ``tables`` (names without database) from binlog ``start``.

    Args:
        name: the table's name (for errors).
        opts: connection options.
        tables: table names to decode (others are not decoded at all).
        start: ``(file, pos)`` to start at (a transaction boundary).
    """

    def __init__(self, name: str, opts: CdcOptions, tables: set[str], start: tuple[str, int]):
        self.name, self.opts, self.tables, self.start = name, opts, tables, start
        self.queue: queue.Queue = queue.Queue(maxsize=64)
        self._stop = threading.Event()
        self._stream = None
        self._read_any = False
        self._thread = threading.Thread(target=self._run, name=f"binlog-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        deadline = time.monotonic() + _BUSY_S
        while True:
            try:
                self._stream_events()
                break
            except Exception as e:  # the consumer raises it in its own thread
                self._close_stream()
                if _replica_busy(e) and not self._read_any and time.monotonic() < deadline \
                        and not self._stop.is_set():
                    # A killed predecessor's connection with our server-id is still registered
                    # until the server notices it is gone: try again shortly.
                    time.sleep(0.5)
                    continue
                if not self._stop.is_set():
                    self._put(connection_error(self.name, self.opts, e))
                break
        self._put(_STOP)
        self._close_stream()

    def _close_stream(self) -> None:
        if self._stream is not None:
            try:
                self._stream.close()
            except Exception:  # noqa: S110 -- closing a broken connection
                pass
            self._stream = None

    def _stream_events(self) -> None:
        from pymysqlreplication import BinLogStreamReader
        from pymysqlreplication.event import HeartbeatLogEvent, MariadbGtidEvent, QueryEvent, XidEvent
        from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

        gtid = None
        self._stream = stream = BinLogStreamReader(
            settings(self.opts), server_id=self.opts.server_id, resume_stream=True, blocking=True,
            log_file=self.start[0], log_pos=self.start[1], only_tables=sorted(self.tables),
            only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent, XidEvent, QueryEvent,
                         MariadbGtidEvent, HeartbeatLogEvent],
            slave_heartbeat=min(self.opts.heartbeat_s, _HEARTBEAT_S), is_mariadb=False)
        for ev in stream:
            if self._stop.is_set():
                break
            pos = (stream.log_file, ev.packet.log_pos)
            if isinstance(ev, HeartbeatLogEvent):
                continue
            if isinstance(ev, MariadbGtidEvent):
                gtid = ev.gtid
                continue
            if isinstance(ev, XidEvent) or (isinstance(ev, QueryEvent) and _ends_transaction(ev)):
                self._put(Boundary(pos, gtid))
                continue
            if isinstance(ev, QueryEvent):
                continue
            op = {WriteRowsEvent: "c", UpdateRowsEvent: "u", DeleteRowsEvent: "d"}[type(ev)]
            for r in ev.rows:
                before = r.get("before_values", r.get("values")) if op != "c" else None
                after = r.get("after_values", r.get("values")) if op != "d" else None
                self._put(Change(op, ev.schema, ev.table, before, after, ev.timestamp, pos))

    def _put(self, item) -> None:
        if isinstance(item, (Change, Boundary)):
            self._read_any = True  # from here a retry would read events twice
        while not self._stop.is_set():
            try:
                self.queue.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def get(self, timeout_s: float):
        """The next Change or Boundary, or None after ``timeout_s`` seconds.

        Raises:
            ConfigError | ExecutionError: the reader's failure (the server went away, ...).
        """
        try:
            item = self.queue.get(timeout=max(0.0, timeout_s))
        except queue.Empty:
            return None
        if isinstance(item, Exception):
            self.queue.put(item)  # every later get fails the same way
            raise item
        if item is _STOP:
            self.queue.put(item)
            return None
        return item

    def close(self) -> None:
        """Stop the thread (it closes the replication connection itself at its next event or heartbeat)."""
        self._stop.set()
        self._thread.join(timeout=2 * _HEARTBEAT_S + 1)


def _replica_busy(e: Exception) -> bool:
    return bool(e.args) and e.args[0] == 4052


def _ends_transaction(ev) -> bool:
    """A COMMIT (non-transactional tables) or a DDL statement: the position is between transactions."""
    q = (ev.query or "").strip().upper()
    return not q.startswith(("BEGIN", "SAVEPOINT", "ROLLBACK TO", "XA "))
