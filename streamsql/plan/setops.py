"""Set operations and ``SELECT DISTINCT``, planned onto Union, GroupAggregate and Calc nodes.

As Flink's planner rewrites them (``SetOpRewriteUtil``, ``ReplicateRows``), no operator of their
own:

- ``SELECT DISTINCT`` = ``GROUP BY`` every column, no aggregate (a changelog input retracts: a
  row disappears when its last copy does);
- ``UNION`` = ``UNION ALL``, then DISTINCT;
- ``INTERSECT`` / ``EXCEPT`` [``ALL``]: each side's rows tagged (``__l`` = 1 on the left side,
  ``__r`` = 1 on the right, NULL otherwise), ``UNION ALL``, ``GROUP BY`` every column with
  ``COUNT(__l)``, ``COUNT(__r)`` per row value; then a filter (``INTERSECT``: both counts
  positive; ``EXCEPT``: left positive, right zero) or, with ``ALL``, each row value replicated
  ``least(l, r)`` / ``greatest(l - r, 0)`` times (a Calc ``unnest(range(n))``: an update of the
  counts retracts the old copies and inserts the new ones). Set operations compare NULLs as
  equal, as GROUP BY does.

The inputs' columns are matched by position and brought to their common type, as Calcite's
leastRestrictive (INT with DECIMAL(10, 2) is DECIMAL(12, 2), with DOUBLE a DOUBLE): a side whose
type differs is cast to it. Columns without a common type (e.g. STRING with INT, BOOLEAN with
INT) are refused, as Calcite's "Type mismatch in column n of UNION".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
from sqlglot import exp

from streamsql.core.names import apart, apart_all
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec, agg_output_type
from streamsql.functions.scalars.registry import cast_value
from streamsql.functions.scalars.typerules import common_type, rows_type
from streamsql.plan.certain_types import set_operation_type
from streamsql.plan.expressions import quote
from streamsql.plan.nodes import INSERT_ONLY, RETRACT, GroupAggNode, PlanNode, UnionNode
from streamsql.plan.scope import Scope, ScopeColumn

if TYPE_CHECKING:
    from streamsql.plan.planner import Planner

_SIDES = ("__l", "__r")
# Mixes of these keep the left side's type (not checked against Flink); other types without a
# common one are Calcite's "Type mismatch".
_DATETIMES = {"DATE", "TIMESTAMP", "TIMESTAMP_LTZ"}
# (ALL?) → the number of copies of a row value, from its counts on the left and right side.
_COPIES = {
    ("intersect", False): "CASE WHEN {l} > 0 AND {r} > 0 THEN 1 ELSE 0 END",
    ("intersect", True): "least({l}, {r})",
    ("except", False): "CASE WHEN {l} > 0 AND {r} = 0 THEN 1 ELSE 0 END",
    ("except", True): "greatest({l} - {r}, 0)",
}


def plan_set_operation(planner: Planner, q: exp.SetOperation) -> tuple[PlanNode, Scope]:
    """Plan ``UNION [ALL]``, ``INTERSECT [ALL]`` or ``EXCEPT [ALL]``; the node and its scope.

    Raises:
        SqlError: inputs with different column counts or a column without a common type; ORDER
            BY / LIMIT after the last SELECT.
    """
    planner._reject_modifiers(q)  # ORDER BY / LIMIT after the last SELECT apply to the whole
    left, left_scope = planner._query(q.this)
    right, right_scope = planner._query(q.expression)
    op = q.key.upper() + ("" if q.args.get("distinct") else " ALL")
    lt, rt = [f.type for f in left.sql_schema], [f.type for f in right.sql_schema]
    if len(lt) != len(rt):
        planner._fail(q, f"{op} inputs have {len(lt)} and {len(rt)} columns")
    types = [rows_type([a, b]) or a for a, b in zip(lt, rt)]
    for i, (a, b) in enumerate(zip(lt, rt)):
        if common_type([a, b]) is None and a.name != b.name and not {a.name, b.name} <= _DATETIMES:
            planner._fail(q, f"Type mismatch in column {i + 1} of {op} ({a} and {b}); CAST one side "
                             f"to the other's type")
    names = left.schema.names
    left, right = (_widen(planner, side, names, st, types) for side, st in ((left, lt), (right, rt)))
    scope = Scope([ScopeColumn(None, c.name, c.internal, t, set_operation_type(c.declared, r.declared, t))
                   for c, r, t in zip(left_scope.columns, right_scope.columns, types)], planner.sql)
    if isinstance(q, exp.Union):
        node = union_all([left, right])
        return (distinct(planner, node) if q.args.get("distinct") else node), scope
    # the side tags, counts and copy number sit beside the user's columns: named apart from them
    sides = apart_all(_SIDES, names)
    tagged = [planner._calc(side, [(n, quote(m)) for n, m in zip(names, side.schema.names)] +
                            [(tag, "1" if tag == mine else "CAST(NULL AS INTEGER)") for tag in sides], None)
              for side, mine in zip((left, right), sides)]
    counts = _group_all(union_all(tagged), len(names), [f"COUNT({t})" for t in _SIDES])
    left_count, right_count = counts.schema.names[len(names):]
    copies = _COPIES[(q.key, not q.args.get("distinct"))].format(l=quote(left_count), r=quote(right_count))
    keep = [(n, quote(n)) for n in names]
    if q.args.get("distinct"):
        return planner._calc(counts, keep, f"{copies} = 1"), scope
    replicated = planner._calc(counts, [*keep, (apart("__copy", names), f"unnest(range({copies}))")], None)
    return planner._calc(replicated, keep, None), scope


def _widen(planner: Planner, side: PlanNode, names: list[str], have: list[SqlType],
           types: list[SqlType]) -> PlanNode:
    """``side`` with the left side's column names, each column cast to ``types`` where its type differs."""
    # a binary string of another length is relabeled too: BINARY(1) UNION ALL BINARY(4) is VARBINARY(4),
    # and a TIME of another precision (TIME(0) UNION ALL TIME(3) is TIME(3), as Flink 2.3's DESCRIBE)
    relabel = {n: t for n, a, t in zip(names, have, types)
               if t.name in ("BYTES", "TIME") and a.with_nullable(True) != t.with_nullable(True)}
    if all(a.to_arrow() == t.to_arrow() for a, t in zip(have, types)) and not relabel:
        return side
    items = [(n, quote(src) if a.to_arrow() == t.to_arrow() and n not in relabel
              else cast_value(quote(src), a, t))
             for n, src, a, t in zip(names, side.schema.names, have, types)]
    return planner._calc(side, items, None, relabel)


def distinct(planner: Planner, node: PlanNode) -> PlanNode:
    """``SELECT DISTINCT`` over ``node``'s columns: GROUP BY all of them, the aggregates' columns dropped."""
    counts = _group_all(node, len(node.schema.names), [])
    return planner._calc(counts, [(n, quote(n)) for n in node.schema.names], None)


def union_all(inputs: list[PlanNode]) -> UnionNode:
    """``UNION ALL`` of inputs of the same column types (retracting if any input is)."""
    mode = RETRACT if any(i.mode != INSERT_ONLY for i in inputs) else INSERT_ONLY
    return UnionNode(inputs, inputs[0].schema, mode)


def _group_all(node: PlanNode, num_keys: int, labels: list[str]) -> GroupAggNode:
    """GROUP BY the first ``num_keys`` columns of ``node``; ``COUNT`` of each later column.

    ``labels`` name the counts for EXPLAIN; their results are columns ``__agg0``, ``__agg1``...,
    named apart from the keys (a user's column may be called ``__agg0``).
    """
    counts = [AggSpec("count", num_keys + j, agg_output_type("count", SqlType.from_arrow(f.type)))
              for j, f in enumerate(list(node.schema)[num_keys:])]
    keys = node.schema.names[:num_keys]
    results = apart_all([f"__agg{j}" for j in range(len(counts))], keys)
    fields = list(node.schema)[:num_keys] + [pa.field(r, s.out_type.to_arrow())
                                             for r, s in zip(results, counts)]
    return GroupAggNode([node], pa.schema(fields), RETRACT, num_keys=num_keys, aggs=counts, labels=labels)
