"""GroupAggregate with fixed-width accumulators, folded and compared as numpy arrays.

Same semantics and changelog as :class:`~streamsql.runtime.operators.group_agg.GroupAggOperator`
(Flink's GroupAggFunction, mini-batch style: per batch, ``+I`` for a new key, ``-U``/``+U`` for
a changed result (``+U`` alone when no consumer needs -U rows), ``-D`` when a key's last row is
retracted, nothing for an unchanged result),
for the common case where every accumulator is a fixed set of numbers: COUNT(*), COUNT(x),
SUM(x) / AVG(x) over integers or floating point, MIN/MAX(x) over integers, floating point,
dates and timestamps on insert-only input (over a changelog MIN/MAX need a multiset and
:func:`create_group_agg` picks the general operator).

The calls are the objects of :mod:`streamsql.functions.aggregates` in their fixed-width form,
composed by :class:`~streamsql.functions.accumulators.Aggregates` (row count first). Per batch
there is no per-key Python beyond one dict lookup per distinct key: numpy groups an insert-only
batch by one integer key for COUNT, MIN and MAX
(:meth:`~streamsql.functions.accumulators.Aggregates.partials_numpy`), otherwise DuckDB computes
the signed partial states per key (the same query as the general operator's); the keys' slots in a
:class:`~streamsql.state.cache.WriteBehindCache` over
:class:`~streamsql.state.fixed_cache.FixedWidthValues` are looked up (misses with one
multi-get), the partials are folded with array operations, and old and new results are compared
and gathered into the output columns with numpy.

Accumulator record (the backend value, :data:`GROUP_AGG_FIXED`): the format's tag, then the
packed little-endian record of :meth:`~streamsql.functions.accumulators.Aggregates.fixed_dtype`,
the fields of each state in order (``p0_c`` the row count). State keys as the general operator's.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, RowKind
from streamsql.functions.accumulators import fixed_width_supported
from streamsql.functions.aggregates import AggSpec
from streamsql.runtime.operators.base import Operator
from streamsql.runtime.operators.group_agg import GroupAggBase, GroupAggOperator
from streamsql.state.fixed_cache import FixedWidthValues
from streamsql.state.layout import ValueFormat

#: The value of a key of the columnar GROUP BY: a tagged fixed-width record.
GROUP_AGG_FIXED = ValueFormat("group-agg/fixed-width", 1)


def create_group_agg(num_keys: int, aggs: list[AggSpec], input_schema: pa.Schema,
                     output_schema: pa.Schema, state_ttl_ms: int | None = None,
                     updating_input: bool = False, update_before: bool = True) -> Operator:
    """The GROUP BY operator for these calls: columnar when it can be, else the general one.

    Args: as :class:`~streamsql.runtime.operators.group_agg.GroupAggOperator`'s.
    """
    if fixed_width_supported(aggs, input_schema):
        return ColumnarGroupAggOperator(num_keys, aggs, input_schema, output_schema, state_ttl_ms,
                                        update_before)
    return GroupAggOperator(num_keys, aggs, input_schema, output_schema, state_ttl_ms, updating_input,
                            update_before)


class ColumnarGroupAggOperator(GroupAggBase):
    """Keyed, updating aggregation over fixed-width accumulators (see module docstring).

    Args: as :class:`~streamsql.runtime.operators.group_agg.GroupAggBase`;
    :func:`fixed_width_supported` must hold for the calls.
    """

    def __init__(self, num_keys: int, aggs: list[AggSpec], input_schema: pa.Schema, output_schema: pa.Schema,
                 state_ttl_ms: int | None = None, update_before: bool = True):
        super().__init__(num_keys, aggs, input_schema, output_schema, state_ttl_ms, update_before)
        self._dtype = self.aggregates.fixed_dtype()
        self._count = self.aggregates.states[0].field("c")  # the row count

    def _new_values(self) -> FixedWidthValues:
        return FixedWidthValues(self._dtype, GROUP_AGG_FIXED)

    def _new_cache(self, state, max_entries: int):
        """The backend's column table (``hashmap``: the values stay numpy columns), else a cache."""
        table = state.column_table(self.values)
        return table if table is not None else super()._new_cache(state, max_entries)

    def _old_counts(self, keys: pa.Table, rows: np.ndarray) -> np.ndarray:
        """The row count of each key's record, 0 where it has none."""
        slots = self.cache.key_slots(keys.columns[: self.num_keys], keys.num_rows)
        return np.where(self.values.present[slots], self.values.columns[self._count][slots], 0)

    def _fold_batch(self, batch: Batch) -> list[Element]:
        """Fold ``batch`` into keyed state and emit the changes of the keys it touched.

        Raises:
            ExecutionError: an integer SUM left the BIGINT range (within the batch or across).
        """
        res = self.aggregates.partials_numpy(batch.table, self.num_keys) if batch.insert_only else None
        if res is None:
            _, res = self._partials(batch)
        aggregates = self.aggregates
        slots = self.cache.key_slots(res.columns[: self.num_keys], res.num_rows)
        values = self.values
        cols = values.columns

        old_present = values.present[slots].copy()
        old = aggregates.results_fixed(cols, slots)
        aggregates.start_fixed(cols, slots[~old_present])
        aggregates.fold_fixed(cols, slots, res)
        alive = cols[self._count][slots] > 0
        gone = slots[~alive]
        if len(gone):  # a key whose rows are all retracted has no state (Flink: -D, then forgotten)
            for col in cols.values():
                col[gone] = 0
        values.present[slots] = alive
        self.cache.touch(slots)
        new = aggregates.results_fixed(cols, slots)

        inserted = alive & ~old_present
        deleted = ~alive & old_present
        changed = alive & old_present
        if self.ttl is None:  # with state TTL an unchanged result is emitted again, as Flink
            changed &= _differs(old, new, len(slots))
        self.cache.evict()
        return self._emit(res, old, new, inserted, deleted, changed)

    def _emit(self, res: pa.Table, old, new, inserted, deleted, changed) -> list[Element]:
        """The changelog batch: per key, -D old | +I new | [-U old,] +U new (key order kept)."""
        ub = self.update_before
        per_key = inserted.astype(np.int64) + deleted + (1 + ub) * changed
        total = int(per_key.sum())
        if total == 0:
            return []
        src = np.repeat(np.arange(len(per_key)), per_key)
        first = np.cumsum(per_key) - per_key  # each key's first output row
        use_new = np.ones(total, bool)
        use_new[first[deleted]] = False
        kinds = np.full(total, RowKind.INSERT, np.int8)
        kinds[first[deleted]] = RowKind.DELETE
        if ub:
            use_new[first[changed]] = False
            kinds[first[changed]] = RowKind.UPDATE_BEFORE
        kinds[first[changed] + ub] = RowKind.UPDATE_AFTER
        take = pa.array(src)
        arrays = [res.column(i).take(take) for i in range(self.num_keys)]
        for ai, ((ov, ok), (nv, nok)) in enumerate(zip(old, new)):
            f = self.output_schema.field(self.num_keys + ai)
            values = np.where(use_new, nv[src], ov[src])
            mask = None
            if ok is not None:
                mask = ~np.where(use_new, nok[src], ok[src])
            arrays.append(_to_arrow(values, mask, f.type))
        arrays = [a.cast(f.type) if a.type != f.type else a for a, f in zip(arrays, self.output_schema)]
        return [Batch(pa.Table.from_arrays(arrays, schema=self.output_schema), kinds)]


def _differs(old, new, n: int) -> np.ndarray:
    """True per key (``n`` of them) where any result (value or NULL-ness) changed.

    As Flink's equaliser (:func:`~streamsql.runtime.operators.group_agg_rows.results_equal`):
    floating values by Java's ``==``, -0.0 equal to 0.0 and NaN to nothing.
    """
    out = np.zeros(n, bool)  # no result at all (GROUP BY without aggregates): never changed
    for (ov, ok), (nv, nok) in zip(old, new):
        diff = ov != nv
        if ok is not None:
            diff = (diff & (ok | nok)) | (ok != nok)  # a NULL's stale value does not count
        out |= diff
    return out


def _to_arrow(values: np.ndarray, mask: np.ndarray | None, t: pa.DataType) -> pa.Array:
    """Numpy values (+ NULL mask) → an Arrow array of type ``t`` (dates/timestamps from storage)."""
    if pa.types.is_timestamp(t):
        return pa.array(values.astype(np.int64, copy=False), pa.int64(), mask=mask).view(t)
    if pa.types.is_date32(t):
        return pa.array(values.astype(np.int32), pa.int32(), mask=mask).view(t)
    if pa.types.is_date64(t):
        return pa.array(values.astype(np.int64, copy=False), pa.int64(), mask=mask).view(t)
    arr = pa.array(values, mask=mask)
    return arr if arr.type == t else arr.cast(t)
