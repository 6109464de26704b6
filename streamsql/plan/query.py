"""Batch queries as the plan describes them: ``SELECT items FROM batch [WHERE condition]``.

A :class:`QuerySpec` is what a plan node carries for a Calc, a watermark expression or a join
condition: the DuckDB SQL of each output column and of the filter, the input schema and the
output schema DuckDB infers for them. :func:`compile_query` checks the expressions once, at
planning (so a type error is a positioned :class:`~streamsql.core.errors.SqlError` before
anything runs); the runtime's ``BatchQuery`` evaluates a spec over each batch.
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from streamsql.core.errors import SqlError
from streamsql.core.types import Schema, SqlType, holds_time
from streamsql.functions import python_functions
from streamsql.plan.expressions import quote
from streamsql.sql.parser import too_deep

#: The name under which the batch is visible to the query.
INPUT_TABLE = "__in"

#: DuckDB 2's Python API warns that Arrow out of a DB-API result copies the rows: :func:`executed_arrow`
#: takes results without rows or with few that way, on purpose. Only for this module's calls.
_NO_ROWS_COPIED = dict(message="Arrow output on a DB-API result makes an extra copy", category=UserWarning,
                       module=__name__)
warnings.filterwarnings("ignore", **_NO_ROWS_COPIED)


@dataclass(frozen=True, eq=False)
class QuerySpec:
    """``SELECT items FROM batch [WHERE condition]``, checked against ``input_schema``.

    Attributes:
        items: (output name, DuckDB SQL) pairs.
        condition: DuckDB SQL of a boolean filter, or None.
        input_schema: the Arrow schema of input batches.
        output_schema: the Arrow schema of the result (DuckDB's types through our SQL types).
        duckdb_schema: the Arrow schema DuckDB gives the result, which the runtime casts to
            ``output_schema`` (None: not compiled). Where a column's two types are equal, its
            DuckDB expression computes the column's very values (:mod:`streamsql.plan.calc_merge`
            relies on it).
    """

    items: list[tuple[str, str]]
    condition: str | None
    input_schema: pa.Schema
    output_schema: pa.Schema
    duckdb_schema: pa.Schema | None = None

    def sql(self, extra_columns: tuple[str, ...] = ()) -> str:
        """The query text, also selecting the input columns ``extra_columns`` (e.g. row kinds)."""
        columns = [f"{expr} AS {quote(name)}" for name, expr in self.items] or ["1 AS __dummy"]
        where = f" WHERE {self.condition}" if self.condition else ""
        return f"SELECT {', '.join(columns + list(extra_columns))} FROM {INPUT_TABLE}{where}"

    def column_refs(self) -> list[int] | None:
        """Input column indexes when the query only selects plain columns (no WHERE), else None."""
        refs = self.item_refs()
        return refs if self.items and self.condition is None and None not in refs else None

    def item_refs(self) -> list[int | None]:
        """Per item, the index of the input column it only passes on, or None (an expression)."""
        by_ref = {quote(n): i for i, n in enumerate(self.input_schema.names)}
        return [by_ref.get(expr) for _, expr in self.items]

    def computed_part(self) -> QuerySpec | None:
        """This query's computed items alone, when it has no WHERE and also passes plain columns on.

        Without a filter every input row is an output row in order, so the plain columns can be
        taken from the batch as they are and only the other items need evaluating (the runtime
        puts the two together). None when there is a WHERE, or no plain or no computed item, or
        an item unnests (DuckDB's ``unnest`` in a SELECT list makes a row per element).
        """
        refs = self.item_refs()
        computed = [i for i, r in enumerate(refs) if r is None]
        if self.condition is not None or not computed or len(computed) == len(refs):
            return None
        if any("unnest(" in self.items[i][1].lower() for i in computed):  # DuckDB's unnest adds rows
            return None
        fields = [self.output_schema.field(i) for i in computed]
        duck = self.duckdb_schema and pa.schema([self.duckdb_schema.field(i) for i in computed])
        return QuerySpec([self.items[i] for i in computed], None, self.input_schema, pa.schema(fields), duck)


def compile_query(items: list[tuple[str, str]], condition: str | None, input_schema: pa.Schema,
                  sql: str | None = None, types: dict[str, SqlType] | None = None) -> QuerySpec:
    """Check ``SELECT items FROM batch [WHERE condition]`` and infer its output schema.

    Args:
        items: (output name, DuckDB SQL) pairs.
        condition: DuckDB SQL of a boolean filter, or None.
        input_schema: the Arrow schema of input batches.
        sql: the user's statement, for positioned errors.
        types: output columns whose type is known better than DuckDB's inference (see
            :func:`~streamsql.plan.expressions.registry_time_type`).

    Raises:
        SqlError: when DuckDB rejects the expressions (type errors, unknown functions).
    """
    spec = QuerySpec(items, condition, input_schema, input_schema)
    duck = _duckdb_schema(spec.sql(), input_schema)
    if isinstance(duck, duckdb.Error):
        if "expression depth" in str(duck):  # DuckDB's own nesting limit: ours, in our words
            raise too_deep(sql or "") from None
        msg = f"Cannot evaluate expression: {duck_message(duck)}"
        raise SqlError(msg, sql) from None
    # DuckDB's result types, normalised through our SQL types (e.g. HUGEINT sums → DECIMAL).
    output = Schema.from_arrow(duck).to_arrow()
    output = _keep_passed_types(items, input_schema, output)
    output = _keep_compiled_types(items, output)
    if types:
        output = pa.schema([types[f.name].arrow_field(f.name) if f.name in types else f for f in output])
    return QuerySpec(items, condition, input_schema, output, duck)


#: DuckDB's answers of :func:`_duckdb_schema`, most recent last: (query text, input schema's
#: bytes, the registered functions' version) → the result's Arrow schema, or DuckDB's error.
_CHECKED: OrderedDict[tuple[str, bytes, int], pa.Schema | duckdb.Error] = OrderedDict()
_CHECKED_SIZE = 256
_checked_lock = threading.Lock()


def _duckdb_schema(query: str, input_schema: pa.Schema) -> pa.Schema | duckdb.Error:
    """The Arrow schema of ``query`` run over an empty batch of ``input_schema``, or DuckDB's error.

    Remembered (the last :data:`_CHECKED_SIZE` queries) until a function is registered: a
    statement is planned more than once (``CREATE VIEW`` then ``DESCRIBE``; ``EXPLAIN`` then the
    job; a view's query in each statement that reads it), and DuckDB's check is most of a large
    SELECT list's planning time. Over no rows DuckDB's answer depends only on the text, the
    input's types and the functions registered in the planning database.

    The query runs as a DB-API ``execute``, not as a relation (``con.sql(query)``): DuckDB 2's
    relation tokenizes the text in Python for parameter markers and binds it once more before it
    runs (~45 % of the check's time over the conformance and difference-fuzzer queries: 69 vs 39
    CPU-s for 3,807 queries, each with the same schema or the same error). It still runs, over no
    rows: DuckDB's optimizer fails on some constants that binding takes (a constant regular
    expression that does not compile), and so must planning.
    """
    key = (query, input_schema.serialize().to_pybytes(), python_functions.registered_version())
    with _checked_lock:
        if key in _CHECKED:
            _CHECKED.move_to_end(key)
            return _CHECKED[key]
    con = python_functions.planning_connection()
    con.register(INPUT_TABLE, input_schema.empty_table())
    try:
        answer: pa.Schema | duckdb.Error = executed_arrow(con, query).schema
    except duckdb.Error as e:
        answer = e.with_traceback(None)  # kept: not its frames
    finally:
        con.unregister(INPUT_TABLE)
    with _checked_lock:
        _CHECKED[key] = answer
        while len(_CHECKED) > _CHECKED_SIZE:
            _CHECKED.popitem(last=False)
    return answer


def executed_arrow(con: duckdb.DuckDBPyConnection, sql: str) -> pa.Table:
    """``sql``'s result as Arrow, run as a DB-API ``execute`` (see :func:`_duckdb_schema`).

    Cheaper than ``con.sql(sql).to_arrow_table()`` by a parse, a bind and a Python pass over the
    text, dearer by a copy of the result's rows (DuckDB 2's warning, silenced for this module):
    for a result without rows or with few (the runtime's small batches).
    """
    result = con.execute(sql)
    fetch = getattr(result, "to_arrow_table", None) or result.fetch_arrow_table  # DuckDB 2, 1
    return fetch()


def _keep_passed_types(items: list[tuple[str, str]], input_schema: pa.Schema, output: pa.Schema) -> pa.Schema:
    """``output`` with each column that only passes an input column on typed as that input column.

    DuckDB has no millisecond TIMESTAMPTZ: a TIMESTAMP_LTZ(3) column comes back in microseconds,
    which would make it TIMESTAMP_LTZ(6) downstream (and its CAST to STRING print 6 fraction
    digits where Flink prints 3). The runtime casts each result to the spec's schema.
    """
    by_ref = {quote(f.name): f for f in input_schema}
    fields = [by_ref[expr].with_name(f.name) if expr in by_ref else f for f, (_, expr) in zip(output, items)]
    return pa.schema(fields)


def _keep_compiled_types(items: list[tuple[str, str]], output: pa.Schema) -> pa.Schema:
    """``output`` with each compiled column typed as the registry types it, where that refines DuckDB's.

    Only the same Arrow type is refined: ``CAST(x AS TIMESTAMP(0))`` is a ``timestamp[ms]`` that
    reads back as TIMESTAMP(3), ``CAST(s AS CHAR(3))`` a ``string``. The column then keeps
    Flink's type downstream (:meth:`~streamsql.core.types.SqlType.arrow_field`):
    ``CAST(t AS STRING)`` of a TIMESTAMP(0) prints no fraction, a sink of the same type adds no
    cast. A registry type whose Arrow type differs from DuckDB's is not taken (the values would
    need converting).
    """
    fields = []
    for f, (_, expr) in zip(output, items):
        t = getattr(expr, "type", None)
        # A constant (no column) is left coarse: Flink folds it while planning to a literal of
        # its type, digits cut (TIMESTAMP '... 00:00:00' - INTERVAL '0.5' SECOND into a
        # TIMESTAMP(0) sink is ...:59), which the sink's cast from the coarse type then does.
        constant = '"' not in expr  # compiled columns are quoted names
        # a constant's bytes are already cut and padded to its BINARY(n) / VARBINARY(n) (X'0102'), a
        # constant TIME to its TIME(p) (reduced.as_literal; every TIME(p) is one Arrow type, so a
        # TIME inside a ROW / ARRAY / MAP keeps its precision only so too); a VARIANT is its type
        # (a constant one is a ``string`` too: TRY_PARSE_JSON('{bad') is a NULL VARIANT)
        timed = t is not None and (t.name == "TIME" or (t.is_composite and holds_time(t)))
        typed_constant = t is not None and (t.name in ("BYTES", "VARIANT") or timed)
        if t is not None and (not constant or typed_constant) and (not t.is_composite or timed) \
                and t.to_arrow() == f.type and f.metadata is None:
            f = t.arrow_field(f.name)
        fields.append(f)
    return pa.schema(fields)


def duck_message(e: Exception) -> str:
    """The first line of a DuckDB error, naming the batch ``input``."""
    text = str(e).split("\n")[0]
    return text.replace(f'"{INPUT_TABLE}"', "input").replace(INPUT_TABLE, "input")
