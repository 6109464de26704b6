"""GroupAggregate: ``GROUP BY`` without a window, over an insert-only or changelog input.

Semantics follow Flink's GroupAggFunction: the result is an updating table. For each key whose
result changed, a batch emits ``+I`` (first row of the key), ``-U``/``+U`` (a change), or ``-D``
(the key's last row was retracted); a result equal to the previous one emits nothing.
Emission is per batch rather than per row (like Flink's mini-batch aggregation): the folded
changelog is the same.

Per batch, DuckDB computes partial aggregates per key (signed by row kind), then keyed state is
read once (multi-get) and written once (one write batch) per distinct key.

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

import duckdb
import numpy as np
import pyarrow as pa

from streamsql.errors import PlanError
from streamsql.runtime.elements import Batch, Element, RowKind
from streamsql.runtime.operators.base import Operator
from streamsql.state.base import key_group
from streamsql.types import SqlType

_MULTISET = ("min_retract", "max_retract", "count_distinct")


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

    def _query(self, sql: str, table: pa.Table) -> list[list]:
        self._con.register("__in", table)
        try:
            res = self._con.sql(sql).to_arrow_table()
        finally:
            self._con.unregister("__in")
        return [c.to_pylist() for c in res.columns]

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Fold ``batch`` into keyed state and emit the changes of the keys it touched."""
        table = batch.table.append_column("__sign", pa.array(batch.signs(), pa.int8()))
        cols = self._query(self._partial_sql, table)
        nk = self.num_keys
        key_tuples = list(zip(*cols[:nk])) if nk else [()] * len(cols[0])
        encoded = [pickle.dumps(k, protocol=5) for k in key_tuples]
        state_keys = [key_group(k).to_bytes(2, "big") + k for k in encoded]
        index = {k: i for i, k in enumerate(encoded)}
        multisets = {ai: self._query(sql, table) for ai, sql in self._multiset_sql.items()}

        old_values = self.ctx.state.get_many(state_keys)
        accs = [pickle.loads(v) if v is not None else None for v in old_values]
        olds = [self._result(a) if a is not None else None for a in accs]
        news = [self._new_acc() if a is None else a for a in accs]

        # Fold the batch's partials into the accumulators (one pass per partial column).
        counts = cols[nk]
        for i, dc in enumerate(counts):
            news[i][0] += dc
        c = nk + 1
        for ai, a in enumerate(self.aggs):
            slot = ai + 1
            if a.func == "count":
                for i, d in enumerate(cols[c]):
                    news[i][slot] += d
                c += 1
            elif a.func in ("sum", "avg"):
                for i, (dn, ds) in enumerate(zip(cols[c], cols[c + 1])):
                    acc = news[i][slot]
                    acc[1] += dn
                    if ds is not None:
                        acc[0] = ds if acc[0] is None else acc[0] + ds
                c += 2
            elif a.func in ("min", "max"):
                pick = min if a.func == "min" else max
                for i, v in enumerate(cols[c]):
                    cur = news[i][slot]
                    if v is not None:
                        news[i][slot] = v if cur is None else pick(cur, v)
                c += 1
            elif a.func in _MULTISET:
                mcols = multisets[ai]
                mkeys = list(zip(*mcols[:nk])) if nk else [()] * len(mcols[0])
                for k, v, d in zip(mkeys, mcols[nk], mcols[nk + 1]):
                    ms = news[index[pickle.dumps(k, protocol=5)]][slot]
                    n = ms.get(v, 0) + d
                    if n > 0:
                        ms[v] = n
                    else:
                        ms.pop(v, None)

        out_rows, out_kinds, puts, deletes = [], [], [], []
        for i, key in enumerate(key_tuples):
            acc, old = news[i], olds[i]
            if acc[0] <= 0:
                deletes.append(state_keys[i])
                if old is not None:
                    out_rows.append(key + old)
                    out_kinds.append(RowKind.DELETE)
                continue
            puts.append((state_keys[i], pickle.dumps(acc, protocol=5)))
            new = self._result(acc)
            if old is None:
                out_rows.append(key + new)
                out_kinds.append(RowKind.INSERT)
            elif new != old:
                out_rows += [key + old, key + new]
                out_kinds += [RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER]
        self.ctx.state.write(puts, deletes)
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


def _avg(total, n: int, out_type: SqlType):
    if out_type.name == "DECIMAL":
        return (Decimal(total) / n).quantize(Decimal(1).scaleb(-(out_type.scale or 0)), rounding=ROUND_HALF_UP)
    return float(total) / n
