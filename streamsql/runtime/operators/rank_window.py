r"""Rankings that emit once, when the watermark passes: window Top-N, window and row-time deduplication.

Both are insert-only, as Flink 2.3 plans them:

- **window Top-N / window deduplication** (Flink's ``WindowRank`` / ``WindowDeduplicate``): the
  partition key includes ``window_start`` and ``window_end``; a partition keeps its first
  ``rank_end`` rows (ties in arrival order; deduplication keeping the last row lets a new row with
  an equal rowtime win), and when the watermark reaches ``window_end - 1`` its rows ranked
  ``rank_start .. rank_end`` are emitted as ``+I`` and the partition is dropped. A row whose window
  has already fired is late: dropped and counted in ``late_records``;
- **deduplication keeping the first row on rowtime** (``ORDER BY rowtime ASC``, ``rn = 1``): per
  key the row with the smallest rowtime (the first to arrive among equal ones) is held until the
  watermark reaches its rowtime, then emitted as ``+I``; the key remembers that it has emitted and
  drops every later row. A row below the watermark when it arrives is late: dropped and
  counted, as Flink drops it (a row at the watermark is kept, and emitted at the next one). A
  NULL rowtime reads as 0, 1970-01-01 00:00:00 (the row keeps its NULL), as in Flink 2.3
  (:mod:`~streamsql.runtime.operators.rowtime_nulls`).

The ranked rows of a partition use the sort keys and rules of
:class:`~streamsql.runtime.operators.rank.RankSpec`.

State, per partition key ``kg + key`` (:func:`~streamsql.state.layout.encode_keys`, as every
operator): :data:`PENDING_RANK`, ``[fire, sort keys, rows]`` — ``fire`` the watermark (ms) at
which the partition emits, or None once a row-time deduplication key has emitted (its rows are
then empty); and ``WATERMARK_KEY``, the operator's watermark at the last checkpoint. Partitions go
through a :class:`~streamsql.state.cache.WriteBehindCache` flushed at every checkpoint. The index
of pending partitions by fire time is memory only, rebuilt from the state entries before the
first element after a restore.
"""

from __future__ import annotations

import heapq

import pyarrow as pa

from streamsql.core.elements import MAX_WATERMARK, Batch, Element, Watermark
from streamsql.runtime.operators.base import OperatorContext
from streamsql.runtime.operators.join import rows_of
from streamsql.runtime.operators.local_time import to_instant
from streamsql.runtime.operators.rank import RankOperatorBase, RankSpec, group_by_key
from streamsql.runtime.operators.window_agg import add_late, read_watermark, rowtimes, watermark_entry
from streamsql.state.layout import WATERMARK_KEY, ValueFormat

#: A partition waiting for the watermark: ``[fire, sort keys, rows]``.
PENDING_RANK = ValueFormat("rank/pending", 1)


def _dump(value: tuple) -> bytes:
    fire, sks, rows = value
    return PENDING_RANK.encode([fire, sks, [list(r) for r in rows]])


def _load(raw: bytes) -> tuple:
    fire, sks, rows = PENDING_RANK.decode(raw)
    return fire, list(sks), [tuple(r) for r in rows]


class WatermarkRankOperator(RankOperatorBase):
    """A ranking whose partitions emit when the watermark reaches their fire time (module docstring).

    Args:
        spec: the ranking.
        window: True for window Top-N (fire at ``window_end - 1``, the partition is dropped);
            False for row-time deduplication keeping the first row (fire at the kept rowtime,
            the key then drops every later row).
        zone: window Top-N: the zone the window bounds are local to (``WindowSpec.zone``): a
            window fires when the watermark reaches the instant of ``window_end - 1``.
    """

    def __init__(self, spec: RankSpec, window: bool, zone: str | None = None):
        super().__init__(spec, _dump, _load)
        self.window = window
        self.zone = zone
        # Flink expires a first-row deduplication's state under TTL (window state it does not).
        self.state_ttl_missing = None if window else "deduplication keeping the first row on a rowtime"
        self.time_index = spec.window_end if window else spec.order[0]

    def open(self, ctx: OperatorContext) -> None:
        """Start with an empty cache; the pending index is rebuilt at the first element.

        Raises:
            ConfigError: a bad ``'state.cache.max-entries'``.
        """
        super().open(ctx)
        self.watermark: int | None = None
        self._heap: list[tuple[int, bytes]] = []
        self._loaded = False

    def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for k, v in self.ctx.state.items():
            if k == WATERMARK_KEY:
                wm = read_watermark(v)
                self.watermark = wm if self.watermark is None else max(self.watermark, wm)
                continue
            fire = _load(v)[0]
            if fire is not None:
                heapq.heappush(self._heap, (fire, k[2:]))

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Write back the changed partitions and the watermark before the backend is snapshotted."""
        self._ensure_loaded()
        super().snapshot_state(checkpoint_id)
        if self.watermark is not None:
            self.ctx.state.write([watermark_entry(self.watermark)])

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Add the batch's rows (late ones dropped) to their pending partitions."""
        self._ensure_loaded()
        table = batch.table
        times, _ = rowtimes(table.column(self.time_index))  # a NULL reads as 0 (rowtime_nulls.EPOCH)
        fires = to_instant(times - 1, self.zone) if self.window else times
        if self.watermark is not None:
            # a window that fired (window_end - 1 <= watermark); a row-time deduplication's row
            # strictly below the watermark (Flink's RowTimeDeduplicateKeepFirstRowFunction:
            # ``rowtime < currentWatermark``; one at the watermark is kept, emitted at the next)
            keep = (fires > self.watermark) if self.window else (fires >= self.watermark)
            if not keep.all():
                add_late(self.ctx.metrics, int(len(keep) - keep.sum()))
                table, fires = table.filter(pa.array(keep)), fires[keep]
        if table.num_rows == 0:
            return []
        spec = self.spec
        parts, sks = spec.keys(table)
        keep = spec.candidates(parts, sks)  # rows that cannot reach their partition's top need no step
        if len(keep) < len(parts):
            table, fires = table.take(pa.array(keep)), fires[keep]
            parts, sks = [parts[i] for i in keep.tolist()], [sks[i] for i in keep.tolist()]
        rows = rows_of(table)
        groups = group_by_key(parts)
        keys = list(groups)
        slots = self.cache.slots(keys)
        news = []
        for key, state, idxs in zip(keys, self.values.get(slots), groups.values()):
            if state is not None and state[0] is None:  # a deduplication key that has emitted
                news.append(state)
                continue
            fire, key_sks, key_rows = (state[0], list(state[1]), list(state[2])) if state is not None \
                else (None, [], [])
            for i in idxs:
                spec.insert(key_sks, key_rows, sks[i], rows[i], bounded=True)
            new_fire = fire
            if self.window:
                new_fire = int(fires[idxs[0]])  # one window per partition key
            else:  # the kept row's rowtime, when a row of this batch took its place
                new_fire = next((int(fires[i]) for i in idxs if rows[i] is key_rows[0]), fire)
            if new_fire != fire:
                heapq.heappush(self._heap, (new_fire, key))
            news.append((new_fire, key_sks, key_rows))
        self.values.put(slots, news)
        self.cache.touch(slots)
        self.cache.evict()
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Emit every partition whose fire time the watermark reached (in fire order), then forward it."""
        self._ensure_loaded()
        wm = watermark.timestamp
        self.watermark = wm = wm if self.watermark is None else max(self.watermark, wm)
        due: list[tuple[int, bytes]] = []
        while self._heap and (self._heap[0][0] <= wm or wm == MAX_WATERMARK):
            due.append(heapq.heappop(self._heap))
        out: list[Element] = []
        if due:
            keys = list(dict.fromkeys(k for _, k in due))
            slots = self.cache.slots(keys)
            rows: list[tuple] = []
            news = []
            for key, state in zip(keys, self.values.get(slots)):
                if state is None or state[0] is None or (state[0] > wm and wm != MAX_WATERMARK):  # stale
                    news.append(state)
                    continue
                rows += self.spec.ranked(state[2])
                news.append(None if self.window else (None, [], []))
            self.values.put(slots, news)
            self.cache.touch(slots)
            self.cache.evict()
            if rows:
                out.append(self.spec.to_batch(rows, None))
        out.append(watermark)
        return out
