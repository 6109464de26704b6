"""``VALUES`` rows and ``SELECT`` without ``FROM``, planned onto a :class:`ValuesNode` (Flink's Values).

As Flink's planner:

- ``VALUES (1, 'a'), (2, 'b')`` — in ``FROM (VALUES ...) AS v(id, name)``, as an INSERT's source,
  in a UNION, a view or a join — is a bounded, insert-only source of those rows, columns
  ``EXPR$0, EXPR$1, ...`` unless an alias names them;
- ``SELECT 1, 'x'`` (no FROM) is a Calc over ``Values(tuples=[[{ 0 }]])``: one row, one column
  ``ZERO`` that no expression can see.

Each column has the least restrictive type of its rows (Calcite's ``leastRestrictive``, as
Flink's validator types a VALUES; checked with TYPEOF against Flink 2.3, compat case
``values_types``): ``(1), (2.5)`` is DECIMAL(11, 1); ``('ab'), ('cd')`` CHAR(2), but ``('a'),
('abc')`` VARCHAR(3), not padded (Flink turns ragged CHARs into a VARCHAR); a CHAR with a
VARCHAR(n) is VARCHAR; TIMESTAMPs take the largest precision, and a TIMESTAMP with a TIMESTAMP_LTZ
Calcite's kind met in order (:func:`~streamsql.functions.scalars.typerules.rows_type`). Rows of
different lengths, columns without a common type and an untyped NULL (Flink 2.3: ``Illegal use of
'NULL'``, in an INSERT's VALUES too; ``CAST(NULL AS INT)`` is fine) are refused with Flink's words.
Each cell is cast to its column's type (:func:`~streamsql.functions.scalars.registry.cast_value`,
the sink's cast; between the TIMESTAMP kinds in the session time zone), so the values carry
Flink's type through the plan (:meth:`~streamsql.core.types.SqlType.arrow_field`), and an
INSERT casts them to the sink's types as it casts a SELECT's (:mod:`streamsql.plan.sinks`).

The rows are evaluated when the job starts (:mod:`streamsql.runtime.values_source`), as
Flink evaluates at run time what its planner could not fold to literals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
from sqlglot import exp

from streamsql.core.catalog import TableDef
from streamsql.core.types import SqlType
from streamsql.functions.scalars import bind
from streamsql.functions.scalars.registry import FunctionError, cast_value
from streamsql.functions.scalars.typeof import flink_type
from streamsql.functions.scalars.typerules import rows_type
from streamsql.plan.expressions import compile_expression, flink_text, resolve_columns
from streamsql.plan.nodes import INSERT_ONLY, ValuesNode
from streamsql.plan.query import compile_query
from streamsql.plan.scope import Scope, ScopeColumn

if TYPE_CHECKING:
    from streamsql.plan.planner import Planner

#: The one column of the one row a SELECT without FROM reads (Flink: ``Values(tuples=[[{ 0 }]])``).
ZERO = "ZERO"

#: What a ValuesNode's ``table`` says (it reads no catalog table; no connector options).
VALUES_TABLE = "VALUES"

_ZERO_INPUT = pa.schema([pa.field(ZERO, pa.int32())])


def plan_values(planner: Planner, values: exp.Values) -> tuple[ValuesNode, Scope]:
    """The node of ``VALUES row, ...`` and its scope (columns ``EXPR$i``, unqualified).

    The caller renames the columns by an alias's column list (``AS v(id, name)``).

    Raises:
        SqlError: rows of different lengths (at the first row whose length differs), a column
            without a common type or NULL in every row (at the VALUES), an expression that uses a
            column (there is none).
    """
    rows = [_row(r) for r in values.expressions]
    width = len(rows[0])
    for r, row in zip(values.expressions, rows):
        if len(row) != width:
            planner._fail(r, "Values passed to VALUES operator must have compatible types: rows have "
                             f"{width} and {len(row)} values ({_row_text(rows[0])} and {_row_text(row)})")
    empty = Scope([], planner.sql, "any table")
    sqls = [[_compile(planner, e, empty) for e in row] for row in rows]
    # One DuckDB check of every cell (a query per cell took 30 s for 1,000 rows of two columns).
    spec = compile_query([(f"c{r}_{i}", sql) for r, row in enumerate(sqls) for i, sql in enumerate(row)],
                         None, _ZERO_INPUT, planner.sql)
    inferred = iter(SqlType.of_field(f) for f in spec.output_schema)
    compiled = [[_cell(e, sql, next(inferred), empty) for e, sql in zip(row, row_sqls)]
                for row, row_sqls in zip(rows, sqls)]
    columns = [f"EXPR${i}" for i in range(width)]
    types = [_column_type(planner, [row[i] for row in rows], [row[i][1] for row in compiled], i)
             for i in range(width)]
    cells = [[cast_value(sql, t, types[i]) if t != types[i] else sql for i, (sql, t, _) in enumerate(row)]
             for row in compiled]
    schema = pa.schema([t.arrow_field(n) for n, t in zip(columns, types)])
    declared = [_declared(types[i], [row[i][2] for row in compiled]) for i in range(width)]
    node = ValuesNode([], schema, INSERT_ONLY, table=TableDef(VALUES_TABLE, [], {}), rows=cells,
                      rows_sql=[[flink_text(sql) for sql, _, _ in row] for row in compiled])
    folded = [all(row[i].deterministic for row in sqls) for i in range(width)]
    scope = Scope([ScopeColumn(None, n, n, t, d, folded=f)
                   for n, t, d, f in zip(columns, types, declared, folded)], planner.sql)
    return node, scope


def check_row_widths(planner: Planner, values: exp.Values, width: int) -> None:
    """``INSERT INTO t (cols) VALUES ...``: every row has one value per listed column.

    Raises:
        SqlError: Calcite's "Number of columns must match number of query columns" at the first
            row that has another number of values (checked before the rows' types, as Flink).
    """
    for r in values.expressions:
        row = _row(r)
        if len(row) != width:
            planner._fail(r, f"Number of columns must match number of query columns: the column list has "
                             f"{width}, the row {_row_text(row)} {len(row)}")


def zero_row() -> ValuesNode:
    """The one-row input of a SELECT without FROM (no column of it is in scope)."""
    return ValuesNode([], _ZERO_INPUT, INSERT_ONLY, table=TableDef(VALUES_TABLE, [], {}), rows=[["0"]],
                      rows_sql=[["0"]])


def _row(r: exp.Expression) -> list[exp.Expression]:
    """A VALUES row's cells: ``(1, 'a')``, a bare ``1``, ``ROW(1, 'a')`` or ``(ROW(1, 'a'))``.

    A row that is one ROW constructor is Calcite's row constructor: two columns, as Flink 2.3 reads it.
    """
    cells = list(r.expressions) if isinstance(r, exp.Tuple) else [r]
    if len(cells) == 1 and isinstance(cells[0], exp.Anonymous) and cells[0].name.upper() == "ROW":
        cells = list(cells[0].expressions)
    return cells


def _compile(planner: Planner, e: exp.Expression, scope: Scope) -> str:
    """A VALUES cell's DuckDB SQL (a :class:`~streamsql.plan.expressions.Compiled`).

    Raises:
        SqlError: an untyped NULL, as Flink's validator (its type cannot be inferred); what
            :func:`~streamsql.plan.expressions.compile_expression` refuses.
    """
    if isinstance(e.unnest(), exp.Null):
        planner._fail(e, "Illegal use of 'NULL': a VALUES cell cannot be an untyped NULL; write "
                         "CAST(NULL AS <type>), e.g. CAST(NULL AS INT)")
    return compile_expression(e, scope)


def _cell(e: exp.Expression, sql: str, inferred: SqlType,
          scope: Scope) -> tuple[str, SqlType, SqlType | None]:
    """A VALUES cell: its DuckDB SQL, its type, and its exact Flink type (nullability too) or None.

    The type is the function registry's where DuckDB carries it as such (CHAR(3) as a string),
    else DuckDB's (``inferred``); the exact one is TYPEOF's derivation, where certain (a literal, a
    CAST...).
    """
    if isinstance(e, exp.Literal) and e.is_string and not e.this:  # '': CHAR(0) to Calcite
        return sql, SqlType("STRING", 0, padded=True), None
    typed = e.unnest()
    while isinstance(typed, exp.Neg) and isinstance(typed.this.unnest(), exp.Literal):  # -4: a literal
        typed = typed.this.unnest()
    try:
        exact = flink_type(resolve_columns(typed, scope), bind)
    except FunctionError:
        exact = None
    t = exact.with_nullable(True) if exact is not None else getattr(sql, "type", None)
    # DuckDB has no millisecond TIMESTAMPTZ: TO_TIMESTAMP_LTZ(ms, 3) keeps the registry's precision
    same_time = t is not None and t.is_time and t.name == inferred.name
    if t is None or t.is_composite or (t.to_arrow() != inferred.to_arrow() and not same_time):
        t = inferred
    return sql, t, exact


def _column_type(planner: Planner, cells: list[exp.Expression], types: list[SqlType], i: int) -> SqlType:
    """Calcite's least restrictive type of column ``i``'s ``cells`` (see module docstring).

    Raises:
        SqlError: no common type, at the first cell that has none with the cells above it.
    """
    if all(t.name == "STRING" for t in types):
        lengths = [t.precision for t in types]
        if all(t.padded for t in types) and len(set(lengths)) == 1 and lengths[0]:
            return types[0]  # CHAR(n) in every row
        # CHAR(1) with CHAR(3) is VARCHAR(3): Flink's type system turns ragged CHARs to VARCHAR
        # (shouldConvertRaggedUnionTypesToVarying), so 'a' is not padded.
        return SqlType("STRING", None if None in lengths or not max(lengths) else max(lengths))
    t = rows_type(types)
    if t is None:
        at = next(c for k, c in enumerate(cells) if rows_type(types[: k + 1]) is None)
        planner._fail(at, f"Values passed to VALUES operator must have compatible types: column "
                              f"{i + 1} has {' and '.join(dict.fromkeys(str(k) for k in types))}")
    return t


def _declared(t: SqlType, exact: list[SqlType | None]) -> SqlType | None:
    """The column's type for TYPEOF: NOT NULL when no cell may be NULL; None when not certain."""
    if any(e is None for e in exact):
        return None
    return t.with_nullable(any(e.nullable for e in exact))


def _row_text(row: list[exp.Expression]) -> str:
    return "(" + ", ".join(e.sql() for e in row) + ")"
