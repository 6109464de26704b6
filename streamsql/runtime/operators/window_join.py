r"""Window join, as Flink's ``WindowJoinOperator``: both sides' rows of a window, joined when it closes.

Input 0 is the left side, input 1 the right; both are insert-only window TVF outputs and the
equi-keys include ``window_start`` and ``window_end``, so one join key is one window of one key.
Rows are buffered per key; when the watermark reaches ``window_end - 1`` the key's rows are
joined (the residual condition filtering pairs), an outer side's rows without a match are
emitted padded with NULLs, and the key's state is deleted. A row whose window has already closed
(``window_end - 1 <= watermark``) is late: dropped and counted in ``late_records``. Rows with a
NULL key column never match (an outer side's are emitted padded when their window closes).
Output is insert-only, emitted before the watermark that closed the window is forwarded.

State (``kg`` = key group, ``key`` = the join key's bytes)::

    kg + JOIN_LEFT + key           both sides' rows of the window: WINDOW_JOIN_ROWS
    kg + TIMER_TAG + end + ...     the window's timer (window_agg.EventTimeTimers)
    WATERMARK_KEY                  watermark at the last checkpoint

Values (msgpack): :data:`WINDOW_JOIN_ROWS` ``[window_end, [[never_matches, *row], ...] (left),
[...] (right)]``.
"""

from __future__ import annotations

import pyarrow as pa

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.join import JoinBase, rows_of
from streamsql.runtime.operators.local_time import to_instant
from streamsql.runtime.operators.window_agg import WindowOperatorBase, add_late, rowtimes
from streamsql.state.layout import ValueFormat

#: One window's rows of one key: ``[window_end, left rows, right rows]``.
WINDOW_JOIN_ROWS = ValueFormat("window-join/rows", 1)


class WindowJoinOperator(JoinBase, WindowOperatorBase):
    """A window join (module docstring).

    Args:
        join_type: INNER, LEFT, RIGHT or FULL.
        left_keys, right_keys: the equi-key columns of each input (window_start, window_end among them).
        left_end, right_end: the window_end column of each input.
        left_schema, right_schema, output_schema: the inputs' and the output's Arrow schemas.
        residual: the non-equi condition (outer joins) over ``output_schema``, or None.
        zone: the zone the window bounds are local to (``WindowSpec.zone``): a window closes when
            the watermark reaches the instant of ``window_end - 1``.
    """

    stateful = True

    def __init__(self, join_type: str, left_keys: list[int], right_keys: list[int], left_end: int,
                 right_end: int, left_schema: pa.Schema, right_schema: pa.Schema, output_schema: pa.Schema,
                 residual: BatchQuery | None = None, zone: str | None = None):
        self._setup(join_type, left_keys, right_keys, left_schema, right_schema, output_schema, residual)
        self.ends = (left_end, right_end)
        self.zone = zone

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Buffer the rows of windows still open; drop (and count) the late ones."""
        self._ensure_loaded()
        side = input_index
        rows = rows_of(batch.table)
        if not rows:
            return []
        ends, _ = rowtimes(batch.table.column(self.ends[side]))
        if self.zone is not None:  # local window ends → the instants they close at (timers, lateness)
            ends = to_instant(ends - 1, self.zone) + 1
        keys, distinct, with_nulls, mine, theirs = self._keys(batch.table, side)
        skeys = mine if side == 0 else theirs  # one entry per key for both sides, tagged JOIN_LEFT
        state = dict(zip(distinct, (_decode(v) for v in self.ctx.state.get_many(skeys))))
        wm = self.watermark
        late = 0
        puts: list = []
        for x, end, k in zip(rows, ends.tolist(), keys):
            if wm is not None and end - 1 <= wm:
                late += 1
                continue
            st = state[k]
            if st[0] is None:
                st[0] = end
                self.timers.add(end, skeys[distinct.index(k)], puts)
            st[1 + side].append([k in with_nulls, *x])
        add_late(self.ctx.metrics, late)
        for k, sk in zip(distinct, skeys):
            if state[k][0] is not None:
                puts.append((sk, WINDOW_JOIN_ROWS.encode(state[k])))
        self.ctx.state.write(puts)
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Join the windows the watermark closes, delete their state, forward the watermark."""
        _, deletes, due = self._pop_due_keys(watermark)
        out_rows: list[tuple] = []
        for v in self.ctx.state.get_many(due) if due else []:
            if v is not None:
                self._join_window(_decode(v), out_rows)
        self.ctx.state.write([], deletes + due)
        return [*self._output(out_rows, [], True), watermark]

    def _join_window(self, st: list, out_rows: list) -> None:
        """Append the joined (and padded) rows of one window's state ``st``."""
        left = [(bool(r[0]), tuple(r[1:])) for r in st[1]]
        right = [(bool(r[0]), tuple(r[1:])) for r in st[2]]
        live_right = [(y, None) for null, y in right if not null]
        cands = [live_right if not null else [] for null, _ in left]
        matches = self._filter(0, [x for _, x in left], cands)
        matched_right: set[int] = set()
        index = {id(c): i for i, c in enumerate(live_right)}
        for (_, x), m in zip(left, matches):
            for c in m:
                out_rows.append(self._joined(0, x, c[0]))
                matched_right.add(index[id(c)])
            if not m and self.outer[0]:
                out_rows.append(self._pad_mine(0, x))
        if self.outer[1]:
            live = iter(range(len(live_right)))
            for null, y in right:
                if null or next(live) not in matched_right:
                    out_rows.append(self._pad_mine(1, y))


def _decode(value: bytes | None) -> list:
    """A window's ``[window_end, left rows, right rows]`` (``[None, [], []]`` when new)."""
    return WINDOW_JOIN_ROWS.decode(value) if value is not None else [None, [], []]
