r"""GroupAggregate: ``GROUP BY`` without a window, over an insert-only or changelog input.

Semantics follow Flink's GroupAggFunction: the result is an updating table. For each key whose
result changed, a batch emits ``+I`` (first row of the key), ``-U``/``+U`` (a change), or ``-D``
(the key's last row was retracted); a result equal to the previous one emits nothing.
Emission is per batch rather than per row (like Flink's mini-batch aggregation): the folded
changelog is the same.

Per batch, DuckDB computes partial aggregates per key (signed by row kind), then the
accumulators of the batch's distinct keys are looked up in a write-behind cache of decoded
accumulators (:class:`~streamsql.state.cache.WriteBehindCache`, at most
``'state.cache.max-entries'`` keys, default :data:`DEFAULT_CACHE_ENTRIES`); misses are read from
keyed state with one multi-get. Changed accumulators are pickled and written back (one write
batch) only when evicted and at every checkpoint (``snapshot_state``, which runs before the
backend snapshot), so a checkpoint holds exactly the state after the rows before its barrier.

Key encoding (the state key after the 2-byte key group): a single integer key column is the
value as 8 bytes big-endian (``b"\x00"`` for NULL), computed vectorized; other keys are the pickled
key tuple.

Accumulators (per key, in keyed state): the row count, then per aggregate:

======================== =================================================================
COUNT(*)                 nothing (the row count)
COUNT(x)                 non-null count
SUM(x), AVG(x)           [sum, non-null count]
MIN/MAX, insert-only in  the current extreme
MIN/MAX over changelog   {value: multiplicity}, so a retracted extreme falls back to the
                         next value that remains (Flink's MaxWithRetractAggFunction)
COUNT(DISTINCT x)        {value: multiplicity}
======================== =================================================================
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from operator import itemgetter

import duckdb
import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, RowKind
from streamsql.core.errors import PlanError
from streamsql.core.types import SqlType
from streamsql.runtime.evaluator import query_table
from streamsql.runtime.operators.base import Operator, OperatorContext
from streamsql.state.cache import WriteBehindCache
from streamsql.state.layout import int_key_bytes, with_key_groups

_MULTISET = ("min_retract", "max_retract", "count_distinct")

#: Default of ``'state.cache.max-entries'``: decoded accumulators kept in memory per GROUP BY.
DEFAULT_CACHE_ENTRIES = 100_000


@dataclass(frozen=True)
class AggSpec:
    """One aggregate call.

    Attributes:
        func: count_star, count, sum, avg, min, max, min_retract, max_retract, count_distinct.
        arg: index of the argument column in the input batch (None for COUNT(*)).
        out_type: the SQL type of the result.
    """

    func: str
    arg: int | None
    out_type: SqlType


def cache_entries(config: dict | None) -> int:
    """``'state.cache.max-entries'``: keys whose accumulators a GROUP BY keeps decoded in memory.

    Raises:
        ConfigError: not an integer >= 0.
    """
    raw = (config or {}).get("state.cache.max-entries")
    try:
        size = DEFAULT_CACHE_ENTRIES if raw in (None, "") else int(str(raw).strip())
    except ValueError:
        size = -1
    if size < 0:
        from streamsql.core.errors import ConfigError

        msg = f"'state.cache.max-entries' = '{raw}' must be an integer >= 0"
        raise ConfigError(msg)
    return size


def agg_output_type(func: str, arg: SqlType | None) -> SqlType:
    """The result type of an aggregate, as Flink types them, except AVG of integers → DOUBLE.

    Raises:
        PlanError: SUM/AVG over a non-numeric argument.
    """
    if func in ("count_star", "count", "count_distinct"):
        return SqlType("BIGINT", nullable=False)
    if func in ("min", "max", "min_retract", "max_retract"):
        return arg
    if not arg.is_numeric:
        msg = f"{func.upper()} needs a numeric argument, got {arg}"
        raise PlanError(msg)
    if arg.name == "DECIMAL":
        scale = max(arg.scale or 0, 6) if func == "avg" else (arg.scale or 0)
        return SqlType("DECIMAL", 38, scale)
    if func == "avg" or arg.name in ("FLOAT", "DOUBLE"):
        return SqlType("DOUBLE")
    return SqlType("BIGINT")


class GroupAggOperator(Operator):
    """Keyed, updating aggregation (see module docstring).

    Args:
        num_keys: the first ``num_keys`` input columns are the grouping key.
        aggs: the aggregate calls; output columns = keys then one per aggregate.
        input_schema: Arrow schema of input batches.
        output_schema: Arrow schema of output batches.
    """

    stateful = True

    def __init__(self, num_keys: int, aggs: list[AggSpec], input_schema: pa.Schema, output_schema: pa.Schema):
        self.num_keys = num_keys
        self.aggs = aggs
        self.input_schema = input_schema
        self.output_schema = output_schema
        self._con = duckdb.connect()
        names = input_schema.names
        q = lambda i: '"' + names[i].replace('"', '""') + '"'  # noqa: E731
        keys = [q(i) for i in range(num_keys)]
        group = f" GROUP BY {', '.join(keys)}" if keys else ""
        cols = keys + ["sum(__sign)::BIGINT"]
        for a in aggs:
            if a.func in ("count", "sum", "avg"):
                cols.append(f"sum(CASE WHEN {q(a.arg)} IS NOT NULL THEN __sign ELSE 0 END)::BIGINT")
            if a.func in ("sum", "avg"):
                cols.append(f"sum(CASE WHEN __sign > 0 THEN {q(a.arg)} ELSE -{q(a.arg)} END)")
            elif a.func in ("min", "max"):
                cols.append(f"{a.func}({q(a.arg)})")
        self._partial_sql = f"SELECT {', '.join(cols)} FROM __in{group}"
        # One query per multiset aggregate: net multiplicity of each (key, value).
        self._multiset_sql = {
            i: f"SELECT {', '.join(keys + [q(a.arg)])}, sum(__sign)::BIGINT FROM __in "
               f"WHERE {q(a.arg)} IS NOT NULL GROUP BY ALL"
            for i, a in enumerate(aggs) if a.func in _MULTISET
        }

        key_types = [input_schema.field(i).type for i in range(num_keys)]
        self._int_key = num_keys == 1 and pa.types.is_integer(key_types[0])
        self._plain_result = _plain_result_getter(aggs)
        self._acc_template = self._new_acc()  # copied (shallow) when every slot is a scalar
        self.cache: WriteBehindCache | None = None
        self._as_int: dict[int, pa.DataType] | None = None

    def open(self, ctx: OperatorContext) -> None:
        """Start with an empty accumulator cache (restored state is in the backend)."""
        super().open(ctx)
        self.cache = WriteBehindCache(ctx.state, cache_entries(ctx.config), state_keys=with_key_groups)

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Write back every changed accumulator before the backend is snapshotted."""
        self.cache.flush()

    def _query(self, sql: str, table: pa.Table, as_int: dict[int, pa.DataType] | None = None,
               ) -> tuple[pa.Table, list[list]]:
        """The result of ``sql`` over ``table`` as Arrow and as Python lists.

        Columns in ``as_int`` are listed as their integer storage, e.g. epoch units of a timestamp).
        """
        res = query_table(self._con, sql, table)
        if not as_int:
            return res, [c.to_pylist() for c in res.columns]
        return res, [(c.cast(as_int[i]) if i in as_int else c).to_pylist() for i, c in enumerate(res.columns)]

    def _temporal_int_columns(self, res: pa.Table) -> dict[int, pa.DataType]:
        """Partial-result columns of MIN/MAX over a date/timestamp of the output column's type.

        Same type up to the zone's name; they are folded as integers (same order, no datetime objects)
        and turned back into the temporal type only in the output Arrow array.
        """
        out: dict[int, pa.DataType] = {}
        c = self.num_keys + 1
        for ai, a in enumerate(self.aggs):
            if a.func in ("min", "max"):
                rt, ot = res.schema.field(c).type, self.output_schema.field(self.num_keys + ai).type
                if pa.types.is_timestamp(rt) and pa.types.is_timestamp(ot):
                    if rt.unit == ot.unit and (rt.tz is None) == (ot.tz is None):
                        out[c] = pa.int64()
                elif pa.types.is_date32(rt) and pa.types.is_date32(ot):
                    out[c] = pa.int32()
            c += {"count": 1, "sum": 2, "avg": 2, "min": 1, "max": 1}.get(a.func, 0)
        return out

    def _encode_keys(self, res: pa.Table, key_tuples: list[tuple]) -> list[bytes]:
        """State keys (without key group) of the key columns of ``res``, one per row."""
        if self._int_key:
            return int_key_bytes(res.column(0))
        dumps = pickle.dumps
        return [dumps(k, protocol=5) for k in key_tuples]

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Fold ``batch`` into keyed state and emit the changes of the keys it touched."""
        table = batch.table.append_column("__sign", pa.array(batch.signs(), pa.int8()))
        res, cols = self._query(self._partial_sql, table, self._as_int)
        if self._as_int is None:  # first batch: which MIN/MAX columns fold as integers (fixed)
            self._as_int = self._temporal_int_columns(res)
            for i, t in self._as_int.items():
                cols[i] = res.column(i).cast(t).to_pylist()
        nk = self.num_keys
        key_tuples = list(zip(*cols[:nk])) if nk else [()] * len(cols[0])
        encoded = self._encode_keys(res, key_tuples)
        multisets = {ai: self._query(sql, table) for ai, sql in self._multiset_sql.items()}

        cache = self.cache
        accs = cache.get_many(encoded)
        result = self._plain_result or self._result
        olds = [result(a) if a is not None else None for a in accs]
        new_acc = self._acc_template.copy if self._plain_result else self._new_acc
        news = [new_acc() if a is None else a for a in accs]

        # Fold the batch's partials into the accumulators (one pass per partial column).
        counts = cols[nk]
        for acc, dc in zip(news, counts):
            acc[0] += dc
        c = nk + 1
        index = None
        for ai, a in enumerate(self.aggs):
            slot = ai + 1
            if a.func == "count":
                for acc, d in zip(news, cols[c]):
                    acc[slot] += d
                c += 1
            elif a.func in ("sum", "avg"):
                for i, (dn, ds) in enumerate(zip(cols[c], cols[c + 1])):
                    acc = news[i][slot]
                    acc[1] += dn
                    if ds is not None:
                        acc[0] = ds if acc[0] is None else acc[0] + ds
                c += 2
            elif a.func in ("min", "max"):
                if a.func == "min":
                    for acc, v in zip(news, cols[c]):
                        if v is not None:
                            cur = acc[slot]
                            if cur is None or v < cur:
                                acc[slot] = v
                else:
                    for acc, v in zip(news, cols[c]):
                        if v is not None:
                            cur = acc[slot]
                            if cur is None or v > cur:
                                acc[slot] = v
                c += 1
            elif a.func in _MULTISET:
                if index is None:
                    index = {k: i for i, k in enumerate(encoded)}
                mres, mcols = multisets[ai]
                mkeys = list(zip(*mcols[:nk])) if nk else [()] * len(mcols[0])
                for k, v, d in zip(self._encode_keys(mres, mkeys), mcols[nk], mcols[nk + 1]):
                    ms = news[index[k]][slot]
                    n = ms.get(v, 0) + d
                    if n > 0:
                        ms[v] = n
                    else:
                        ms.pop(v, None)

        out_rows, out_kinds = [], []
        INSERT, DELETE = RowKind.INSERT, RowKind.DELETE  # noqa: N806
        BEFORE, AFTER = RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER  # noqa: N806
        for i, key in enumerate(key_tuples):
            acc, old = news[i], olds[i]
            if acc[0] <= 0:
                news[i] = None  # deleted (once written back)
                if old is not None:
                    out_rows.append(key + old)
                    out_kinds.append(DELETE)
                continue
            new = result(acc)
            if old is None:
                out_rows.append(key + new)
                out_kinds.append(INSERT)
            elif new != old:
                out_rows += [key + old, key + new]
                out_kinds += [BEFORE, AFTER]
        cache.put_many(encoded, news)
        cache.evict()
        if not out_rows:
            return []
        columns = list(zip(*out_rows))
        arrays = [pa.array(list(col), type=f.type) for col, f in zip(columns, self.output_schema)]
        return [Batch(pa.Table.from_arrays(arrays, schema=self.output_schema), np.array(out_kinds, np.int8))]

    def _new_acc(self) -> list:
        acc: list = [0]
        for a in self.aggs:
            if a.func == "count":
                acc.append(0)
            elif a.func in ("sum", "avg"):
                acc.append([None, 0])
            elif a.func in _MULTISET:
                acc.append({})
            else:
                acc.append(None)
        return acc

    def _result(self, acc: list) -> tuple:
        out = []
        for a, v in zip(self.aggs, acc[1:]):
            f = a.func
            if f == "count_star":
                out.append(acc[0])
            elif f == "count":
                out.append(v)
            elif f == "sum":
                out.append(None if v[1] == 0 else v[0])
            elif f == "avg":
                out.append(None if v[1] == 0 else _avg(v[0], v[1], a.out_type))
            elif f == "count_distinct":
                out.append(len(v))
            elif f == "min_retract":
                out.append(min(v) if v else None)
            elif f == "max_retract":
                out.append(max(v) if v else None)
            else:
                out.append(v)
        return tuple(out)


def _plain_result_getter(aggs: list[AggSpec]):
    """``acc → result tuple`` as one C-level itemgetter, or None.

    Only when every aggregate's result is an accumulator slot as is (COUNT(*), COUNT,
    MIN/MAX insert-only).
    """
    idx = []
    for ai, a in enumerate(aggs):
        if a.func == "count_star":
            idx.append(0)
        elif a.func in ("count", "min", "max"):
            idx.append(ai + 1)
        else:
            return None
    if len(idx) == 1:
        i = idx[0]
        return lambda acc: (acc[i],)
    return itemgetter(*idx)


def _avg(total, n: int, out_type: SqlType):
    if out_type.name == "DECIMAL":
        quantum = Decimal(1).scaleb(-(out_type.scale or 0))
        return (Decimal(total) / n).quantize(quantum, rounding=ROUND_HALF_UP)
    return float(total) / n
