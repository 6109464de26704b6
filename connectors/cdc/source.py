"""The ``mysql-cdc`` source: a snapshot of MySQL/MariaDB tables, then their binlog, as a changelog.

As Flink CDC's MySQL source (its option names, startup modes, metadata columns and type
mapping; see :mod:`.options` and :mod:`.schema`): rows of the snapshot are +I, binlog inserts
+I, updates -U/+U (a change of the primary key: -D of the old row, +I of the new, as Debezium
emits it), deletes -D. ``'scan.startup.mode'``: ``initial`` (snapshot, then the binlog from the
snapshot's position: see :mod:`.snapshot`), ``latest-offset`` (the binlog from its current
end), ``earliest-offset`` (from the oldest binlog file), ``timestamp`` (from the oldest file,
rows of events before ``'scan.startup.timestamp-millis'`` skipped), ``specific-offset``
(``'scan.startup.specific-offset.file'`` / ``.pos``).

Position (checkpointed, JSON): ``{"binlog": [file, pos], "skip": n, "gtid", "segments": {table:
[segment, ...]}, "snapshot": {"tables", "index", "after"} | None}`` — ``binlog`` is a
transaction boundary and ``skip`` the rows of the transaction after it already emitted, so a
restore resumes exactly after the last row returned (a binlog position inside a transaction
cannot be resumed: the table-map events are before it). During the snapshot, ``binlog`` is the
first segment's position, where reading the binlog will start.

Metadata columns (Flink CDC's keys): ``database_name`` and ``table_name`` (STRING), ``op_ts``
(TIMESTAMP_LTZ(3): the change's time in the binlog; 0 for snapshot rows).

Checks at open, each naming what to fix: the login (``'username'``/``'password'``), that tables
match ``'database-name'``/``'table-name'``, the server's binlog (``log_bin``, ``binlog_format =
ROW``, ``binlog_row_image = FULL``, ``binlog_row_metadata = FULL``), and every declared column
and the primary key against each table (:func:`.schema.check_table`).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pyarrow as pa
from streamsql.connectors.cdc.binlog import BinlogReader, Boundary, Change
from streamsql.connectors.cdc.options import CdcOptions, connect, connection_error, parse_options
from streamsql.connectors.cdc.schema import (
    CapturedTable,
    arrow_column,
    check_table,
    column_name,
    converter,
    describe,
    list_tables,
)
from streamsql.connectors.cdc.snapshot import (
    KeyOrder,
    Segment,
    consistent_snapshot,
    covering,
    decode_key,
    encode_key,
    read_chunk,
)

from streamsql.core.catalog import TableDef
from streamsql.core.connector import ConnectorContext, Source
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ConfigError
from streamsql.core.types import Field, Schema, SqlType

#: Readable metadata keys and the types they are produced as (Flink CDC's).
METADATA = {"database_name": SqlType("STRING"), "table_name": SqlType("STRING"),
            "op_ts": SqlType("TIMESTAMP_LTZ", 3)}

_BINLOG_SETTINGS = (
    ("log_bin", "1", "the server writes no binary log: start it with log_bin (and server_id)"),
    ("binlog_format", "ROW", "set the server's binlog_format = ROW"),
    ("binlog_row_image", "FULL", "set the server's binlog_row_image = FULL"),
    ("binlog_row_metadata", "FULL",
     "set the server's binlog_row_metadata = FULL (column names in row events)"),
)


def check_table_options(table: TableDef) -> None:
    """Plan-time checks: the options and metadata columns (no connection is made).

    Raises:
        ConfigError: for a bad option or an unknown metadata key.
    """
    parse_options(table)
    for c in table.metadata_columns:
        if c.metadata_key not in METADATA:
            msg = (f"Table '{table.name}': metadata column '{c.name}' reads unknown key '{c.metadata_key}'; "
                   f"mysql-cdc provides: {', '.join(METADATA)}")
            raise ConfigError(msg)
    if not table.primary_key:
        msg = (f"Table '{table.name}': a mysql-cdc table needs PRIMARY KEY (...) NOT ENFORCED, the MySQL "
               "table's own key")
        raise ConfigError(msg)


def _pos_after(a: tuple[str, int], b: tuple[str, int]) -> bool:
    return (a[0], a[1]) > (b[0], b[1])


class MySqlCdcSource(Source):
    """See module docstring."""

    bounded = False
    changelog = True

    def __init__(self, ctx: ConnectorContext):
        check_table_options(ctx.table)
        self.ctx = ctx
        self.name = ctx.table.name
        opts = parse_options(ctx.table)
        # Every scan of a mysql-cdc table reads the binlog on its own connection, and a server
        # refuses two replicas with one id: the scans of a task take the ids from 'server-id' on
        # (Flink reuses one source for several scans of a table; here each scan reads).
        taken = ctx.resources.shared(("mysql-cdc server-ids", opts.host, opts.port), set)
        server_id = opts.server_id
        while server_id in taken:
            server_id += 1
        taken.add(server_id)
        self.opts: CdcOptions = dataclasses.replace(opts, server_id=server_id)
        self.physical = ctx.table.physical_schema
        self.meta = [(c.name, c.metadata_key, c.type) for c in ctx.table.metadata_columns]
        self.schema = Schema(list(self.physical.fields) + [Field(n, t) for n, _, t in self.meta])
        self.tables: dict[str, CapturedTable] = {}
        self._conn = None
        self._reader: BinlogReader | None = None
        self._snap: dict | None = None  # {"tables", "index", "after"} while the snapshot is read
        self._segments: dict[str, list[Segment]] = {}
        self._binlog: tuple[str, int] = ("", 4)
        self._skip = 0  # rows of the transaction after self._binlog already emitted
        self._replay_skip = 0  # rows still to skip after a restore inside a transaction
        self._gtid: str | None = None
        self._pending: list = []  # changes read but not yet returned (poll's row limit)

    # ------------------------------------------------------------------------------ open

    def open(self, position: dict | None) -> None:
        """Connect, check the server and tables, then resume at ``position`` or start as the options say."""
        self._conn = connect(self.name, self.opts)
        with self._conn.cursor() as cur:
            self._check_binlog(cur)
            found = list_tables(cur, self.opts.database, self.opts.table)
            if not found:
                msg = (f"Table '{self.name}': no MySQL table matches 'database-name' = "
                       f"'{self.opts.database}' "
                       f"and 'table-name' = '{self.opts.table}'; check the options 'database-name' and "
                       "'table-name'")
                raise ConfigError(msg)
            for db, t in found:
                captured = describe(cur, db, t)
                check_table(self.ctx.table, captured)
                self.tables[captured.qualified] = captured
        self._names = {q: [column_name(t, f.name) for f in self.physical] for q, t in self.tables.items()}
        zone = self.opts.time_zone
        self._converters = {
            q: [converter(t.columns[n], f.type, zone) for n, f in zip(self._names[q], self.physical)]
            for q, t in self.tables.items()}
        self._orders = {q: KeyOrder(self._conn, t) for q, t in self.tables.items()}
        if position is not None:
            self._restore(position)
        else:
            self._start()
        if self._snap is None:
            self._open_reader()

    def _check_binlog(self, cur) -> None:
        for var, want, fix in _BINLOG_SETTINGS:
            try:
                cur.execute(f"SELECT @@GLOBAL.{var}")
                value = str(cur.fetchone()[0]).upper()
            except Exception as e:
                if var == "binlog_row_metadata":  # older servers: columns come unnamed
                    value = "MISSING"
                else:
                    raise connection_error(self.name, self.opts, e) from None
            if value != want:
                msg = (f"Table '{self.name}': MySQL server {self.opts.host}:{self.opts.port} has {var} = "
                       f"{value}; mysql-cdc reads a row-based binlog: {fix}")
                raise ConfigError(msg)

    def _master_status(self) -> tuple[str, int]:
        with self._conn.cursor() as cur:
            cur.execute("SHOW MASTER STATUS")
            row = cur.fetchone()
        return row[0], int(row[1])

    def _start(self) -> None:
        mode = self.opts.mode
        if mode == "initial":
            self._snap = {"tables": sorted(self.tables), "index": 0, "after": None}
            self._begin_segment()
            self._binlog = self._segment_pos
        elif mode == "latest-offset":
            self._binlog = self._master_status()
        elif mode in ("earliest-offset", "timestamp"):
            with self._conn.cursor() as cur:
                cur.execute("SHOW BINARY LOGS")
                self._binlog = (cur.fetchone()[0], 4)
        else:
            self._binlog = self.opts.offset

    def _restore(self, p: dict) -> None:
        self._binlog = (p["binlog"][0], int(p["binlog"][1]))
        self._skip, self._replay_skip = 0, int(p.get("skip", 0))  # replayed rows count again
        self._gtid = p.get("gtid")
        self._segments = {t: [Segment.from_json(s) for s in segs]
                          for t, segs in p.get("segments", {}).items()}
        snap = p.get("snapshot")
        if snap is not None:
            self._snap = {"tables": snap["tables"], "index": snap["index"],
                          "after": decode_key(snap["after"])}
            self._begin_segment()

    def _begin_segment(self) -> None:
        """A new consistent snapshot; the current table's rows after the last key come from it."""
        self._snap_conn = connect(self.name, self.opts, autocommit=False)
        self._segment_pos = consistent_snapshot(self._snap_conn)
        self._segment_after = self._snap["after"]

    def _open_reader(self) -> None:
        names = {t.name for t in self.tables.values()}
        self._reader = BinlogReader(self.name, self.opts, names, self._binlog)

    def close(self) -> None:
        """Stop the binlog reader and close the connections."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        for conn in (getattr(self, "_snap_conn", None), self._conn):
            if conn is not None:
                try:
                    conn.close()
                except Exception:  # noqa: S110 -- the server may be gone
                    pass
        self._snap_conn = self._conn = None

    # ------------------------------------------------------------------------------ position

    def position(self) -> dict:
        """Where a restore resumes: just after the last row returned (see module docstring)."""
        snap = None
        segments = {t: [s.to_json() for s in segs] for t, segs in self._segments.items()}
        if self._snap is not None:
            snap = {"tables": self._snap["tables"], "index": self._snap["index"],
                    "after": encode_key(self._snap["after"])}
            table = self._snap["tables"][self._snap["index"]]
            if self._snap["after"] is not None and self._snap["after"] != self._segment_after:
                open_seg = Segment(self._segment_after, self._snap["after"], self._segment_pos)
                segments.setdefault(table, []).append(open_seg.to_json())
        # Rows a restore still has to skip were emitted before it: they count as read.
        return {"binlog": list(self._binlog), "skip": self._skip + self._replay_skip, "gtid": self._gtid,
                "segments": segments, "snapshot": snap}

    # ------------------------------------------------------------------------------ reading

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """The next rows: snapshot chunks first, then binlog changes (see :meth:`Source.poll`)."""
        if self._snap is not None:
            return self._poll_snapshot(max_rows)
        return self._poll_binlog(max_rows, timeout_s)

    def _poll_snapshot(self, max_rows: int) -> Batch | None:
        snap = self._snap
        qualified = snap["tables"][snap["index"]]
        table = self.tables[qualified]
        limit = max(1, min(max_rows, self.opts.chunk_rows))
        cols = self._names[qualified]
        try:
            rows = read_chunk(self._snap_conn, table, cols, snap["after"], limit)
        except Exception as e:
            raise connection_error(self.name, self.opts, e) from None
        n = len(cols)
        if rows:
            snap["after"] = tuple(rows[-1][n:])
        if len(rows) < limit:  # the table is done: its last segment reaches the end of the key space
            last = Segment(self._segment_after, None, self._segment_pos)
            self._segments.setdefault(qualified, []).append(last)
            snap["index"] += 1
            snap["after"] = self._segment_after = None
            if snap["index"] == len(snap["tables"]):
                self._end_snapshot()
        if not rows:
            return None
        conv = self._converters[qualified]
        values = [[c(r[i]) for r in rows] for i, c in enumerate(conv)]
        return self._batch(values, None, [table] * len(rows), [0] * len(rows))

    def _end_snapshot(self) -> None:
        self._snap = None
        self._snap_conn.rollback()
        self._snap_conn.close()
        self._snap_conn = None
        self._open_reader()

    def _poll_binlog(self, max_rows: int, timeout_s: float) -> Batch | None:
        deadline = time.monotonic() + timeout_s
        out: list[tuple[RowKind, CapturedTable, dict, int]] = []
        while len(out) < max_rows:
            item = self._pending.pop(0) if self._pending else self._reader.get(
                0 if out else max(0.0, deadline - time.monotonic()))
            if item is None:
                break
            if isinstance(item, Boundary):
                self._binlog, self._skip, self._gtid = item.pos, 0, item.gtid or self._gtid
                if self._segments and all(not _pos_after(s.pos, item.pos)
                                          for segs in self._segments.values() for s in segs):
                    self._segments = {}  # past every segment: every change is emitted now
                continue
            if isinstance(item, Change):
                if out and len(out) + 2 > max_rows:  # keep the -U/+U pair of an update in one batch
                    self._pending.insert(0, item)
                    break
                self._take(item, out)
        if not out:
            return None
        tables = [t for _, t, _, _ in out]
        kinds = np.array([k for k, _, _, _ in out], dtype=np.int8)
        values = []
        for i in range(len(self.physical)):
            values.append([self._converters[t.qualified][i](v.get(self._names[t.qualified][i]))
                           for _, t, v, _ in out])
        return self._batch(values, kinds, tables, [ms for _, _, _, ms in out])

    def _take(self, ch: Change, out: list) -> None:
        """Add the rows of change ``ch`` (unless a restore skips it or a snapshot segment has it)."""
        table = self.tables.get(f"{ch.database}.{ch.table}")
        if table is None:
            return
        self._skip += 1
        if self._replay_skip:
            self._replay_skip -= 1
            return
        ms = ch.timestamp_s * 1000
        if self.opts.mode == "timestamp" and ms < (self.opts.timestamp_ms or 0):
            return
        before = self._seen(table, ch.before, ch.pos)
        after = self._seen(table, ch.after, ch.pos)
        if ch.op == "c" and after:
            out.append((RowKind.INSERT, table, ch.after, ms))
        elif ch.op == "d" and before:
            out.append((RowKind.DELETE, table, ch.before, ms))
        elif ch.op == "u":
            if self._key(table, ch.before) == self._key(table, ch.after):
                if before:
                    out.append((RowKind.UPDATE_BEFORE, table, ch.before, ms))
                    out.append((RowKind.UPDATE_AFTER, table, ch.after, ms))
            else:  # the primary key changed: Debezium's delete + create
                if before:
                    out.append((RowKind.DELETE, table, ch.before, ms))
                if after:
                    out.append((RowKind.INSERT, table, ch.after, ms))

    @staticmethod
    def _key(table: CapturedTable, values: dict | None) -> tuple | None:
        return None if values is None else tuple(values.get(k) for k in table.primary_key)

    def _seen(self, table: CapturedTable, values: dict | None, pos: tuple[str, int]) -> bool:
        """True when the change of row ``values`` at ``pos`` is not in the snapshot already."""
        if values is None:
            return False
        segments = self._segments.get(table.qualified)
        if not segments:
            return True
        seg = covering(segments, self._key(table, values), self._orders[table.qualified])
        return seg is None or _pos_after(pos, seg.pos)

    def _batch(self, values: list[list], kinds, tables: list[CapturedTable], op_ms: list[int]) -> Batch:
        arrays = [arrow_column(v, f.type) for v, f in zip(values, self.physical)]
        for _, key, t in self.meta:
            if key == "database_name":
                arr = pa.array([x.database for x in tables], pa.string())
            elif key == "table_name":
                arr = pa.array([x.name for x in tables], pa.string())
            else:
                arr = pa.array(op_ms, pa.int64()).cast(pa.timestamp("ms", tz="UTC"))
            target = t.to_arrow()
            arrays.append(arr if arr.type == target else arr.cast(target))
        return Batch(pa.Table.from_arrays(arrays, schema=self.schema.to_arrow()), kinds)
