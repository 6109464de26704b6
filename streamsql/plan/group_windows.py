"""Legacy group windows: ``GROUP BY TUMBLE|HOP|SESSION(ts, ...)``, as Flink's deprecated syntax.

``GROUP BY [keys,] TUMBLE(ts, size)``, ``HOP(ts, slide, size)`` or ``SESSION(ts, gap)`` (intervals
as the window TVFs take them) is the window aggregate of the equivalent window TVF — the same
:class:`~streamsql.plan.windows.WindowAggNode` and operators, planned by
:func:`~streamsql.plan.windows.build_window_aggregate` — with the window's columns read through
Flink's auxiliary functions, whose arguments must repeat the GROUP BY call's:

- ``TUMBLE_START(ts, size)`` / ``HOP_START`` / ``SESSION_START``: the window start, TIMESTAMP(3);
- ``..._END``: the window end (exclusive), TIMESTAMP(3);
- ``..._ROWTIME``: ``end - 1 ms``, a rowtime attribute (TIMESTAMP(3), or TIMESTAMP_LTZ(3) over
  one) that a later window can group on (cascading windows);
- ``..._PROCTIME``: the same for a window over a ``PROCTIME()`` attribute (a processing-time
  window: each needs its own kind of window, the other is an error).

As Flink's legacy windows, the rows are insert-only: one per (keys, window) when the watermark
(the wall clock, for a processing-time window) passes the window's end. A HOP whose size is not
a multiple of its slide is rejected (the slicing operator needs one; Flink plans it another way).
A NULL rowtime reads as 0, 1970-01-01 00:00:00 (a window of 1970), as Flink's legacy
``WindowOperator`` (``WindowSpec.legacy``), where a window TVF aggregate fails the job.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.plan.expressions import resolve_columns
from streamsql.plan.nodes import INSERT_ONLY, PlanNode
from streamsql.plan.scope import Scope, ScopeColumn, generated_column, is_generated
from streamsql.plan.specs import WindowSpec, window_zone
from streamsql.plan.windows import (
    build_window_aggregate,
    interval_ms,
    is_proctime,
    materialized_note,
    time_attributes,
)

WINDOWS = ("TUMBLE", "HOP", "SESSION")
#: auxiliary function suffix → the window aggregate's column
AUXILIARY = {"START": "__ws", "END": "__we", "ROWTIME": "__wt", "PROCTIME": "__wt"}
_ARITY = {"TUMBLE": 2, "HOP": 3, "SESSION": 2}
_SIGNATURE = {"TUMBLE": "TUMBLE(time_attr, size)", "HOP": "HOP(time_attr, slide, size)",
              "SESSION": "SESSION(time_attr, gap)"}


def _name(n: exp.Expression) -> str:
    return n.name.upper() if isinstance(n, exp.Anonymous) else ""


def _auxiliary_calls(exprs: list[exp.Expression]) -> list[exp.Anonymous]:
    return [a for e in exprs for a in e.find_all(exp.Anonymous)
            if "_" in _name(a) and tuple(_name(a).split("_", 1)) in
            {(w, s) for w in WINDOWS for s in AUXILIARY}]


def plan_group_window(planner, sel: exp.Select, items: list[exp.Expression], node: PlanNode, scope: Scope,
                      cond: str | None) -> tuple[PlanNode, Scope] | None:
    """Plan ``GROUP BY ..., TUMBLE|HOP|SESSION(ts, ...)`` (the ``_aggregate`` hook), or None without one.

    Raises:
        SqlError: several group windows; wrong arguments; a time column that is not an event-time
            attribute; an auxiliary function without its group window or with other arguments;
            ``*_PROCTIME``; an updating input; a HOP size that is not a multiple of the slide.
    """
    group = sel.args.get("group")
    having = sel.args.get("having")
    windows = [g for g in (group.expressions if group else []) if _name(g) in WINDOWS]
    clauses = items + ([having.this] if having is not None else [])
    aux = _auxiliary_calls(clauses)
    if not windows:
        if aux:
            a = aux[0]
            planner._fail(a, f"{_name(a)}(...) needs a GROUP BY {_name(a).split('_')[0]}(...) group window "
                             f"with the same arguments")
        return None
    if len(windows) > 1:
        planner._fail(windows[1], "Only one group window (TUMBLE, HOP or SESSION) is allowed in GROUP BY")
    call = windows[0]
    kind = _name(call)
    args = call.expressions
    if len(args) != _ARITY[kind]:
        planner._fail(call, f"{kind} takes {_ARITY[kind]} arguments: {_SIGNATURE[kind]}; got {len(args)}")
    rowtime, ts_type = _time_attribute(planner, args[0], node, scope, kind)
    proctime = is_proctime(node, rowtime)
    if node.mode != INSERT_ONLY:
        planner._fail(call, "Window aggregation over an updating input is not supported yet")
    zone = window_zone(ts_type.name, planner.config.get("table.local-time-zone"))
    if kind == "TUMBLE":
        spec = WindowSpec("TUMBLE", size=interval_ms(args[1], "size", planner), proctime=proctime, zone=zone,
                          legacy=True)
    elif kind == "HOP":
        slide, size = interval_ms(args[1], "slide", planner), interval_ms(args[2], "size", planner)
        if size % slide:
            planner._fail(args[2], f"HOP's size must be an integral multiple of its slide here, but got size "
                                   f"{size} ms and slide {slide} ms")
        spec = WindowSpec("HOP", size=size, slide=slide, proctime=proctime, zone=zone, legacy=True)
    else:
        spec = WindowSpec("SESSION", gap=interval_ms(args[1], "gap", planner), proctime=proctime, zone=zone,
                          legacy=True)

    wt_type = SqlType("TIMESTAMP_LTZ" if ts_type.name == "TIMESTAMP_LTZ" else "TIMESTAMP", 3)
    signature = [a.sql() for a in args]

    def replace(n: exp.Expression) -> exp.Expression:
        if n in aux:
            window, suffix = _name(n).split("_", 1)
            if window != kind or [a.sql() for a in n.expressions] != signature:
                planner._fail(n, f"{_name(n)}(...) must name the GROUP BY's group window: "
                                 f"{kind}_{suffix}({', '.join(signature)})")
            if suffix in ("ROWTIME", "PROCTIME") and (suffix == "PROCTIME") != proctime:
                other = "PROCTIME" if proctime else "ROWTIME"
                planner._fail(n, f"{_name(n)} needs a window over a "
                                 f"{'processing' if suffix == 'PROCTIME' else 'event'}-time attribute; "
                                 f"use {kind}_{other} for this window's time")
            return generated_column(AUXILIARY[suffix])
        return n

    # An auxiliary call keeps the name Flink gives it (EXPR$n), not its placeholder column's.
    items = [i.transform(replace) if isinstance(i, exp.Alias) or i not in aux
             else exp.alias_(i.transform(replace), f"EXPR${n}") for n, i in enumerate(items)]
    if having is not None:
        sel = sel.copy()
        sel.set("having", exp.Having(this=having.this.transform(replace)))
    ts3 = SqlType("TIMESTAMP", 3)
    # the placeholders are the planner's columns: a user's column named __ws is still the user's
    wide = Scope(scope.columns + [ScopeColumn(None, c, c, t, generated=True) for c, t in
                                  (("__ws", ts3), ("__we", ts3), ("__wt", wt_type))], planner.sql, scope.what)
    keys = [resolve_columns(g, scope) for g in group.expressions if g is not call]
    placeholders = {"__ws", "__we", "__wt"}

    def window_col(n: exp.Expression) -> str | None:
        return n.name if isinstance(n, exp.Column) and is_generated(n) and n.name in placeholders else None

    return build_window_aggregate(planner, sel, items, node, wide, cond, spec, rowtime, keys,
                                  wt_type.to_arrow(), window_col)


def _time_attribute(planner, col: exp.Expression, node: PlanNode, scope: Scope,
                    kind: str) -> tuple[str, SqlType]:
    """The internal name and type of a group window's time column.

    Raises:
        SqlError: not a column, or not an event-time attribute of the input.
    """
    attrs = time_attributes(node)
    note = ""
    if isinstance(col, exp.Column):
        c = scope.resolve(col)
        if (c.internal in attrs and c.type.is_time) or is_proctime(node, c.internal):
            return c.internal, c.type
        note = materialized_note(c)
    known = sorted(c.name for c in scope.columns if c.internal in attrs)
    hint = f" ({', '.join(known)})" if known else "; declare one with WATERMARK FOR <column> AS ..."
    planner._fail(col, f"The first argument of {kind}(...) in GROUP BY must be a time attribute (a column "
                       f"with a WATERMARK, or a PROCTIME() column){note}{hint}")
