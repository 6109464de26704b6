"""Processing-time temporal joins: lookup joins, as Flink's ``LookupJoin``.

``JOIN dim FOR SYSTEM_TIME AS OF o.proc [AS d] ON o.k = d.id [AND ...]`` where ``o.proc`` is a
``PROCTIME()`` attribute of the left input and ``dim`` a table whose connector can look rows up
(``ConnectorSpec.create_lookup``: ``jdbc``). Each left row is joined, when it arrives, with the
rows of ``dim`` that match its key *at that moment*; later changes of ``dim`` do not update
joined rows. INNER drops a row without a match, LEFT pads it with NULLs. The equality
conditions between a left expression and a plain ``dim`` column are the lookup key (any columns,
the primary key or not); every other condition (on ``dim`` alone, or on both) filters the
looked-up rows before they join, as in Flink. The output keeps the left's row kinds and time
attributes; the join keeps no state.

A processing-time temporal join against any other table (upsert-kafka, a file, a view) is an
error at the ``AS OF`` column, as in Flink 2.3 ("Processing-time temporal join is not supported
yet"; for a table without a primary key, Flink's earlier "Temporal Table Join requires primary
key in versioned table, but no primary key can be found").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import pyarrow as pa
from sqlglot import exp

from streamsql.connectors.registry import get_connector
from streamsql.core.catalog import TableDef
from streamsql.core.types import SqlType
from streamsql.plan.lookup_hint import LookupRetry, note_lookup_join
from streamsql.plan.nodes import PlanNode, ScanNode
from streamsql.plan.scope import Scope
from streamsql.plan.windows import is_proctime, time_attributes


@dataclass(eq=False)
class LookupJoinNode(PlanNode):
    """A lookup join: the left input, with the dimension table read by key (no input of its own).

    Attributes:
        join_type: INNER or LEFT.
        left_keys: the key column indexes in the left input.
        dim: the dimension table.
        dim_schema: its physical columns (Arrow), the right half of the output.
        dim_keys: the key columns of ``dim`` (names), in ``left_keys`` order.
        residual: DuckDB SQL of the other conditions over the output columns, or None.
        dim_filter: DuckDB SQL over ``dim_schema`` of the conditions on the dimension alone that
            Flink's JDBC lookup puts in its query (:func:`jdbc_pushable`), or None: a key whose
            rows all fail it is a miss, looked up again under a LOOKUP hint's retry.
        condition: the join condition, for EXPLAIN.
        out_time_attributes: the left's time attributes.
    """

    join_type: str = "INNER"
    left_keys: list[int] = field(default_factory=list)
    dim: TableDef = None  # type: ignore[assignment]
    dim_schema: pa.Schema = None  # type: ignore[assignment]
    dim_keys: list[str] = field(default_factory=list)
    residual: str | None = None
    condition: str = ""
    out_time_attributes: set = field(default_factory=set)
    dim_filter: str | None = None
    retry: LookupRetry | None = None  # a LOOKUP hint's retry on a miss (plan/lookup_hint.py)
    shuffle: bool = False  # a LOOKUP hint's 'shuffle' = 'true': shown by EXPLAIN only, as Flink's

    kind: ClassVar[str] = "lookup-join"

    def describe(self) -> str:
        """One line for EXPLAIN, as Flink's."""
        jt = "InnerJoin" if self.join_type == "INNER" else "LeftOuterJoin"
        keys = ", ".join(f"{k}={self.schema.names[i]}" for k, i in zip(self.dim_keys, self.left_keys))
        where = f", where=[{self.residual}]" if self.residual else ""
        hinted = ", shuffle=[true]" if self.shuffle else ""
        hinted += f", {self.retry.describe()}" if self.retry is not None else ""
        return (f"LookupJoin(table=[{self.dim.name}], joinType=[{jt}], lookup=[{keys}]{where}, "
                f"select=[{', '.join(self.schema.names)}]{hinted}, changelog=[{self.mode}])")


def plan_lookup_join(planner, j: exp.Join, jt: str, as_of: exp.Expression, left: PlanNode, ls: Scope,
                     right: PlanNode, lki: list[int], rki: list[int], out_schema: pa.Schema,
                     residual: str | None, cond_text: str,
                     dim_filter: str | None = None) -> LookupJoinNode | None:
    """The lookup join of ``j`` when ``AS OF`` names a ``PROCTIME()`` attribute of ``left``, else None.

    Args:
        planner: the planner (catalog, positioned errors).
        j: the JOIN.
        jt: its type.
        as_of: the ``AS OF`` expression.
        left: the left input, prepared (with its key columns).
        ls: the left's scope.
        right: the planned dimension table.
        lki: the equi-key column indexes in ``left``.
        rki: those in ``right``, in the same order.
        out_schema: left columns then the dimension's (renamed where they clash).
        residual: the other conditions over ``out_schema`` (DuckDB SQL), or None.
        cond_text: the condition for EXPLAIN.
        dim_filter: the conditions on ``right`` alone its lookup query takes (over ``right``'s columns).

    Raises:
        SqlError: the right is no lookup table (at the AS OF column, with Flink's meaning), a RIGHT
            or FULL join, a key that is not a plain column of the dimension table.
    """
    col = as_of.this if isinstance(as_of, exp.Paren) else as_of
    if not isinstance(col, exp.Column) or isinstance(col.this, exp.Star):
        return None
    name = ls.resolve(col).internal
    if name in time_attributes(left) or not is_proctime(left, name):
        return None
    table = j.this
    obj = planner._lookup(table) if isinstance(table, exp.Table) else None
    spec = get_connector(obj.connector) if isinstance(obj, TableDef) else None
    if isinstance(obj, TableDef) and spec is not None and spec.create_lookup is None and not obj.primary_key:
        # Flink checks the versioned table's key before it finds it is no lookup table (Nexmark q13's
        # side input, a filesystem table without one).
        planner._fail(col, f"FOR SYSTEM_TIME AS OF {col.sql()}: Temporal Table Join requires primary key in "
                           f"versioned table, but no primary key can be found ('{obj.name}', connector "
                           f"'{obj.connector}', has none). Only a lookup table (connector 'jdbc') can be "
                           "joined FOR SYSTEM_TIME AS OF a PROCTIME() attribute; Flink 2.3 refuses a "
                           "processing-time temporal join against any other table, with a primary key too "
                           "('Processing-time temporal join is not supported yet')")
    if spec is None or spec.create_lookup is None:
        what = (f"'{obj.name}' (connector '{obj.connector}')" if isinstance(obj, TableDef)
                else "a view or subquery")
        planner._fail(col, f"FOR SYSTEM_TIME AS OF {col.sql()}: a processing-time temporal join needs a "
                           f"lookup table on its right (connector 'jdbc'), and {what} is not one; "
                           "processing-time temporal joins are not supported against other tables (Flink "
                           "2.3: 'Processing-time temporal join is not supported yet'). Use an event-time "
                           "attribute of the left (WATERMARK FOR) against a versioned table, or a regular "
                           "JOIN")
    if jt not in ("INNER", "LEFT"):
        planner._fail(j, f"A lookup join (FOR SYSTEM_TIME AS OF a PROCTIME() column) can be INNER or LEFT, "
                         f"not {jt}")
    physical = obj.physical_schema.names
    scan = right if isinstance(right, ScanNode) else None
    keys = [right.schema.names[i] for i in rki]
    if scan is None or any(k not in physical for k in keys) or list(right.schema.names) != list(physical):
        planner._fail(j, f"A lookup join looks '{obj.name}' up by its own columns: the ON conditions must "
                         f"equal plain columns of '{obj.name}' (d.id = o.k), and the table can have no "
                         f"computed columns")
    node = LookupJoinNode([left], out_schema, left.mode, join_type=jt, left_keys=lki, dim=obj,
                          dim_schema=right.schema, dim_keys=keys, residual=residual, dim_filter=dim_filter,
                          condition=cond_text,
                          out_time_attributes=time_attributes(left))
    note_lookup_join(planner, node, table)  # a LOOKUP hint of its SELECT
    return node


_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.Like)
_INTEGRAL = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def jdbc_pushable(e: exp.Expression, type_of: Callable[[exp.Expression], SqlType | None]) -> bool:
    """Whether Flink's JDBC source puts ``e``, an ON or WHERE conjunct on the dimension alone, in its query.

    Its filter push-down (``JdbcFilterPushdownPreparedStatementVisitor``, flink-connector-jdbc
    4.0) renders =, <>, <, <=, >, >=, LIKE, AND, OR between columns and literals, and IS [NOT]
    NULL of a column; anything else (a function, arithmetic, the CAST Calcite puts on an INT
    column compared with ``2.5``) stays a condition checked after the lookup. What the database
    filters out is a miss to a LOOKUP hint's ``lookup_miss`` retry: ``d.w = 70`` retries a row
    (7, 5) until it becomes (7, 70), ``d.w + 1 = 71`` does not (probed on Flink 2.3 over
    PostgreSQL). Calcite's rewrites are followed: BETWEEN and IN of literals become comparisons,
    NOT of a comparison its opposite. ``type_of`` gives a column's type.
    """
    e = e.this if isinstance(e, exp.Paren) else e
    if isinstance(e, (exp.Column, exp.Literal, exp.Boolean)):
        return True
    if isinstance(e, exp.Neg):
        return isinstance(e.this, exp.Literal)
    if isinstance(e, (exp.And, exp.Or)):
        return jdbc_pushable(e.this, type_of) and jdbc_pushable(e.expression, type_of)
    if isinstance(e, (*_COMPARISONS, exp.Between, exp.In)):
        if isinstance(e, exp.In) and e.args.get("query"):
            return False
        if isinstance(e, _COMPARISONS):
            operands = [e.this, e.expression]
        elif isinstance(e, exp.Between):
            operands = [e.this, e.args["low"], e.args["high"]]
        else:
            operands = [e.this, *e.expressions]
        return all(jdbc_pushable(x, type_of) for x in operands) and not _cast_needed(operands, type_of)
    if isinstance(e, exp.Is):
        return isinstance(e.this, exp.Column) and isinstance(e.expression, exp.Null)
    if isinstance(e, exp.Not):
        inner = e.this.this if isinstance(e.this, exp.Paren) else e.this
        negatable = isinstance(inner, (exp.Is, exp.In, exp.Between, *_COMPARISONS))
        return negatable and jdbc_pushable(inner, type_of)
    return False


def _cast_needed(operands: list[exp.Expression], type_of) -> bool:
    """An integral column among ``operands`` compared with a number that is not whole (Calcite casts it)."""
    def fraction(x: exp.Expression) -> bool:
        x = x.this if isinstance(x, exp.Neg) else x
        return isinstance(x, exp.Literal) and x.is_number and not x.name.lstrip("+-").isdigit()

    def integral(x: exp.Expression) -> bool:
        t = type_of(x) if isinstance(x, exp.Column) else None
        return t is not None and t.name in _INTEGRAL

    return any(map(fraction, operands)) and any(map(integral, operands))
