"""Window table-valued functions and window aggregation, as Flink's window TVFs.

``FROM TABLE(TUMBLE|HOP|CUMULATE|SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), ...))``
yields the columns of ``t`` plus ``window_start``, ``window_end`` (``TIMESTAMP(3)``) and
``window_time`` (``window_end - 1 ms``; ``TIMESTAMP(3)``, or ``TIMESTAMP_LTZ(3)`` when the time
attribute is one). The descriptor column must be a time attribute: the rowtime column of a
``WATERMARK FOR`` (passed through views and projections unchanged), the ``window_time`` of an
earlier window aggregate, or a ``PROCTIME()`` column: a processing-time window
(``WindowSpec.proctime``), whose rows belong to the window of their arrival at the operator and
which fires on the wall clock (:mod:`streamsql.runtime.operators.proctime`); its ``window_time``
is a processing-time attribute again (:func:`is_proctime`), as Flink cascades it.

Plans built here (called from :class:`~streamsql.plan.planner.Planner` by two hooks):

- :func:`plan_window_tvf` (the ``FROM`` hook): a :class:`WindowTableFunctionNode` over the
  input. Read directly it expands each row by its windows (TUMBLE, HOP, CUMULATE;
  insert-only); a SESSION one (:class:`SessionTableFunctionNode`, keyed by its PARTITION BY)
  emits each row once its session closes, as Flink's session TVF operator.
- :func:`plan_window_aggregate` (the ``GROUP BY`` hook): ``GROUP BY window_start, window_end
  [, keys]`` over that node becomes, as Flink's ``WindowAggregate``::

      Calc (select list, HAVING)
        ← WindowAggregate (keys, window, aggregates)     insert-only: +I once per window
        ← Calc (WHERE; keys, rowtime, arguments)         over the TVF's input
        ← input of the window TVF

  A GROUP BY over a TUMBLE/HOP/CUMULATE without both ``window_start`` and ``window_end`` is a
  plain (updating) GroupAggregate over the TVF's rows, as in Flink.

Interval arguments are literals: ``INTERVAL '10' SECOND``, plural units (``SECONDS``), MINUTE,
HOUR, DAY, MILLISECOND, and spans such as ``INTERVAL '1:30' MINUTE TO SECOND``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import ClassVar

import pyarrow as pa
from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec, agg_output_type, output_field
from streamsql.plan.agg_reduce import reduce_functions
from streamsql.plan.display_names import name_aggregate, select_names
from streamsql.plan.expressions import AGG_TYPES, ListAggCall, agg_label, quote, resolve_columns, to_duckdb
from streamsql.plan.grouping_sets import (
    GROUPING_CONSTRUCTS,
    expand,
    grouping_calls,
    is_grouping_call,
    name_expand,
)
from streamsql.plan.nodes import (
    INSERT_ONLY,
    CalcNode,
    PlanNode,
    UnionNode,
    WatermarkAssignerNode,
    explain_attr,
    select_list,
)
from streamsql.plan.ordered_aggs import reject_unmerged, reject_window_distinct
from streamsql.plan.python_udfs import reject_unmerged_python_aggregates
from streamsql.plan.scope import Scope, ScopeColumn, generated_column, position_of
from streamsql.plan.specs import WindowSpec, window_zone
from streamsql.plan.window_calcs import WINDOW_COLUMNS, WindowInput, passed_names, push_below, window_input
from streamsql.sql import nodes as tvf

_UNIT_MS = {"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000}
_SPAN_ORDER = ["DAY", "HOUR", "MINUTE", "SECOND"]


# -- plan nodes -------------------------------------------------------------------------------------


@dataclass(eq=False)
class WindowTableFunctionNode(PlanNode):
    """A window TVF: the input's columns plus window_start, window_end, window_time.

    Attributes:
        spec: the window (ms).
        rowtime: the time attribute column of the input.
        partition_by: SESSION's PARTITION BY columns (input names).
    """

    spec: WindowSpec = None  # type: ignore[assignment]
    rowtime: str = ""
    partition_by: list[str] = field(default_factory=list)

    kind: ClassVar[str] = "window-tvf"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        part = explain_attr("partitionBy", ", ".join(self.partition_by))
        return f"WindowTableFunction(window=[{self.spec.describe(self.rowtime)}]{part})"


@dataclass(eq=False)
class SessionTableFunctionNode(WindowTableFunctionNode):
    """A SESSION window TVF whose rows are read (not pushed under a window aggregate).

    Keyed by ``partition_by`` (its rows are held per key until their session closes:
    :mod:`~streamsql.runtime.operators.session_tvf`), so it is stateful, as Flink's
    ``UnalignedWindowTableFunctionOperator``; under a window aggregate that only groups its
    columns the planner reads the TVF's input instead (:func:`push_below`).
    """

    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN, as Flink 2.3: ``SESSION(time_col=[ts], gap=[10 s], partition keys=[k])``."""
        window = self.spec.describe(self.rowtime)
        if self.partition_by:
            window = window[:-1] + f", partition keys=[{', '.join(self.partition_by)}])"
        return f"WindowTableFunction(window=[{window}])"

    def key_indices(self) -> list[int]:
        """The input columns of the PARTITION BY key."""
        return [self.inputs[0].schema.get_field_index(p) for p in self.partition_by]


@dataclass(eq=False)
class WindowAggNode(PlanNode):
    """Window aggregation (insert-only output: one +I per window when the watermark passes it).

    Input columns: ``num_keys`` keys, the rowtime at ``ts_index``, then aggregate arguments.
    Output: keys, ``__ws``, ``__we``, ``__wt``, ``__agg0``...
    """

    spec: WindowSpec = None  # type: ignore[assignment]
    num_keys: int = 0
    ts_index: int = 0
    aggs: list = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    rowtime: str = ""
    window_text: str = ""  # EXPLAIN's window when not ``spec`` over ``rowtime`` (a window-attached input)
    partition_keys: tuple[str, ...] = ()  # a SESSION's PARTITION BY keys as passed on, for EXPLAIN only

    kind: ClassVar[str] = "window-agg"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        names = self.schema.names[:self.num_keys]
        if self.window_text:  # an attached window_start key (before a grouping set's __e) is the window's
            names = [n for j, n in enumerate(names) if j != len(names) - 1 - ("__e" in names)]
        keys = ", ".join(self.display.get(n, n) for n in names)
        window = self.window_text or self.spec.describe(self.rowtime)
        if self.partition_keys:  # as Flink 2.3: SESSION(..., gap=[10 s], partition keys=[k])
            window = window[:-1] + f", partition keys=[{', '.join(self.partition_keys)}])"
        return (f"WindowAggregate(groupBy=[{keys}], window=[{window}], "
                f"select=[{select_list(self, keys)}], changelog=[{self.mode}])")


# -- time attributes -------------------------------------------------------------------------------


def time_attributes(node: PlanNode, row_type: bool = False) -> set[str]:
    """Columns of ``node``'s output that are event-time attributes (watermarked rowtimes).

    A ``WATERMARK FOR`` column stays one through projections that pass it unchanged, window TVFs
    (which add ``window_time``), window aggregates (``window_time`` of the output), UNION ALL
    (where every input has one at that position) and a ``LATERAL TABLE`` correlate (its input's
    columns, as Flink's Correlate keeps their time indicators).

    Args:
        node: the plan node.
        row_type: also the columns Flink's row type still marks as rowtimes where StreamSQL does
            not take them as time attributes: both inputs' after a window join (Flink's sink
            refuses two of them, :func:`~streamsql.plan.sinks.check_rowtimes`).
    """
    if isinstance(node, WatermarkAssignerNode):
        return {node.rowtime} | time_attributes(node.inputs[0], row_type)
    declared = getattr(node, "out_time_attributes", None)  # interval and temporal joins declare theirs
    if declared is not None:
        return set(declared)
    if row_type and node.kind == "window-join":
        left, right = node.inputs
        attrs = [time_attributes(i, row_type) for i in node.inputs]
        inner = [(0, n) for n in left.schema.names] + [(1, n) for n in right.schema.names]
        return {n for n, (side, name) in zip(node.schema.names, inner) if name in attrs[side]}
    if isinstance(node, CalcNode):
        inner = time_attributes(node.inputs[0], row_type)
        return {name for name, e in node.query.items if any(e == quote(c) for c in inner)}
    if isinstance(node, WindowTableFunctionNode):
        return time_attributes(node.inputs[0], row_type) | (set() if node.spec.proctime else {"window_time"})
    if isinstance(node, WindowAggNode):
        return set() if node.spec.proctime else {"__wt"}
    if node.kind == "correlate":  # LATERAL TABLE: the input's columns pass on (Flink's Correlate)
        return time_attributes(node.inputs[0], row_type) & set(node.schema.names[:node.keep])
    if isinstance(node, UnionNode):
        sets = [[n in time_attributes(i, row_type) for n in i.schema.names] for i in node.inputs]
        return {n for j, n in enumerate(node.schema.names) if all(s[j] for s in sets)}
    return set()


def is_proctime(node: PlanNode, col: str) -> bool:
    """Whether column ``col`` of ``node`` is a ``PROCTIME()`` attribute, through projections.

    One is made by a Calc's bare ``PROCTIME()`` item (``CalcNode.proctime``: a table's computed
    column, or a SELECT item of a view, subquery or CTE) or by a processing-time window aggregate
    or window TVF (its ``window_time``, which Flink cascades as a proctime attribute), and passed
    on unchanged by Calcs (projections, filters), watermark assigners, a window TVF (its input's
    columns: Flink materializes them after it, so ``ROW_NUMBER() OVER (... ORDER BY pt DESC)``
    over a processing-time SESSION TVF's rows keeps the newest), a lookup join's left columns
    (they keep their names; its rows go on at once) and UNION ALL (where every input has one at that
    position, as Flink's union keeps the time indicator its inputs share). Anything else (a
    regular join, a GROUP BY aggregation, an expression over it) materializes it into a plain
    TIMESTAMP_LTZ(3), as in Flink. A processing-time window takes each row's time when it
    arrives (not the column's value), so the column only has to be one.
    """
    passing = (CalcNode, WatermarkAssignerNode, WindowTableFunctionNode)
    while isinstance(node, passing) or node.kind == "lookup-join":
        if isinstance(node, WindowTableFunctionNode) and col not in node.inputs[0].schema.names:
            return node.spec.proctime and col == "window_time"
        if node.kind == "lookup-join" and col not in node.inputs[0].schema.names:
            return False
        if isinstance(node, CalcNode):
            src = plain_column(dict(node.query.items).get(col), node.query)
            if src is None:  # computed here
                return col in node.proctime
            col = src
        node = node.inputs[0]
    if isinstance(node, UnionNode) and col in node.schema.names:
        j = node.schema.names.index(col)
        return all(is_proctime(i, i.schema.names[j]) for i in node.inputs)
    return isinstance(node, WindowAggNode) and node.spec.proctime and col == "__wt"


def materialized_note(col: ScopeColumn) -> str:
    """Why ``col``, a TIMESTAMP_LTZ that is no time attribute, is none: for a planning error at it.

    It is typically a ``PROCTIME()`` column that a regular join or an expression over it (a
    CAST) turned into a plain value, as Flink 2.3 does ("The window function requires the timecol
    is a time attribute type, but is TIMESTAMP_WITH_LOCAL_TIME_ZONE(3)"). Flink keeps it one after
    a GROUP BY aggregation (an updating input to the window); not here yet. "" otherwise.
    """
    if col.type is None or col.type.name != "TIMESTAMP_LTZ":
        return ""
    return (f" ('{col.name}' is a plain TIMESTAMP_LTZ here: a PROCTIME() column stays a time attribute "
            "only through projections and filters; a regular join or an expression over it, such as a "
            "CAST, makes it a value, as in Flink; after an aggregation it is not one here yet)")


def plain_column(expr: str | None, query) -> str | None:
    """The input column that the projected item ``expr`` of ``query`` (a QuerySpec) passes on, else None."""
    names = {'"' + n.replace('"', '""') + '"': n for n in query.input_schema.names}
    return names.get(expr) if expr is not None else None



# -- intervals --------------------------------------------------------------------------------------


def interval_ms(node: exp.Expression | None, what: str, planner, positive: bool = True) -> int:
    """An ``INTERVAL`` literal as milliseconds.

    Raises:
        SqlError: not an interval literal, an unsupported unit (MONTH, YEAR), or a non-positive
            value where ``positive``; positioned at the argument.
    """
    if not isinstance(node, exp.Interval):
        got = node.sql() if node is not None else "nothing"
        planner._fail(node if node is not None else exp.Null(),
                      f"The {what} of a window must be an INTERVAL literal, e.g. "
                      f"INTERVAL '10' SECOND; got {got}")
    text = node.this.name if node.this is not None else ""
    unit = node.args.get("unit")
    try:
        if isinstance(unit, exp.IntervalSpan):
            ms = _span_ms(text, _unit(unit.this.name), _unit(unit.expression.name))
        else:
            if unit is None:  # INTERVAL '10 SECONDS'
                m = re.fullmatch(r"\s*(-?[\d.]+)\s+([A-Za-z]+)\s*", text)
                if not m:
                    raise ValueError(text)
                text, uname = m.group(1), m.group(2)
            else:
                uname = unit.name
            ms = Decimal(text.strip()) * _UNIT_MS[_unit(uname)]
            if ms != ms.to_integral_value():
                raise ValueError(text)
            ms = int(ms)
    except (ValueError, KeyError, InvalidOperation, AttributeError):
        planner._fail(node, f"Unsupported {what} {node.sql(dialect='duckdb')}: use an INTERVAL of "
                            f"MILLISECOND, SECOND, MINUTE, HOUR or DAY, e.g. INTERVAL '10' SECOND")
    if positive and ms <= 0:
        planner._fail(node, f"The {what} of a window must be positive, got {ms} ms")
    return ms


def _unit(name: str) -> str:
    u = name.upper()
    u = u[:-1] if u.endswith("S") else u
    if u not in _UNIT_MS:
        raise KeyError(u)
    return u


def _span_ms(text: str, first: str, last: str) -> int:
    """``'1 02:03:04.5'`` DAY TO SECOND and the like → ms."""
    units = _SPAN_ORDER[_SPAN_ORDER.index(first): _SPAN_ORDER.index(last) + 1]
    sign = -1 if text.strip().startswith("-") else 1
    parts = re.split(r"[ :]", text.strip().lstrip("-"))
    if len(parts) != len(units):
        raise ValueError(text)
    total = sum(Decimal(p) * _UNIT_MS[u] for p, u in zip(parts, units))
    if total != total.to_integral_value():
        raise ValueError(text)
    return sign * int(total)


# -- FROM TABLE(<window TVF>) ---------------------------------------------------------------------


def plan_window_tvf(planner, src: exp.TableFromRows) -> tuple[PlanNode, Scope]:
    """Plan ``TABLE(TUMBLE|HOP|CUMULATE|SESSION(...)) [AS alias]`` (the ``_from`` hook).

    Raises:
        SqlError: the time column is not a time attribute (positioned at the DESCRIPTOR
            column), bad intervals, a window column name clash, a table-valued function that is
            not a window TVF.
    """
    call = src.this
    if not isinstance(call, tvf.WindowTVF):
        planner._fail(src, f"Unsupported table function in FROM TABLE(...): {call.sql()[:60]}")
    name = call.kind
    table = call.this
    node, scope = planner._from(table)
    time_col = call.args["time_col"]
    col = scope.resolve(time_col)
    attrs = time_attributes(node)
    proctime = is_proctime(node, col.internal)
    if not proctime and (col.internal not in attrs or not col.type.is_time):
        known = sorted(c.name for c in scope.columns if c.internal in attrs)
        hint = f"; time attributes of '{table.name}': {', '.join(known)}" if known else \
            f"; '{table.name}' has none: declare one with WATERMARK FOR <column> AS ..."
        line, c, length = position_of(time_col)
        from streamsql.core.errors import SqlError

        msg = (f"The time column '{col.name}' of {name}(TABLE {table.name}, DESCRIPTOR(...)) must be a "
               f"time attribute (a column with a WATERMARK, or a PROCTIME() column)"
               f"{materialized_note(col)}{hint}")
        raise SqlError(msg, planner.sql, line, c, length)
    for c in scope.columns:
        if c.name.lower() in WINDOW_COLUMNS:
            planner._fail(table, f"{name}: the input '{table.name}' already has a column named '{c.name}'; "
                                 f"the window TVF adds window_start, window_end and window_time")
    offset = interval_ms(call.args.get("offset"), "offset", planner, positive=False) \
        if call.args.get("offset") is not None else 0
    partition: list[str] = []
    zone = window_zone(col.type.name, planner.config.get("table.local-time-zone"))
    if isinstance(call, tvf.Tumble):
        size = interval_ms(call.args["size"], "size", planner)
        if abs(offset) >= size:  # Flink's validation (ValidationException), word for word
            msg = (f"TUMBLE table function parameters must satisfy abs(offset) < size, but got size "
                   f"{size} ms and offset {offset} ms.")
            planner._fail(call.args["offset"], msg)
        spec = WindowSpec("TUMBLE", size=size, offset=offset, proctime=proctime, zone=zone)
    elif isinstance(call, (tvf.Hop, tvf.Cumulate)):
        step_name = "slide" if isinstance(call, tvf.Hop) else "step"
        step = interval_ms(call.args[step_name], step_name, planner)
        size = interval_ms(call.args["size"], "size", planner)
        if size % step:
            msg = (f"{name} table function based aggregate requires size must be an integral multiple of "
                   f"{step_name}, but got size {size} ms and {step_name} {step} ms")
            planner._fail(call.args["size"], msg)
        spec = WindowSpec(name, size=size, slide=step, offset=offset, proctime=proctime, zone=zone)
    else:
        spec = WindowSpec("SESSION", gap=interval_ms(call.args["gap"], "gap", planner), proctime=proctime,
                          zone=zone)
        partition = [scope.resolve(p).internal for p in call.args.get("partition_by") or []]
    ts_type = col.type
    wt_type = SqlType("TIMESTAMP_LTZ" if ts_type.name == "TIMESTAMP_LTZ" else "TIMESTAMP", 3)
    fields = list(node.schema) + [pa.field("window_start", pa.timestamp("ms")),
                                  pa.field("window_end", pa.timestamp("ms")),
                                  pa.field("window_time", wt_type.to_arrow())]
    node_type = SessionTableFunctionNode if spec.kind == "SESSION" else WindowTableFunctionNode
    out = node_type([node], pa.schema(fields), node.mode, spec=spec, rowtime=col.internal,
                    partition_by=partition)
    qual = (src.alias_or_name if src.alias else table.name).lower()
    cols = [ScopeColumn(qual, c.name, c.internal, c.type) for c in scope.columns]
    cols += [ScopeColumn(qual, n, n, SqlType.from_arrow(f.type)) for n, f in zip(WINDOW_COLUMNS, fields[-3:])]
    return out, Scope(cols, planner.sql, f"window TVF {name}")


# -- GROUP BY window_start, window_end -------------------------------------------------------------


def plan_window_aggregate(planner, sel: exp.Select, items: list[exp.Expression], node: PlanNode, scope: Scope,
                          cond: str | None,
                          grouping: tuple[list[exp.Expression], list[tuple[int, ...]]] | None = None,
                          ) -> tuple[PlanNode, Scope] | None:
    """Plan a window aggregation (the ``_aggregate`` hook), or None for a plain GROUP BY.

    Returns None when ``node`` is not a window TVF, or when GROUP BY lacks window_start or
    window_end, or (SESSION) a PARTITION BY key, or (SESSION) groups by a key that is not one of
    the PARTITION BY keys: then it is a plain GroupAggregate over the TVF's rows, as Flink 2.3 plans
    it (a SESSION TVF's rows: :class:`SessionTableFunctionNode`; an updating result).

    Raises:
        SqlError: window columns used other than as grouping keys (in WHERE, other keys,
            aggregate arguments); an updating input; grouping sets in a SESSION window
            aggregation (not supported yet).

    ``grouping`` is the GROUP BY's ``(keys, sets)`` when it has GROUPING SETS, ROLLUP or CUBE
    (:func:`streamsql.plan.grouping_sets.grouping_sets`): every set must hold window_start or
    window_end (else None: a GroupAggregate over the TVF's rows, as Flink's), the one it leaves
    out is NULL in that set's rows; the window aggregate is then keyed by the other keys and the
    set number, over the Expand of its input, as Flink 2.3 plans it (one row per window and set,
    insert-only).
    """
    window = window_input(node, lambda n: isinstance(n, WindowTableFunctionNode),
                          _read_columns(sel, items, scope))
    if window is None:
        return None
    tvf_node = window.tvf
    where = sel.args.get("where")
    if where is not None and any(c.name in window.columns
                                 for c in resolve_columns(where.this, scope).find_all(exp.Column)):
        window.attached = True  # a WHERE on window columns: Flink's window-attached aggregate
    if window.attached and tvf_node.spec.proctime:
        return None  # Flink 2.3 plans a GroupAggregate over a processing-time TVF's attached rows

    def _is_window_col(n: exp.Expression) -> bool:  # a column passing a window column on
        return isinstance(n, exp.Column) and not isinstance(n.this, exp.Star) and n.name in window.columns

    group = sel.args.get("group")
    sets = None
    window_nulls: dict[str, list[int]] = {}  # a window column → the sets whose rows have it NULL
    grouping_index, grouping_sets_all = None, None  # GROUPING()'s keys (window columns too) and sets
    if grouping is None:
        keys = [resolve_columns(g, scope) for g in (group.expressions if group else [])]
    else:
        all_keys = [resolve_columns(g, scope) for g in grouping[0]]
        windowed = {i for i, k in enumerate(all_keys) if _is_window_col(k)}
        if {"window_start", "window_end"} <= {window.columns[all_keys[i].name] for i in windowed}:
            for e, members in enumerate(grouping[1]):
                held = {window.columns[all_keys[i].name] for i in members if i in windowed}
                if not held & {"window_start", "window_end"} and tvf_node.spec.kind != "SESSION":
                    return None  # a set without the window: a GroupAggregate over the TVF's rows (Flink's)
                if window.attached and not {"window_start", "window_end"} <= held:
                    return None  # Flink 2.3: a GroupAggregate over the attached rows then
                for i in windowed:  # NULL in that set's rows
                    if window.columns[all_keys[i].name] not in held:
                        window_nulls.setdefault(all_keys[i].name, []).append(e)
        keys = [k for i, k in enumerate(all_keys) if i in windowed]
        at = {old: new for new, old in enumerate(i for i in range(len(all_keys)) if i not in windowed)}
        sets = [tuple(at[i] for i in s if i in at) for s in grouping[1]]
        keys += [k for i, k in enumerate(all_keys) if i not in windowed]
        # GROUPING(window_start): the window columns take the indices after the other keys
        window_at = {i: len(at) + n for n, i in enumerate(sorted(windowed))}
        grouping_index = {**{all_keys[i].sql(): j for i, j in at.items()},
                          **{all_keys[i].sql(): j for i, j in window_at.items()}}
        grouping_sets_all = [tuple(at[i] if i in at else window_at[i] for i in s) for s in grouping[1]]
    wkeys = {window.columns[k.name] for k in keys if _is_window_col(k)}
    if not {"window_start", "window_end"} <= wkeys:
        return None  # a GroupAggregate over the TVF's rows, as Flink 2.3 (a SESSION's too)
    if grouping is not None and tvf_node.spec.kind == "SESSION":  # Flink 2.3 sessions all rows together there
        construct = next(g for g in group.expressions if isinstance(g, GROUPING_CONSTRUCTS))
        planner._fail(construct, "GROUPING SETS, ROLLUP and CUBE in a SESSION window aggregation are not "
                                 "supported yet (Flink 2.3 forms the sessions over all rows, not per key, "
                                 "there); write one SESSION aggregation per grouping and UNION ALL them")
    if node.mode != INSERT_ONLY:
        planner._fail(sel.args["from_"].this,
                      "Window aggregation over an updating input is not supported yet")
    other = [k for k in keys if not _is_window_col(k)]
    checked_where = [resolve_columns(where.this, scope)] if where and not window.attached else []
    _no_window_cols(planner, other + checked_where,
                    "WHERE and non-window GROUP BY keys", _is_window_col)
    if tvf_node.partition_by:
        names = {k.name for k in other if isinstance(k, exp.Column)}
        if any(not passed_names(window, p) & names for p in tvf_node.partition_by):
            return None  # Flink 2.3: a GroupAggregate over the TVF's rows (a key dropped or not grouped)
    if tvf_node.spec.kind == "SESSION":
        parts = set().union(*(passed_names(window, p) for p in tvf_node.partition_by))
        if any(not (isinstance(k, exp.Column) and k.name in parts) for k in other):
            # Flink 2.3: a GroupAggregate over the TVF's rows too (sessions of all the partition's rows,
            # grouped by more keys; queryfuzz36 seeds 600121, 600176, 600289)
            return None
    if tvf_node.spec.kind == "HOP":
        _no_sum_distinct(planner, sel, items)
    wt_type = tvf_node.schema.field("window_time").type
    if window.attached:
        return _attached_aggregate(planner, sel, items, node, scope, cond, window, keys, other, wt_type, sets,
                                   (grouping_index, grouping_sets_all))
    window_col = dict(zip(WINDOW_COLUMNS, ("__ws", "__we", "__wt")))
    source, rowtime = push_below(planner, window) if window.calcs else (tvf_node.inputs[0], tvf_node.rowtime)
    out = build_window_aggregate(planner, sel, items, source, scope, cond, tvf_node.spec, rowtime,
                                 other, wt_type,
                                 lambda n: window_col[window.columns[n.name]] if _is_window_col(n) else None,
                                 sets, window_nulls, (grouping_index, grouping_sets_all))
    if out is not None and tvf_node.spec.kind == "SESSION":
        agg = out[0]
        while not isinstance(agg, WindowAggNode):
            agg = agg.inputs[0]
        agg.partition_keys = _keys_shown(window)
    return out


def _read_columns(sel: exp.Select, items: list[exp.Expression], scope: Scope) -> set[str]:
    """The (internal) names of the input columns a SELECT reads.

    Those of its list (``items``, stars expanded), WHERE, GROUP BY and HAVING; a name that is no
    input column (a SELECT alias in GROUP BY) is skipped.
    """
    from streamsql.core.errors import SqlError

    names = set()
    for part in [*items, sel.args.get("where"), sel.args.get("group"), sel.args.get("having")]:
        for col in part.find_all(exp.Column) if part is not None else ():
            try:
                names.add(resolve_columns(col.copy(), scope).name)
            except SqlError:
                continue
    return names


def _attached_aggregate(planner, sel: exp.Select, items: list[exp.Expression], node: PlanNode, scope: Scope,
                        cond: str | None, window: WindowInput, keys: list[exp.Expression],
                        other: list[exp.Expression], wt_type: pa.DataType, sets, grouping,
                        ) -> tuple[PlanNode, Scope]:
    """The window aggregate over rows that carry their window, as Flink's window-attached one.

    Keyed by ``other`` and the rows' ``window_start``; each row's time is its ``window_end - 1 ms``,
    in tumbling windows of the slide (HOP), step (CUMULATE) or size (TUMBLE) at the same offset, so
    the window of the row's end fires when the watermark reaches ``window_end - 1`` and a row of a
    fired window is late (dropped), as Flink's (:mod:`streamsql.plan.window_calcs`). With grouping
    sets (``sets``: indices into ``other``, each set holding both window columns) the rows pass
    through the Expand first, and ``window_start`` is a key of every set, as in Flink 2.3's plan
    (``Expand`` under a window-attached ``WindowAggregate`` keyed by the keys and ``$e``).

    Over a SESSION TVF (Flink's window-attached SESSION aggregate) the TVF's operator forms the
    sessions from all its rows first (:mod:`~streamsql.runtime.operators.session_tvf`) and emits a
    session's rows when it closes; the aggregate keys them by their ``window_start`` too, in
    windows of 1 ms at ``window_end - 1``, so each session fires at the watermark that closed it.
    """
    spec = window.tvf.spec
    names = {window.columns[k.name]: k for k in keys if k not in other}
    start, end = names["window_start"], names["window_end"]
    size = 1 if spec.kind == "SESSION" else spec.size if spec.kind == "TUMBLE" else spec.slide
    run = WindowSpec("TUMBLE", size=size, offset=spec.offset % size, zone=spec.zone)
    window_col = {"window_start": f"__k{len(other)}", "window_end": "__we", "window_time": "__wt"}
    out, out_scope = build_window_aggregate(
        planner, sel, items, node, scope, cond, run, end.name, other + [start], wt_type,
        lambda n: window_col[window.columns[n.name]]
        if isinstance(n, exp.Column) and n.name in window.columns else None,
        None if sets is None else [(*s, len(other)) for s in sets], grouping=grouping,
        ts_sql=f"{quote(end.name)} - INTERVAL 1 MILLISECOND")
    agg = out
    while not isinstance(agg, WindowAggNode):
        agg = agg.inputs[0]
    attached = f"win_start=[{start.name}], win_end=[{end.name}]"
    agg.window_text = spec.describe("").replace("time_col=[]", attached)
    agg.partition_keys = _keys_shown(window)
    return out, out_scope


def _keys_shown(window: WindowInput) -> tuple[str, ...]:
    """The names a SESSION window aggregate's EXPLAIN gives its TVF's PARTITION BY keys, sorted.

    Each key under the names the Calcs between the TVF and the aggregate pass it on as
    (:func:`passed_names`), as Flink 2.3 prints them whether the Calcs were pushed under the TVF
    (``SESSION(time_col=[ts], gap=[10 s], partition keys=[kk])``) or the aggregate is
    window-attached (``SESSION(win_start=[..], win_end=[..], gap=[..], partition keys=[k])``).
    """
    return tuple(sorted(set().union(*(passed_names(window, p) for p in window.tvf.partition_by))))


def _no_sum_distinct(planner, sel: exp.Select, items: list[exp.Expression]) -> None:
    """Refuse SUM(DISTINCT x) and LISTAGG(DISTINCT x) in a HOP window TVF aggregate, in Flink 2.3's words.

    Flink 2.3 plans it with a distinct view that retracts from SumAggFunction, which cannot
    retract, and fails planning; COUNT, AVG, MIN and MAX with DISTINCT run there, and SUM(DISTINCT
    x) runs in TUMBLE, CUMULATE and SESSION windows and in the legacy GROUP BY HOP(...) (all read
    from Flink 2.3's answers).
    """
    having = sel.args.get("having")
    for e in items + ([having] if having is not None else []):
        for call in e.find_all(exp.Sum, ListAggCall):
            arg = call.expressions[0] if isinstance(call, ListAggCall) and call.expressions else call.this
            if isinstance(arg, exp.Distinct):
                if isinstance(call, ListAggCall):
                    planner._fail(call, "This function does not support retraction. (Flink 2.3 refuses "
                                        "LISTAGG(DISTINCT ...) in a HOP window aggregate)")
                planner._fail(call, "This function does not support retraction, Please choose "
                                    "SumWithRetractAggFunction. (Flink 2.3 refuses SUM(DISTINCT ...) in a "
                                    "HOP window aggregate)")


def build_window_aggregate(planner, sel: exp.Select, items: list[exp.Expression], source: PlanNode,
                           scope: Scope, cond: str | None, spec: WindowSpec, rowtime: str,
                           keys: list[exp.Expression], wt_type: pa.DataType,
                           window_col, sets: list[tuple[int, ...]] | None = None,
                           window_nulls: dict[str, list[int]] | None = None,
                           grouping: tuple[dict[str, int] | None, list[tuple[int, ...]] | None]
                           = (None, None), ts_sql: str | None = None,
                           ) -> tuple[PlanNode, Scope]:
    """The window aggregate over ``source`` and its post-projection (see module docstring).

    Shared by the window TVFs' ``GROUP BY window_start, window_end`` and the legacy
    ``GROUP BY TUMBLE(...)`` (:mod:`streamsql.plan.group_windows`).

    Args:
        planner: the planner (its aggregate helpers and errors).
        sel: the SELECT (its HAVING).
        items: the SELECT list, star-expanded.
        source: the node the aggregate reads (the window TVF's input).
        scope: the columns ``items`` and the keys resolve against.
        cond: the compiled WHERE condition, or None.
        spec: the window.
        rowtime: the internal name of the time attribute in ``source``.
        keys: the resolved grouping keys other than the window.
        wt_type: the Arrow type of ``window_time`` (the rowtime's: TIMESTAMP(3) or TIMESTAMP_LTZ(3)).
        window_col: an expression node → ``__ws``, ``__we`` or ``__wt`` when it stands for the
            window's start, end or time, else None.
        sets: the grouping sets (indices into ``keys``), or None: the aggregate is then keyed by
            ``keys`` and the set number ``__e`` over the Expand of ``source``
            (:mod:`streamsql.plan.grouping_sets`).
        window_nulls: per window column name, the sets that leave it out: their rows show it NULL
            (the rows are still one per window, as Flink 2.3's).
        grouping: GROUPING()'s key index (the keys' SQL, window columns too) and the sets over it,
            or ``(None, None)``: ``keys`` and ``sets``.
        ts_sql: the DuckDB SQL of the rows' time, when not the ``rowtime`` column itself.

    Raises:
        SqlError: a window column used in an aggregate argument; aggregate errors.
    """
    resolved, having_r, calls = planner._resolve_aggregate(sel, items, scope)
    reject_window_distinct(planner, calls.values(), f"a {spec.kind} window aggregate")
    if spec.kind != "TUMBLE":  # slices and sessions are merged: FIRST_VALUE etc. have no merge
        reject_unmerged(planner, calls.values(), f"a {spec.kind} window aggregate")
    if spec.kind == "SESSION":
        reject_unmerged_python_aggregates(planner, calls.values(), "a SESSION window aggregate")
    _no_window_cols(planner, list(calls.values()), "aggregate arguments", lambda c: window_col(c) is not None)
    pre: list[tuple[str, str]] = [(f"__k{i}", to_duckdb(k)) for i, k in enumerate(keys)]
    num_keys = len(keys) + (sets is not None)
    if sets is not None:  # the grouping set's number: a key, as Flink's $e
        pre.append(("__e", "CAST(0 AS INTEGER)"))
    pre.append(("__ts", ts_sql or quote(rowtime)))
    specs_raw = [planner._agg_arguments(pre, c, INSERT_ONLY, keys=sets is None) for c in calls.values()]
    if sets is None:
        pre_node = planner._calc(source, pre, cond)
    else:
        pre_node = expand(planner, source, pre, len(keys), sets, cond)
    in_types = pre_node.sql_schema
    arg_types = [None if a is None else in_types.fields[a].type for _, a in specs_raw]
    specs = reduce_functions([AggSpec(f, a, agg_output_type(f, t))
                              for (f, a), t in zip(specs_raw, arg_types)])
    out_schema = pa.schema([pre_node.schema.field(i) for i in range(num_keys)]
                           + [pa.field("__ws", pa.timestamp("ms")), pa.field("__we", pa.timestamp("ms")),
                              pa.field("__wt", wt_type)]
                           + [output_field(f"__agg{j}", s.out_type) for j, s in enumerate(specs)])
    agg = WindowAggNode([pre_node], out_schema, INSERT_ONLY, spec=spec, num_keys=num_keys,
                        ts_index=num_keys, aggs=specs,
                        labels=[agg_label(c, exp.Expression.sql) for c in calls.values()], rowtime=rowtime)
    name_aggregate(pre_node, agg, keys, list(calls.values()), select_names(items, resolved))
    if sets is not None:
        name_expand(pre_node, agg)

    # Post-projection over the aggregate's columns.
    key_sql = {k.sql(): f"__k{i}" for i, k in enumerate(keys)}
    call_col = {s: f"__agg{j}" for j, s in enumerate(calls)}

    key_index = grouping[0] or {k.sql(): i for i, k in enumerate(keys)}
    grouping_of = grouping[1] if grouping[0] else sets

    def to_agg_cols(n: exp.Expression) -> exp.Expression:
        if is_grouping_call(n):
            return grouping_calls(planner, n, key_index, grouping_of)
        if n.sql() in call_col and isinstance(n, AGG_TYPES):
            return generated_column(call_col[n.sql()])
        if window_col(n) is not None:
            col = generated_column(window_col(n))
            if window_nulls and n.name in window_nulls:  # a grouping set without it
                sets_without = [exp.Literal.number(e) for e in window_nulls[n.name]]
                return exp.Case().when(exp.In(this=generated_column("__e"), expressions=sets_without),
                                       exp.Null()).else_(col)
            return col
        if n.sql() in key_sql and not isinstance(n, exp.Alias):
            return generated_column(key_sql[n.sql()])
        return n

    return planner._post_project(agg, items, resolved, having_r, to_agg_cols)


def _is_window_col(n: exp.Expression) -> bool:
    return isinstance(n, exp.Column) and not isinstance(n.this, exp.Star) and n.name in WINDOW_COLUMNS


def _no_window_cols(planner, exprs: list[exp.Expression], where: str, is_window=_is_window_col) -> None:
    for e in exprs:
        for c in e.find_all(exp.Column):
            if is_window(c):
                planner._fail(c, f"'{c.name}' can be used only as a GROUP BY key (or in the SELECT list) "
                                 f"of a window aggregation, not in {where}")
