"""Batch evaluation of planned queries with DuckDB (our vectorized workhorse).

A :class:`BatchQuery` runs a plan's ``SELECT items FROM batch [WHERE condition]``
(:class:`~streamsql.plan.query.QuerySpec`) over each Arrow batch; row kinds and source split
ids (``Batch.splits``) ride along as hidden columns so a filter keeps them aligned with the rows.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.functions import python_functions
from streamsql.functions.scalars.registry import FAILURE
from streamsql.plan.query import INPUT_TABLE, QuerySpec, duck_message

_KIND = "__kind"
_SPLIT = "__split"


class BatchQuery:
    """Evaluates a planned :class:`~streamsql.plan.query.QuerySpec` over one batch at a time.

    Args:
        spec: the query, checked at planning (:func:`~streamsql.plan.query.compile_query`).
    """

    def __init__(self, spec: QuerySpec):
        self.spec = spec
        self.items = spec.items
        self.output_schema = spec.output_schema
        self._con = python_functions.connect()
        self._hidden: dict[tuple[str, ...], str] = {}
        # A projection of plain columns (no WHERE) is an Arrow select: no DuckDB round trip.
        self._columns = spec.column_refs()

    def _run_sql(self, query: str, table: pa.Table) -> pa.Table:
        return query_table(self._con, query, table)

    def run(self, batch: Batch) -> Batch:
        """Evaluate over ``batch``; the output keeps each surviving row's kind.

        Raises:
            ExecutionError: when DuckDB fails on the data (e.g. a bad CAST of a value).
        """
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
        query = self._query_with(tuple(hidden))
        try:
            out = self._run_sql(query, table)
        except duckdb.Error as e:
            failure = python_functions.take_failure(query)
            text = duck_message(e)
            if FAILURE in text:  # a function failing the job as Flink does (registry.fail_sql)
                failure = text.split(FAILURE, 1)[1]
            raise ExecutionError(failure or runtime_failure(text)) from None
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
            q = self._hidden[hidden] = self.spec.sql(hidden)
        return q


# DuckDB's names of the types a CAST fails into, as Flink names them.
_FLINK_TYPE = {"INT8": "TINYINT", "INT16": "SMALLINT", "INT32": "INT", "INT64": "BIGINT", "BOOL": "BOOLEAN",
               "TIMESTAMP WITH TIME ZONE": "TIMESTAMP_LTZ"}
_DUCK_PREFIXES = ("Invalid Input Error: ", "Conversion Error: ", "Out of Range Error: ")


def runtime_failure(text: str) -> str:
    """What a user reads when an expression fails on a value (from DuckDB's first error line).

    Flink fails the job in the same cases (an integer divided by zero, a CAST of a string that
    is not a number); the message says so and what to write instead, never DuckDB's advice
    about its own settings.
    """
    import re

    if "Division by zero" in text:
        return ("Division by zero: an integer or DECIMAL divided by 0 fails the job, as in Flink; "
                "guard the divisor with NULLIF(divisor, 0) to get NULL instead")
    m = re.search(r"Could not convert string '(.*)' to ([A-Z0-9_]+(?: WITH TIME ZONE)?)", text)
    if m:
        target = _FLINK_TYPE.get(m.group(2), m.group(2))
        return (f"CAST('{m.group(1)}' AS {target}) failed: the value is not a valid {target} (Flink fails "
                f"the job too); use TRY_CAST to get NULL instead")
    for prefix in _DUCK_PREFIXES:
        text = text.replace(prefix, "")
    return f"Expression evaluation failed: {text}"


def query_table(con: duckdb.DuckDBPyConnection, sql: str, table: pa.Table) -> pa.Table:
    """Run ``sql`` on ``con`` with ``table`` as the query's input (zero-copy); the result as Arrow.

    Raises:
        duckdb.Error: as DuckDB raises it (callers turn it into a positioned or execution error).
    """
    con.register(INPUT_TABLE, table)
    try:
        return con.sql(sql).to_arrow_table()
    finally:
        con.unregister(INPUT_TABLE)
