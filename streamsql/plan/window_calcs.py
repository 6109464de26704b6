"""Projections and filters between a window TVF and its window aggregate, as Flink 2.3 plans them.

``SELECT window_start, window_end, COUNT(*) FROM (SELECT ... FROM TABLE(TUMBLE(...)) WHERE ...)
GROUP BY window_start, window_end`` (a subquery or a view over the TVF), or a ``WHERE`` on the
window columns right under the aggregation, is a window aggregate in Flink 2.3, insert-only, as
long as ``window_start`` and ``window_end`` reach the GROUP BY unchanged (renamed or not). Flink
plans it in one of two ways (read from Flink 2.3's EXPLAIN), and so does StreamSQL:

- the Calcs between refer to no window column (they only pass them on): they are pushed under the
  TVF, and the window aggregate assigns windows from the time attribute as usual
  (``window=[TUMBLE(time_col=[ts], ...)]``): :func:`push_below`;
- a Calc filters on or computes from a window column (``WHERE window_start < ...``,
  ``EXTRACT(SECOND FROM window_start) AS x``): the aggregate reads the TVF's rows with their window
  attached (``window=[TUMBLE(win_start=[window_start], win_end=[window_end], ...)]``): each row
  counts in the window it carries. StreamSQL runs that as a window aggregate keyed by the row's
  ``window_start`` too, whose time is ``window_end - 1 ms`` in windows of the slide (HOP) or step
  (CUMULATE) or size (TUMBLE): the window of the row's ``window_end`` fires when the watermark
  reaches ``window_end - 1``, and a row whose window has fired is late and dropped, as Flink's
  window-attached aggregate.

A projection that drops ``window_start`` or ``window_end`` or computes a new column from them
leaves a plain (updating) GROUP BY when that new column is grouped on instead, as in Flink.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamsql.plan.expressions import quote
from streamsql.plan.nodes import CalcNode, PlanNode

WINDOW_COLUMNS = ("window_start", "window_end", "window_time")
#: The column carrying the time attribute through Calcs pushed under the TVF.
PUSHED_ROWTIME = "__window_rowtime"


@dataclass
class WindowInput:
    """A window TVF seen through the Calcs above it.

    Attributes:
        tvf: the :class:`~streamsql.plan.windows.WindowTableFunctionNode`.
        calcs: the Calcs between, bottom first (empty: the TVF is read directly).
        columns: output column of the top node → the window column it passes on unchanged
            (``window_start``, ``window_end`` or ``window_time``).
        attached: some Calc refers to a window column other than by passing it on.
    """

    tvf: PlanNode
    calcs: list[CalcNode]
    columns: dict[str, str]
    attached: bool


def window_input(node: PlanNode, is_tvf, used: set[str] | None = None) -> WindowInput | None:
    """``node`` as a window TVF under zero or more Calcs, or None when it is not one.

    ``is_tvf(n)`` says whether ``n`` is a window TVF node (passed in: the node class lives in
    :mod:`streamsql.plan.windows`, which imports this module). ``used`` are the columns of ``node``
    the query reads (None: all); an item that computes from a window column but that nothing reads
    does not make the aggregate window-attached (Flink prunes it first).
    """
    calcs: list[CalcNode] = []
    while isinstance(node, CalcNode):
        calcs.append(node)
        node = node.inputs[0]
    if not is_tvf(node):
        return None
    reads = [used]  # per Calc, top first: the columns of its output that are read
    for upper in calcs[:-1]:
        texts = [e for n, e in upper.query.items if reads[-1] is None or n in reads[-1]]
        texts.append(upper.query.condition or "")
        reads.append({n for n in upper.query.input_schema.names if any(quote(n) in t for t in texts)})
    calcs.reverse()
    reads.reverse()
    columns = {w: w for w in WINDOW_COLUMNS}
    attached = False
    for calc, read in zip(calcs, reads):
        refs = {quote(n): kind for n, kind in columns.items()}
        passed = {}
        for name, expr in calc.query.items:
            if expr in refs:
                passed.setdefault(name, refs[expr])
            elif any(r in expr for r in refs) and (read is None or name in read):
                attached = True
        cond = calc.query.condition
        if cond is not None and any(r in cond for r in refs):
            attached = True
        columns = passed
    return WindowInput(node, calcs, columns, attached)


def passed_names(window: WindowInput, col: str) -> set[str]:
    """The output columns of ``window``'s top node that pass the TVF's input column ``col`` on unchanged.

    A SESSION's PARTITION BY key renamed by a Calc (``SELECT k AS kk ...``) is still its key, as in
    Flink 2.3's plan (``partition keys=[kk]``).
    """
    names = {col}
    for calc in window.calcs:
        refs = {quote(n) for n in names}
        names = {n for n, e in calc.query.items if e in refs}
    return names


def push_below(planner, window: WindowInput) -> tuple[PlanNode, str]:
    """The Calcs of ``window`` rebuilt over the TVF's input, without the window columns.

    Each keeps its filter and its other items (of the same names and types) and carries the time
    attribute on (under its own name, or :data:`PUSHED_ROWTIME` when a column has it). Returns
    the top node and its time attribute column.
    Only for Calcs that refer to no window column (``window.attached`` False).
    """
    node, rowtime = window.tvf.inputs[0], window.tvf.rowtime
    windows = set(WINDOW_COLUMNS)
    for calc in window.calcs:
        refs = {quote(n) for n in windows}
        kept = [(n, e) for n, e in calc.query.items if not any(r in e for r in refs)]  # unread if so
        windows = {n for n, e in calc.query.items if e in refs}
        types = {n: calc.sql_schema.fields[calc.schema.get_field_index(n)].type for n, _ in kept}
        passed = [n for n, e in kept if e == quote(rowtime)]
        if passed:  # the Calc passes the time attribute on already
            rowtime = passed[0]
        else:
            name = rowtime if rowtime not in {n for n, _ in kept} else PUSHED_ROWTIME
            kept.append((name, quote(rowtime)))
            rowtime = name
        node = planner._calc(node, kept, calc.query.condition, types, calc.proctime)
    return node, rowtime
