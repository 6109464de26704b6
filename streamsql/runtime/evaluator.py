"""Batch evaluation of planned queries with DuckDB (our vectorized workhorse).

A :class:`BatchQuery` runs a plan's ``SELECT items FROM batch [WHERE condition]``
(:class:`~streamsql.plan.query.QuerySpec`) over each Arrow batch; row kinds and source split
ids (``Batch.splits``) ride along as hidden columns so a filter keeps them aligned with the rows,
and so does each row's input row number when the batch knows where its rows were read from
(``Batch.origin``): an expression failing on a value names the record it failed on.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.core.names import apart
from streamsql.functions import python_functions
from streamsql.functions.scalars.clock import WATERMARK_VARIABLE
from streamsql.functions.scalars.registry import failure_message
from streamsql.functions.scalars.seeded_random import seeded_connection, uses_seeded
from streamsql.plan.query import INPUT_TABLE, QuerySpec, duck_message, executed_arrow
from streamsql.runtime.numeric_calc import compile_condition, compile_items

#: A batch of at most this many rows runs as a DB-API execute (:func:`~streamsql.plan.query.executed_arrow`):
#: DuckDB 2's relation (``con.sql``) parses, tokenizes in Python and binds each query once more, ~0.5-2 ms
#: a small batch and seconds for a SELECT of a thousand expressions; the execute copies the result
#: instead, which costs more from a few thousand rows (10,000: 9.5 ms vs 8.4 ms).
SMALL_BATCH = 1024

_UNSET = object()
_LATEST_MS = 253402300799999  # 9999-12-31 23:59:59.999: the final watermark (+inf) as a timestamp
_KIND = "__kind"
_SPLIT = "__split"
_ROW = "__row"


class BatchQuery:
    """Evaluates a planned :class:`~streamsql.plan.query.QuerySpec` over one batch at a time.

    Args:
        spec: the query, checked at planning (:func:`~streamsql.plan.query.compile_query`).
    """

    _con = python_functions.LazyConnection()  # none for a projection of plain columns

    def __init__(self, spec: QuerySpec):
        self.spec = spec
        self.items = spec.items
        self.output_schema = spec.output_schema
        self._hidden: dict[tuple[str, ...], str] = {}
        # RAND(42): this instance's own Randoms, advanced by the rows in order (one query does it all)
        seeded = uses_seeded(spec.sql())
        if seeded:
            self._con = seeded_connection()
        # A projection of plain columns (no WHERE) is an Arrow select: no DuckDB round trip.
        self._columns = spec.column_refs()
        # Without a WHERE, plain columns are taken from the batch; DuckDB computes only the rest.
        part = None if self._columns is not None or seeded else spec.computed_part()
        self._computed = None if part is None else BatchQuery(part)
        self._refs = spec.item_refs()
        # numeric items numpy computes exactly as DuckDB would, without DuckDB's fixed cost per query
        self._numeric = (None if self._columns is not None or spec.condition is not None or seeded
                         else compile_items(spec.items, spec.input_schema, spec.duckdb_schema))
        # CURRENT_WATERMARK: the DuckDB variable the query reads, set from the operator's watermark
        self.uses_watermark = WATERMARK_VARIABLE in spec.sql()
        # a numeric WHERE numpy decides as DuckDB would: the rows it keeps, then the items alone over them
        # (not with an unnest item: its rows' origin is tracked through DuckDB's WHERE)
        plain = spec.condition is not None and not self.uses_watermark and not seeded and not any(
            "unnest(" in sql.lower() for _, sql in spec.items)
        self._filter = compile_condition(spec.condition, spec.input_schema) if plain else None
        self._projection = None if self._filter is None else BatchQuery(
            QuerySpec(spec.items, None, spec.input_schema, spec.output_schema, spec.duckdb_schema))
        self.watermark_fed = False  # an operator that keeps the watermark (the Calc) runs the query
        self._watermark: int | None = None
        self._watermark_set: object = _UNSET

    def keep_watermark(self) -> None:
        """The evaluating operator keeps its watermark for CURRENT_WATERMARK (:meth:`set_watermark`)."""
        self.watermark_fed = True
        if self._computed is not None:
            self._computed.keep_watermark()

    def set_watermark(self, ms: int) -> None:
        """The evaluating operator's current watermark (ms since the epoch), for CURRENT_WATERMARK."""
        self._watermark = ms
        if self._computed is not None:
            self._computed.set_watermark(ms)

    def _run_sql(self, query: str, table: pa.Table) -> pa.Table:
        if self.uses_watermark and self._watermark_set != self._watermark:
            value = "NULL" if self._watermark is None else str(min(self._watermark, _LATEST_MS))
            self._con.execute(f"SET VARIABLE {WATERMARK_VARIABLE} = {value}")
            self._watermark_set = self._watermark
        return query_table(self._con, query, table)

    def run(self, batch: Batch) -> Batch:
        """Evaluate over ``batch``; the output keeps each surviving row's kind.

        Raises:
            ExecutionError: when an expression fails on a value (e.g. a CAST of a string that is
                not a number), naming the function, the value and the record (``batch.origin``).
        """
        table = batch.table
        if self.uses_watermark and not self.watermark_fed:
            msg = ("CURRENT_WATERMARK is supported in a projection or a filter only (this operator keeps no "
                   "watermark for it)")
            raise ExecutionError(msg)
        if self._filter is not None:
            mask = self._filter.mask(table)
            if mask is not None:  # else a value outside the exact domain: DuckDB's answer
                return self._projection.run(_kept_rows(batch, mask))
        if self._columns is not None:
            out = table.select(self._columns).rename_columns(self.output_schema.names)
            if out.schema != self.output_schema:
                out = out.cast(self.output_schema)
            return Batch(out, batch.kinds, batch.splits, batch.origin)
        if self._numeric is not None:
            columns = self._numeric.run(table)
            if columns is not None:  # else a value outside the exact domain: DuckDB's answer
                out = pa.Table.from_arrays(columns, names=self.output_schema.names)
                if out.schema != self.output_schema:
                    out = out.cast(self.output_schema)
                return Batch(out, batch.kinds, batch.splits, batch.origin)
        if self._computed is not None:
            out = self._run_split(batch)
            if out is not None:
                return out
        hidden: list[str] = []
        # named apart from the input's columns: a user's column may be called __row too
        kind_col, split_col, row_col = (apart(n, table.column_names) for n in (_KIND, _SPLIT, _ROW))
        if batch.kinds is not None:
            table = table.append_column(kind_col, pa.array(batch.kinds, pa.int8()))
            hidden.append(kind_col)
        if batch.splits is not None:
            table = table.append_column(split_col, pa.array(batch.splits, pa.int32()))
            hidden.append(split_col)
        if batch.origin is not None and self.spec.condition:  # which input row each output row is
            table = table.append_column(row_col, pa.array(np.arange(table.num_rows, dtype=np.int32)))
            hidden.append(row_col)
        query = self._query_with(tuple(hidden))
        try:
            out = self._run_sql(query, table)
        except duckdb.Error as e:
            raise self._failure(e, query, table, batch.origin) from None
        kinds = splits = None
        origin = batch.origin
        if hidden:
            # the query's output ends with the hidden columns, in their order
            at = dict(zip(hidden, range(out.num_columns - len(hidden), out.num_columns)))
            if batch.kinds is not None:
                kinds = out.column(at[kind_col]).to_numpy().astype(np.int8)
            if batch.splits is not None:
                splits = out.column(at[split_col]).to_numpy().astype(np.int32)
            if row_col in at:
                origin = _kept(batch.origin, out.column(at[row_col]).to_numpy())
            out = out.select(range(out.num_columns - len(hidden)))
        if not self.items:
            out = out.drop_columns(["__dummy"])
        if out.schema != self.output_schema:
            out = out.cast(self.output_schema)
        return Batch(out, kinds, splits, origin)

    def _run_split(self, batch: Batch) -> Batch | None:
        """A projection without WHERE: the plain columns from ``batch``, the others from DuckDB.

        Every row is kept in order, so the row kinds, splits and origin are the batch's own.
        None (the caller runs the whole query) if the computed items gave another number of rows.
        """
        table = batch.table
        result = self._computed.run(Batch(table, origin=batch.origin)).table
        if result.num_rows != table.num_rows:  # pragma: no cover - unnest is never split
            return None
        taken = iter(result.columns)
        columns = [table.column(r) if r is not None else next(taken) for r in self._refs]
        out = pa.Table.from_arrays(columns, names=self.output_schema.names)
        if out.schema != self.output_schema:
            out = out.cast(self.output_schema)
        return Batch(out, batch.kinds, batch.splits, batch.origin)

    def _failure(self, e: duckdb.Error, query: str, table: pa.Table, origin) -> ExecutionError:
        """The job's error for a query that failed on ``table``: what failed, on which record.

        The message is the failing function's own (a Python function's, or the registry's
        :func:`~streamsql.functions.scalars.registry.failure_message`); the record is the first
        row the query fails on alone (found by bisection), named by the batch's ``origin``.
        """
        failure = python_functions.take_failure(query) or failure_message(duck_message(e))
        if origin is None:
            return ExecutionError(failure)
        row = self._failing_row(query, table)
        python_functions.take_failure(query)  # the bisection's own failures
        if row is None:
            return ExecutionError(failure)
        alone = self._error(query, table.slice(row, 1))  # the message of that row's own value
        if alone is not None:
            failure = python_functions.take_failure(query) or failure_message(duck_message(alone))
        return ExecutionError(f"{failure} (record {origin(row)})")

    def _failing_row(self, query: str, table: pa.Table) -> int | None:
        """The first row of ``table`` on which ``query`` fails (None if no single part fails)."""
        lo, n = 0, table.num_rows
        while n > 1:
            half = n // 2
            if self._fails(query, table.slice(lo, half)):
                n = half
            elif self._fails(query, table.slice(lo + half, n - half)):
                lo, n = lo + half, n - half
            else:
                return None
        return lo if n == 1 else None

    def _fails(self, query: str, part: pa.Table) -> bool:
        return self._error(query, part) is not None

    def _error(self, query: str, part: pa.Table) -> duckdb.Error | None:
        try:
            self._run_sql(query, part)
        except duckdb.Error as e:
            return e
        return None

    def _query_with(self, hidden: tuple[str, ...]) -> str:
        """The query that also selects the hidden columns ``hidden`` (cached per combination)."""
        q = self._hidden.get(hidden)
        if q is None:
            q = self._hidden[hidden] = self.spec.sql(hidden)
        return q


def _kept_rows(batch: Batch, mask: np.ndarray) -> Batch:
    """The rows of ``batch`` where ``mask`` (numpy bool, one per row) is True, in order.

    Their kinds, splits and origin go with them: what DuckDB's WHERE keeps.
    """
    if bool(mask.all()):
        return batch
    rows = np.flatnonzero(mask)
    return Batch(batch.table.take(rows), None if batch.kinds is None else batch.kinds[rows],
                 None if batch.splits is None else batch.splits[rows],
                 None if batch.origin is None else _kept(batch.origin, rows))


def _kept(origin, rows: np.ndarray):
    """The origin of the rows a filter kept: output row ``r`` is input row ``rows[r]``."""
    return lambda r: origin(int(rows[r]))


def query_table(con: duckdb.DuckDBPyConnection, sql: str, table: pa.Table) -> pa.Table:
    """Run ``sql`` on ``con`` with ``table`` as the query's input (zero-copy); the result as Arrow.

    Raises:
        duckdb.Error: as DuckDB raises it (callers turn it into a positioned or execution error).
    """
    con.register(INPUT_TABLE, table)
    try:
        if table.num_rows <= SMALL_BATCH:
            return executed_arrow(con, sql)
        return con.sql(sql).to_arrow_table()
    finally:
        con.unregister(INPUT_TABLE)
