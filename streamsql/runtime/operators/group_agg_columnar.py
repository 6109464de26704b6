"""GroupAggregate with fixed-width accumulators, folded and compared as numpy arrays.

Same semantics and changelog as :class:`~streamsql.runtime.operators.group_agg.GroupAggOperator`
(Flink's GroupAggFunction, mini-batch style: per batch, ``+I`` for a new key, ``-U``/``+U`` for
a changed result, ``-D`` when a key's last row is retracted, nothing for an unchanged result),
for the common case where every accumulator is a fixed set of numbers: COUNT(*), COUNT(x),
SUM(x) / AVG(x) over integers or floating point, MIN/MAX(x) over integers, floating point,
dates and timestamps on insert-only input (over a changelog MIN/MAX need a multiset and
:func:`create_group_agg` picks the general operator).

Per batch there is no per-key Python beyond one dict lookup per distinct key: DuckDB computes
the signed partial aggregates per key, the keys' slots in a
:class:`~streamsql.state.fixed_cache.FixedWidthCache` are looked up (misses with one multi-get),
the partials are folded with array operations, and old and new results are compared and
gathered into the output columns with numpy.

Accumulator record (little-endian, packed; the backend value is these bytes): ``n`` int64 row
count, then per call ``ai``: COUNT ``c{ai}``; SUM/AVG ``s{ai}`` (int64 or float64) and
``c{ai}`` non-NULL count; MIN/MAX ``v{ai}`` (int64 or float64; dates and timestamps as their
integer storage) and ``h{ai}`` int8 (1 once a non-NULL value was seen).
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, RowKind
from streamsql.core.errors import ExecutionError
from streamsql.runtime.evaluator import query_table
from streamsql.runtime.operators.base import Operator, OperatorContext
from streamsql.runtime.operators.group_agg import AggSpec, GroupAggOperator, cache_entries
from streamsql.state.fixed_cache import FixedWidthCache
from streamsql.state.layout import encode_keys


def _numeric_kind(t: pa.DataType) -> str | None:
    """'i' (folded as int64), 'f' (float64) or None (not fixed-width here)."""
    if pa.types.is_integer(t) or pa.types.is_timestamp(t) or pa.types.is_date(t):
        return "i"
    if pa.types.is_floating(t):
        return "f"
    return None


def fixed_width_supported(aggs: list[AggSpec], input_schema: pa.Schema) -> bool:
    """True when every call has a fixed-width accumulator (see module docstring)."""
    for a in aggs:
        if a.func == "count_star" or a.func == "count":
            continue
        if a.func not in ("sum", "avg", "min", "max"):
            return False
        t = input_schema.field(a.arg).type
        kind = _numeric_kind(t)
        if kind is None or (a.func in ("sum", "avg") and not (pa.types.is_integer(t) or kind == "f")):
            return False
    return True


def create_group_agg(num_keys: int, aggs: list[AggSpec], input_schema: pa.Schema,
                     output_schema: pa.Schema) -> Operator:
    """The GROUP BY operator for these calls: columnar when it can be, else the general one."""
    if fixed_width_supported(aggs, input_schema):
        return ColumnarGroupAggOperator(num_keys, aggs, input_schema, output_schema)
    return GroupAggOperator(num_keys, aggs, input_schema, output_schema)


class ColumnarGroupAggOperator(Operator):
    """Keyed, updating aggregation over fixed-width accumulators (see module docstring).

    Args:
        num_keys: the first ``num_keys`` input columns are the grouping key.
        aggs: the calls; :func:`fixed_width_supported` must hold.
        input_schema: Arrow schema of input batches.
        output_schema: keys then one column per call.
    """

    stateful = True

    def __init__(self, num_keys: int, aggs: list[AggSpec], input_schema: pa.Schema, output_schema: pa.Schema):
        self.num_keys = num_keys
        self.aggs = aggs
        self.output_schema = output_schema
        names = input_schema.names
        q = lambda i: '"' + names[i].replace('"', '""') + '"'  # noqa: E731
        keys = [q(i) for i in range(num_keys)]
        cols = keys + ["sum(__sign)::BIGINT AS n"]
        fields = [("n", "<i8")]
        for ai, a in enumerate(aggs):
            kind = None if a.arg is None else _numeric_kind(input_schema.field(a.arg).type)
            num = "<f8" if kind == "f" else "<i8"
            cast = "DOUBLE" if kind == "f" else "BIGINT"
            if a.func in ("count", "sum", "avg"):
                cols.append(f"sum(CASE WHEN {q(a.arg)} IS NOT NULL THEN __sign ELSE 0 END)::BIGINT AS c{ai}")
                fields.append((f"c{ai}", "<i8"))
            if a.func in ("sum", "avg"):
                signed = f"CASE WHEN __sign > 0 THEN {q(a.arg)} ELSE -{q(a.arg)} END"
                cols.append(f"sum({signed})::{cast} AS s{ai}")
                fields.append((f"s{ai}", num))
            elif a.func in ("min", "max"):
                cols.append(f"{a.func}({q(a.arg)}) AS v{ai}")
                fields += [(f"v{ai}", num), (f"h{ai}", "<i1")]
        group = f" GROUP BY {', '.join(keys)}" if keys else ""
        self._partial_sql = f"SELECT {', '.join(cols)} FROM __in{group}"
        self._dtype = np.dtype(fields)
        self._con = duckdb.connect()
        self.cache: FixedWidthCache | None = None

    def open(self, ctx: OperatorContext) -> None:
        """Start with an empty cache (restored state is in the backend).

        Raises:
            ConfigError: a bad ``'state.cache.max-entries'``.
        """
        super().open(ctx)
        self.cache = FixedWidthCache(ctx.state, self._dtype, cache_entries(ctx.config))

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Write back every changed accumulator before the backend is snapshotted."""
        self.cache.flush()

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Fold ``batch`` into keyed state and emit the changes of the keys it touched."""
        table = batch.table.append_column("__sign", pa.array(batch.signs(), pa.int8()))
        try:
            res = query_table(self._con, self._partial_sql, table)
        except (duckdb.OutOfRangeException, duckdb.ConversionException) as e:  # a batch's SUM beyond BIGINT
            raise _overflow(str(e).splitlines()[0]) from None
        cache = self.cache
        slots = cache.slots(encode_keys(res.columns[: self.num_keys], res.num_rows))
        cols = cache.columns
        nk = self.num_keys

        old_present = cache.present[slots].copy()
        old = self._results(slots)
        n = cols["n"][slots] + _numpy(res.column(nk), np.int64)
        cols["n"][slots] = n
        for ai, a in enumerate(self.aggs):
            if a.func in ("count", "sum", "avg"):
                cols[f"c{ai}"][slots] += _numpy(res.column(f"c{ai}"), np.int64)
            if a.func in ("sum", "avg"):
                self._fold_sum(ai, slots, _numpy(res.column(f"s{ai}"), cols[f"s{ai}"].dtype))
            elif a.func in ("min", "max"):
                out_type = self.output_schema.field(nk + ai).type  # same unit as the output
                self._fold_extreme(ai, a.func, slots, res.column(f"v{ai}").cast(out_type))
        alive = n > 0
        gone = slots[~alive]
        if len(gone):  # a key whose rows are all retracted has no state (Flink: -D, then forgotten)
            for col in cols.values():
                col[gone] = 0
        cache.present[slots] = alive
        cache.touch(slots)
        new = self._results(slots)

        inserted = alive & ~old_present
        deleted = ~alive & old_present
        changed = alive & old_present & _differs(old, new)
        cache.evict()
        return self._emit(res, old, new, inserted, deleted, changed)

    # -- helpers ------------------------------------------------------------------------------

    def _fold_sum(self, ai: int, slots: np.ndarray, partial: np.ndarray) -> None:
        """Add a batch's partial sums; an integer sum that leaves BIGINT fails the job, never wraps.

        Raises:
            ExecutionError: the sum overflowed (as DuckDB's and Flink's BIGINT arithmetic are
                bounded; the general operator raises the same way).
        """
        col = self.cache.columns[f"s{ai}"]
        cur = col[slots]
        total = cur + partial
        if col.dtype.kind == "i" and (((cur ^ total) & (partial ^ total)) < 0).any():
            name = self.output_schema.field(self.num_keys + ai).name
            detail = f"{name} (a SUM) is out of the BIGINT range"
            raise _overflow(detail)
        col[slots] = total

    def _fold_extreme(self, ai: int, func: str, slots: np.ndarray, partial: pa.ChunkedArray) -> None:
        cols = self.cache.columns
        v, h = cols[f"v{ai}"], cols[f"h{ai}"]
        valid = _valid(partial)
        new = _numpy(partial, v.dtype)
        cur, seen = v[slots], h[slots].astype(bool)
        better = np.minimum(cur, new) if func == "min" else np.maximum(cur, new)
        v[slots] = np.where(valid, np.where(seen, better, new), cur)
        h[slots] = seen | valid

    def _results(self, slots: np.ndarray) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """Per call: (values, validity or None for never NULL) of the keys at ``slots``."""
        cols = self.cache.columns
        out = []
        for ai, a in enumerate(self.aggs):
            f = a.func
            if f == "count_star":
                out.append((cols["n"][slots], None))
            elif f == "count":
                out.append((cols[f"c{ai}"][slots], None))
            elif f in ("sum", "avg"):
                c, s = cols[f"c{ai}"][slots], cols[f"s{ai}"][slots]
                if f == "avg":
                    s = s.astype(np.float64) / np.where(c > 0, c, 1)
                out.append((s, c > 0))
            else:
                out.append((cols[f"v{ai}"][slots], cols[f"h{ai}"][slots].astype(bool)))
        return out

    def _emit(self, res: pa.Table, old, new, inserted, deleted, changed) -> list[Element]:
        """The changelog batch: per key, -D old | +I new | -U old, +U new (key order kept)."""
        per_key = inserted.astype(np.int64) + deleted + 2 * changed
        total = int(per_key.sum())
        if total == 0:
            return []
        src = np.repeat(np.arange(len(per_key)), per_key)
        first = np.cumsum(per_key) - per_key  # each key's first output row
        use_new = np.ones(total, bool)
        use_new[first[deleted]] = False
        use_new[first[changed]] = False
        kinds = np.full(total, RowKind.INSERT, np.int8)
        kinds[first[deleted]] = RowKind.DELETE
        kinds[first[changed]] = RowKind.UPDATE_BEFORE
        kinds[first[changed] + 1] = RowKind.UPDATE_AFTER
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


def _overflow(detail: str) -> ExecutionError:
    return ExecutionError(f"GROUP BY aggregate overflow: {detail}")


def _valid(arr: pa.ChunkedArray | pa.Array) -> np.ndarray:
    if arr.null_count == 0:
        return np.ones(len(arr), bool)
    return arr.is_valid().to_numpy(zero_copy_only=False)


def _numpy(arr: pa.ChunkedArray | pa.Array, dtype) -> np.ndarray:
    """Values as ``dtype`` (NULL → 0; dates and timestamps as their integer storage)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        arr = arr.view(pa.int64() if t.bit_width == 64 else pa.int32())
    if arr.null_count:
        arr = arr.fill_null(0)
    return arr.to_numpy(zero_copy_only=False).astype(dtype, copy=False)


def _differs(old, new) -> np.ndarray:
    """True per key where any result (value or NULL-ness) changed; NaN equals NaN."""
    out = np.zeros(len(old[0][0]) if old else 0, bool)
    for (ov, ok), (nv, nok) in zip(old, new):
        diff = ov != nv
        if ov.dtype.kind == "f":
            diff &= ~(np.isnan(ov) & np.isnan(nv))
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
