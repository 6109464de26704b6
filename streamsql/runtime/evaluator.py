"""Batch evaluation of compiled expressions with DuckDB (our vectorized workhorse).

A :class:`BatchQuery` is ``SELECT items FROM batch [WHERE condition]`` compiled once and run
over each Arrow batch; row kinds ride along as a hidden column so a filter keeps them aligned.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from streamsql.errors import SqlError
from streamsql.runtime.elements import Batch
from streamsql.types import Schema

_IN = "__in"
_KIND = "__kind"


class BatchQuery:
    """``SELECT items FROM batch [WHERE condition]`` over one batch at a time.

    Args:
        items: (output name, DuckDB SQL) pairs.
        condition: DuckDB SQL of a boolean filter, or None.
        input_schema: the Arrow schema of input batches.
        sql: the user's statement, for positioned errors at compile time.

    Raises:
        SqlError: when DuckDB rejects the compiled expressions (type errors, unknown functions);
            raised at construction, i.e. at planning, never per batch.
    """

    def __init__(self, items: list[tuple[str, str]], condition: str | None, input_schema: pa.Schema,
                 sql: str | None = None):
        self.items = items
        self.condition = condition
        self.input_schema = input_schema
        self._con = duckdb.connect()
        select = ", ".join(f"{expr} AS {_quote(name)}" for name, expr in items) or "1 AS __dummy"
        where = f" WHERE {condition}" if condition else ""
        self._plain = f"SELECT {select} FROM {_IN}{where}"
        self._with_kind = f"SELECT {select}, {_KIND} FROM {_IN}{where}"
        try:
            result = self._run_sql(self._plain, input_schema.empty_table())
        except duckdb.Error as e:
            msg = f"Cannot evaluate expression: {_duck_message(e)}"
            raise SqlError(msg, sql) from None
        # DuckDB's result types, normalised through our SQL types (e.g. HUGEINT sums → DECIMAL).
        self.output_schema = Schema.from_arrow(result.schema).to_arrow()

    def _run_sql(self, query: str, table: pa.Table) -> pa.Table:
        self._con.register(_IN, table)
        try:
            return self._con.sql(query).to_arrow_table()
        finally:
            self._con.unregister(_IN)

    def run(self, batch: Batch) -> Batch:
        """Evaluate over ``batch``; the output keeps each surviving row's kind.

        Raises:
            ExecutionError: when DuckDB fails on the data (e.g. a bad CAST of a value).
        """
        from streamsql.errors import ExecutionError

        try:
            if batch.kinds is None:
                out = self._run_sql(self._plain, batch.table)
                kinds = None
            else:
                table = batch.table.append_column(_KIND, pa.array(batch.kinds, pa.int8()))
                out = self._run_sql(self._with_kind, table)
                kinds = out.column(_KIND).to_numpy().astype(np.int8)
                out = out.drop_columns([_KIND])
        except duckdb.Error as e:
            msg = f"Expression evaluation failed: {_duck_message(e)}"
            raise ExecutionError(msg) from None
        if not self.items:
            out = out.drop_columns(["__dummy"])
        if out.schema != self.output_schema:
            out = out.cast(self.output_schema)
        return Batch(out, kinds)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _duck_message(e: Exception) -> str:
    text = str(e).split("\n")[0]
    return text.replace(f'"{_IN}"', "input").replace(_IN, "input")
