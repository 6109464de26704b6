"""The snapshot of ``'scan.startup.mode' = 'initial'``: consistent reads in checkpointed chunks.

A snapshot is read in *segments*. A segment is one ``START TRANSACTION WITH CONSISTENT
SNAPSHOT`` and the binlog position it is consistent with (MariaDB's ``binlog_snapshot_file`` /
``binlog_snapshot_position``; on MySQL, read under ``FLUSH TABLES WITH READ LOCK``): inside it
the tables are read in primary-key order, ``'scan.incremental.snapshot.chunk.size'`` rows per
SELECT. The source checkpoints the last key read, so after a crash the snapshot goes on from
that key in a new segment (a new consistent snapshot, at a later binlog position) instead of
starting over. Each segment covers a key range ``(after, upto]`` of a table as of its position.

The binlog is then read from the first segment's position; a change of key *k* at binlog
position *e* is emitted only when *e* is after the position of the segment covering *k* (the
segment's rows already contain every change up to its position): no change is lost, none is
applied twice. Once the binlog has passed the last segment's position, every change is emitted.
(Flink CDC's incremental snapshot has the same rule with per-chunk high watermarks.)

Keys are compared in the table's order: numbers, dates and times in Python, strings by their
collation's sort key (``WEIGHT_STRING``, asked of the server and only needed when a table has
several segments).
"""

from __future__ import annotations

import datetime as dt
import decimal
from dataclasses import dataclass
from typing import Any

from streamsql.connectors.cdc.schema import CapturedTable


def encode_key(key: tuple | None) -> list | None:
    """A primary-key tuple as JSON (tagged decimals, dates, times and bytes)."""
    if key is None:
        return None
    out: list[Any] = []
    for v in key:
        if isinstance(v, decimal.Decimal):
            out.append({"dec": str(v)})
        elif isinstance(v, dt.datetime):
            out.append({"ts": v.isoformat()})
        elif isinstance(v, dt.date):
            out.append({"date": v.isoformat()})
        elif isinstance(v, (bytes, bytearray)):
            out.append({"hex": bytes(v).hex()})
        else:
            out.append(v)
    return out


def decode_key(key: list | None) -> tuple | None:
    """The inverse of :func:`encode_key`."""
    if key is None:
        return None
    out: list[Any] = []
    for v in key:
        if isinstance(v, dict):
            (tag, text), = v.items()
            out.append({"dec": decimal.Decimal, "ts": dt.datetime.fromisoformat,
                        "date": dt.date.fromisoformat, "hex": bytes.fromhex}[tag](text))
        else:
            out.append(v)
    return tuple(out)


BinlogPos = tuple[str, int]


@dataclass
class Segment:
    """Rows of keys in ``(after, upto]`` (None: unbounded) of a table, as of binlog ``pos``."""

    after: tuple | None
    upto: tuple | None
    pos: BinlogPos

    def to_json(self) -> list:
        """``[after, upto, [file, pos]]``."""
        return [encode_key(self.after), encode_key(self.upto), list(self.pos)]

    @staticmethod
    def from_json(v: list) -> Segment:
        """The inverse of :meth:`to_json`."""
        return Segment(decode_key(v[0]), decode_key(v[1]), (v[2][0], int(v[2][1])))


class KeyOrder:
    """Compares a table's primary keys as the server orders them.

    Args:
        conn: a pymysql connection (asked for string sort keys), or None before one is needed.
        table: the captured table (its key columns' types and collations).
    """

    def __init__(self, conn, table: CapturedTable):
        self.conn = conn
        self.cols = [table.columns[k] for k in table.primary_key]
        self._weights: dict[tuple[str, str], bytes] = {}

    def sort_key(self, key: tuple) -> tuple:
        """``key`` with strings replaced by their collation's sort key."""
        out = []
        for c, v in zip(self.cols, key):
            if isinstance(v, str) and c.collation:
                out.append(self._weight(v, c.collation))
            else:
                out.append(v)
        return tuple(out)

    def _weight(self, v: str, collation: str) -> bytes:
        w = self._weights.get((collation, v))
        if w is None:
            with self.conn.cursor() as cur:
                charset = collation.split("_")[0]
                cur.execute(f"SELECT WEIGHT_STRING(CONVERT(%s USING {charset}) COLLATE {collation})", (v,))
                w = cur.fetchone()[0]
            if len(self._weights) > 100_000:
                self._weights.clear()
            self._weights[(collation, v)] = w
        return w


def covering(segments: list[Segment], key: tuple, order: KeyOrder) -> Segment | None:
    """The segment whose key range holds ``key`` (None when none does)."""
    if len(segments) == 1 and segments[0].after is None and segments[0].upto is None:
        return segments[0]
    k = order.sort_key(key)
    for s in segments:
        above = s.after is None or order.sort_key(s.after) < k
        if above and (s.upto is None or k <= order.sort_key(s.upto)):
            return s
    return None


def consistent_snapshot(conn) -> BinlogPos:
    """Start a consistent-snapshot transaction on ``conn``; the binlog position it is consistent with.

    TIMESTAMP values are read in UTC (the session time zone), as the binlog carries them.
    """
    with conn.cursor() as cur:
        cur.execute("SET SESSION time_zone = '+00:00'")
        cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        cur.execute("SHOW STATUS LIKE 'binlog_snapshot_%'")
        status = dict(cur.fetchall())
        if "binlog_snapshot_file" in status:  # MariaDB: the position is part of the snapshot
            return status["binlog_snapshot_file"], int(status["binlog_snapshot_position"])
        cur.execute("ROLLBACK")
        cur.execute("FLUSH TABLES WITH READ LOCK")  # MySQL: no commit between the two reads
        try:
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute("SHOW MASTER STATUS")
            row = cur.fetchone()
        finally:
            cur.execute("UNLOCK TABLES")
        return row[0], int(row[1])


def quote(name: str) -> str:
    """A MySQL identifier in backquotes."""
    return "`" + name.replace("`", "``") + "`"


def read_chunk(conn, table: CapturedTable, columns: list[str], after: tuple | None,
               limit: int) -> list[tuple]:
    """The next ``limit`` rows of ``table`` after key ``after``, in key order.

    Each row is the ``columns`` values followed by the primary-key values.
    """
    pk = table.primary_key
    select = ", ".join(quote(c) for c in columns + pk)
    order = ", ".join(quote(c) for c in pk)
    sql = f"SELECT {select} FROM {quote(table.database)}.{quote(table.name)}"
    args: tuple = ()
    if after is not None:
        sql += f" WHERE ({order}) > ({', '.join(['%s'] * len(pk))})"
        args = tuple(after)
    sql += f" ORDER BY {order} LIMIT {int(limit)}"
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return list(cur.fetchall())
