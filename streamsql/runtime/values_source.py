"""The source of a :class:`~streamsql.plan.nodes.ValuesNode`: a VALUES list's rows, then its end.

Bounded and insert-only, one split. Its rows are evaluated once, when the job starts (a cell may
call a function: ``UUID()``, ``NOW()``), in one DuckDB query; :meth:`ValuesSource.poll` hands them
out in order, at most ``max_rows`` at a time.

Exactly-once: the position is the number of rows handed out (``{"offset": n}``), recorded at
each barrier like a Kafka offset, so a job restored from a checkpoint emits exactly the rows after
it — none lost, none twice. A restored job evaluates its rows again: a deterministic cell gives the
same value; a non-deterministic one (``UUID()``) a new one for the rows not yet emitted, as Flink
evaluates them again after a restore. A literal-seed ``RAND(42)`` draws from Randoms of each opening's
own (:func:`~streamsql.functions.scalars.seeded_random.seeded_connection`): the same values again,
as Flink's operator creates its Random when it opens.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from streamsql.core.connector import Source
from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.core.types import Schema
from streamsql.functions import python_functions
from streamsql.functions.scalars.registry import failure_message
from streamsql.functions.scalars.seeded_random import seeded_connection, uses_seeded
from streamsql.plan.expressions import quote
from streamsql.plan.nodes import ValuesNode
from streamsql.plan.query import duck_message


class ValuesSource(Source):
    """Emits a VALUES list's rows (see module docstring).

    Args:
        node: the planned rows and their schema.
    """

    bounded = True

    def __init__(self, node: ValuesNode):
        self.node = node
        self.schema = Schema.from_arrow(node.schema)
        self._rows: pa.Table | None = None
        self._next = 0

    def open(self, position: dict | None) -> None:
        """Evaluate the rows; start after the first ``position["offset"]`` of them (0: all).

        Raises:
            ExecutionError: a cell that fails (``CAST('x' AS INT)``), with its function's message
                and the row's number.
        """
        self._rows = self._evaluate()
        self._next = min(int((position or {}).get("offset", 0)), self._rows.num_rows)

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """The next rows, at most ``max_rows``; None once all are out."""
        if self._rows is None or self._next >= self._rows.num_rows:
            return None
        part = self._rows.slice(self._next, max_rows)
        self._next += part.num_rows
        return Batch(part)

    def position(self) -> dict:
        """The rows handed out so far: ``{"offset": n}``."""
        return {"offset": self._next}

    def finished(self) -> bool:
        """True once every row is out."""
        return self._rows is not None and self._next >= self._rows.num_rows

    def _evaluate(self) -> pa.Table:
        # RAND(42): Randoms of this opening's own, as Flink's operator creates them when it opens
        # (a restored job draws the same values again), not the process's shared ones
        query = self._query(self.node.rows)
        con = seeded_connection() if uses_seeded(query) else python_functions.cursor()
        try:
            try:
                table = con.sql(query).to_arrow_table()
            except duckdb.Error as e:
                raise self._failure(con, e) from None
        finally:
            con.close()
        return table.rename_columns(self.node.schema.names).cast(self.node.schema)

    def _query(self, rows: list[list[str]]) -> str:
        names = ", ".join(quote(n) for n in self.node.schema.names)
        tuples = ", ".join("(" + ", ".join(row) + ")" for row in rows)
        return f"SELECT * FROM (VALUES {tuples}) AS __values({names})"

    def _failure(self, con: duckdb.DuckDBPyConnection, e: duckdb.Error) -> ExecutionError:
        """The job's error for rows that fail to evaluate: the first failing row's own message."""
        for i, row in enumerate(self.node.rows):
            query = self._query([row])
            try:
                con.sql(query).fetchall()
            except duckdb.Error as alone:
                failure = python_functions.take_failure(query) or failure_message(duck_message(alone))
                return ExecutionError(f"{failure} (row {i + 1} of VALUES)")
        return ExecutionError(failure_message(duck_message(e)))
