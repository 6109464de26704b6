r"""Session window aggregation, as Flink's ``SESSION`` window TVF with a window aggregate.

Semantics (times in **milliseconds**): each row opens the window ``[ts, ts + gap)``; windows of
the same grouping key that intersect — Flink's ``TimeWindow.intersects``, inclusive:
``a.start <= b.end and a.end >= b.start``, so rows exactly ``gap`` apart share a session — are
merged into one session ``[first ts, last ts + gap)``. A session **fires** when the watermark
reaches ``end - 1``: one ``+I`` row ``(keys..., window_start, window_end, window_time = end - 1,
aggregates...)``; its state is deleted. Output is insert-only: a session that is still open is
never emitted, so a late-but-allowed row that falls between two open sessions merges them and
only the merged session reaches the sink. The result does not depend on arrival order within the
watermark bound.

A row is late when its own window has fired (``ts + gap - 1 <= watermark``) and it does not
merge into a session that is still open: it is dropped and counted in ``late_records``. Within a
batch, rows of one key are merged among themselves first (DuckDB, gaps-and-islands), then with
the open sessions, so the batch behaves as if its rows had arrived in the most favourable order.
A NULL rowtime fails the job with Flink's ``SessionUnsliceAssigner`` message; under a legacy
``GROUP BY SESSION(...)`` (``WindowSpec.legacy``) it reads as 0, 1970-01-01 00:00:00
(:mod:`~streamsql.runtime.operators.rowtime_nulls`).

Per batch: DuckDB assigns batch-local sessions (``lag`` over the key ordered by time) and
partially aggregates each (with a row-wise aggregate, whose result depends on the rows' order,
every row is a batch-local session, taken in arrival order, and sessions a row bridges merge in
Flink's order: :func:`flink_merge_order`); Python then merges each batch-local session with the
key's open sessions (per distinct key and session, never per row). State is read and written once per
distinct key per batch.

State layout (``key`` = :func:`~streamsql.state.layout.encode_keys` of the grouping key, ``kg``
its key group; tags from :mod:`streamsql.state.layout`):

=========================================== ===========================================
``kg + key``                                 :data:`SESSIONS`: ``[keys, sessions]``, the
                                             key's values and its open sessions
                                             ``[[start, end, accs]]`` sorted by start
``kg + TIMER_TAG + end(8) + key``            the event-time timer of each open session
``WATERMARK_KEY``                            the watermark at the last checkpoint
=========================================== ===========================================

``accs`` are the object accumulators of :class:`~streamsql.functions.accumulators.Aggregates`
(the session's row count first).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.core.py_values import py_values
from streamsql.functions.accumulators import key_values
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import WindowSpec
from streamsql.runtime.operators.local_time import to_instant, to_local
from streamsql.runtime.operators.rowtime_nulls import NULL_SESSION_ROWTIME, fail_on_null
from streamsql.runtime.operators.window_agg import WindowAggBase, add_late, rowtimes
from streamsql.state.layout import ValueFormat, encode_keys, group_by_items, with_key_groups

#: A key's open sessions (tagged msgpack).
SESSIONS = ValueFormat("session-window/sessions", 1)


def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def _time_window_hash(start: int, end: int) -> int:
    """Java's ``HashMap`` bucket hash of Flink's table-runtime ``TimeWindow(start, end)`` (its hashCode)."""
    x = _int32(_int32(end << 1) + 1)
    inverse = _int32(x * x * x)  # the inverse of x mod 2^32, by Newton's iteration (as TimeWindow.modInverse)
    for _ in range(3):
        inverse = _int32(inverse * _int32(2 - _int32(x * inverse)))
    h = _int32(start + inverse) & 0xFFFFFFFF
    return h ^ (h >> 16)


def flink_merge_order(start: int, end: int, new: tuple[int, int]) -> tuple[int, int]:
    """The sort key of an open session ``[start, end)`` that a new row's window ``new`` merges.

    Flink's MergingWindowSet takes the state of the first merged window in the iteration order
    of a ``HashSet`` (16 buckets) and merges the other's state into it; the set holds the ceiling
    window, then the floor window of the new one (SessionWindowAssigner.mergeWindows). Only the
    order of order-sensitive aggregates (LISTAGG, ARRAY_AGG, Python aggregates) depends on it.
    """
    return _time_window_hash(start, end) & 15, 0 if (start, end) >= new else 1


def islands_sql(keys: list[str], types: list[pa.DataType], gap: int) -> tuple[str, list[str]]:
    """DuckDB SQL numbering each row's batch-local session (``__sid``), and the key's GROUP BY items.

    Over ``__in`` with an int64 column ``__t`` (local ms): a new session of a key starts where the
    gap to the key's previous row (by ``__t``) exceeds ``gap`` ms (rows exactly ``gap`` apart
    intersect, as Flink's windows do: gaps and islands). ``keys`` are the key columns as quoted
    identifiers, ``types`` their Arrow types: rows grouped together share one state key (DOUBLE keys
    by Java's equals, as :func:`~streamsql.state.layout.encode_keys`).
    """
    by = group_by_items(keys, types)
    part = f"PARTITION BY {', '.join(by)} " if keys else ""
    sql = (f"SELECT * EXCLUDE (__brk), "
           f"sum(__brk) OVER ({part}ORDER BY __t ROWS UNBOUNDED PRECEDING) AS __sid "
           f"FROM (SELECT *, CASE WHEN __t - lag(__t) OVER ({part}ORDER BY __t) <= {int(gap)} "
           f"THEN 0 ELSE 1 END AS __brk FROM __in)")
    return sql, by


def merge_key(fmt: ValueFormat, timers, key: tuple, skey: bytes, old: bytes | None, windows: list,
              wm: int | None, merge, puts: list, deletes: list) -> int:
    """Merge one key's new windows into its open sessions, as Flink's session ``MergingWindowSet``.

    Args:
        fmt: the format of the key's state value ``[key, sessions]``, each session
            ``[start, end, payload]`` (ms, local), sorted by start.
        timers: the operator's :class:`~streamsql.runtime.operators.window_agg.EventTimeTimers`
            (one timer per open session, at its end).
        key: the key's values.
        skey: the key's state key.
        old: the key's state value, or None.
        windows: the new windows ``(start, end, payload, rows)`` in the order they merge in.
        wm: the operator's watermark (ms, local), or None.
        merge: ``merge(a, b)``: the payload of two merged sessions (``a`` first, in Flink's merge
            order, :func:`flink_merge_order`).
        puts: the state entries written are appended there.
        deletes: the state keys deleted are appended there.

    Returns:
        The number of rows dropped as late: those of a window that has fired
        (``end - 1 <= wm``) and intersects no open session.
    """
    sessions: list = fmt.decode(old)[1] if old is not None else []
    before = {s[1] for s in sessions}
    late = 0
    for start, end, payload, n in windows:
        hit = [s for s in sessions if s[0] <= end and s[1] >= start]
        if not hit and wm is not None and end - 1 <= wm:
            late += n  # its session already fired (or would fire at once): drop
            continue
        if hit:  # the sessions in Flink's merge order, then the new rows
            hit.sort(key=lambda s, new=(start, end): flink_merge_order(s[0], s[1], new))
            merged = hit[0][2]
            for s in hit[1:]:
                merged = merge(merged, s[2])
            payload = merge(merged, payload)
            start, end = min(start, *(s[0] for s in hit)), max(end, *(s[1] for s in hit))
        sessions = [s for s in sessions if not any(s is h for h in hit)]
        sessions.append([start, end, payload])
        sessions.sort(key=lambda s: s[0])
    after = {s[1] for s in sessions}
    for end in before - after:
        timers.remove(end, skey, deletes)
    for end in after - before:
        timers.add(end, skey, puts)
    if sessions:
        puts.append((skey, fmt.encode([key, sessions])))
    elif old is not None:
        deletes.append(skey)
    return late


def merge_batch(op, fmt: ValueFormat, by_key: dict[tuple, list], key_bytes: dict[tuple, bytes],
                merge) -> None:
    """Merge a batch's windows into ``op``'s open sessions, key by key (:func:`merge_key`), and write them.

    Args:
        op: the session operator (its ``ctx`` state and metrics, ``timers`` and ``watermark``).
        fmt: the format of a key's state value (see :func:`merge_key`).
        by_key: each key's new windows ``(start, end, payload, rows)``, in the order they merge in.
        key_bytes: each key's encoded key (before its key group is prefixed).
        merge: ``merge(a, b)``: the payload of two merged sessions.

    Rows of a window that is late (see :func:`merge_key`) are counted in ``late_records``.
    """
    keys = list(by_key)
    state_keys = with_key_groups([key_bytes[k] for k in keys])
    puts: list = []
    deletes: list = []
    late = 0
    for key, skey, old in zip(keys, state_keys, op.ctx.state.get_many(state_keys)):
        late += merge_key(fmt, op.timers, key, skey, old, by_key[key], op.watermark, merge, puts, deletes)
    add_late(op.ctx.metrics, late)
    op.ctx.state.write(puts, deletes)


def window_time(end: int, zone) -> int:
    """A session's ``window_time`` (ms, instant): its local ``end`` (ms) minus 1 as an instant in ``zone``."""
    return int(to_instant(np.array([end - 1], np.int64), zone)[0])


def fire_sessions(fmt: ValueFormat, skey: bytes, raw: bytes, wm: int, puts: list, deletes: list
                  ) -> tuple[tuple, list]:
    """A key's state value ``raw`` (``[key, sessions]`` of ``fmt``) split at watermark ``wm`` (ms, local).

    Returns ``(key, due)``: the sessions ``[start, end, payload]`` that fire (``end - 1 <= wm``), in
    start order; the others stay in state (appended to ``puts``; the entry to ``deletes`` when none).
    """
    key, sessions = fmt.decode(raw)
    due = [s for s in sessions if s[1] - 1 <= wm]
    rest = [s for s in sessions if s[1] - 1 > wm]
    if rest:
        puts.append((skey, fmt.encode([key, rest])))
    else:
        deletes.append(skey)
    return tuple(key), due


class SessionWindowAggOperator(WindowAggBase):
    """Aggregates per (key, session) (see module docstring).

    Args: as :class:`~streamsql.runtime.operators.window_agg.WindowAggBase` (``spec`` a SESSION
    spec, ``gap`` in ms).
    """

    def __init__(self, spec: WindowSpec, num_keys: int, ts_index: int, aggs: list[AggSpec],
                 input_schema: pa.Schema, output_schema: pa.Schema):
        super().__init__(spec, num_keys, ts_index, aggs, input_schema, output_schema)
        self.watermark_zone = spec.zone
        keys = self._quoted_names(input_schema, range(num_keys))
        self._islands_sql, by = islands_sql(keys, input_schema.types[:num_keys], spec.gap)
        group = keys + ['"__sid"']
        items = group + ["min(__t)", "max(__t)"] + self.aggregates.partial_items(None, objects=True)
        self._partial_sql = f"SELECT {', '.join(items)} FROM __in GROUP BY {', '.join(by + group[-1:])}"
        self._multisets = self.aggregates.multiset_queries(group, None, by + group[-1:])

    _query = WindowAggBase._query_table

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Build batch-local sessions, merge them into the keys' open sessions."""
        self._ensure_loaded()
        table = batch.table
        if not self.spec.legacy:  # a legacy group window reads a NULL as 0 (rowtime_nulls.EPOCH)
            fail_on_null(table, self.ts_index, "session window aggregate", NULL_SESSION_ROWTIME)
        ts, _ = rowtimes(table.column(self.ts_index))
        if table.num_rows == 0:
            return []
        table = table.append_column("__t", pa.array(to_local(ts, self.spec.zone), pa.int64()))
        aggregates = self.aggregates
        if aggregates.rowwise:
            # Row-wise aggregates (LISTAGG, ARRAY_AGG, Python aggregates) see the rows in arrival order and
            # sessions merged as Flink merges them: every row is a batch-local session of its own
            islands = table.append_column("__sid", pa.array(np.arange(table.num_rows, dtype=np.int64)))
        else:
            islands = self._query(self._islands_sql, table)
        with aggregates.overflow_guard():
            part = self._query(self._partial_sql, islands)
        nk = self.num_keys
        groups = list(zip(*(key_values(part.column(i)) for i in range(nk + 1))))  # (keys..., sid)
        news = [aggregates.new() for _ in groups]
        aggregates.fold(news, part)  # news[i][0]: the session's row count
        if aggregates.rowwise:  # in arrival order: row n is session n
            at = {g[nk]: i for i, g in enumerate(groups)}
            rows = [at[n] for n in range(table.num_rows)]
            origin = batch.origin
            aggregates.fold_rows(news, table, rows, [1] * table.num_rows, origin)
        if self._multisets:
            index = {g: i for i, g in enumerate(groups)}
            for query in self._multisets:
                for state, d in query.parts(self._query(query.sql, islands)):
                    rows = [index[g] for g in zip(*(key_values(d.column(i)) for i in range(nk + 1)))]
                    aggregates.fold_multiset(state, news, rows, key_values(d.column(nk + 1)),
                                             py_values(d.column(nk + 2)))
        gap = self.spec.gap
        # Batch-local sessions per key, in start order.
        by_key: dict[tuple, list] = {}
        firsts, lasts = py_values(part.column(nk + 1)), py_values(part.column(nk + 2))
        encoded: dict[tuple, bytes] = {}
        for g, first, last, acc, enc in zip(groups, firsts, lasts, news,
                                            encode_keys(part.columns[:nk], part.num_rows)):
            by_key.setdefault(g[:nk], []).append([first, last + gap, acc, acc[0], g[nk]])
            encoded.setdefault(g[:nk], enc)
        ordered = {k: [w[:4] for w in sorted(ws, key=lambda s: s[4])]  # time (rows: arrival) order
                   for k, ws in by_key.items()}
        merge_batch(self, SESSIONS, ordered, encoded, aggregates.merge)
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Fire every session with ``end - 1 <= watermark``, then forward the watermark."""
        return self._fire_due_keys(watermark, self._fire_key)

    def _fire_key(self, skey: bytes, raw: bytes, wm: int, emitted: list, puts: list, deletes: list) -> None:
        """A key's sessions that ended by ``wm`` into ``emitted``; the rest stay."""
        key, due = fire_sessions(SESSIONS, skey, raw, wm, puts, deletes)
        for start, end, acc in due:
            time = window_time(end, self.spec.zone)
            emitted.append((end, key + (start, end, time) + self.aggregates.result(acc)))
