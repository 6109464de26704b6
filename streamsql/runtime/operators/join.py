r"""Stream joins, as Flink's ``StreamingJoinOperator`` and ``RowTimeIntervalJoin``.

(Over 500 lines because both joins, and the semi and temporal joins built on :class:`JoinBase`,
share its key reading, state keys and row packing: one module keeps that one protocol in one place.)

Both are two-input operators: input 0 is the left side, input 1 the right side. Output rows are
the left columns followed by the right columns; the side without a match is padded with NULLs.
Join keys are input columns (the planner computes key expressions into extra columns first).
Rows whose key has a NULL never match (SQL equality), but outer sides still emit them padded;
except in a key column compared by ``IS NOT DISTINCT FROM`` (``null_safe``), where NULL matches NULL
(the key encoding already tells NULL from every value, :func:`encode_keys`).

**Regular join** (:class:`StreamingJoinOperator`) — INNER, LEFT, RIGHT, FULL over insert-only or
changelog inputs. State per side and join key: a multiset of that side's rows, one state entry per
distinct row, ``row → [count, associations]`` (``associations`` — how many rows of the other side
match it — is kept only where that side is outer: it decides when a NULL-padded row must be
retracted or re-emitted); :mod:`streamsql.runtime.operators.join_state`. Changelog, as Flink's
(see ``StreamingJoinOperator.processElement``):

- inner join: each joined row carries the input row's kind (+I/+U for an accumulate, -U/-D for a
  retraction); insert-only inputs give an insert-only output;
- outer join: only +I and -D. An outer row without a match emits ``+I[row, NULL...]``; when
  its first match arrives that becomes ``-D[row, NULL...]`` then ``+I[row, match]``; when its
  last match is retracted, ``-D[row, match]`` then ``+I[row, NULL...]`` again.

State TTL (``'table.exec.state.ttl'``, :mod:`streamsql.state.ttl`):
as Flink's ``JoinRecordStateView`` each row of a side carries the time of its entry's last write
(its count or its associations changed) and is gone ``ttl`` later: it matches nothing more and a
retraction of it finds nothing; nothing is emitted when it expires.

**Interval join** (:class:`IntervalJoinOperator`) — insert-only inputs with event-time
attributes and the bound ``lower <= l.ts - r.ts <= upper`` (ms, inclusive: the planner turns a
strict bound into an inclusive one by 1 ms). A left row at ``t`` matches right rows at
``u ∈ [t - upper, t - lower]``. Each row is kept in state until the watermark shows that no
row of the other side can still match it — left rows until ``wm > t - lower``, right rows until
``wm > u + upper`` — then it is removed by an event-time timer (one timer per side and key, at
the earliest expiry of its rows); an outer side's row that never matched is emitted padded with
NULLs at that moment. A NULL rowtime reads as 0, 1970-01-01 00:00:00, as Flink's
``RowTimeIntervalJoin`` reads it (:mod:`~streamsql.runtime.operators.rowtime_nulls`): it joins
the other side's rows near 1970 only. Output is insert-only; the output watermark is held back by
``max(-lower, upper) + 1`` ms, as Flink's ``KeyedCoProcessOperatorWithWatermarkDelay``, so
the rowtimes of the output stay time attributes.

Per batch (both operators): the key columns are read once, keyed state is read once for the
batch (regular join: one multi-get of this side's rows of the batch, one prefix scan per distinct
key of the other side's; interval join: one multi-get of both sides' entries) and written with one
write batch; a residual (non-equi) ``ON`` condition of an outer join is evaluated by DuckDB over
all candidate pairs of the batch at once. Matching within a key, and building output rows, is
Python over the key's rows — except for a batch of an inner join's side that appends (insert-only
input, no state TTL, no residual condition; q3, q4, q7, q8 of Nexmark), which never becomes Python
rows: its matches are index arrays, its output the batch's own columns taken by them next to the
matched rows of the other side, its rows one vectorized encoding
(:func:`~streamsql.state.row_values.encode_rows`) and one write
(:meth:`StreamingJoinOperator._append_batch`).

Interval join state layout (:mod:`streamsql.state.layout`; ``key`` = the join key's
:func:`encode_keys` bytes, ``kg`` = its 2-byte key group, shared by both sides)::

    kg + JOIN_LEFT + key         left rows of the key (JOIN_RIGHT: right rows)
    kg + TIMER_TAG + end + ...   cleanup timer (window_agg.EventTimeTimers)
    WATERMARK_KEY                watermark at the last checkpoint

Values (msgpack, never pickle), one list per side and key, each row flattened behind its entry:
:data:`INTERVAL_JOIN_ROWS` ``[timer, [count, matched, rowtime, *row], ...]``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from streamsql.core.elements import MAX_WATERMARK, Batch, Element, RowKind, Watermark
from streamsql.core.errors import InternalError
from streamsql.core.types import hashable
from streamsql.plan.joins import FULL, LEFT, RIGHT
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import Operator, OperatorContext, state_ttl
from streamsql.runtime.operators.join_state import JoinState, KeyedRows, rows_of
from streamsql.runtime.operators.window_agg import WindowOperatorBase, rowtimes
from streamsql.state.layout import JOIN_LEFT, JOIN_RIGHT, ValueFormat, encode_keys, with_key_groups

_SIDE = (JOIN_LEFT, JOIN_RIGHT)
#: Interval join: ``[timer, [count, matched, rowtime, *row], ...]``.
INTERVAL_JOIN_ROWS = ValueFormat("interval-join/rows", 1)
_ACCUMULATE = (RowKind.INSERT, RowKind.UPDATE_AFTER)


def outer_sides(join_type: str) -> tuple[bool, bool]:
    """(left is outer, right is outer) for a join type."""
    return join_type in (LEFT, FULL), join_type in (RIGHT, FULL)


def pack_rows(rows: dict[tuple, list]) -> list[list]:
    """A side's ``{row: entry}`` as msgpack-friendly lists: ``[*entry, *row]`` per row."""
    return [e + list(x) for x, e in rows.items()]


def unpack_rows(packed: list[list], width: int) -> dict[tuple, list]:
    """The ``{row: entry}`` that :func:`pack_rows` flattened (``width`` = entry length)."""
    return {hashable(r[width:]): r[:width] for r in packed}


def table_of(rows: list[tuple], schema: pa.Schema) -> pa.Table:
    """Python tuples → an Arrow table of ``schema``."""
    cols = list(zip(*rows)) if rows else [()] * len(schema)
    return pa.Table.from_arrays([pa.array(list(c), type=f.type) for c, f in zip(cols, schema)], schema=schema)


class JoinBase:
    """Shared by both joins: key reading, state keys, residual filtering, output building."""

    def _setup(self, join_type: str, left_keys: list[int], right_keys: list[int], left_schema: pa.Schema,
               right_schema: pa.Schema, output_schema: pa.Schema, residual: BatchQuery | None) -> None:
        self.join_type = join_type
        self.keys = (list(left_keys), list(right_keys))
        self.widths = (len(left_schema), len(right_schema))
        self.outer = outer_sides(join_type)
        self.output_schema = output_schema
        self.residual = residual
        self.ttls = (None, None)  # per side: its rows' StateTtl (a regular join under state TTL)
        self.join_state: JoinState | None = None  # a regular, semi or anti join's rows (open)
        self.null_safe = frozenset()  # positions in the key lists compared by IS NOT DISTINCT FROM

    def _joined(self, side: int, x: tuple, y: tuple) -> tuple:
        return x + y if side == 0 else y + x

    def _pad_mine(self, side: int, x: tuple) -> tuple:
        """``x`` (a row of ``side``) with the other side's columns NULL."""
        return self._joined(side, x, (None,) * self.widths[1 - side])

    def _row_keys(self, table: pa.Table, side: int) -> tuple[list[bytes], set[bytes]]:
        """Per row of ``table`` (a batch of ``side``) its encoded join key; the keys with a NULL column."""
        columns = [table.column(i) for i in self.keys[side]]
        keys = encode_keys(columns, table.num_rows)
        null = np.zeros(table.num_rows, bool)
        for n, c in enumerate(columns):
            if c.null_count and n not in self.null_safe:
                null |= c.is_null().to_numpy(zero_copy_only=False)
        return keys, {keys[i] for i in np.flatnonzero(null)}

    def _keys(self, table: pa.Table, side: int) -> tuple[list[bytes], list[bytes], set[bytes], list[bytes],
                                                         list[bytes]]:
        """The join keys of ``table`` (a batch of ``side``).

        Returns:
            Per row its encoded key, the distinct keys, those with a NULL column (they never
            match), and the distinct keys' state keys on this side and on the other.
        """
        keys, with_nulls = self._row_keys(table, side)
        distinct = list(dict.fromkeys(keys))
        grouped = with_key_groups(distinct)
        mine_tag, their_tag = _SIDE[side], _SIDE[1 - side]
        mine = [g[:2] + mine_tag + g[2:] for g in grouped]
        theirs = [g[:2] + their_tag + g[2:] for g in grouped]
        return keys, distinct, with_nulls, mine, theirs

    def _load(self, batch: Batch, side: int, extra: tuple[bytes, ...] = ()) -> KeyedRows | None:
        """``batch`` (of ``side``) with the regular-join state it touches (:class:`JoinState`); None if empty.

        ``extra``: plain keys read with it (:attr:`KeyedRows.extra`).
        """
        rows = rows_of(batch.table)
        if not rows:
            return None
        if self.join_state is None:
            self.join_state = JoinState(self.ctx.state, self.ttls)
        keys, with_nulls = self._row_keys(batch.table, side)
        kinds = batch.kind_array().tolist()
        return self.join_state.load(batch.table, rows, kinds, side, keys, with_nulls, extra)

    def _filter(self, side: int, rows: list[tuple], cands: list[list]) -> list[list]:
        """Keep the candidates ``(y, entry)`` of each row for which the residual condition holds."""
        if self.residual is None:
            return cands
        pairs, where = [], []
        for i, (x, cs) in enumerate(zip(rows, cands)):
            for j, (y, _) in enumerate(cs):
                pairs.append(self._joined(side, x, y))
                where.append((i, j))
        if not pairs:
            return cands
        ok = self.residual.run(Batch(table_of(pairs, self.output_schema))).table.column(0).to_pylist()
        out: list[list] = [[] for _ in rows]
        for (i, j), good in zip(where, ok):
            if good:
                out[i].append(cands[i][j])
        return out

    def _output(self, rows: list[tuple], kinds: list[int], insert_only: bool) -> list[Element]:
        if not rows:
            return []
        k = None if insert_only else np.array(kinds, np.int8)
        return [Batch(table_of(rows, self.output_schema), k)]


class StreamingJoinOperator(JoinBase, Operator):
    """A regular (unbounded-state) equi-join (module docstring).

    Args:
        join_type: INNER, LEFT, RIGHT or FULL.
        left_keys, right_keys: the join key columns of each input (same length, same types).
        left_schema, right_schema: the inputs' Arrow schemas.
        output_schema: left columns then right columns.
        residual: for outer joins, the non-equi part of ``ON`` as one boolean item over
            ``output_schema`` (a NULL result does not match); None if there is none.
        insert_only: the output is insert-only (inner join of insert-only inputs).
        state_ttl_ms: per side, the TTL of a STATE_TTL hint (ms, 0: never), None for
            'table.exec.state.ttl'.
        inputs_insert_only: per side, its input is insert-only (its rows are never retracted).
        null_safe: positions in the key lists compared by ``IS NOT DISTINCT FROM`` (NULL matches NULL).
    """

    stateful = True

    def __init__(self, join_type: str, left_keys: list[int], right_keys: list[int], left_schema: pa.Schema,
                 right_schema: pa.Schema, output_schema: pa.Schema, residual: BatchQuery | None = None,
                 insert_only: bool = False, state_ttl_ms: tuple[int | None, int | None] = (None, None),
                 inputs_insert_only: tuple[bool, bool] = (False, False), null_safe: tuple[int, ...] = ()):
        self._setup(join_type, left_keys, right_keys, left_schema, right_schema, output_schema, residual)
        self.null_safe = frozenset(null_safe)
        self.insert_only = insert_only
        self.state_ttl_ms = state_ttl_ms
        self.inputs_insert_only = inputs_insert_only

    def open(self, ctx: OperatorContext) -> None:
        """Read the state TTL of each side's rows: its STATE_TTL hint's, else ``'table.exec.state.ttl'``.

        Raises:
            ConfigError: a bad ``'table.exec.state.ttl'``.
        """
        super().open(ctx)
        self.ttls = tuple(state_ttl(ctx, ms) for ms in self.state_ttl_ms)
        self.join_state = JoinState(ctx.state, self.ttls, self.inputs_insert_only)
        plain = self.residual is None and not any(self.outer)
        self.columnar = tuple(plain and a for a in self.join_state.appends)
        fields = list(self.output_schema)
        self.side_schemas = (pa.schema(fields[:self.widths[0]]), pa.schema(fields[self.widths[0]:]))

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Join ``batch`` (from side ``input_index``) with the other side's state; update state."""
        if self.columnar[input_index] and batch.table.num_rows:
            out = self._append_batch(batch.table, input_index)
            if out is not None:
                return out
        side, other = input_index, 1 - input_index
        kb = self._load(batch, side)
        if kb is None:
            return []
        rows, kinds, keys, mine, appended = kb.rows, kb.kinds, kb.keys, kb.mine, kb.associations
        cands = [kb.theirs[k] for k in keys]  # shared per key: read-only lists of (row, entry)
        matches = self._filter(side, rows, cands)

        my_outer, their_outer = self.outer[side], self.outer[other]
        inner = not (my_outer or their_outer)
        out_rows: list[tuple] = []
        out_kinds: list[int] = []
        touched: dict = {}  # the other side's entries whose associations changed
        for x, kind, k, rk, m in zip(rows, kinds, keys, kb.row_keys, matches):
            ent = mine[k, rk] if mine is not None else None
            if kind in _ACCUMULATE:
                out_kind = kind if inner else RowKind.INSERT
                if not m and my_outer:
                    out_rows.append(self._pad_mine(side, x))
                    out_kinds.append(RowKind.INSERT)
                total = 0
                for y, e in m:
                    c = e[0]
                    total += c
                    if their_outer:
                        if e[1] == 0:  # y was emitted padded: retract that
                            out_rows += [self._pad_mine(other, y)] * c
                            out_kinds += [RowKind.DELETE] * c
                        e[1] += 1
                        touched[k, e[2]] = (y, e)
                    out_rows += [self._joined(side, x, y)] * c
                    out_kinds += [out_kind] * c
                if ent is None:
                    appended.append(total)
                else:
                    ent[0] += 1
                    ent[1] = total
            else:
                out_kind = kind if inner else RowKind.DELETE
                if ent is None:
                    msg = f"A retraction reached side {side} of a regular join whose input is insert-only"
                    raise InternalError(msg)
                if ent[0] > 0:
                    ent[0] -= 1
                if not m and my_outer:
                    out_rows.append(self._pad_mine(side, x))
                    out_kinds.append(RowKind.DELETE)
                for y, e in m:
                    c = e[0]
                    out_rows += [self._joined(side, x, y)] * c
                    out_kinds += [out_kind] * c
                    if their_outer:
                        if e[1] == 1:  # y's last match is gone: it is emitted padded again
                            out_rows += [self._pad_mine(other, y)] * c
                            out_kinds += [RowKind.INSERT] * c
                        e[1] -= 1
                        touched[k, e[2]] = (y, e)

        self.join_state.write(kb, touched)
        return self._output(out_rows, out_kinds, self.insert_only)


    def _append_batch(self, table: pa.Table, side: int) -> list[Element] | None:
        """An inner join's batch of a side that appends (insert-only, no state TTL), column by column.

        No Python row of the batch: its matches are index arrays, the output is the batch's
        columns taken by them next to the matched rows of the other side (converted once per
        batch, not once per match), its rows go to state in one write (:meth:`JoinState.append`). Output
        rows come in the order of the general path: per input row, each match ``count`` times,
        in state order; all +I (an accumulate of an inner join keeps its kind).

        Returns:
            The output, or None when the batch's column types differ from the side's schema
            (the general path converts them).
        """
        if table.schema.types != self.side_schemas[side].types:
            return None
        keys, with_nulls = self._row_keys(table, side)
        theirs, prefixes = self.join_state.probe(side, keys, with_nulls)
        their_rows: list[tuple] = []
        spans = {}
        for k, entries in theirs.items():
            start = len(their_rows)
            for y, e in entries:
                their_rows += [y] * e[0]
            spans[k] = (start, len(their_rows) - start)
        start_of, count = (np.array(c, np.int64).reshape(-1) for c in zip(*(spans[k] for k in keys)))
        self.join_state.append(side, keys, prefixes, table, count)
        total = int(count.sum())
        if not total:
            return []
        mine_idx = np.repeat(np.arange(table.num_rows), count)
        first = np.cumsum(count) - count  # per row, its first output row
        their_idx = np.repeat(start_of - first, count) + np.arange(total)
        mine_cols = table.take(mine_idx).columns
        their_cols = table_of(their_rows, self.side_schemas[1 - side]).take(their_idx).columns
        cols = mine_cols + their_cols if side == 0 else their_cols + mine_cols
        kinds = None if self.insert_only else np.full(total, RowKind.INSERT, np.int8)
        return [Batch(pa.Table.from_arrays(cols, schema=self.output_schema), kinds)]


class IntervalJoinOperator(JoinBase, WindowOperatorBase):
    """An event-time interval join (module docstring).

    Args:
        join_type: INNER, LEFT, RIGHT or FULL.
        left_keys, right_keys: the join key columns of each input.
        left_time, right_time: the rowtime column of each input.
        lower, upper: ``lower <= l.ts - r.ts <= upper`` (ms, inclusive).
        left_schema, right_schema, output_schema: as :class:`StreamingJoinOperator`.
        residual: the rest of the join condition (outer joins), or None.
    """

    stateful = True

    def __init__(self, join_type: str, left_keys: list[int], right_keys: list[int], left_time: int,
                 right_time: int, lower: int, upper: int, left_schema: pa.Schema, right_schema: pa.Schema,
                 output_schema: pa.Schema, residual: BatchQuery | None = None):
        self._setup(join_type, left_keys, right_keys, left_schema, right_schema, output_schema, residual)
        self.times = (left_time, right_time)
        self.lower, self.upper = lower, upper
        self.delay = max(-lower, upper, 0) + 1

    def expires_at(self, side: int, t: int) -> int:
        """The watermark from which a row of ``side`` at ``t`` can no longer match.

        One ms later than strictly needed: a row at exactly the watermark still finds it.
        """
        return t - self.lower + 1 if side == 0 else t + self.upper + 1

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Join ``batch`` with the other side's live rows; keep its rows until they expire."""
        self._ensure_loaded()
        side, other = input_index, 1 - input_index
        rows = rows_of(batch.table)
        if not rows:
            return []
        ts, _ = rowtimes(batch.table.column(self.times[side]))  # a NULL reads as 0 (rowtime_nulls.EPOCH)
        ts = ts.tolist()
        keys, distinct, with_nulls, mine_keys, their_keys = self._keys(batch.table, side)
        n = len(distinct)
        values = self.ctx.state.get_many(mine_keys + their_keys)
        mine = {k: _interval_state(v) for k, v in zip(distinct, values[:n])}
        theirs = {k: _interval_state(v) for k, v in zip(distinct, values[n:])}
        cands = []
        for k, t in zip(keys, ts):
            st = theirs[k]
            if st is None or k in with_nulls:
                cands.append([])
                continue
            lo, hi = (t - self.upper, t - self.lower) if side == 0 else (t + self.lower, t + self.upper)
            cands.append([(y, e) for y, e in st["rows"].items() if lo <= e[2] <= hi])
        matches = self._filter(side, rows, cands)

        wm = self.watermark
        my_outer, their_outer = self.outer[side], self.outer[other]
        out_rows: list[tuple] = []
        touched_theirs: set = set()
        old_timer = {k: (st["timer"] if st is not None else None) for k, st in mine.items()}
        for x, t, k, m in zip(rows, ts, keys, matches):
            for y, e in m:
                out_rows += [self._joined(side, x, y)] * e[0]
                if their_outer and not e[1]:
                    e[1] = True
                    touched_theirs.add(k)
            if k in with_nulls:
                if my_outer:
                    out_rows.append(self._pad_mine(side, x))
                continue
            dead = self.expires_at(side, t)
            if wm is not None and wm >= dead:  # nothing of the other side can still come
                if my_outer and not m:
                    out_rows.append(self._pad_mine(side, x))
                continue
            st = mine[k]
            if st is None:
                st = mine[k] = {"rows": {}, "timer": None}
            ent = st["rows"].get(x)
            if ent is None:
                st["rows"][x] = [1, bool(m), t]
            else:
                ent[0] += 1
                ent[1] = ent[1] or bool(m)
            if st["timer"] is None or dead < st["timer"]:
                st["timer"] = dead

        puts: list = []
        deletes: list = []
        for k, sk in zip(distinct, mine_keys):
            st = mine[k]
            if st is None:
                continue
            if st["timer"] != old_timer[k]:
                if old_timer[k] is not None:
                    self.timers.remove(old_timer[k] + 1, sk, deletes)
                self.timers.add(st["timer"] + 1, sk, puts)
            puts.append((sk, _interval_value(st)))
        for k, sk in zip(distinct, their_keys):
            if k in touched_theirs:
                puts.append((sk, _interval_value(theirs[k])))
        self.ctx.state.write(puts, deletes)
        return self._output(out_rows, [], True)

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Drop rows that can no longer match; forward the watermark, held back.

        An outer side's rows that never matched are emitted padded with NULLs as they go; the
        watermark is held back by the join's maximum time distance (+1 ms).
        """
        wm, deletes, skeys = self._pop_due_keys(watermark)
        out: list[Element] = []
        if skeys:
            puts: list = []
            padded: list[tuple] = []
            for sk, v in zip(skeys, self.ctx.state.get_many(skeys)):
                if v is None:
                    continue
                side = 0 if sk[2:3] == _SIDE[0] else 1
                st = _interval_state(v)
                remain = {}
                for x, e in st["rows"].items():
                    if self.expires_at(side, e[2]) <= wm:
                        if self.outer[side] and not e[1]:
                            padded += [self._pad_mine(side, x)] * e[0]
                    else:
                        remain[x] = e
                if remain:
                    st = {"rows": remain, "timer": min(self.expires_at(side, e[2]) for e in remain.values())}
                    self.timers.add(st["timer"] + 1, sk, puts)
                    puts.append((sk, _interval_value(st)))
                else:
                    deletes.append(sk)
            self.ctx.state.write(puts, deletes)
            out += self._output(padded, [], True)
        elif deletes:
            self.ctx.state.write([], deletes)
        if watermark.timestamp == MAX_WATERMARK:
            out.append(watermark)
        else:
            out.append(Watermark(wm - self.delay))
        return out

    def live_rows(self) -> int:
        """Rows currently kept in state, both sides (for tests and metrics)."""
        total = 0
        for k, v in self.ctx.state.items():
            if k[2:3] in _SIDE:
                total += sum(e[0] for e in _interval_state(v)["rows"].values())
        return total


def _interval_state(value: bytes | None) -> dict | None:
    """An interval join's state of one side and key, ``{"rows": {row: entry}, "timer": t}``."""
    if value is None:
        return None
    timer, *packed = INTERVAL_JOIN_ROWS.decode(value)
    return {"rows": unpack_rows(packed, 3), "timer": timer}


def _interval_value(state: dict) -> bytes:
    """The stored form of :func:`_interval_state`."""
    return INTERVAL_JOIN_ROWS.encode([state["timer"], *pack_rows(state["rows"])])
