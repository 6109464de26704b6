"""The rows of ``DESCRIBE t``, as Apache Flink 2.3's: one per column, time attributes marked.

Columns (Flink's): ``name``, ``type``, ``null``, ``key`` (``PRI(a, b)`` on each primary key
column), ``extras``, ``watermark``. The type of a time attribute carries Flink's marker:
``TIMESTAMP(3) *ROWTIME*`` (or ``TIMESTAMP_LTZ(3) *ROWTIME*``) for a ``WATERMARK FOR`` column,
``TIMESTAMP_LTZ(3) *PROCTIME*`` (``NOT NULL``: null ``FALSE``) for a ``PROCTIME()`` attribute, a
DDL computed column's or a view's SELECT item's, also passed on through the view's projections
and filters. Checked against Flink's own DESCRIBE output (``tests/e2e/describe_flink.json``,
written by ``scripts/flink_describe.py``).

Not marked here although Flink marks them (these are no time attributes to our planner, so a
window over them is refused): a view's ``PROCTIME()`` column after an aggregation or a regular
join, ``PROCTIME() + INTERVAL ...``, and the ``window_time`` of a window aggregate. Also unlike
Flink: a view's other columns are all nullable (null ``TRUE``), and ``extras`` / ``watermark``
print expressions without Flink's backquoted identifiers.
"""

from __future__ import annotations

from streamsql.core.catalog import TableDef
from streamsql.plan.expressions import is_proctime_call
from streamsql.plan.nodes import PlanNode
from streamsql.plan.windows import is_proctime, time_attributes

COLUMNS = ["name", "type", "null", "key", "extras", "watermark"]
ROWTIME, PROCTIME = " *ROWTIME*", " *PROCTIME*"


def table_rows(table: TableDef) -> list[tuple]:
    """DESCRIBE rows of a table: its declared (or, for computed columns, inferred) columns."""
    rows = []
    for c in table.columns:
        extras = (f"AS {c.computed.sql()}" if c.computed is not None else
                  f"METADATA FROM '{c.metadata_key}'" if c.metadata_key else None)
        rowtime = table.watermark is not None and table.watermark.column.lower() == c.name.lower()
        proctime = c.computed is not None and is_proctime_call(c.computed)
        wm = table.watermark.expr.sql() if rowtime else None
        # Flink's type column has no NOT NULL: the null column says it
        typ = str(c.type.with_nullable(True)) if c.type is not None else "(computed)"
        typ += ROWTIME if rowtime else PROCTIME if proctime else ""
        null = False if proctime else (c.type.nullable if c.type else True)
        key = f"PRI({', '.join(table.primary_key)})" if c.name in table.primary_key else None
        rows.append((c.name, typ, null, key, extras, wm))
    return rows


def view_rows(node: PlanNode) -> list[tuple]:
    """DESCRIBE rows of a view whose query plans to ``node``."""
    rowtimes = time_attributes(node)
    rows = []
    for f in node.sql_schema:
        proctime = is_proctime(node, f.name)
        marker = PROCTIME if proctime else ROWTIME if f.name in rowtimes and f.type.is_time else ""
        rows.append((f.name, str(f.type) + marker, not proctime, None, None, None))
    return rows
