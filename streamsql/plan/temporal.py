"""Event-time temporal joins: ``JOIN r FOR SYSTEM_TIME AS OF l.rowtime ON l.k = r.pk``, as Flink's.

The right side is a **versioned table**: a table with a ``PRIMARY KEY`` and a ``WATERMARK`` — a
changelog source (``upsert-kafka``, ``debezium-json``) or an append-only one whose rows are
upserts of their key — or a **versioned view**, whose key and rowtime Flink infers: typically a
deduplication keeping the last row per key by rowtime (``ROW_NUMBER() OVER (PARTITION BY k ORDER
BY rowtime DESC) = 1``; key ``k``), or a projection of a versioned table that keeps its key and
rowtime. A view's rankings emit row by row there (:func:`versioned_side`), as Flink's do: each
row that becomes its key's latest is a version, even when a later row of the same batch
replaces it. Each left (probe) row joins the version of its key that was
valid at the row's time: the right row with the greatest rowtime ``<=`` it, unless that version
is a retraction (a delete). The join types are INNER and LEFT (Flink supports no others); the
equality conditions must cover the whole primary key.

:func:`check_temporal` validates the construct at planning, :class:`TemporalJoinNode` carries
what the operator (:mod:`streamsql.runtime.operators.temporal_join`) needs. The join planner
(:mod:`streamsql.plan.joins`) calls :func:`temporal_version` to plan a JOIN's table without
``FOR SYSTEM_TIME AS OF``, and never pushes a condition on the versioned side below
the join: filtering versions would let a probe row match an older version instead of none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from sqlglot import exp

from streamsql.connectors.registry import get_connector
from streamsql.core.catalog import TableDef
from streamsql.plan.expressions import quote
from streamsql.plan.nodes import INSERT_ONLY, CalcNode, PlanNode
from streamsql.plan.scope import Scope
from streamsql.plan.windows import time_attributes

_USE_INSTEAD = "; join with a regular JOIN ... ON instead (it matches every version)"
_NO_KEY = "Temporal Table Join requires primary key in versioned table, but no primary key can be found."
_FILTERED = ("Filter is not allowed for right changelog input of event time temporal join, it will corrupt "
             "the versioning of data. Please consider removing the filter before joining.")
_NO_ROWTIME = ("Event-Time Temporal Table Join requires both primary key and row time attribute in versioned "
               "table, but no row time attribute can be found.")


@dataclass(eq=False)
class TemporalJoinNode(PlanNode):
    """An event-time temporal join (Flink's ``TemporalJoin``, ``TemporalRowTimeJoinOperator``).

    Attributes:
        join_type: INNER or LEFT.
        left_keys, right_keys: equi-key column indexes in each input (they cover the right's
            primary key).
        left_time, right_time: the rowtime column index in each input.
        residual: DuckDB SQL of the rest of the condition over the output columns (a probe row
            whose version fails it does not join), or None.
        condition: the join condition, for EXPLAIN.
        out_time_attributes: output columns that stay time attributes: the left's (rows are
            emitted before the watermark that releases them).
        ignore_deletes: the versioned side is an ``upsert-kafka`` table: its deletes (tombstones)
            are no versions, as in Flink 2.3, which plans no ChangelogNormalize before the join, so a
            tombstone's -D carries a NULL rowtime there.
        keep_update_before: the versioned side's -U rows are retractions, not dropped: a filter
            (a Calc with a condition) sits above its updating part, and Flink's filter keeps -U
            rows (FLINK-9528), which its join then takes as versions (:func:`keeps_update_before`).
    """

    join_type: str = "INNER"
    left_keys: list[int] = field(default_factory=list)
    right_keys: list[int] = field(default_factory=list)
    left_time: int = 0
    right_time: int = 0
    residual: str | None = None
    condition: str = ""
    out_time_attributes: set = field(default_factory=set)
    ignore_deletes: bool = False
    keep_update_before: bool = False

    kind: ClassVar[str] = "temporal-join"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        jt = "InnerJoin" if self.join_type == "INNER" else "LeftOuterJoin"
        return (f"TemporalJoin(joinType=[{jt}], where=[{self.condition}, "
                f"__TEMPORAL_JOIN_CONDITION({self.schema.names[self.left_time]}, "
                f"{self.inputs[1].schema.names[self.right_time]})], "
                f"select=[{', '.join(self.schema.names)}], changelog=[{self.mode}])")


def temporal_version(planner, j: exp.Join) -> tuple[exp.Expression, exp.Expression | None]:
    """``j``'s table to plan (a copy without ``FOR SYSTEM_TIME AS OF``) and the ``AS OF`` expression.

    The tree itself is not changed: a view's query is planned again wherever it is used.

    Returns:
        ``(table, as_of)``: ``(j.this, None)`` for a join that is not temporal.

    Raises:
        SqlError: a version clause other than ``AS OF``.
    """
    table = j.this
    version = table.args.get("version") if isinstance(table, exp.Table) else None
    if version is None:
        return table, None
    if (version.text("kind") or "").upper() != "AS OF":
        planner._fail(version.expression, "Only FOR SYSTEM_TIME AS OF <time attribute> is supported")
    plain = table.copy()
    plain.set("version", None)
    plain.meta["as_of"] = True  # a lookup table (no source) can be planned here (plan/lookup.py)
    return plain, version.expression


def versioned_side(right: PlanNode) -> None:
    """Make the Top-N ranking or GROUP BY of a versioned view (below its projections) emit row by row.

    Flink ranks and aggregates a row at a time, so every row that became its key's latest (every
    aggregate change) reaches the temporal join as a version; a per-batch diff would skip those
    replaced within the batch.
    """
    node = right
    while isinstance(node, CalcNode):
        node = node.inputs[0]
    if (node.kind == "rank" and node.strategy == "top-n" and not node.limit) or node.kind == "group-agg":
        node.per_row = True


def keeps_update_before(right: PlanNode) -> bool:
    """Whether a filter above an updating node of the versioned side passes its -U rows to the join."""
    node = right
    while isinstance(node, CalcNode):
        if node.where_sql is not None and node.inputs[0].mode != INSERT_ONLY:
            return True
        node = node.inputs[0]
    return False


def _rowtimes(node: PlanNode) -> set[str]:
    """The versioned side's event-time attributes: through projections and per-row rankings."""
    if isinstance(node, CalcNode):
        inner = _rowtimes(node.inputs[0])
        return {name for name, e in node.query.items if any(e == quote(c) for c in inner)}
    if node.kind == "rank" and (getattr(node, "per_row", False) or node.mode == INSERT_ONLY):
        return _rowtimes(node.inputs[0])
    if node.kind == "group-agg":  # Flink keeps MAX/MIN(rowtime) a rowtime: each change a version at it
        inner = _rowtimes(node.inputs[0])
        names, out = node.inputs[0].schema.names, node.schema.names
        return {out[node.num_keys + j] for j, a in enumerate(node.aggs)
                if a.func in _EXTREMES and a.arg is not None and names[a.arg] in inner}
    return time_attributes(node)


#: The aggregates of a rowtime that stay a rowtime in a GROUP BY's result, as in Flink 2.3.
_EXTREMES = ("max", "max_retract", "min", "min_retract")


def _view_keys(right: PlanNode) -> list[list[str]]:
    """A versioned view's unique keys as column names, as Flink infers them (upsert keys)."""
    from streamsql.plan.update_kinds import sink_input_keys, upsert_keys  # late: it imports the joins

    keys = upsert_keys(right) if right.mode != INSERT_ONLY else sink_input_keys(right)
    names = right.schema.names
    return [[names[i] for i in sorted(k)] for k in keys]


def check_temporal(planner, j: exp.Join, join_type: str, as_of: exp.Expression, left: PlanNode, ls: Scope,
                   right: PlanNode, right_key_names: list[str]) -> tuple[int, int]:
    """Validate an event-time temporal join; returns (left rowtime index, right rowtime index).

    Args:
        planner: the planner (for the catalog and positioned errors).
        j: the JOIN.
        join_type: INNER, LEFT, RIGHT or FULL.
        as_of: the ``AS OF`` expression.
        left: the probe input.
        ls: its scope.
        right: the versioned input as planned (with any key columns added).
        right_key_names: the right's equi-key columns.

    Raises:
        SqlError: RIGHT/FULL joins, ``AS OF`` something other than the left's event-time
            attribute, a right side without primary key or watermark, equality conditions that
            do not cover the primary key.
    """
    if join_type not in ("INNER", "LEFT"):
        planner._fail(j, f"A temporal join (FOR SYSTEM_TIME AS OF) can be INNER or LEFT, not {join_type}"
                         f"{_USE_INSTEAD}")
    col = as_of.this if isinstance(as_of, exp.Paren) else as_of
    if not isinstance(col, exp.Column) or isinstance(col.this, exp.Star):
        planner._fail(as_of, "FOR SYSTEM_TIME AS OF must name the left table's event-time attribute "
                             "(a column with a WATERMARK), e.g. FOR SYSTEM_TIME AS OF o.order_time")
    name = ls.resolve(col).internal
    if name not in time_attributes(left):
        planner._fail(col, f"FOR SYSTEM_TIME AS OF {col.sql()}: '{col.name}' is not an event-time attribute "
                           "of the left input (declare WATERMARK FOR it), nor a PROCTIME() column (a "
                           "lookup join against a jdbc table)")
    table = j.this
    obj = planner._lookup(table) if isinstance(table, exp.Table) else None
    if not isinstance(obj, TableDef):
        return left.schema.get_field_index(name), _check_view(planner, j, right, right_key_names)
    if get_connector(obj.connector).create_source is None:
        planner._fail(as_of, f"Table '{obj.name}' (connector '{obj.connector}') can only be looked up: join "
                             "it FOR SYSTEM_TIME AS OF a PROCTIME() column of the left (a lookup join)")
    if not obj.primary_key:
        planner._fail(table, f"Table '{obj.name}' has no PRIMARY KEY: a temporal join needs a versioned "
                             f"table (PRIMARY KEY ... NOT ENFORCED and a WATERMARK){_USE_INSTEAD}")
    if obj.watermark is None:
        planner._fail(table, f"Table '{obj.name}' has no WATERMARK: an event-time temporal join needs the "
                             f"versioned table's rowtime{_USE_INSTEAD}")
    keys = {k.lower() for k in right_key_names}
    missing = [k for k in obj.primary_key if k.lower() not in keys]
    if missing:
        planner._fail(j, f"A temporal join's equality conditions must cover the primary key of "
                         f"'{obj.name}' ({', '.join(obj.primary_key)}); missing: {', '.join(missing)}")
    return left.schema.get_field_index(name), right.schema.get_field_index(obj.watermark.column)


def _check_view(planner, j: exp.Join, right: PlanNode, right_key_names: list[str]) -> int:
    """Validate a versioned view (module docstring); returns its rowtime's index in ``right``.

    Raises:
        SqlError: Flink's messages for a view without a unique key or without an event-time
            attribute, and for equality conditions that cover none of its keys.
    """
    filtered = _check_view_body(planner, j, right)
    keys = _view_keys(right)
    if not keys:
        planner._fail(j.this, _NO_KEY)
    rowtimes = [n for n in right.schema.names if n in _rowtimes(right)]
    if not rowtimes:
        planner._fail(j.this, _NO_ROWTIME)
    joined = {k.lower() for k in right_key_names}
    if not any(all(c.lower() in joined for c in key) for key in keys):
        planner._fail(j, _NO_KEY)
    if filtered:
        planner._fail(j.this, filtered)
    return right.schema.get_field_index(rowtimes[0])


def _check_view_body(planner, j: exp.Join, right: PlanNode) -> exp.Expression | None:
    """Refuse a versioned view this engine does not plan as Flink does; find a filter Flink refuses.

    Supported: a ranking (deduplication, Top-N) under projections and filters, projections
    of a table, and a GROUP BY whose result keeps a rowtime (``MAX(ts)`` or ``MIN(ts)``, which
    Flink keeps a rowtime attribute: each aggregate change is a version at it, its ``-U`` rows
    no versions unless a filter above passes them on, as Flink's).

    Returns:
        The message Flink's ``EventTimeTemporalJoinRewriteRule`` refuses a filter between the
        table and the join with (checked after the key and the rowtime, as Flink does), or None.
    """
    node = right
    filtered = False
    while node.kind in ("calc", "watermark"):
        filtered = filtered or (node.kind == "calc" and node.where_sql is not None)
        node = node.inputs[0]
    if node.kind == "rank":
        return None
    if node.kind == "group-agg":  # without MAX/MIN(rowtime): Flink's "no row time attribute" (the caller)
        return None
    if node.kind in ("scan", "values"):
        return _FILTERED if filtered else None
    what = "a GROUP BY" if node.kind == "group-agg" else f"a {node.kind}"
    planner._fail(j.this, f"A versioned view over {what} is not supported yet as the versioned side of a "
                          "temporal join: use a deduplication (ROW_NUMBER() OVER (PARTITION BY k ORDER BY "
                          "rowtime DESC) = 1) or a projection of a versioned table")
    return None
