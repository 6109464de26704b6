"""OVER aggregates: ``agg(...) OVER (PARTITION BY k ORDER BY rowtime <frame>)``, as Flink's OverAggregate.

Supported, as Flink's streaming OVER windows:

- ``ORDER BY`` one event-time attribute (the rowtime of a ``WATERMARK FOR``), ascending, or a
  ``PROCTIME()`` attribute (arrival order: ROWS frames and UNBOUNDED PRECEDING emit each row at
  once, a bounded RANGE frame on the wall clock, as Flink's ``ProcTime*PrecedingFunction``);
- frames ``ROWS BETWEEN n PRECEDING AND CURRENT ROW``, ``RANGE BETWEEN INTERVAL '...' PRECEDING
  AND CURRENT ROW``, ``ROWS|RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW``; no frame is
  ``RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`` (the SQL default);
- COUNT, SUM, AVG, MIN, MAX and COUNT(DISTINCT ...); several of them, all over one window
  (Flink: "All aggregates must be computed on the same window"), inline or named in a
  ``WINDOW w AS (...)`` clause.

The plan (EXPLAIN prints it)::

    Calc (select list, OVER calls → their columns)
      ← OverAggregate (partition keys, rowtime, frame, aggregates)     insert-only
      ← Calc (WHERE; keys, rowtime, arguments, then every input column)
      ← input

``LAG(x [, offset [, default]])`` is a row-wise aggregate of the frame (Flink's LagAggFunction;
no frame of its own, LEAD refused as Flink refuses it on a stream).

ORDER BY a column that is no time attribute (or an expression) with ROWS or RANGE BETWEEN
UNBOUNDED PRECEDING AND CURRENT ROW is Flink 2.1+'s non-time OVER (:class:`NonTimeOverAggNode`,
an updating result, also over an updating input; COUNT, SUM, AVG, MIN and MAX).

Everything else about OVER (a FOLLOWING bound, DESC, ranking functions other than Top-N's;
OVER with GROUP BY; a time-ordered OVER over an updating input) is rejected at its position, in
Flink's words where Flink refuses it too (a bounded frame over a column that is no time
attribute, DESC, several ORDER BY columns).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

import pyarrow as pa
from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.names import apart
from streamsql.functions.aggregates import AggSpec, output_field
from streamsql.plan.display_names import name_aggregate
from streamsql.plan.expressions import (
    AGG_TYPES,
    compile_expression,
    output_name,
    quote,
    resolve_columns,
    to_duckdb,
)
from streamsql.plan.nodes import INSERT_ONLY, RETRACT, PlanNode, select_list
from streamsql.plan.ordered_aggs import check_lag_default
from streamsql.plan.scope import Scope, ScopeColumn, generated_column, position_of
from streamsql.plan.specs import OverSpec
from streamsql.plan.windows import interval_ms, is_proctime, materialized_note, time_attributes


@dataclass(eq=False)
class OverAggNode(PlanNode):
    """An OVER aggregate (insert-only: each input row once, with its aggregates, in rowtime order).

    Input columns: ``num_keys`` partition keys, the rowtime at ``ts_index``, the aggregate
    arguments, then the columns passed through. Output: the input columns, then ``__agg0``...

    Attributes:
        out_time_attributes: output columns that stay time attributes: the input's (the rowtime
            stays one, as in Flink, so a window can follow).
    """

    spec: OverSpec = None  # type: ignore[assignment]
    num_keys: int = 0
    ts_index: int = 0
    aggs: list = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    partition_by: list[str] = field(default_factory=list)
    rowtime: str = ""
    out_time_attributes: set = field(default_factory=set)

    kind: ClassVar[str] = "over-agg"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return (f"OverAggregate(partitionBy=[{', '.join(self.partition_by)}], orderBy=[{self.rowtime} ASC], "
                f"window=[{self.spec.describe()}], select=[{select_list(self)}])")


@dataclass(eq=False)
class NonTimeOverAggNode(OverAggNode):
    """An unbounded OVER aggregate ordered by a column that is no time attribute (an updating result).

    Flink 2.1+'s ``NonTime{Rows,Range}UnboundedPrecedingFunction``
    (:mod:`~streamsql.runtime.operators.over_nontime`): ``ts_index`` is the ORDER BY column,
    ``rowtime`` its name; its input may be updating. A node kind of its own, so that its state
    signature differs from the time-ordered operator's.
    """

    kind: ClassVar[str] = "over-agg-nontime"


#: The aggregates an OVER window ordered by a non-time column takes here (checked against Flink 2.3).
NONTIME_FUNCTIONS = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)
#: The ranking functions a non-time OVER computes (as COUNT(*) of the frame: :func:`_signature`).
RANKINGS = (exp.RowNumber, exp.Rank, exp.DenseRank)


#: The variance family's calls → (population, square root), as Calcite's AvgVarianceConvertlet expands them.
_VARIANCE = {exp.VariancePop: (True, False), exp.Variance: (False, False), exp.StddevPop: (True, True),
             exp.StddevSamp: (False, True), exp.Stddev: (False, True)}


def _time_ordered(planner, w: exp.Window, named: dict, node: PlanNode, scope: Scope) -> bool:
    """Whether ``w`` (or the named window it refers to) is ordered by one time attribute.

    A rowtime or a ``PROCTIME()`` column; False for a window the checks after refuse (they say
    why, positioned).
    """
    try:
        order = _definition(planner, w, named).args.get("order")
        if order is None or len(order.expressions) != 1 or not isinstance(
                order.expressions[0].this, exp.Column):
            return False
        resolved = scope.resolve(order.expressions[0].this)
    except SqlError:
        return False
    return (resolved.internal in time_attributes(node) and resolved.type.is_time) or is_proctime(
        node, resolved.internal)


def expand_variance(items: list[exp.Expression], scope: Scope, distinct: bool = True) -> list[exp.Expression]:
    """``items`` with each VAR_POP/VAR_SAMP/STDDEV_POP/STDDEV_SAMP ``OVER w`` written as Flink runs it.

    Flink 2.3's SQL-to-rel conversion (Calcite's ``AvgVarianceConvertlet``) expands a windowed
    variance into windowed SUM and COUNT of the argument cast to the result type ``T``::

        CAST(POWER((SUM(x*x) OVER w - SUM(x) OVER w * SUM(x) OVER w / COUNT(x) OVER w)
                   / COUNT(x) OVER w, 0.5) AS T)     -- STDDEV_POP; VAR_* without POWER;
                                                      -- *_SAMP: / CASE WHEN n = 1 THEN NULL ELSE n - 1 END

    so over integers it is integer arithmetic (VAR_SAMP of -2, -1 is 1, not 0.5 cut to 0), unlike
    a GROUP BY's variance (Welford's, :mod:`streamsql.functions.variance`). With DISTINCT each of
    those calls keeps it (``SUM(DISTINCT x*x) OVER w``, ``SUM(DISTINCT x) OVER w``, ``COUNT(DISTINCT
    x) OVER w``), as Flink 2.3 answers: the squares are deduplicated apart from the values, so
    ``STDDEV_POP(DISTINCT d) OVER w`` of 1.5, -2, 2 is sqrt((6.25 - 1.5 * 1.5 / 3) / 3) = 1.354, not
    the distinct values' 1.780 (compat case ``var_distinct_over_pairs``). ``distinct`` False (a
    window ordered by a column that is no time attribute, where Flink 2.3's job fails on the
    DISTINCT calls): a DISTINCT argument is left as written, for :func:`_check_nontime_call` to
    refuse.
    """
    from streamsql.core.errors import PlanError
    from streamsql.functions.variance import variance_type
    from streamsql.plan.expressions import sql_type_of
    from streamsql.sql.dialect import Flink

    def expand(n: exp.Expression) -> exp.Expression:
        if not isinstance(n, exp.Window) or type(n.this) not in _VARIANCE:
            return n
        is_distinct = isinstance(n.this.this, exp.Distinct)
        operand = n.this.this.expressions[0] if is_distinct else n.this.this
        if is_distinct and (not distinct or len(n.this.this.expressions) != 1):
            return n
        arg = sql_type_of(operand, scope)
        try:
            t = variance_type(arg)
        except PlanError:  # not a number: the aggregate's own check says so, positioned
            return n
        pop, root = _VARIANCE[type(n.this)]
        to = exp.DataType.build(str(t).replace(" NOT NULL", ""), dialect=Flink)

        def x() -> exp.Expression:
            return exp.Cast(this=operand.copy(), to=to.copy())

        def over(agg: exp.Expression) -> exp.Expression:
            if is_distinct:  # each call keeps the DISTINCT: SUM(DISTINCT x * x) dedups the squares
                agg.set("this", exp.Distinct(expressions=[agg.this]))
            w = n.copy()
            w.set("this", agg)
            return w

        count = over(exp.Count(this=x()))
        mean_sq = exp.Div(this=exp.Mul(this=over(exp.Sum(this=x())), expression=over(exp.Sum(this=x()))),
                          expression=count.copy())
        diff = exp.Sub(this=over(exp.Sum(this=exp.Mul(this=x(), expression=x()))), expression=mean_sq)
        one = exp.Literal.number(1)
        den = count if pop else exp.Case(ifs=[exp.If(this=exp.EQ(this=count.copy(), expression=one.copy()),
                                                     true=exp.Null())],
                                         default=exp.Sub(this=count, expression=one))
        value = exp.Div(this=exp.Paren(this=diff), expression=exp.Paren(this=den))
        if root:
            value = exp.Pow(this=value, expression=exp.Literal.number("0.5"))
        return exp.Cast(this=value, to=to)

    return [i.transform(expand) for i in items]


def over_calls(items: list[exp.Expression]) -> list[exp.Window]:
    """The OVER calls of a SELECT list (``exp.Window`` nodes), in order of appearance."""
    return [w for i in items for w in i.find_all(exp.Window)]


def plan_over(planner, sel: exp.Select, items: list[exp.Expression], node: PlanNode, scope: Scope,
              cond: str | None) -> tuple[PlanNode, Scope] | None:
    """Plan a SELECT whose list has OVER aggregates (the ``_select`` hook), or None without any.

    Raises:
        SqlError: OVER with GROUP BY or other aggregates; different windows in one SELECT; an
            unknown named window; a frame, ORDER BY or function Flink's streaming OVER does not
            support (positioned, saying what to use instead).
    """
    windows = over_calls(items)
    if not windows:
        return None
    named = {w.this.name.lower(): w for w in sel.args.get("windows") or []}
    items = expand_variance(items, scope, distinct=_time_ordered(planner, windows[0], named, node, scope))
    windows = over_calls(items)
    for w in windows:
        if isinstance(w.this, RANKINGS) and w.args.get("spec") is not None:  # Calcite's validator
            planner._fail(w.args["spec"], f"ROW/RANGE not allowed with {w.this.sql_name().upper()} function")
        if isinstance(w.this, exp.Filter):  # Flink's validator refuses it too
            planner._fail(w.this.this, "OVER must be applied to aggregate function: an aggregate's FILTER "
                                       "(WHERE ...) is not allowed in an OVER window; use "
                                       "agg(CASE WHEN cond THEN x END) OVER ...")
        if isinstance(w.this, exp.Lead):  # Flink 2.3's AggFunctionFactory
            planner._fail(w.this, "LEAD Function is not supported in stream mode.")
        if isinstance(w.this, exp.Lag) and w.args.get("spec") is not None:  # Calcite's validator
            planner._fail(w.args["spec"], "ROW/RANGE not allowed with LAG function")
        if isinstance(w.this, exp.IgnoreNulls) and isinstance(w.this.this, exp.Lag):
            planner._fail(w.this, "LAG(...) IGNORE NULLS is not supported: Flink 2.3 ignores IGNORE NULLS "
                                  "(its LAG returns the NULLs), an answer not copied here; filter the NULL "
                                  "rows in a subquery, or drop IGNORE NULLS")
        if not isinstance(w.this, (*AGG_TYPES, exp.Lag, *RANKINGS)):
            planner._fail(w, f"OVER windows ({w.this.sql()} OVER ...: ranking functions) are not "
                             "supported; use an aggregate or LAG OVER")
    if sel.args.get("group") is not None or sel.args.get("having") is not None:
        planner._fail(sel.args.get("group") or sel.args["having"],
                      "OVER aggregates cannot be combined with GROUP BY or HAVING; aggregate in a "
                      "subquery or view first")
    for i in items:
        plain = [a for a in i.find_all(*AGG_TYPES) if not isinstance(a.parent, exp.Window)]
        if plain:
            planner._fail(plain[0], f"Aggregate function {plain[0].sql()} needs an OVER clause here "
                                    "(without GROUP BY, every aggregate of an OVER query is one)")
    defs = [_definition(planner, w, named) for w in windows]
    first = defs[0]
    for w, d in zip(windows, defs):
        if isinstance(w.this, RANKINGS) and d.args.get("spec") is not None:  # a named window's (Calcite's)
            at = d.args["spec"] if position_of(d.args["spec"])[0] is not None else d
            planner._fail(at, "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
    signatures = [_signature(planner, w, d) for w, d in zip(windows, defs)]
    for w, sig in zip(windows, signatures):
        if sig != signatures[0]:  # Flink 2.3's words (scripts/flink_over_nontime_calls.py)
            note = "; ROW_NUMBER()'s frame is ROWS, an aggregate's default one RANGE" if any(
                isinstance(c.this, exp.RowNumber) for c in windows) else ""
            planner._fail(w, "Over Agg: Unsupported use of OVER windows. All aggregates must be computed on "
                             "the same window. please re-check the over window statement. (Flink's OVER "
                             f"limitation{note}); compute the others in another query and join them")
    keys = [resolve_columns(p, scope) for p in first.args.get("partition_by") or []]
    rowtime, nontime = _order_column(planner, first, node, scope)
    if node.mode != INSERT_ONLY and not nontime:
        # Flink 2.3's words (compat case over_rowtime_over_changelog_rejected)
        planner._fail(windows[0], "StreamPhysicalOverAggregate doesn't support consuming update and delete "
                                  "changes: OVER aggregates over an updating input (a changelog source, a "
                                  "GROUP BY without window, a regular join) cannot be ordered by a time "
                                  "attribute; ORDER BY a column that is no time attribute (ROWS or RANGE "
                                  "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), or apply them to an "
                                  "insert-only table with a WATERMARK")
    if not nontime:
        ranked = next((w for w in windows if isinstance(w.this, RANKINGS)), None)
        if ranked is not None and isinstance(ranked.this, exp.RowNumber):  # Top-N: plan/ranking.py
            planner._fail(ranked, "ROW_NUMBER() OVER (...) is supported for Top-N and deduplication: SELECT "
                                  "... FROM (SELECT ..., ROW_NUMBER() OVER (...) AS rn FROM t) WHERE rn <= N")
        if ranked is not None:
            planner._fail(ranked, f"OVER windows ({ranked.this.sql()} OVER ...: ranking functions) are not "
                                  "supported; use an aggregate or LAG OVER")
    spec = replace(signatures[0][2], proctime=not nontime and is_proctime(node, rowtime))
    if nontime:
        for call in windows:
            _check_nontime_call(planner, call.this, spec.kind)

    calls: dict[str, exp.Expression] = {}
    for w in windows:
        # ROW_NUMBER / RANK: Flink 2.3 computes them as COUNT(*) of the frame (ROW_NUMBER's is ROWS: a
        # row's place; RANK's RANGE: the rows up to its last peer, as Flink 2.3 answers)
        calls.setdefault(w.this.sql(), exp.Count(this=exp.Star()) if isinstance(w.this, RANKINGS) else w.this)
    # The input's columns pass through the aggregate beside the planner's own (keys, time, arguments,
    # results): those are named apart from them, as Flink allows a column named __k0 or __agg0.
    passed = list(dict.fromkeys(c.internal for c in scope.columns))

    def own(name: str) -> str:
        return apart(name, passed)  # distinct bases that end in no '_' stay distinct

    pre: list[tuple[str, str]] = [(own(f"__k{i}"), to_duckdb(k)) for i, k in enumerate(keys)]
    order_item = first.args["order"].expressions[0].this
    pre.append((own("__o"), to_duckdb(resolve_columns(order_item, scope))) if nontime
               else (own("__ts"), quote(rowtime)))
    mode = RETRACT if spec.bounded else INSERT_ONLY  # a bounded frame retracts: MIN/MAX keep a multiset
    specs_raw = []
    for call in calls.values():
        func, arg = planner._agg_call(call, mode)
        args = arg if isinstance(arg, list) else [] if arg is None else [arg]  # a list: a row-wise aggregate
        at = len(pre)
        pre += [(own(f"__a{at + k}"), to_duckdb(resolve_columns(a, scope))) for k, a in enumerate(args)]
        specs_raw.append((func, at if args else None))
    pre += [(name, quote(name)) for name in passed]
    pre_node = planner._calc(node, pre, cond)
    in_types = pre_node.sql_schema
    if nontime and pa.types.is_nested(pre_node.schema.field(len(keys)).type):
        planner._fail(order_item, "OVER windows cannot be ordered by a value of type "
                                  f"{in_types.fields[len(keys)].type}; ORDER BY an orderable column")
    aggs = [AggSpec(f, a, planner._agg_type(call, f, in_types.fields[a].type if a is not None else None))
            for call, (f, a) in zip(calls.values(), specs_raw)]
    for call, (f, a) in zip(calls.values(), specs_raw):
        if f == "lag":
            check_lag_default(planner, call, in_types.fields[a].type, in_types.fields[a + 2].type)
    results = [own(f"__agg{j}") for j in range(len(aggs))]
    out_schema = pa.schema(list(pre_node.schema) + [output_field(r, s.out_type)
                                                    for r, s in zip(results, aggs)])
    cls, out_mode, attrs = (NonTimeOverAggNode, RETRACT, set()) if nontime else \
        (OverAggNode, INSERT_ONLY, time_attributes(pre_node))
    over = cls([pre_node], out_schema, out_mode, spec=spec, num_keys=len(keys), ts_index=len(keys),
               aggs=aggs, labels=list(calls),
               partition_by=[p.sql() for p in first.args.get("partition_by") or []],
               rowtime=order_item.sql() if nontime else rowtime,
               out_time_attributes=attrs)
    name_aggregate(pre_node, over, keys, list(calls.values()), {}, over=True)

    # The select list over the OVER aggregate's output: each OVER call becomes its column.
    call_col = dict(zip(calls, results))
    post_scope = Scope(scope.columns + [ScopeColumn(None, r, r, s.out_type, generated=True)
                                        for r, s in zip(results, aggs)], planner.sql, scope.what)

    def to_column(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Window):
            return generated_column(call_col[n.this.sql()])
        return n

    from streamsql.plan.planner import _scope_of, _unique  # late: the planner imports this module

    names = _unique([output_name(i, n) for n, i in enumerate(items)], planner.case_renames)
    post = [(name, compile_expression((i.unalias() if isinstance(i, exp.Alias) else i).transform(to_column),
                                      post_scope))
            for name, i in zip(names, items)]
    calc = planner._calc(over, post, None)
    return calc, _scope_of(calc, None, planner.sql)


def _definition(planner, w: exp.Window, named: dict[str, exp.Window]) -> exp.Window:
    """The window ``w`` uses: its own ``(...)``, or the ``WINDOW name AS (...)`` it names."""
    alias = w.args.get("alias")
    if alias is None:
        return w
    if w.args.get("partition_by") or w.args.get("order") or w.args.get("spec"):
        planner._fail(w, f"OVER ({alias.name} ...) refining a named window is not supported; "
                         f"spell the whole window in WINDOW {alias.name} AS (...)")
    found = named.get(alias.name.lower())
    if found is None:
        known = ", ".join(sorted(named)) or "none"
        planner._fail(alias, f"Window '{alias.name}' is not defined in this SELECT's WINDOW clause "
                             f"(defined: {known})")
    return found


def _signature(planner, call: exp.Window, w: exp.Window) -> tuple:
    """The window ``call`` is computed on, as Calcite tells windows apart: (partition, order, frame).

    ``w`` is its definition (:func:`_definition`); the frame an :class:`OverSpec` (no frame: RANGE
    UNBOUNDED PRECEDING). ``ROW_NUMBER()``'s frame is ROWS UNBOUNDED PRECEDING (Calcite gives it
    that frame; ``RANK()`` / ``DENSE_RANK()`` keep the default RANGE): beside a call over the
    default frame it is another window, which Flink 2.3 refuses ("All aggregates must be computed
    on the same window"), beside one over ``ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`` the
    same (``tests/runtime/over_nontime_calls_flink.json``). A ranking call's own ROWS / RANGE is
    refused before this (Calcite's validator).

    Raises:
        SqlError: a frame :func:`_frame` refuses.
    """
    parts = [p.sql() for p in w.args.get("partition_by") or []]
    order = w.args.get("order")
    frame = OverSpec("ROWS") if isinstance(call.this, exp.RowNumber) else _frame(planner, w)
    return tuple(parts), order.sql() if order is not None else "", frame


#: Flink 2.3's failures of a non-time OVER's job over a ROWS frame (scripts/flink_over_nontime_calls.py).
_ROWS_FAILURES = {"distinct": "Row arity: n, but serializer arity: n - 1",
                  "value": "class org.apache.flink.table.data.GenericRowData cannot be cast to class "
                           "java.lang.Long"}


def _check_nontime_call(planner, call: exp.Expression, kind: str) -> None:
    """Refuse a call this OVER window ordered by a non-time column does not compute, as Flink 2.3.

    Flink runs COUNT, SUM, AVG, MIN, MAX, ROW_NUMBER, RANK and DENSE_RANK there; DISTINCT aggregates,
    FIRST_VALUE and LAST_VALUE over a RANGE frame only (over ROWS its job fails); LAG fails its
    job (LEAD is refused for any stream).

    Raises:
        SqlError: LAG; a DISTINCT aggregate, FIRST_VALUE or LAST_VALUE over ROWS; another function.
    """
    if isinstance(call, RANKINGS):
        return
    inner = call.this if isinstance(call, NONTIME_FUNCTIONS) else None
    if isinstance(call, NONTIME_FUNCTIONS) and not isinstance(inner, exp.Distinct):
        return
    what = "distinct" if isinstance(inner, exp.Distinct) else "value" if isinstance(
        call, (exp.FirstValue, exp.LastValue)) else None
    if what is not None and kind == "RANGE":
        return
    if what is not None:
        planner._fail(call, f"{call.sql()} over a ROWS frame ordered by a column that is no time attribute "
                            f"fails Flink 2.3's job ({_ROWS_FAILURES[what]}); use RANGE (the default "
                            "frame), where Flink computes it")
    if type(call) in _VARIANCE and isinstance(call.this, exp.Distinct):  # compat var_distinct_over_nontime
        planner._fail(call, f"{call.sql()} in an OVER window ordered by a column that is no time attribute "
                            "fails Flink 2.3's job (Unmaterialized BinaryRawValueData cannot be compared.); "
                            "without DISTINCT Flink computes it")
    if isinstance(call, exp.Lag):
        planner._fail(call, f"{call.sql()} in an OVER window ordered by a column that is no time attribute "
                            "fails Flink 2.3's job (Unmaterialized BinaryRawValueData cannot be compared.); "
                            "ORDER BY a time attribute")
    planner._fail(call, f"{call.sql()} in an OVER window ordered by a column that is no time attribute is "
                        "not supported yet; supported there: COUNT, SUM, AVG, MIN, MAX, ROW_NUMBER, RANK, "
                        "DENSE_RANK, and DISTINCT aggregates, FIRST_VALUE and LAST_VALUE over RANGE")


def _order_column(planner, w: exp.Window, node: PlanNode, scope: Scope) -> tuple[str, bool]:
    """The internal name of the ORDER BY column ("" for an expression), and whether it is no time attribute.

    A rowtime or a ``PROCTIME()`` column orders a time-ordered OVER; any other column, with an
    unbounded frame, Flink 2.1+'s non-time OVER (an updating result).

    Raises:
        SqlError: no or several ORDER BY columns, DESC, or a column that is no time attribute
            with a bounded frame (Flink's words for each).
    """
    order = w.args.get("order")
    if order is None or len(order.expressions) != 1:
        planner._fail(order or w, "The window can only be ordered by a single time column. An OVER window "
                                  "in a streaming query must ORDER BY exactly one time attribute, e.g. "
                                  "OVER (PARTITION BY k ORDER BY ts ...)")
    item = order.expressions[0]
    if item.args.get("desc"):
        planner._fail(item, "The window can only be ordered in ASCENDING mode. OVER windows can only be "
                            "ordered in ascending order by a time attribute; drop DESC")
    col = item.this
    attrs = time_attributes(node)
    note = ""
    if isinstance(col, exp.Column):
        resolved = scope.resolve(col)
        if (resolved.internal in attrs and resolved.type.is_time) or is_proctime(node, resolved.internal):
            return resolved.internal, False
        note = materialized_note(resolved)
        if not _bounded(w):  # Flink 2.1+: NonTime{Rows,Range}UnboundedPrecedingFunction
            return resolved.internal, True
    known = sorted(c.name for c in scope.columns if c.internal in attrs)
    hint = f" ({', '.join(known)})" if known else "; declare one with WATERMARK FOR <column> AS ..."
    if _bounded(w):  # Flink 2.3's words (StreamExecOverAggregate)
        planner._fail(col, f"Non-time attribute sort is not supported for bounded OVER window. ORDER BY an "
                           f"event-time attribute{hint}, or a PROCTIME() column{note}")
    return "", True  # an expression: the Calc before the aggregate computes it


def _bounded(w: exp.Window) -> bool:
    """Whether ``w``'s frame starts at n PRECEDING (no frame, or UNBOUNDED PRECEDING: False)."""
    spec = w.args.get("spec")
    start = spec.args.get("start") if spec is not None else None
    return start is not None and not (isinstance(start, str) and start.upper() == "UNBOUNDED")


def _frame(planner, w: exp.Window) -> OverSpec:
    """The frame of ``w`` as an :class:`OverSpec` (no frame: RANGE UNBOUNDED PRECEDING).

    Raises:
        SqlError: a FOLLOWING bound or one other than CURRENT ROW as the end, a ROWS bound that is
            not a non-negative integer, a RANGE bound that is not an INTERVAL.
    """
    spec = w.args.get("spec")
    if spec is None:
        return OverSpec("RANGE")
    kind = spec.args["kind"].upper()
    end = spec.args.get("end")
    if end is not None and (not isinstance(end, str) or end.upper() != "CURRENT ROW"):
        at = end if isinstance(end, exp.Expression) else spec
        planner._fail(at, "OVER windows in a streaming query must end at CURRENT ROW "
                          "(... PRECEDING AND CURRENT ROW); FOLLOWING is not supported")
    start = spec.args.get("start")
    if isinstance(start, str):
        if start.upper() == "UNBOUNDED" and (spec.args.get("start_side") or "").upper() == "PRECEDING":
            return OverSpec(kind)
        if start.upper() == "CURRENT ROW":
            return OverSpec(kind, 0)
        planner._fail(spec, f"Unsupported OVER frame start {start}; use n PRECEDING or UNBOUNDED PRECEDING")
    if (spec.args.get("start_side") or "").upper() != "PRECEDING":
        planner._fail(spec, "OVER windows in a streaming query must start at n PRECEDING or "
                            "UNBOUNDED PRECEDING")
    if kind == "ROWS":
        if not (isinstance(start, exp.Literal) and not start.is_string and str(start.this).isdigit()):
            planner._fail(start, "ROWS BETWEEN n PRECEDING needs a non-negative integer literal n")
        return OverSpec("ROWS", int(start.this))
    if not isinstance(start, exp.Interval):
        planner._fail(start, "RANGE BETWEEN ... PRECEDING over a time attribute needs an INTERVAL, e.g. "
                             "RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW")
    return OverSpec("RANGE", interval_ms(start, "RANGE bound", planner, positive=False))

