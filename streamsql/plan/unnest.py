"""``CROSS JOIN UNNEST(arr) [WITH ORDINALITY] AS t(x [, o])``: one row per element, as Flink.

Flink plans UNNEST as a correlate of each row with the elements of its array (or the entries of
its map): a stateless flat map. Here it is two Calcs over the input: the first lets DuckDB's
``unnest`` replicate every row once per element (the row kind and source split are hidden
columns of the same query, so they are replicated too: a retraction of the input row retracts
every row it unnested into), the second names the element's columns. Checked against Flink 2.3
(tests/compat/cases/unnest_*):

- an ARRAY of scalars gives one column, an ARRAY of ROWs one column per field, a MAP two (key,
  value); ``WITH ORDINALITY`` adds the 1-based position (INT);
- a NULL or empty array gives no row (``CROSS JOIN``, ``, UNNEST``, ``JOIN ... ON TRUE``); with
  ``LEFT JOIN UNNEST(...) ON TRUE`` it gives one row of NULLs;
- a NULL element of an ARRAY of ROWs gives no row (a ROW with NULL fields gives its row); an
  array of only NULL ROWs counts as empty.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.scalars import bind
from streamsql.functions.scalars.registry import type_of
from streamsql.plan.expressions import quote, resolve_columns
from streamsql.plan.nodes import PlanNode
from streamsql.plan.scope import Scope, ScopeColumn

_INT = SqlType("INT")


def is_unnest(j: exp.Join) -> bool:
    """Whether the join's right side is ``UNNEST(...)``."""
    return isinstance(j.this, exp.Unnest)


def plan_unnest(planner, j: exp.Join, node: PlanNode, scope: Scope) -> tuple[PlanNode, Scope] | None:
    """Plan ``<node> [CROSS|LEFT] JOIN UNNEST(...)`` (the join planner's hook), or None for another join.

    Raises:
        SqlError: positioned: RIGHT/FULL joins, an ON condition other than TRUE, several
            arguments, an argument that is no ARRAY or MAP, a column alias list of the wrong length.
    """
    if not is_unnest(j):
        return None
    u: exp.Unnest = j.this
    side = (j.side or "").upper()
    on = j.args.get("on")
    if side in ("RIGHT", "FULL"):
        planner._fail(j, f"{side} JOIN UNNEST is not supported; use CROSS JOIN UNNEST or LEFT JOIN ... "
                         "ON TRUE")
    if on is not None and not (isinstance(on, exp.Boolean) and on.this is True):
        planner._fail(on, "A join with UNNEST takes ON TRUE only; filter the elements in WHERE")
    if side == "LEFT" and on is None:
        planner._fail(j, "LEFT JOIN UNNEST(...) needs ON TRUE")
    if len(u.expressions) != 1:
        planner._fail(u, "UNNEST of several arrays at once is not supported yet; unnest them one by one")
    arg = u.expressions[0]
    bound = bind(resolve_columns(arg, scope))
    t = type_of(bound)
    if t is None or t.name not in ("ARRAY", "MAP"):
        planner._fail(arg, f"UNNEST needs an ARRAY or a MAP, not {t or 'a value of unknown type'}")
    collection = bound.sql(dialect="duckdb")
    if t.name == "MAP":
        collection = f"map_entries({collection})"
        fields = [("EXPR$0", t.children[0]), ("EXPR$1", t.children[1])]
        extract = [f"struct_extract({{0}}, {n!r})" for n in ("key", "value")]
    elif t.children[0].name == "ROW":
        collection = f"list_filter({collection}, lambda e: e IS NOT NULL)"  # Flink skips a NULL ROW
        fields = t.children[0].fields
        extract = [f"struct_extract({{0}}, '{n.replace(chr(39), chr(39) * 2)}')" for n, _ in fields]
    else:
        fields, extract = [("EXPR$0", t.children[0])], ["{0}"]
    ordinality = u.args.get("offset")
    names = _names(planner, u, [n for n, _ in fields], ordinality)
    taken = set(node.schema.names)
    internal = _fresh(taken, len(names) + 2)
    elements, positions = internal[-2], internal[-1]
    if side == "LEFT":  # one row of NULLs for a NULL or empty collection
        pad = f"CAST([NULL] AS {SqlType.array(_element(t)).duckdb()})"
        collection = f"(CASE WHEN coalesce(len({collection}), 0) = 0 THEN {pad} ELSE {collection} END)"
    keep = [(n, quote(n)) for n in node.schema.names]
    first = keep + [(elements, f"unnest({collection})")]
    if ordinality:
        first.append((positions, f"unnest(range(1, len({collection}) + 1))"))
    flat = planner._calc(node, first, None)
    second = keep + [(name, e.format(quote(elements))) for name, e in zip(internal, extract)]
    if ordinality:
        second.append((internal[len(fields)], f"CAST({quote(positions)} AS INTEGER)"))
    out = planner._calc(flat, second, None)
    alias = u.args.get("alias")
    qualifier = alias.name.lower() if alias is not None and alias.args.get("columns") else None
    types = [ft for _, ft in fields] + ([_INT] if ordinality else [])
    added = [ScopeColumn(qualifier, n, i, ft) for n, i, ft in zip(names, internal, types)]
    return out, Scope(scope.columns + added, scope.sql, scope.what)


def _element(t: SqlType) -> SqlType:
    if t.name == "ARRAY":
        return t.children[0]
    return SqlType.row([("key", t.children[0]), ("value", t.children[1])])


def _names(planner, u: exp.Unnest, defaults: list[str], ordinality) -> list[str]:
    alias = u.args.get("alias")
    listed = [c.name for c in alias.args.get("columns") or []] if alias is not None else []
    if alias is not None and not listed and alias.name:
        listed = [alias.name]  # UNNEST(arr) AS e: the element column is e
    if isinstance(ordinality, exp.Identifier):
        listed.append(ordinality.name)
    want = len(defaults) + (1 if ordinality else 0)
    if not listed:
        return defaults + (["ORDINALITY"] if ordinality else [])
    if len(listed) != want:
        msg = (f"List of column aliases must have same degree as table; UNNEST gives {want} columns, "
               f"whereas alias list has {len(listed)} columns")
        planner._fail(alias, msg)
    return listed


def _fresh(taken: set[str], n: int) -> list[str]:
    out, i = [], 0
    while len(out) < n:
        name = f"__unnest{i}"
        if name not in taken:
            out.append(name)
        i += 1
    return out
