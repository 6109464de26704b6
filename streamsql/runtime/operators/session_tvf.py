r"""The SESSION window TVF read without a window aggregate, as Flink's UnalignedWindowTableFunctionOperator.

``FROM TABLE(SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap))`` whose rows a window Top-N,
deduplication, join, a window-attached aggregate, a GroupAggregate or a sink reads. Semantics, as
Flink 2.3's session TVF (times in **milliseconds**, local to ``WindowSpec.zone``):

- each row opens the window ``[ts, ts + gap)``; windows of one PARTITION BY key (all rows: one
  key without PARTITION BY) that intersect merge into one session, exactly as the session window
  aggregate merges them (Flink's ``MergingWindowSet``; shared code,
  :func:`~streamsql.runtime.operators.session_window.merge_key`): rows of merged sessions belong
  to the merged one;
- the rows are held until the session **closes** (the watermark reaches ``end - 1``), then each
  is emitted once, ``+I``, with ``window_start``, ``window_end`` and ``window_time`` (``end - 1``)
  appended, before the watermark is forwarded (so a window-attached operator downstream takes them
  in the window that fires at that watermark); the rows of a session come in the order they
  joined it (a merged session's rows: the merged sessions' in Flink's merge order, then the new);
- a row whose window has closed (``ts + gap - 1 <= watermark``) and that intersects no open
  session is late: dropped and counted in ``late_records`` (Flink's ``numLateRecordsDropped``);
  rows of one batch are merged among themselves first, as the session aggregate does;
- a NULL rowtime: the row is dropped and counted in ``null_rowtime_records``, as Flink's
  ``numNullRowTimeRecordsDropped`` (:mod:`~streamsql.runtime.operators.rowtime_nulls`).

Over a ``PROCTIME()`` attribute (``spec.proctime``) the operator runs inside
:class:`~streamsql.runtime.operators.proctime.ProcessingTimeOperator`, as Flink's operator on its
processing-time timers: a row's time is its arrival at the operator (rows of one batch share
it), so a session starts at its first row's arrival and ends at its last one's + gap; its rows go
out at the first tick with the processing time at or past ``end - 1`` (the "watermark" it gets
is the processing time). Their time attribute column and ``window_time`` are the processing time
of that emission, as Flink's ``PROCTIME_MATERIALIZE`` of both after the TVF (they are no arrival
times there either; ``ProcessingTimeOperator`` sets them, ``stamped``); ``window_start`` /
``window_end`` are the session's bounds. Open sessions and
their timers are state like the event-time ones (restored, a due one fires at the first tick).

State layout (``key`` = :func:`~streamsql.state.layout.encode_keys` of the PARTITION BY key,
``kg`` its key group):

=========================================== ===========================================
``kg + key``                                 :data:`SESSION_ROWS`: ``[keys, sessions]``,
                                             the open sessions ``[[start, end, rows]]``
                                             sorted by start, ``rows`` the input rows
``kg + TIMER_TAG + end(8) + key``            the event-time timer of each open session
``WATERMARK_KEY``                            the watermark at the last checkpoint
=========================================== ===========================================
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.functions import python_functions
from streamsql.functions.accumulators import key_values
from streamsql.plan.specs import WindowSpec
from streamsql.runtime.evaluator import query_table
from streamsql.runtime.operators.join_state import rows_of
from streamsql.runtime.operators.local_time import to_local
from streamsql.runtime.operators.rowtime_nulls import count_dropped
from streamsql.runtime.operators.session_window import fire_sessions, islands_sql, merge_batch, window_time
from streamsql.runtime.operators.window_agg import WindowOperatorBase, _rows_to_table, rowtimes
from streamsql.state.layout import ValueFormat, encode_keys

#: A PARTITION BY key's open sessions with their rows (tagged msgpack).
SESSION_ROWS = ValueFormat("session-tvf/sessions", 1)


def _concat(a: list, b: list) -> list:
    """The rows of two merged sessions: ``a``'s, then ``b``'s (Flink's list state merge)."""
    return list(a) + list(b)


class SessionTableFunctionOperator(WindowOperatorBase):
    """Holds a PARTITION BY key's rows per open session; emits them with their window (module docstring).

    Args:
        spec: a SESSION spec (``gap`` in ms).
        ts_index: the input column of the rowtime.
        key_indices: the input columns of the PARTITION BY key (empty: one session for all rows).
        input_schema: the input's Arrow schema.
        output_schema: the input's columns, then window_start, window_end, window_time.
    """

    def __init__(self, spec: WindowSpec, ts_index: int, key_indices: list[int], input_schema: pa.Schema,
                 output_schema: pa.Schema):
        self.spec = spec
        self.ts_index = ts_index
        self.key_indices = list(key_indices)
        self.output_schema = output_schema
        self.watermark_zone = spec.zone
        names = ['"' + input_schema.names[i].replace('"', '""') + '"' for i in self.key_indices]
        self._islands_sql, _ = islands_sql(names, [input_schema.types[i] for i in self.key_indices], spec.gap)
        self._con = python_functions.cursor()

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Merge the batch's rows, by batch-local session, into their keys' open sessions."""
        self._ensure_loaded()
        table = batch.table
        ts, valid = rowtimes(table.column(self.ts_index))
        if valid is not None:
            count_dropped(self.ctx.metrics, int(len(ts) - valid.sum()))
            table, ts = table.filter(pa.array(valid)), ts[valid]
        if table.num_rows == 0:
            return []
        keyed = pa.table([table.column(i) for i in self.key_indices]
                         + [pa.array(to_local(ts, self.spec.zone), pa.int64()),
                            pa.array(np.arange(table.num_rows, dtype=np.int64))],
                         names=[table.schema.names[i] for i in self.key_indices] + ["__t", "__row"])
        islands = query_table(self._con, self._islands_sql, keyed)
        nk = len(self.key_indices)
        n = islands.num_rows
        keys = list(zip(*(key_values(islands.column(i)) for i in range(nk)))) if nk else [()] * n
        sids = islands.column("__sid").to_pylist()
        times = islands.column("__t").to_pylist()
        order = islands.column("__row").to_pylist()
        encoded = encode_keys(islands.columns[:nk], islands.num_rows)
        rows = rows_of(table)
        gap = self.spec.gap
        groups: dict[tuple, list] = {}  # (key, sid) → [first, last, row indices]
        key_bytes: dict[tuple, bytes] = {}
        for key, sid, t, i, enc in zip(keys, sids, times, order, encoded):
            g = groups.get((key, sid))
            if g is None:
                groups[(key, sid)] = [t, t, [i]]
                key_bytes.setdefault(key, enc)
            else:
                g[0], g[1] = min(g[0], t), max(g[1], t)
                g[2].append(i)
        by_key: dict[tuple, list] = {}
        for (key, sid), (first, last, idx) in sorted(groups.items(), key=lambda e: e[0][1]):
            idx.sort()  # arrival order
            by_key.setdefault(key, []).append((first, last + gap, [rows[i] for i in idx], len(idx)))
        merge_batch(self, SESSION_ROWS, by_key, key_bytes, _concat)
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Emit the rows of every session with ``end - 1 <= watermark``, then forward the watermark."""
        return self._fire_due_keys(watermark, self._fire_key)

    def _fire_key(self, skey: bytes, raw: bytes, wm: int, emitted: list, puts: list, deletes: list) -> None:
        """A key's sessions that closed by ``wm``: their rows, with the window, into ``emitted``."""
        _, due = fire_sessions(SESSION_ROWS, skey, raw, wm, puts, deletes)
        for start, end, rows in due:
            time = window_time(end, self.spec.zone)
            emitted.extend((end, tuple(r) + (start, end, time)) for r in rows)

    def _to_table(self, rows: list[tuple]) -> pa.Table:
        """Output rows (input columns, then window start, end, time as int ms) → Arrow."""
        return _rows_to_table(rows, self.output_schema, len(self.output_schema) - 3)
