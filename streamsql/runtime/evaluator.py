"""Batch evaluation of compiled expressions with DuckDB (our vectorized workhorse).

A :class:`BatchQuery` is ``SELECT items FROM batch [WHERE condition]`` compiled once and run
over each Arrow batch; row kinds and source split ids (``Batch.splits``) ride along as hidden
columns so a filter keeps them aligned with the rows.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch
from streamsql.core.errors import SqlError
from streamsql.core.types import Schema

_IN = "__in"
_KIND = "__kind"
_SPLIT = "__split"


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
        self._select, self._where = select, where
        self._hidden: dict[tuple[str, ...], str] = {(): self._plain}
        try:
            result = self._run_sql(self._plain, input_schema.empty_table())
        except duckdb.Error as e:
            msg = f"Cannot evaluate expression: {_duck_message(e)}"
            raise SqlError(msg, sql) from None
        # DuckDB's result types, normalised through our SQL types (e.g. HUGEINT sums → DECIMAL).
        self.output_schema = Schema.from_arrow(result.schema).to_arrow()
        # A projection of plain columns (no WHERE) is an Arrow select: no DuckDB round trip.
        by_ref = {_quote(n): i for i, n in enumerate(input_schema.names)}
        refs = [by_ref.get(expr) for _, expr in items]
        self._columns = refs if items and condition is None and None not in refs else None

    def _run_sql(self, query: str, table: pa.Table) -> pa.Table:
        return query_table(self._con, query, table)

    def run(self, batch: Batch) -> Batch:
        """Evaluate over ``batch``; the output keeps each surviving row's kind.

        Raises:
            ExecutionError: when DuckDB fails on the data (e.g. a bad CAST of a value).
        """
        from streamsql.core.errors import ExecutionError

        table = batch.table
        if self._columns is not None:
            out = table.select(self._columns).rename_columns(self.output_schema.names)
            if out.schema != self.output_schema:
                out = out.cast(self.output_schema)
            return Batch(out, batch.kinds, batch.splits)
        hidden: list[str] = []
        if batch.kinds is not None:
            table = table.append_column(_KIND, pa.array(batch.kinds, pa.int8()))
            hidden.append(_KIND)
        if batch.splits is not None:
            table = table.append_column(_SPLIT, pa.array(batch.splits, pa.int32()))
            hidden.append(_SPLIT)
        try:
            out = self._run_sql(self._query_with(tuple(hidden)), table)
        except duckdb.Error as e:
            msg = f"Expression evaluation failed: {_duck_message(e)}"
            raise ExecutionError(msg) from None
        kinds = splits = None
        if hidden:
            if batch.kinds is not None:
                kinds = out.column(_KIND).to_numpy().astype(np.int8)
            if batch.splits is not None:
                splits = out.column(_SPLIT).to_numpy().astype(np.int32)
            out = out.drop_columns(hidden)
        if not self.items:
            out = out.drop_columns(["__dummy"])
        if out.schema != self.output_schema:
            out = out.cast(self.output_schema)
        return Batch(out, kinds, splits)

    def _query_with(self, hidden: tuple[str, ...]) -> str:
        """The query that also selects the hidden columns ``hidden`` (cached per combination)."""
        q = self._hidden.get(hidden)
        if q is None:
            q = self._hidden[hidden] = f"SELECT {self._select}, {', '.join(hidden)} FROM {_IN}{self._where}"
        return q


def query_table(con: duckdb.DuckDBPyConnection, sql: str, table: pa.Table) -> pa.Table:
    """Run ``sql`` on ``con`` with ``table`` registered as ``__in`` (zero-copy); the result as Arrow.

    Raises:
        duckdb.Error: as DuckDB raises it (callers turn it into a positioned or execution error).
    """
    con.register(_IN, table)
    try:
        return con.sql(sql).to_arrow_table()
    finally:
        con.unregister(_IN)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _duck_message(e: Exception) -> str:
    text = str(e).split("\n")[0]
    return text.replace(f'"{_IN}"', "input").replace(_IN, "input")
