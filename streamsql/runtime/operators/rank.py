r"""Top-N and deduplication keeping the last row, as Flink's ``Rank`` and ``Deduplicate`` operators.

Semantics (Flink 2.3's ``AppendRankFunction`` / ``RetractableTopNFunction`` and its row-time
deduplication keeping the last row): per partition key the rows are ordered by the ORDER BY keys
(:mod:`~streamsql.runtime.operators.sort_keys`); a row tied with rows already there ranks after
them (arrival order), except for deduplication keeping the last row, where a new row with an
equal rowtime replaces the kept one. The rows ranked ``rank_start .. rank_end`` are the result,
an updating table:

- with the rank number read downstream, each position whose row changed emits ``-U`` old /
  ``+U`` new (with its ``rn``), ``+I`` when the position was empty, ``-D`` when it empties;
- without it (the no-ranking-number form) only the ranked rows themselves are diffed: a row
  that left the range is retracted, one that entered is inserted, a row that only moved emits
  nothing.

Emission over an insert-only input is per batch (as Flink's mini-batch ranking): the folded
changelog is the same. Over an updating input it is per row (``per_row``), as Flink's
``RetractableTopNFunction``: each input row, each half of an update, is a step whose changes are
emitted, so a retraction that shifts tied rows equal to the eye shows as ``-D`` and ``+I`` of the
same values (``tests/runtime/topn_ties_flink.json``), a constant rank number (``rn <= 1``) is not
diffed by position (Flink's RedundantRankNumberColumnRemoveRule) and a row that leaves or enters
is ``-D`` / ``+I``, never an update; a temporal join's versioned side keeps every such version.

Input: insert-only, or updating (a ``GROUP BY`` result, a CDC source): a ``-U``/``-D`` row removes
the first row of its partition equal to it on the columns read above the ranking and its keys
(``equal_on``: Flink's equaliser over its pruned input), and the next rows move up. Over an
insert-only input a partition keeps only its first ``rank_end`` rows (a row beyond them can never
enter the range again); over an updating input it keeps all its rows, as Flink's retractable
Top-N does. A retraction of a row
the partition does not hold is ignored (Flink's default ``table.exec.rank.topn-cache-size``
behaviour logs and drops it).

State: per partition key, ``kg + key`` (:func:`~streamsql.state.layout.encode_keys` of the
PARTITION BY columns, ``kg`` its key group) → :data:`RANK_ROWS`: ``[sort keys, rows]``, the
partition's rows in rank order with their order-preserving sort keys, as tagged msgpack. Per
batch the partitions the batch touches are read once through a
:class:`~streamsql.state.cache.WriteBehindCache` (one multi-get for the misses, ``'state.cache.
max-entries'``), and written back on eviction and at every checkpoint (``snapshot_state``).

State TTL (``'table.exec.state.ttl'``, :mod:`streamsql.state.ttl`): a partition whose state was
not written for the TTL has none: its next row ranks alone (first position ``+I``), and the
ranked rows emitted before are not retracted, as Flink's Rank and Deduplicate after state
cleanup. Flink stamps a Top-N's rows per sort key; here a partition's rows expire together, on
the partition's last write.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from operator import itemgetter

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.elements import Batch, Element, RowKind
from streamsql.runtime.operators.base import Operator, OperatorContext, state_ttl
from streamsql.runtime.operators.group_agg import cache_entries
from streamsql.runtime.operators.join import rows_of
from streamsql.runtime.operators.sort_keys import sort_keys
from streamsql.state.cache import ObjectValues, WriteBehindCache
from streamsql.state.layout import ValueFormat, encode_keys
from streamsql.state.ttl import TtlKeyedState

#: A partition's ranked rows: ``[sort keys, rows]`` (rows as lists of SQL values).
RANK_ROWS = ValueFormat("rank/rows", 1)

INSERT, BEFORE, AFTER, DELETE = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE


def _dump(value: tuple[list[bytes], list[tuple]]) -> bytes:
    return RANK_ROWS.encode([value[0], [list(r) for r in value[1]]])


def _load(raw: bytes) -> tuple[list[bytes], list[tuple]]:
    sks, rows = RANK_ROWS.decode(raw)
    return list(sks), [tuple(r) for r in rows]


class RankSpec:
    """What a ranking operator needs from its plan node (:class:`~streamsql.plan.ranking.RankNode`).

    Attributes: as the plan node's (``partition``, ``order``, ``descending``, ``nulls_first``,
    ``rank_start``, ``rank_end``, ``rn_index``, ``output_rank``, ``new_row_wins_ties``,
    ``window_end``, ``limit``, ``equal_on``), plus ``schema``, the Arrow schema of input and
    output batches.
    """

    def __init__(self, node, schema: pa.Schema):
        for name in ("partition", "order", "descending", "nulls_first", "rank_start", "rank_end", "rn_index",
                     "output_rank", "new_row_wins_ties", "window_end", "limit"):
            setattr(self, name, getattr(node, name))
        self.equal_on = getattr(node, "equal_on", None)
        self.schema = schema

    def keys(self, table: pa.Table) -> tuple[list[bytes], list[bytes]]:
        """``(partition keys, sort keys)`` of every row of ``table``."""
        columns = table.columns
        parts = encode_keys([columns[i] for i in self.partition], table.num_rows)
        if not self.order:  # a LIMIT: every row ties, arrival order ranks them
            return parts, [b""] * table.num_rows
        return parts, sort_keys([columns[i] for i in self.order], self.descending, self.nulls_first)

    def candidates(self, parts: list[bytes], sks: list[bytes]) -> np.ndarray:
        """Indexes (ascending) of the rows of an insert-only batch that can reach their partition's top.

        Within the batch, only a partition's first ``rank_end`` rows in rank order (sort key, then
        arrival; the latest arrival first when a new row wins ties) can be among its first
        ``rank_end`` rows after the batch, so the others need no per-row step. Sorted by Arrow.
        """
        n = len(parts)
        if n <= self.rank_end:
            return np.arange(n)
        table = pa.table({"p": pa.array(parts, pa.binary()), "s": pa.array(sks, pa.binary()),
                          "i": pa.array(np.arange(n))})
        arrival = "descending" if self.new_row_wins_ties else "ascending"
        order = pc.sort_indices(table, sort_keys=[("p", "ascending"), ("s", "ascending"), ("i", arrival)])
        sorted_parts = table.column("p").take(order).combine_chunks()
        starts = np.ones(n, bool)  # where a new partition begins in sorted order
        starts[1:] = pc.not_equal(sorted_parts[1:], sorted_parts[:-1]).to_numpy(zero_copy_only=False)
        group_start = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
        keep = np.arange(n) - group_start < self.rank_end
        return np.sort(order.to_numpy()[keep])

    def insert(self, sks: list[bytes], rows: list[tuple], sk: bytes, row: tuple, bounded: bool) -> int | None:
        """Put ``row`` at its rank (after its ties, or before them when a new row wins ties).

        ``bounded``: keep only the first ``rank_end`` rows (an insert-only input). Returns the
        position (0-based) it took, or None when it was not kept.
        """
        pos = (bisect_left if self.new_row_wins_ties else bisect_right)(sks, sk)
        if bounded and pos >= self.rank_end:
            return None
        sks.insert(pos, sk)
        rows.insert(pos, row)
        if bounded and len(rows) > self.rank_end:
            sks.pop()
            rows.pop()
        return pos

    def ranked(self, rows: list[tuple]) -> list[tuple]:
        """The rows in the rank range, with their rank number when it is read downstream."""
        start, rn = self.rank_start - 1, self.rn_index
        chosen = rows[start:self.rank_end]
        if not self.output_rank:
            return chosen
        return [r[:rn] + (start + 1 + p,) + r[rn + 1:] for p, r in enumerate(chosen)]

    def to_batch(self, rows: list[tuple], kinds: list[int] | None) -> Batch:
        """Output rows (tuples in schema order) as one batch; ``kinds`` None means all +I."""
        columns = list(zip(*rows))
        arrays = [pa.array(list(c), type=f.type) for c, f in zip(columns, self.schema)]
        table = pa.Table.from_arrays(arrays, schema=self.schema)
        return Batch(table, None if kinds is None else np.array(kinds, np.int8))


def group_by_key(keys: list[bytes]) -> dict[bytes, list[int]]:
    """Row indexes per distinct key, keys and rows in arrival order."""
    groups: dict[bytes, list[int]] = {}
    for i, k in enumerate(keys):
        rows = groups.get(k)
        if rows is None:
            groups[k] = [i]
        else:
            rows.append(i)
    return groups


class RankOperatorBase(Operator):
    """What the ranking operators share: the spec, and partitions in a write-behind cache.

    Args:
        spec: the ranking.
        dump / load: the codec of a partition's state value.
    """

    stateful = True
    expires = False  # whether 'table.exec.state.ttl' applies (the operator keeps no timers in state)

    def __init__(self, spec: RankSpec, dump, load):
        self.spec = spec
        self._codec = (dump, load)

    def open(self, ctx: OperatorContext) -> None:
        """Start with an empty cache (restored state is in the backend).

        Raises:
            ConfigError: a bad ``'state.cache.max-entries'`` or ``'table.exec.state.ttl'``.
        """
        super().open(ctx)
        self.values = ObjectValues(*self._codec)
        self.ttl = state_ttl(ctx) if self.expires else None
        self.state = TtlKeyedState(ctx.state, self.ttl) if self.ttl else ctx.state
        self.cache = WriteBehindCache(self.state, self.values, cache_entries(ctx.config))

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Write back every changed partition before the backend is snapshotted (and purge expired ones)."""
        self.cache.flush()
        if self.ttl:
            self.state.purge()


class TopNOperator(RankOperatorBase):
    """Top-N (and deduplication keeping the last row) over keyed state (module docstring).

    Args:
        spec: the ranking.
        updating_input: the input carries retractions (keep every row of a partition).
        update_before: emit a changed row as -U old, +U new; False: as +U new alone (no
            consumer needs -U rows, :mod:`streamsql.plan.update_kinds`).
        per_row: diff the ranked rows after each input row, not once per batch (a temporal
            join's versioned side: every row that led its partition is a version there).
    """

    expires = True

    def __init__(self, spec: RankSpec, updating_input: bool, update_before: bool = True,
                 per_row: bool = False):
        super().__init__(spec, _dump, _load)
        self.bounded = not updating_input
        self.per_row = per_row
        # a changed row's kinds, and which of [old, new] they carry
        self._change = ([BEFORE, AFTER], slice(None)) if update_before else ([AFTER], slice(1, None))
        # changes diffed by position (rn read); over an updating input a constant rn (rank_start ==
        # rank_end) is not, as Flink's RedundantRankNumberColumnRemoveRule makes it a literal there
        self._by_position = spec.output_rank and not (updating_input and spec.rank_start == spec.rank_end)
        if updating_input:
            # Flink's RetractableTopNFunction takes one row at a time: each input row (each half of
            # an update) is a step of its own, a retraction shifting the rows after it even when
            # the ranked rows look the same after (-D and +I of equal rows: topn_ties_flink.json)
            self.per_row = True
        if updating_input and not self._by_position and (update_before or per_row):
            # RetractableTopNFunction without row number emits a row that leaves the range as -D
            # and one that enters as +I, never as an update: a temporal join takes that -D as a
            # version (a deletion at the row's rowtime). Into an upsert consumer on the partition
            # key (no -U needed: update_before False) the new row stays a +U, as before (not probed)
            self._change = ([DELETE, INSERT], slice(None))
        elif not spec.output_rank and self.bounded and spec.rank_start == 1 and spec.rank_end > 1:
            # Flink's AppendOnlyTopNFunction without row number or offset (a SortLimit, or a Top-N
            # whose rn is not read: processElementWithoutRowNumber) retires the row pushed out as
            # -D and emits the new one as +I (PyFlink: ORDER BY v DESC, id LIMIT 2 prints ...
            # -D[1, 1], +I[4, 2] ...; sort_keys_flink.json's topn_norn cases), not as an update;
            # LIMIT 1, an OFFSET (updates by position) and an updating input give -U/+U there
            self._change = ([DELETE, INSERT], slice(None))

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Apply the batch's rows to their partitions and emit the changes of the ranked rows."""
        spec = self.spec
        table = batch.table
        parts, sks = spec.keys(table)
        signs = batch.signs() if not batch.insert_only else None
        if signs is None and self.bounded and not self.per_row:  # rows that cannot reach the top need no step
            keep = spec.candidates(parts, sks)
            if len(keep) < len(parts):
                table = table.take(pa.array(keep))
                parts, sks = [parts[i] for i in keep.tolist()], [sks[i] for i in keep.tolist()]
        rows = rows_of(table)
        groups = group_by_key(parts)
        slots = self.cache.slots(list(groups))
        states = self.values.get(slots)
        out_rows: list[tuple] = []
        out_kinds: list[int] = []
        news = []
        for state, idxs in zip(states, groups.values()):
            key_sks, key_rows = (list(state[0]), list(state[1])) if state is not None else ([], [])
            before = spec.ranked(key_rows)
            for i in idxs:
                if signs is None or signs[i] > 0:
                    at = spec.insert(key_sks, key_rows, sks[i], rows[i], self.bounded)
                else:
                    at = _retract(key_sks, key_rows, sks[i], rows[i], spec.equal_on)
                if self.per_row and at is not None and at < spec.rank_end:  # else the ranked rows stay
                    after = spec.ranked(key_rows)
                    self._diff(before, after, out_rows, out_kinds)
                    before = after
            if not self.per_row:
                self._diff(before, spec.ranked(key_rows), out_rows, out_kinds)
            news.append((key_sks, key_rows) if key_rows else None)
        self.values.put(slots, news)
        self.cache.touch(slots)
        self.cache.evict()
        return [spec.to_batch(out_rows, out_kinds)] if out_rows else []

    def _diff(self, before: list[tuple], after: list[tuple], rows: list[tuple], kinds: list[int]) -> None:
        """Append the changelog that turns ranked rows ``before`` into ``after``."""
        if self._by_position:  # rn is part of the row
            for p in range(max(len(before), len(after))):
                old = before[p] if p < len(before) else None
                new = after[p] if p < len(after) else None
                if old == new:
                    continue
                if old is not None and new is not None:
                    rows += [old, new][self._change[1]]
                    kinds += self._change[0]
                elif old is not None:
                    rows.append(old)
                    kinds.append(DELETE)
                else:
                    rows.append(new)
                    kinds.append(INSERT)
            return
        if len(before) <= 1 and len(after) <= 1:  # top-1 and deduplication: no multiset needed
            if before == after:
                return
            gone, came = before, after
        else:
            gone = list((Counter(before) - Counter(after)).elements())
            came = list((Counter(after) - Counter(before)).elements())
        paired = min(len(gone), len(came))
        change_kinds, which = self._change
        for old, new in zip(gone[:paired], came[:paired]):
            rows += [old, new][which]
            kinds += change_kinds
        rows += gone[paired:] + came[paired:]
        kinds += [DELETE] * (len(gone) - paired) + [INSERT] * (len(came) - paired)


def _retract(sks: list[bytes], rows: list[tuple], sk: bytes, row: tuple,
             equal_on: list[int] | None) -> int | None:
    """Remove the first row of sort key ``sk`` equal to ``row`` on the columns ``equal_on`` (None: all).

    As Flink's ``RetractableTopNFunction``, whose equaliser compares the columns of its (pruned)
    input: of tied rows equal on them, the first in rank order goes, whichever was inserted. Equal as
    the row taken before is: a NaN field equals a NaN (Python's ``nan == nan`` is False, so a row
    holding one was never retracted: query fuzz seed 500068, a debezium delete of a row whose FLOAT
    was NaN kept it in the Top-N). Returns the position (0-based) of the row removed, or None when
    there was none.
    """
    lo, hi = bisect_left(sks, sk), bisect_right(sks, sk)
    tied = rows[lo:hi]
    wanted = row
    if equal_on is not None:  # the tied rows' projections, built by C loops (ties can be many)
        tied = list(zip(*(map(itemgetter(i), tied) for i in equal_on)))
        wanted = tuple(row[i] for i in equal_on)
    if any(x != x for x in wanted):  # a NaN: equal to a NaN only (a row holding none is found by ==)
        at = next((j for j, r in enumerate(tied) if _same_row(r, wanted)), None)
    else:
        try:
            at = tied.index(wanted)
        except ValueError:
            at = None
    if at is None:
        return None
    del sks[lo + at]
    del rows[lo + at]
    return lo + at


def _same_row(a: tuple, b: tuple) -> bool:
    """``a == b``, a NaN equal to a NaN."""
    return a == b or (len(a) == len(b) and all(x == y or (x != x and y != y) for x, y in zip(a, b)))
