r"""Event-time temporal join, as Flink's ``TemporalRowTimeJoinOperator``.

Input 0 is the probe (left) side, input 1 the versioned table (right). Per join key:

- every right row is a **version** at its rowtime; a later row with the same rowtime replaces
  it (Flink keeps one version per rowtime). A delete (-D) is a version too: a probe row whose
  version is a delete does not join. Update-befores (-U) are dropped, as Flink's planner does
  for a temporal join's versioned source (``DropUpdateBefore``): an update is its +U alone.
  Not where a filter (a Calc with a condition) sits between the updating input and the join
  (``keep_update_before``): Flink's filter needs -U rows (FLINK-9528), so they reach its join,
  which takes one as a retraction version at its rowtime, as it takes a -D;
- every left row is buffered with its row kind until the watermark (the minimum of both
  inputs') reaches its rowtime; then, in arrival order, it joins the version with the greatest
  rowtime ``<=`` its own, if that version is an accumulation (+I, +U) and the residual
  condition holds. Otherwise an INNER join drops it and a LEFT join emits it padded with NULLs.
  A joined row has the left row's kind; the output is insert-only if the left input is;
- after that, the versions older than the latest one at or below the watermark are deleted (no
  probe row still to come can see them); that latest one goes too if it is a retraction (a
  probe row would then find no version instead of a retraction: the same result).

Over an ``upsert-kafka`` versioned table (``ignore_deletes``) the deletes are no versions: Flink
plans no ChangelogNormalize there, so a tombstone reaches its operator as a -D of the key alone,
its rowtime NULL (read as 0): never the latest version at or before a probe row's rowtime once
the key has one. A key's tombstone leaves its last value valid in Flink 2.3, and here.

A left row whose rowtime is at or below the watermark when it arrives is still buffered and
joined at the next watermark (as Flink 2.3's operator does), against the versions still kept.
A NULL join key is a key like any other, as in Flink (its operator is keyed by the equi-join
columns and does not evaluate the equalities again): a probe row with a NULL key joins the
version whose key is NULL in the same columns. A NULL rowtime reads as 0, 1970-01-01 00:00:00,
as in Flink 2.3 (:mod:`~streamsql.runtime.operators.rowtime_nulls`): a left row joins the
version of 1970 if there is one (a right row with a NULL rowtime: the key's oldest version),
else is dropped (LEFT: padded) at the next watermark. Results are emitted
before the watermark that released them is forwarded, so the left's rowtime stays a time
attribute downstream.

State (:mod:`streamsql.state.layout`; ``kg`` = key group, ``key`` = the join key's bytes)::

    kg + JOIN_LEFT + key           both sides of the key: TEMPORAL_JOIN_KEY
    kg + TIMER_TAG + end + ...     the key's one timer (window_agg.EventTimeTimers)
    WATERMARK_KEY                  watermark at the last checkpoint

Values (msgpack): :data:`TEMPORAL_JOIN_KEY` ``[timer, [[kind, rowtime, *row], ...] (left, in
arrival order), [[rowtime, kind, *row], ...] (versions, ascending rowtime)]``. The timer is due
when the watermark reaches the earliest buffered left rowtime, or the rowtime from which
cleanup can delete a version; ``None`` when nothing is pending.
"""

from __future__ import annotations

import bisect

import pyarrow as pa

from streamsql.core.elements import Batch, Element, RowKind, Watermark
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.join import JoinBase, rows_of
from streamsql.runtime.operators.window_agg import WindowOperatorBase, rowtimes
from streamsql.state.layout import JOIN_LEFT, ValueFormat

#: One join key's state: ``[timer, left rows, versions]`` (module docstring).
TEMPORAL_JOIN_KEY = ValueFormat("temporal-join/key", 1)
_ACCUMULATE = (RowKind.INSERT, RowKind.UPDATE_AFTER)


class TemporalJoinOperator(JoinBase, WindowOperatorBase):
    """An event-time temporal join (module docstring).

    Args:
        join_type: INNER or LEFT.
        left_keys, right_keys: the equi-key columns of each input.
        left_time, right_time: the rowtime column of each input.
        left_schema, right_schema: the inputs' Arrow schemas.
        output_schema: left columns then right columns.
        residual: the rest of the join condition as one boolean item over ``output_schema``
            (a NULL result does not match), or None.
        insert_only: the left input (and so the output) is insert-only.
        ignore_deletes: deletes of the right input are no versions (an ``upsert-kafka`` table).
        keep_update_before: -U rows of the right input are retraction versions, not dropped.
    """

    stateful = True
    state_ttl_missing = "an event-time temporal join"

    def __init__(self, join_type: str, left_keys: list[int], right_keys: list[int], left_time: int,
                 right_time: int, left_schema: pa.Schema, right_schema: pa.Schema, output_schema: pa.Schema,
                 residual: BatchQuery | None = None, insert_only: bool = True, ignore_deletes: bool = False,
                 keep_update_before: bool = False):
        self._setup(join_type, left_keys, right_keys, left_schema, right_schema, output_schema, residual)
        self.times = (left_time, right_time)
        self.insert_only = insert_only
        self.ignore_deletes = ignore_deletes
        self.keep_update_before = keep_update_before

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Buffer probe rows (input 0) or record versions (input 1); nothing is emitted yet."""
        self._ensure_loaded()
        side = input_index
        rows = rows_of(batch.table)
        if not rows:
            return []
        kinds = batch.kind_array().tolist()
        ts, _ = rowtimes(batch.table.column(self.times[side]))  # a NULL reads as 0 (rowtime_nulls.EPOCH)
        ts = ts.tolist()
        keys, distinct, _, mine, theirs = self._keys(batch.table, side)
        skeys = mine if side == 0 else theirs  # one entry per key for both sides, tagged JOIN_LEFT
        state = dict(zip(distinct, (_decode(v) for v in self.ctx.state.get_many(skeys))))
        old_timer = {k: st[0] for k, st in state.items()}
        for x, kind, t, k in zip(rows, kinds, ts, keys):
            _, left, versions = state[k]
            if side == 0:
                left.append([kind, t, *x])
                continue
            if (kind == RowKind.UPDATE_BEFORE and not self.keep_update_before) or (
                    kind == RowKind.DELETE and self.ignore_deletes):
                continue
            i = bisect.bisect_left(versions, t, key=lambda v: v[0])
            if i < len(versions) and versions[i][0] == t:
                versions[i] = [t, kind, *x]
            else:
                versions.insert(i, [t, kind, *x])
        puts: list = []
        deletes: list = []
        for k, sk in zip(distinct, skeys):
            self._store(sk, state[k], old_timer[k], puts, deletes)
        self.ctx.state.write(puts, deletes)
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Join the buffered probe rows at or below the watermark, clean versions, forward it."""
        wm, deletes, due = self._pop_due_keys(watermark)
        out: list[Element] = []
        if due:
            puts: list = []
            out_rows: list[tuple] = []
            out_kinds: list[int] = []
            for sk, v in zip(due, self.ctx.state.get_many(due)):
                if v is None:
                    continue
                st = _decode(v)
                self._fire(st, wm, out_rows, out_kinds)
                self._store(sk, st, None, puts, deletes)
            out += self._output(out_rows, out_kinds, self.insert_only)
            self.ctx.state.write(puts, deletes)
        elif deletes:
            self.ctx.state.write([], deletes)
        out.append(watermark)
        return out

    def _fire(self, st: list, wm: int, out_rows: list, out_kinds: list) -> None:
        """Join the key's left rows at or below ``wm`` (arrival order), then drop dead versions."""
        _, left, versions = st
        times = [v[0] for v in versions]
        ready = [r for r in left if r[1] <= wm]
        st[1] = [r for r in left if r[1] > wm]
        rows, cands = [], []
        for kind, t, *x in ready:
            i = bisect.bisect_right(times, t) - 1
            version = versions[i] if i >= 0 else None
            rows.append(tuple(x))
            live = version is not None and version[1] in _ACCUMULATE
            cands.append([(tuple(version[2:]), None)] if live else [])
        matches = self._filter(0, rows, cands)
        for x, (kind, *_), m in zip(rows, ready, matches):
            if m:
                out_rows.append(self._joined(0, x, m[0][0]))
            elif self.outer[0]:
                out_rows.append(self._pad_mine(0, x))
            else:
                continue
            out_kinds.append(kind)
        keep = bisect.bisect_right(times, wm) - 1  # the latest version at or below the watermark
        if keep > 0:
            del versions[:keep]
        if versions and versions[0][0] <= wm and versions[0][1] not in _ACCUMULATE:
            del versions[0]

    def _store(self, sk: bytes, st: list, old_timer: int | None, puts: list, deletes: list) -> None:
        """Write a key's state with its recomputed timer (or delete it when nothing is left)."""
        _, left, versions = st
        due = [r[1] for r in left]
        if versions and versions[0][1] not in _ACCUMULATE:
            due.append(versions[0][0])
        elif len(versions) > 1:
            due.append(versions[1][0])
        timer = min(due) if due else None
        if old_timer is not None and old_timer != timer:
            self.timers.remove(old_timer + 1, sk, deletes)
        if timer is not None and timer != old_timer:
            self.timers.add(timer + 1, sk, puts)  # due when the watermark reaches `timer`
        st[0] = timer
        if left or versions:
            puts.append((sk, TEMPORAL_JOIN_KEY.encode(st)))
        else:
            deletes.append(sk)

    def kept(self) -> tuple[int, int]:
        """(buffered probe rows, kept versions) over all keys (for tests and metrics)."""
        left = versions = 0
        for k, v in self.ctx.state.items():
            if k[2:3] == JOIN_LEFT:
                _, lrows, vrows = _decode(v)
                left, versions = left + len(lrows), versions + len(vrows)
        return left, versions


def _decode(value: bytes | None) -> list:
    """A key's ``[timer, left rows, versions]`` (empty when the key has no state)."""
    return TEMPORAL_JOIN_KEY.decode(value) if value is not None else [None, [], []]
