"""The rows of ``DESCRIBE t``, as Apache Flink 2.3's: one per column, time attributes marked.

Columns (Flink's): ``name``, ``type``, ``null``, ``key`` (``PRI(a, b)`` on each primary key
column), ``extras``, ``watermark``, and ``comment`` when a column of the table has a
``COMMENT`` (Flink 2.3's ``DESCRIBE [EXTENDED]`` and ``SHOW COLUMNS`` print the same rows). The
type of a time attribute carries Flink's marker:
``TIMESTAMP(3) *ROWTIME*`` (or ``TIMESTAMP_LTZ(3) *ROWTIME*``) for a ``WATERMARK FOR`` column,
``TIMESTAMP_LTZ(3) *PROCTIME*`` (``NOT NULL``: null ``FALSE``) for a ``PROCTIME()`` attribute, a
DDL computed column's or a view's SELECT item's, also passed on through the view's projections
and filters. Checked against Flink's own DESCRIBE output (``tests/e2e/describe_flink.json``,
written by ``scripts/flink_describe.py``).

Not marked here although Flink marks them (these are no time attributes to our planner, so a
window over them is refused): a view's ``PROCTIME()`` column after an aggregation or a regular
join, ``PROCTIME() + INTERVAL ...``, and the ``window_time`` of a window aggregate. A computed
column's and a view's column's type and nullability are Flink's where TYPEOF's rules make them
certain (``ColumnDef.derived``, ``Planner.view_column_types``: a view of a SELECT over one table);
elsewhere unlike Flink: nullable (null ``TRUE``) with the plan's type. ``extras`` / ``watermark``
print an expression as StreamSQL's parser reads it, identifiers backquoted as Flink prints them,
which is Flink's text for most expressions (``AS `a` + 1``, ``AS UPPER(`b`)``, ```TO_TIMESTAMP_LTZ`(`ms`,
3)``, ``TRIM(BOTH ' ' FROM `b`)``, ``BETWEEN ASYMMETRIC``) but not all: ``MOD(a, 2)`` prints as
``a % 2``, ``NOT (a > 1)`` keeps its parentheses, and Flink backquotes the names of its other
new-stack functions, which are not listed here (``tests/e2e/test_ddl_flink.py``).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.catalog import TableDef
from streamsql.core.types import SqlType
from streamsql.plan.expressions import is_proctime_call
from streamsql.plan.nodes import PlanNode
from streamsql.plan.windows import is_proctime, time_attributes
from streamsql.sql.dialect import Flink

COLUMNS = ["name", "type", "null", "key", "extras", "watermark"]
ROWTIME, PROCTIME = " *ROWTIME*", " *PROCTIME*"


def describe_table(table: TableDef) -> tuple[list[str], list[tuple]]:
    """``(columns, rows)`` of DESCRIBE: :data:`COLUMNS`, and ``comment`` when a column has one."""
    rows = table_rows(table)
    if all(c.comment is None for c in table.columns):
        return COLUMNS, rows
    return [*COLUMNS, "comment"], [(*r, c.comment) for r, c in zip(rows, table.columns)]


def table_rows(table: TableDef) -> list[tuple]:
    """DESCRIBE rows of a table: its declared (or, for computed columns, inferred) columns."""
    rows = []
    for c in table.columns:
        extras = f"AS {flink_text(c.computed)}" if c.computed is not None else _metadata_extras(c)
        rowtime = table.watermark is not None and table.watermark.column.lower() == c.name.lower()
        proctime = c.computed is not None and is_proctime_call(c.computed)
        wm = flink_text(table.watermark.expr) if rowtime else None
        # Flink's type column has no NOT NULL: the null column says it. A computed column's type
        # is Flink's where it is certain (``derived``), else the inferred one, nullable.
        t = c.derived if c.derived is not None and not proctime else c.type
        typ = str(t.with_nullable(True)) if t is not None else "(computed)"
        typ += ROWTIME if rowtime else PROCTIME if proctime else ""
        null = False if proctime else (t.nullable if t else True)
        key = f"PRI({', '.join(table.primary_key)})" if c.name in table.primary_key else None
        rows.append((c.name, typ, null, key, extras, wm))
    return rows


#: Functions whose name Flink's DESCRIBE backquotes (its new-stack built-ins, seen in Flink 2.3's
#: output); the others print as keywords.
QUOTED_FUNCTIONS = frozenset({"TO_TIMESTAMP_LTZ"})
#: Interval units Flink's parser takes in the plural (printed singular: ``INTERVAL '1' SECOND``).
PLURAL_UNITS = frozenset({"YEARS", "MONTHS", "DAYS", "HOURS", "MINUTES", "SECONDS"})


class _DescribeText(Flink.Generator):
    """Flink's dialect, spelled as Flink's DESCRIBE prints an expression (Calcite's unparse)."""

    def between_sql(self, expression: exp.Between) -> str:
        if expression.args.get("symmetric"):
            return super().between_sql(expression)
        return (f"{self.sql(expression, 'this')} BETWEEN ASYMMETRIC {self.sql(expression, 'low')} AND "
                f"{self.sql(expression, 'high')}")

    def trim_sql(self, expression: exp.Trim) -> str:
        if expression.args.get("position") or expression.args.get("expression"):
            return super().trim_sql(expression)
        return f"TRIM(BOTH ' ' FROM {self.sql(expression, 'this')})"

    def interval_sql(self, expression: exp.Interval) -> str:
        # Calcite unparses a plural unit (INTERVAL '1' SECONDS, Flink's alias) in the singular
        unit = expression.args.get("unit")
        if isinstance(unit, exp.Var) and unit.name.upper() in PLURAL_UNITS:
            expression = expression.copy()
            expression.set("unit", exp.var(unit.name.upper()[:-1]))
        return super().interval_sql(expression)

    def anonymous_sql(self, expression: exp.Anonymous) -> str:
        name = str(expression.this)
        if name.upper() in QUOTED_FUNCTIONS:
            return f"`{name.upper()}`({self.expressions(expression, flat=True)})"
        return super().anonymous_sql(expression)


def flink_text(expr: exp.Expression) -> str:
    """An expression as Flink's DESCRIBE prints it: identifiers in backquotes (```a` + 1``)."""
    return _DescribeText(dialect=Flink, identify=True).generate(expr)


def _metadata_extras(c) -> str | None:
    """``METADATA [FROM 'key'] [VIRTUAL]`` as Flink prints it (FROM only for a key not the name)."""
    if not c.metadata_key:
        return None
    text = "METADATA" if c.metadata_key == c.name else f"METADATA FROM '{c.metadata_key}'"
    return f"{text} VIRTUAL" if c.virtual else text


def view_rows(node: PlanNode, certain: list[SqlType | None] | None = None) -> list[tuple]:
    """DESCRIBE rows of a view whose query plans to ``node``.

    ``certain``: Flink's type of each column where it is certain (nullability included; see
    ``Planner.view_column_types``); the others are the plan's types, nullable.
    """
    rowtimes = time_attributes(node)
    fields = list(node.sql_schema)
    known = certain if certain is not None and len(certain) == len(fields) else [None] * len(fields)
    rows = []
    for f, t in zip(fields, known, strict=True):
        proctime = is_proctime(node, f.name)
        rowtime = f.name in rowtimes and f.type.is_time
        marker = PROCTIME if proctime else ROWTIME if rowtime else ""
        if t is None or proctime or rowtime:
            rows.append((f.name, str(f.type) + marker, not proctime, None, None, None))
        else:
            rows.append((f.name, str(t.with_nullable(True)), t.nullable, None, None, None))
    return rows
