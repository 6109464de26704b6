r"""OVER aggregates ordered by a non-time column, as Flink 2.3's ``NonTime*UnboundedPrecedingFunction``.

``agg(...) OVER (PARTITION BY k ORDER BY p {ROWS|RANGE} BETWEEN UNBOUNDED PRECEDING AND CURRENT
ROW)`` with ``p`` any orderable column (Flink 2.1+): per partition key the rows are kept in ``p``
order (ascending, NULLs first, as Flink's comparator: :mod:`~streamsql.runtime.operators.sort_keys`;
rows with equal ``p`` in arrival order), and each row's result is the aggregate over the rows up
to it — ROWS: up to the row itself; RANGE: up to its last peer (equal ``p``), so peers share one
result. The result is an updating table: a row changes the results of the rows ordered after it.

Emission, per input row in arrival order, as Flink's operators emit it:

- an inserted row (``+I``, or ``+U`` of an updating input: its kind is kept) is emitted with its
  result; under RANGE, when it joins peers whose shared result changes, the peers' ``-U`` old /
  ``+U`` new pairs come first (in arrival order), then the row. Then every later row whose
  result changed emits ``-U`` old / ``+U`` new, in order;
- a retracted row (``-D`` or ``-U`` of an updating input) is removed — the first row of its
  partition equal to it in every column; one that is not there is ignored, as Flink ignores it
  (counting ``numOfIdsNotFound``) — and emitted as ``-D`` with the result it last had; then the
  rows whose result changed, as above (under RANGE its remaining peers first).

Rows whose result did not change emit nothing (Flink's early out: it stops at the first later
row whose value is unchanged; for COUNT, SUM, MIN and MAX no row after it can change then).

The aggregates are the object forms of :mod:`streamsql.functions.aggregates`, fed by each row's
partial state (:class:`~streamsql.runtime.operators.over_agg.RowPartials`). Each row keeps the
accumulators its result comes from, so a change recomputes from the changed row (RANGE: its
peer group) on, as Flink does, and stops at the first row whose accumulators come out unchanged:
an insert or retraction costs the rows whose results it changes (what it emits; RANGE: its peer
group too) plus a bisection, not the partition's size.

State: per partition key, its rows in ORDER BY order cut into blocks of at most
:data:`BLOCK_ROWS` rows (a block is split in two when it grows past that, dropped when emptied),
so an insert or a retraction touches one block: finding the row is a bisection over the blocks'
last sort keys then within one block, and a checkpoint writes only the blocks that changed. Each
row is ``[sort key, row, partials, result, accumulators]`` (the input row, its partial states,
the result last emitted for it and the accumulators it came from). Entries, ``key`` the
:func:`~streamsql.state.layout.encode_keys` of the PARTITION BY columns and ``kg`` its key group:

============================================ ===============================================
``kg + key``                                 the block directory, :data:`OVER_BLOCKS`: the
                                             next block id and the block ids in order
``kg + MAP_TAG + "O" + len + key + id(8)``   a block's rows (:data:`OVER_ROWS`; a map entry,
                                             :func:`~streamsql.state.layout.map_prefixes`)
============================================ ===============================================

Values are tagged msgpack; a partition of the earlier layout (session 26: the whole partition
under ``kg + key``, format ``over-nontime/rows``) is read as blocks and written as blocks at the
next checkpoint, so its checkpoints restore.
Partitions are read and written through the ranking operators' write-behind cache
(:class:`~streamsql.runtime.operators.rank.RankOperatorBase`): a partition's changed blocks and
its directory are written back at every checkpoint (or when it is evicted), split by key group on
rescale like all keyed state. Flink keeps it until state TTL, which is not implemented for this
operator: a job with ``'table.exec.state.ttl'`` is refused at open.
"""

from __future__ import annotations

import copy
import math
import operator
from bisect import bisect_left, bisect_right

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.elements import Batch, Element, RowKind
from streamsql.core.errors import ExecutionError
from streamsql.functions.accumulators import Aggregates
from streamsql.functions.aggregates import OVER_CONTEXT, AggSpec
from streamsql.plan.specs import OverSpec
from streamsql.runtime.operators.group_agg import cache_entries
from streamsql.runtime.operators.join import rows_of
from streamsql.runtime.operators.over_agg import RowPartials
from streamsql.runtime.operators.rank import RankOperatorBase
from streamsql.runtime.operators.sort_keys import sort_keys
from streamsql.state.cache import ObjectValues, WriteBehindCache
from streamsql.state.layout import ValueFormat, encode_keys, map_prefixes, with_key_groups

#: A block of a partition's rows in ORDER BY order:
#: ``[[sort key, row, partials, result, accumulators], ...]``.
OVER_ROWS = ValueFormat("over-nontime/block", 1)
#: A partition's block directory: ``[next block id, [block ids in order]]``.
OVER_BLOCKS = ValueFormat("over-nontime/blocks", 1)
#: The layout before blocks (session 26): a whole partition under its directory's key, ``[sort
#: keys, [[row, partials, result, accumulators], ...]]``; read and rewritten as blocks.
_ONE_VALUE = ValueFormat("over-nontime/rows", 1)
#: Rows a block holds before it is split in two: a change rewrites one block, a lookup bisects one.
BLOCK_ROWS = 512
_MAP = b"O"  # the map family of the partitions (layout.map_prefixes)

INSERT, BEFORE, AFTER, DELETE = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
SK, ROW, PARTIALS, RESULT, ACC = range(5)  # the fields of a row entry


def _prefixes(keys: list[bytes]) -> list[bytes]:
    """The map prefix of each partition key: its blocks' keys start with it."""
    return map_prefixes(with_key_groups(keys), _MAP)


class _Partition:
    """One partition's rows, in blocks; which blocks changed since they were last written.

    ``blocks[b]`` is a list of entries, ``sks[b]`` their sort keys (for bisection), ``ids[b]``
    the block's id in state; ``lasts[b]`` is ``sks[b][-1]``. ``blocks`` is None until the
    blocks are read from state (a directory read by the cache names them only).
    """

    __slots__ = ("prefix", "next_id", "ids", "blocks", "sks", "lasts", "dirty", "gone")

    def __init__(self, prefix: bytes | None = None, next_id: int = 0, ids: list[int] | None = None):
        self.prefix = prefix
        self.next_id = next_id
        self.ids: list[int] = ids or []
        self.blocks: list[list[list]] | None = None if self.ids else []
        self.sks: list[list[bytes]] = []
        self.lasts: list[bytes] = []
        self.dirty: set[int] = set()  # ids of blocks changed since written
        self.gone: list[int] = []  # ids of blocks dropped since written

    def block_key(self, block_id: int) -> bytes:
        return self.prefix + block_id.to_bytes(8, "big")

    def load(self, raws: list[bytes]) -> None:
        self.blocks = [[[sk, tuple(r), p, tuple(v), a] for sk, r, p, v, a in OVER_ROWS.decode(raw)]
                       for raw in raws]
        self.sks = [[e[SK] for e in b] for b in self.blocks]
        self.lasts = [s[-1] for s in self.sks]

    def position(self, sk: bytes, right: bool) -> tuple[int, int]:
        """Where ``sk`` goes: after its peers (``right``) or before them, as (block, index)."""
        if not self.blocks:
            return 0, 0
        find = bisect_right if right else bisect_left
        b = find(self.lasts, sk)
        if b == len(self.blocks):  # after every row: the end of the last block
            return b - 1, len(self.blocks[-1])
        return b, find(self.sks[b], sk)

    def insert(self, b: int, i: int, entry: list) -> None:
        if not self.blocks:
            self.blocks.append([])
            self.sks.append([])
            self.lasts.append(entry[SK])
            self.ids.append(self._new_id())
        self.blocks[b].insert(i, entry)
        self.sks[b].insert(i, entry[SK])
        self.lasts[b] = self.sks[b][-1]
        self.dirty.add(self.ids[b])

    def pop(self, b: int, i: int) -> list:
        entry = self.blocks[b].pop(i)
        del self.sks[b][i]
        self.dirty.add(self.ids[b])
        if self.sks[b]:
            self.lasts[b] = self.sks[b][-1]
        return entry

    def touch(self, b: int) -> None:
        self.dirty.add(self.ids[b])

    def tidy(self, b: int) -> None:
        """Split block ``b`` if it grew past :data:`BLOCK_ROWS`, drop it if emptied (after a change to it)."""
        n = len(self.blocks[b])
        if n == 0:
            self.gone.append(self.ids[b])
            self.dirty.discard(self.ids[b])
            for part in (self.blocks, self.sks, self.lasts, self.ids):
                del part[b]
        elif n > BLOCK_ROWS:
            half = n // 2
            new_id = self._new_id()
            self.blocks.insert(b + 1, self.blocks[b][half:])
            self.sks.insert(b + 1, self.sks[b][half:])
            self.lasts.insert(b + 1, self.lasts[b])
            self.ids.insert(b + 1, new_id)
            del self.blocks[b][half:], self.sks[b][half:]
            self.lasts[b] = self.sks[b][-1]
            self.dirty.add(new_id)

    def previous(self, b: int, i: int) -> list | None:
        """The entry before position (b, i), or None at the partition's start."""
        if i:
            return self.blocks[b][i - 1]
        while b:
            b -= 1
            if self.blocks[b]:
                return self.blocks[b][-1]
        return None

    def walk(self, b: int, i: int):
        """Entries from position (b, i) on, with their positions."""
        blocks = self.blocks
        while b < len(blocks):
            block = blocks[b]
            while i < len(block):
                yield b, i, block[i]
                i += 1
            b, i = b + 1, 0

    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def write_back(self, puts: list, deletes: list) -> bytes | None:
        """The changed blocks' puts, the dropped ones' deletes; the directory (None: no rows left)."""
        dirty = self.dirty
        for b, block_id in enumerate(self.ids):
            if block_id in dirty:
                rows = [[sk, list(r), p, list(v), a] for sk, r, p, v, a in self.blocks[b]]
                puts.append((self.block_key(block_id), OVER_ROWS.encode(rows)))
        deletes += [self.block_key(g) for g in self.gone]
        self.dirty, self.gone = set(), []
        return OVER_BLOCKS.encode([self.next_id, self.ids]) if self.ids else None


def _from_one_value(raw: bytes) -> _Partition:
    """A partition of the one-value layout as blocks, every block dirty (written at the next checkpoint)."""
    sks, entries = _ONE_VALUE.decode(raw)
    rows = [[sk, tuple(r), p, tuple(v), a] for sk, (r, p, v, a) in zip(sks, entries)]
    part = _Partition()
    part.blocks = [rows[i: i + BLOCK_ROWS] for i in range(0, len(rows), BLOCK_ROWS)]
    part.sks = [[e[SK] for e in b] for b in part.blocks]
    part.lasts = [b[-1] for b in part.sks]
    part.ids = list(range(len(part.blocks)))
    part.next_id = len(part.ids)
    part.dirty = set(part.ids)
    return part


class _PartitionValues(ObjectValues):
    """The cache's value store: a :class:`_Partition` per slot, its directory the slot's value.

    Writing a slot back also writes the partition's changed blocks (to ``state``, before the
    cache writes the directories, all before the backend is snapshotted).
    """

    def __init__(self, state):
        super().__init__(None, None)
        self.state = state

    def load(self, slots: np.ndarray, raws: list[bytes | None]) -> None:
        """Directories → partitions whose blocks are read when first used (they need their key)."""
        values = self.values
        for s, raw in zip(slots.tolist(), raws):
            if raw is None:
                values[s] = None
            elif bytes(raw[:3]) == _ONE_VALUE.tag:
                values[s] = _from_one_value(raw)
            else:
                next_id, ids = OVER_BLOCKS.decode(raw)
                values[s] = _Partition(None, next_id, list(ids))

    def dump(self, slots: np.ndarray) -> list[bytes | None]:
        """Each partition's directory; its changed blocks are written here."""
        puts: list = []
        deletes: list = []
        out = []
        for s in slots.tolist():
            p = self.values[s]
            out.append(None if p is None else p.write_back(puts, deletes))
        if puts or deletes:
            self.state.write(puts, deletes)
        return out


class NonTimeOverOperator(RankOperatorBase):
    """Unbounded OVER aggregates ordered by a non-time column (module docstring).

    Args:
        spec: the frame (ROWS or RANGE, UNBOUNDED PRECEDING).
        num_keys: the first ``num_keys`` input columns are the partition key.
        order_index: the input column of the ORDER BY value.
        aggs: aggregate calls over input columns (insert-only forms: rows are never retracted
            from an accumulator, a change recomputes the results).
        input_schema: Arrow schema of the input.
        output_schema: the input columns, then one column per call.
        order_sql: the ORDER BY expression as written (for an error message; default: its column's name).
    """

    state_ttl_missing = "an OVER aggregate ordered by a column that is no time attribute"

    def __init__(self, spec: OverSpec, num_keys: int, order_index: int, aggs: list[AggSpec],
                 input_schema: pa.Schema, output_schema: pa.Schema, order_sql: str | None = None):
        super().__init__(spec, None, None)
        self.num_keys = num_keys
        self.order_index = order_index
        self.output_schema = output_schema
        n_in = len(input_schema)
        self.rows = RowPartials(Aggregates(aggs, input_schema, list(output_schema)[n_in:], OVER_CONTEXT),
                                input_schema, retracts=False)
        self.peers = spec.kind == "RANGE"  # peers share one result
        fields = list(input_schema) + list(output_schema)[n_in:]
        order = input_schema.field(order_index)
        self.nan_order = pa.types.is_floating(order.type) and (order_sql or order.name)  # a NaN fails the job
        # rows and accumulators compare as Flink's (Java's equals): by a DOUBLE's bits
        self.same = _java_equal if any(pa.types.is_floating(f.type) for f in fields) else operator.eq

    def open(self, ctx) -> None:
        """The ranking operators' cache, over partitions kept in blocks (module docstring)."""
        super().open(ctx)
        self.values = _PartitionValues(self.state)
        self.cache = WriteBehindCache(self.state, self.values, cache_entries(ctx.config))

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Apply the batch's rows in arrival order, emitting each one's changelog."""
        table = batch.table
        if table.num_rows == 0:
            return []
        parts = encode_keys(table.columns[: self.num_keys], table.num_rows)
        sks = sort_keys([self._order_column(table)], [False], [True])
        adds, _ = self.rows.partials(table)
        rows = rows_of(table)
        kinds = batch.kind_array().tolist()
        keys = list(dict.fromkeys(parts))
        slots = self.cache.slots(keys)
        states = dict(zip(keys, self._partitions(keys, self.values.get(slots))))
        out_rows: list[tuple] = []
        out_kinds: list[int] = []
        for i, kind in enumerate(kinds):
            p = states[parts[i]]
            if kind in (INSERT, AFTER):
                self._insert(p, sks[i], rows[i], adds[i], kind, out_rows, out_kinds)
            else:
                self._retract(p, sks[i], rows[i], out_rows, out_kinds)
        self.values.put(slots, [states[k] for k in keys])
        self.cache.touch(slots)
        self.cache.evict()
        if not out_rows:
            return []
        columns = list(zip(*out_rows))
        arrays = [pa.array(list(c), type=f.type) for c, f in zip(columns, self.output_schema)]
        return [Batch(pa.Table.from_arrays(arrays, schema=self.output_schema), np.array(out_kinds, np.int8))]

    def _partitions(self, keys: list[bytes], cached: list) -> list[_Partition]:
        """The partitions of ``keys``, their blocks read from state where not yet (one multi-get)."""
        out = [p if p is not None else _Partition() for p in cached]
        todo = [(k, p) for k, p in zip(keys, out) if p.blocks is None or p.prefix is None]
        if todo:
            for (k, p), prefix in zip(todo, _prefixes([k for k, _ in todo])):
                p.prefix = prefix
            unread = [p for _, p in todo if p.blocks is None]
            raws = self.state.get_many([p.block_key(i) for p in unread for i in p.ids])
            at = 0
            for p in unread:
                p.load(raws[at: at + len(p.ids)])
                at += len(p.ids)
        return out

    def _order_column(self, table: pa.Table) -> pa.ChunkedArray:
        """The ORDER BY column, its sort keys as Flink's comparator orders (``a > b ? 1 : a < b ? -1 : 0``).

        -0.0 and 0.0 are peers there, as everywhere (:mod:`~streamsql.runtime.operators.sort_keys`).
        NaN compares equal to every value, which no order can give (Flink's linear search puts such
        a row, and the rows after it, where their arrival takes them): a NaN fails the job rather
        than be ordered otherwise.
        """
        column = table.column(self.order_index)
        if self.nan_order and pc.any(pc.is_nan(column)).as_py():
            msg = (f"An OVER aggregate ordered by {self.nan_order} got NaN: Flink 2.3's comparator takes "
                   f"NaN for equal to every value, so no order of the rows gives its answer; filter "
                   f"the NaN values out first (WHERE CAST({self.nan_order} AS STRING) <> 'NaN')")
            raise ExecutionError(msg)
        return column

    # -- changes ------------------------------------------------------------------------------

    def _insert(self, p: _Partition, sk: bytes, row: tuple, partials: list, kind: int,
                out_rows: list, out_kinds: list) -> None:
        """Put ``row`` after its peers; emit it, then the changed results after it."""
        b, i = p.position(sk, right=True)
        entry = [sk, row, partials, None, None]
        p.insert(b, i, entry)
        start = p.position(sk, right=False) if self.peers else (b, i)
        new = self._refresh(p, start)
        # RANGE: the peers before it first, when their shared result changed (Flink's order)
        at = (b, i)
        self._emit_changes(p, [n for n in new if n[0] < at], out_rows, out_kinds)
        entry[RESULT] = next(n[2] for n in new if n[0] == at)
        out_rows.append(row + entry[RESULT])
        out_kinds.append(kind)
        self._emit_changes(p, [n for n in new if n[0] > at], out_rows, out_kinds)
        p.tidy(b)

    def _retract(self, p: _Partition, sk: bytes, row: tuple, out_rows: list, out_kinds: list) -> None:
        """Remove the first row equal to ``row``; emit it as -D, then the changed results."""
        lo = p.position(sk, right=False)
        at = None
        for b, i, entry in p.walk(*lo):
            if entry[SK] != sk:
                break
            if self.same(entry[ROW], row):
                at = (b, i)
                break
        if at is None:  # Flink logs it (numOfIdsNotFound) and goes on
            return
        gone = p.pop(*at)
        new = self._refresh(p, lo if self.peers else at)
        # RANGE: the peers ahead of it first, then its -D, then the rows after it (Flink's order)
        self._emit_changes(p, [n for n in new if n[0] < at], out_rows, out_kinds)
        out_rows.append(gone[ROW] + gone[RESULT])
        out_kinds.append(DELETE)
        self._emit_changes(p, [n for n in new if n[0] >= at], out_rows, out_kinds)
        p.tidy(at[0])

    def _emit_changes(self, p: _Partition, new: list, out_rows: list, out_kinds: list) -> None:
        """-U old / +U new for each refreshed row whose result changed (and record it)."""
        for (b, _), entry, result in new:
            old = entry[RESULT]
            if self.same(old, result):
                continue
            out_rows += [entry[ROW] + old, entry[ROW] + result]
            out_kinds += [BEFORE, AFTER]
            entry[RESULT] = result
            p.touch(b)

    def _refresh(self, p: _Partition, start: tuple[int, int]) -> list:
        """Recompute the accumulators and results from position ``start`` on.

        Returns ``[((block, index), entry, new result)]`` of the rows recomputed, in order. Each
        row keeps the accumulator its result comes from (ROWS: the rows up to it; RANGE: its
        peer group's). Once a row's (a group's) recomputed accumulator equals the one it has,
        every later one does too (each folds the same rows onto it), so the pass stops there.
        """
        agg, fold = self.rows.aggregates, self.rows.fold
        before = p.previous(*start)
        acc = _copy(before[ACC]) if before is not None else agg.new()
        new: list = []
        group: list = []  # the current peer group's (position, entry)
        walk = p.walk(*start)
        nxt = next(walk, None)
        while nxt is not None:
            b, i, entry = nxt
            group = [((b, i), entry)]
            nxt = next(walk, None)
            if self.peers:
                while nxt is not None and nxt[2][SK] == entry[SK]:
                    group.append(((nxt[0], nxt[1]), nxt[2]))
                    nxt = next(walk, None)
            for _, e in group:
                fold(acc, e[PARTIALS], 1)
            if self.same(group[-1][1][ACC], acc):
                break
            result = agg.result(acc)
            kept = _copy(acc)  # peers share it: it is never folded into (the next pass copies it)
            for pos, e in group:
                e[ACC] = kept
                p.touch(pos[0])
                new.append((pos, e, result))
        return new


def _java_equal(x: object, y: object) -> bool:
    """Java's ``equals`` of two rows, results or accumulators: DOUBLEs by their bits.

    NaN equals NaN (a retraction of a row with a NaN finds it, as Flink's row equaliser does) and
    -0.0 is not 0.0 (a result going from -0.0 to 0.0 is an update, as Flink's accumulator equals).
    """
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_java_equal(a, b) for a, b in zip(x, y))
    if isinstance(x, float) and isinstance(y, float):
        if x != x:
            return y != y
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    return x == y


def _copy(acc: list) -> list:
    """A copy of accumulators ``acc`` that folding into the original leaves unchanged.

    COUNT's int, SUM's and AVG's ``[sum, count]`` list, MIN's and MAX's value are copied one
    level down; a DISTINCT aggregate's multiset and FIRST_VALUE's / LAST_VALUE's value list
    whole (plan/over.py's ``NONTIME_FUNCTIONS``).
    """
    return [_copied(a) for a in acc]


def _copied(a):
    if isinstance(a, list) and not any(isinstance(x, (list, dict)) for x in a):
        return list(a)
    return copy.deepcopy(a) if isinstance(a, (list, dict)) else a
