"""The sink upsert materializer of ``ON CONFLICT DO DEDUPLICATE``, as Flink 2.3's SinkUpsertMaterializer.

An updating query whose upsert key is not within its sink's PRIMARY KEY (``GROUP BY a, b`` into a
sink keyed by ``a``) sends rows of several upsert keys to one sink key. Written as they come, the
-D of one group would delete the sink row another group still holds. The materializer keeps, per
sink key, every row currently alive for it, in the order they were added, and gives the sink an
upsert changelog of the *latest* alive row (Flink 2.3, ``SinkUpsertMaterializer``):

- ``+I`` / ``+U`` row: with an input upsert key, a held row of the same upsert key is replaced in
  place, else the row is appended; the row is emitted as ``+I`` if the key held nothing, else
  ``+U`` (even when it replaced a row that is not the last: Flink does so too);
- ``-U`` / ``-D`` row: the first held row equal to it (on the upsert key, or on every column when
  the input has none) is removed; if none is left, the row is emitted as ``-D``; if it was the
  last one, the new last row is emitted as ``+U``; otherwise nothing. A retraction of a row that
  is not held (its key's rows expired under ``'table.exec.state.ttl'``) is dropped: as Flink,
  which logs "The state is cleared because of state ttl. This will result in incorrect result.
  You can increase the state ttl to avoid this." for each; here it is counted in the job metric
  ``dropped_retractions`` (:mod:`streamsql.core.counters`) and that warning logged once per
  operator.

Rows are processed one by one, in batch order, so the output is Flink's for the same input
changelog. Output: ``+I``, ``+U`` and ``-D`` rows only (an upsert changelog on the sink key).

State: per sink key, ``kg + key`` (:func:`~streamsql.state.layout.encode_keys` of the sink's key
columns) → :data:`HELD_ROWS`, the key's held rows (lists of SQL values) as tagged msgpack, read
and written back through the write-behind cache the ranking operators use.
"""

from __future__ import annotations

import logging

import numpy as np
import pyarrow as pa

from streamsql.core.connector import count
from streamsql.core.elements import Batch, Element, RowKind
from streamsql.runtime.operators.join import rows_of, table_of
from streamsql.runtime.operators.rank import RankOperatorBase, group_by_key
from streamsql.runtime.operators.sink import NotNullEnforcer
from streamsql.state.layout import ValueFormat, encode_keys

log = logging.getLogger(__name__)

#: A sink key's held rows, oldest first.
HELD_ROWS = ValueFormat("sink-materializer/rows", 1)


def _dump(rows: list[tuple]) -> bytes:
    return HELD_ROWS.encode([list(r) for r in rows])


def _load(raw: bytes) -> list[tuple]:
    return [tuple(r) for r in HELD_ROWS.decode(raw)]


class SinkUpsertMaterializer(RankOperatorBase):
    """Keeps the alive rows per sink key and emits the latest one (module docstring).

    Args:
        sink_key: input column indexes of the sink's PRIMARY KEY.
        upsert_key: input column indexes of the input's upsert key, or None (rows are then
            matched on every column).
        schema: the Arrow schema of input and output batches.
    """

    expires = True  # 'table.exec.state.ttl' applies, as to Flink's materializer

    def __init__(self, sink_key: list[int], upsert_key: list[int] | None, schema: pa.Schema,
                 not_null: list[tuple[int, str]] | None = None):
        super().__init__(None, _dump, _load)
        self.sink_key = list(sink_key)
        self.upsert_key = list(upsert_key) if upsert_key else None
        self.schema = schema
        self.not_null = NotNullEnforcer(not_null)
        self._warned = False  # the dropped-retraction warning is logged once

    def open(self, ctx) -> None:
        """Open the cache; read the sink's not-null enforcer setting."""
        super().open(ctx)
        self.not_null.open(ctx.config)

    def _same(self, a: tuple, b: tuple) -> bool:
        if self.upsert_key is None:
            return a == b
        return all(a[i] == b[i] for i in self.upsert_key)

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Apply the batch's rows in order and emit the latest alive row of each sink key they change.

        The sink's not-null enforcer runs first, as in Flink (a dropped row is never held).
        """
        if self.not_null.columns:
            batch = self.not_null(batch)
            if not batch.num_rows:
                return []
        table = batch.table
        keys = encode_keys([table.column(i) for i in self.sink_key], table.num_rows)
        signs = batch.signs() if not batch.insert_only else None
        rows = rows_of(table)
        groups = group_by_key(keys)
        slots = self.cache.slots(list(groups))
        states = self.values.get(slots)
        out: list[tuple[int, tuple, int]] = []  # (input row index, row, kind): back in input order
        news = []
        for state, idxs in zip(states, groups.values()):
            held = list(state) if state is not None else []
            for i in idxs:
                if signs is None or signs[i] > 0:
                    self._add(held, rows[i], i, out)
                else:
                    self._retract(held, rows[i], i, out)
            news.append(held or None)
        if dropped := sum(1 for _, row, kind in out if kind is None):
            out = [o for o in out if o[2] is not None]
            self._dropped(dropped)
        self.values.put(slots, news)
        self.cache.touch(slots)
        self.cache.evict()
        if not out:
            return []
        out.sort(key=lambda o: o[0])  # stable: one input row emits at most one row
        kinds = np.array([k for _, _, k in out], np.int8)
        return [Batch(table_of([r for _, r, _ in out], self.schema), kinds)]

    def _add(self, held: list[tuple], row: tuple, i: int, out: list) -> None:
        kind = RowKind.UPDATE_AFTER if held else RowKind.INSERT
        at = self._find(held, row) if self.upsert_key is not None else -1
        if at < 0:
            held.append(row)
        else:
            held[at] = row
        out.append((i, row, kind))

    def _retract(self, held: list[tuple], row: tuple, i: int, out: list) -> None:
        at = self._find(held, row)
        if at < 0:
            out.append((i, row, None))  # not held: dropped, and counted (module docstring)
            return
        last = at == len(held) - 1
        del held[at]
        if not held:
            out.append((i, row, RowKind.DELETE))
        elif last:
            out.append((i, held[-1], RowKind.UPDATE_AFTER))

    def _dropped(self, n: int) -> None:
        """Count ``n`` retractions of rows not held in ``dropped_retractions``; warn the first time."""
        count(self.ctx.metrics, "dropped_retractions", n)
        if not self._warned:
            self._warned = True
            log.warning("%s: a retraction of a row it does not hold was dropped (counted in the job metric "
                        "'dropped_retractions'). The state is cleared because of state ttl. This will result "
                        "in incorrect result. You can increase the state ttl to avoid this.",
                        self.ctx.operator_id)

    def _find(self, held: list[tuple], row: tuple) -> int:
        for j, h in enumerate(held):
            if self._same(h, row):
                return j
        return -1
