"""GROUP BY GROUPING SETS, ROLLUP and CUBE, planned as Flink plans them: Expand, then one aggregate.

Flink (Calcite) turns ``GROUP BY GROUPING SETS (...)`` into an ``Expand`` that emits each input
row once per grouping set — the keys outside that set NULL, plus the set's number ``$e`` — and a
single ``GroupAggregate`` keyed by every key and ``$e``. Here the Expand is a UNION ALL of one
Calc per set over the same input (``__e`` the set's number), so the aggregate, its state and
its changelog are the ones of a plain GROUP BY. ``GROUPING(c)`` is 1 where ``c`` is not in the
row's set, ``GROUPING_ID(a, b, ...)`` those bits with the first argument the most significant
(both BIGINT, as Flink's); ``GROUP_ID()`` numbers the repeats of a set: 0 for its first listing,
1 for the second, ... (Calcite's meaning; BIGINT).

Sets, as the SQL standard and Calcite expand them: ``ROLLUP (a, b)`` is ``(a, b), (a), ()``,
``CUBE (a, b)`` is ``(a, b), (a), (b), ()``, a parenthesised list in either is one element;
plain keys next to them join every set (``GROUP BY a, ROLLUP (b)`` is ``(a, b), (a)``), and two
constructs multiply. A set listed twice gives its rows twice, as in Flink.

Functions:
    grouping_sets(planner, group): ``(keys, sets)`` of a GROUP BY that has any, else None.
    expand(planner, node, pre, num_keys, sets, cond): the Expand (UNION ALL of Calcs).
    name_expand(union, agg): its EXPLAIN names.
    grouping_calls(planner, expr, key_index, sets): GROUPING()/GROUPING_ID()/GROUP_ID() over ``__e``
        (or constants).
    is_grouping_call(n): whether ``n`` is one of those three calls.
"""

from __future__ import annotations

from itertools import product

from sqlglot import exp

from streamsql.plan.nodes import PlanNode
from streamsql.plan.scope import generated_column
from streamsql.plan.setops import union_all
from streamsql.plan.unsupported import refuse_at

GROUPING_CONSTRUCTS = _CONSTRUCTS = (exp.GroupingSets, exp.Rollup, exp.Cube)
_GROUP_WINDOWS = {"TUMBLE", "HOP", "SESSION", "CUMULATE"}


def grouping_sets(planner, group: exp.Group | None,
                  ) -> tuple[list[exp.Expression], list[tuple[int, ...]]] | None:
    """The distinct key expressions and the sets (indices into them), or None without any construct.

    Raises:
        SqlError: a grouping set next to a group window (``TUMBLE(...)`` in GROUP BY), positioned:
            Flink 2.3 fails it too. Over a window TVF they are a window aggregation's
            (:func:`streamsql.plan.windows.plan_window_aggregate`).
    """
    if group is None or not any(isinstance(g, _CONSTRUCTS) for g in group.expressions):
        return None
    construct = next(g for g in group.expressions if isinstance(g, _CONSTRUCTS))
    keyword = {exp.Rollup: "ROLLUP", exp.Cube: "CUBE", exp.GroupingSets: "GROUPING"}[type(construct)]
    for g in group.expressions:
        for call in g.find_all(exp.Anonymous, exp.Func):
            name = call.name.upper() if isinstance(call, exp.Anonymous) else call.sql_name()
            if name in _GROUP_WINDOWS:  # Flink 2.3 fails it too, in code generation
                refuse_at(planner.sql, construct, "GROUPING SETS, ROLLUP and CUBE next to a group window "
                                                  "(GROUP BY TUMBLE(...)) are not supported (Flink 2.3 "
                                                  "fails it: Unsupported call: $TUMBLE); use a window TVF: "
                                                  "GROUP BY window_start, window_end, ROLLUP (...)", keyword)
    keys: list[exp.Expression] = []
    index: dict[str, int] = {}

    def at(e: exp.Expression) -> int:
        e = e.this if isinstance(e, exp.Paren) else e
        if e.sql() not in index:
            index[e.sql()] = len(keys)
            keys.append(e)
        return index[e.sql()]

    def element(e: exp.Expression) -> tuple[int, ...]:  # one element of ROLLUP/CUBE/GROUPING SETS
        if isinstance(e, exp.Tuple):
            return tuple(at(x) for x in e.expressions)
        return (at(e),)

    def sets_of(g: exp.Expression) -> list[tuple[int, ...]]:
        if isinstance(g, exp.Rollup):
            parts = [element(e) for e in g.expressions]
            return [sum(parts[:n], ()) for n in range(len(parts), -1, -1)]
        if isinstance(g, exp.Cube):
            parts = [element(e) for e in g.expressions]
            return [sum((p for p, on in zip(parts, mask) if on), ())
                    for mask in product((True, False), repeat=len(parts))]
        if isinstance(g, exp.GroupingSets):
            out = []
            for e in g.expressions:
                out += sets_of(e) if isinstance(e, _CONSTRUCTS) else [element(e)]
            return out
        return [element(g)]

    sets: list[tuple[int, ...]] = [()]
    for g in group.expressions:
        sets = [a + b for a, b in product(sets, sets_of(g))]
    return keys, [tuple(sorted(set(s))) for s in sets]


def expand(planner, node: PlanNode, pre: list[tuple[str, str]], num_keys: int,
           sets: list[tuple[int, ...]], cond: str | None) -> PlanNode:
    """One Calc of ``pre`` per set over ``node`` (keys outside the set NULL, ``__e`` its number), unioned.

    ``pre`` holds the keys ``__k<i>`` (the first ``num_keys`` items), then ``__e``, then the
    aggregate arguments. Every Calc has the types of the one with all keys, so the union is
    well typed and each key column nullable.
    """
    full = planner._calc(node, pre, cond)
    types = {f.name: f.type for f in full.sql_schema.fields}
    calcs = []
    for e, members in enumerate(sets):
        items = []
        for i, (name, sql) in enumerate(pre):
            if name == "__e":
                sql = f"CAST({e} AS INTEGER)"
            elif i < num_keys and i not in members:
                sql = f"CAST(NULL AS {types[name].duckdb()})"
            items.append((name, sql))
        calcs.append(planner._calc(node, items, cond, types))
    return union_all(calcs)


def name_expand(union: PlanNode, agg: PlanNode) -> None:
    """EXPLAIN names: each Calc of the Expand shows the union's names, the set number is ``$e``."""
    union.display["__e"] = agg.display["__e"] = "$e"
    for calc in union.inputs:
        calc.display = union.display


def is_grouping_call(n: exp.Expression) -> bool:
    """``n`` is GROUPING(...), GROUPING_ID(...) or GROUP_ID() (sqlglot reads that as an anonymous call)."""
    return isinstance(n, (exp.Grouping, exp.GroupingId)) or (
        isinstance(n, exp.Anonymous) and n.name.upper() == "GROUP_ID" and not n.expressions)


def grouping_calls(planner, expr: exp.Expression, key_index: dict[str, int],
                   sets: list[tuple[int, ...]] | None) -> exp.Expression:
    """``expr`` with GROUPING()/GROUPING_ID() calls computed from ``__e`` (constants without sets).

    ``key_index`` maps a resolved key's SQL to its index (a window aggregation's: its keys other
    than the window's).

    Raises:
        SqlError: an argument that is not a grouping key, positioned, in Calcite's (Flink's) words.
    """
    def bits(call: exp.Expression) -> list[int]:
        out = []
        for a in call.expressions:
            if a.sql() not in key_index:
                what = "GROUPING_ID" if isinstance(call, exp.GroupingId) else "GROUPING"
                planner._fail(a, f"Argument to {what} operator must be a grouped expression")
            out.append(key_index[a.sql()])
        return out

    def value(keys: list[int], members: tuple[int, ...]) -> int:
        v = 0
        for k in keys:
            v = (v << 1) | (k not in members)
        return v

    def rewrite(n: exp.Expression) -> exp.Expression:
        if not is_grouping_call(n):
            return n
        group_id = isinstance(n, exp.Anonymous)
        keys = [] if group_id else bits(n)
        if sets is None:
            return exp.cast(exp.Literal.number(0), "BIGINT")
        case = exp.Case(this=generated_column("__e"))
        for e, members in enumerate(sets):
            v = sets[:e].count(members) if group_id else value(keys, members)
            case = case.when(exp.Literal.number(e), exp.Literal.number(v))
        return exp.cast(case, "BIGINT")

    return expr.transform(rewrite)
