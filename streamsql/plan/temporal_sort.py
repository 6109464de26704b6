"""``ORDER BY <rowtime> [, ...]`` without LIMIT on a stream: Flink's ``TemporalSort``.

Flink 2.3 plans a query's ORDER BY without LIMIT whose first key is an ascending event-time
attribute of an insert-only input as ``TemporalSort(orderBy=[ts ASC, ...])`` behind a
single-task exchange (``StreamPhysicalTemporalSortRule``; runtime ``RowTimeSortOperator``): each
row waits until the watermark reaches its rowtime, then the rows of that rowtime are emitted
sorted by the other keys (operator: :mod:`streamsql.runtime.operators.temporal_sort`).
Insert-only; the rowtime stays a time attribute.

An ascending processing-time attribute first is Flink's ``ProcTimeSort``, printed the same
(``TemporalSort(orderBy=[pt ASC, k ASC])``; checked on PyFlink 2.3 by
``scripts/flink_proctime_sort.py``): with no other key the rows go on in arrival order (Flink
plans the input itself); else each row waits for the next processing-time tick, when every
waiting row is emitted sorted by the other keys (Flink's ``ProcTimeSortOperator``: a timer 1 ms
after the arrival), and rows still waiting at the end of a bounded input are dropped, as Flink
drops its pending processing-time timers (the runtime's ``ProcessingTimeOperator`` around the
same operator).

Refused as Flink refuses them ("Sort on a non-time-attribute field is not supported", checked on
PyFlink 2.3): a first key that is not a time attribute (any other column, a time attribute DESC,
one an aggregation materialized); a time attribute of an updating input in Flink's words too
("StreamPhysicalTemporalSort doesn't support consuming update and delete changes").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.plan.limit import drop_hidden, order_columns, select_order_keys
from streamsql.plan.nodes import INSERT_ONLY, PlanNode
from streamsql.plan.windows import is_proctime, time_attributes


class NotTemporalSortError(SqlError):
    """An ORDER BY without LIMIT whose first key is not an ascending time attribute.

    Refused in a job, as Flink refuses it; the shell catches it to sort a typed query's final
    table itself (``shell/ordering.py``).
    """


@dataclass(eq=False)
class TemporalSortNode(PlanNode):
    """Rows sorted by an ascending rowtime (emitted by watermark), then by the other ORDER BY keys.

    Attributes:
        ts_index: the input column of the rowtime (the first ORDER BY key).
        order / descending / nulls_first: the other ORDER BY keys (input columns), per key.
        labels: the ORDER BY as Flink's EXPLAIN prints it (``ts ASC, id ASC``).
        out_time_attributes: the input's time attributes, passed through (rows are not changed).
        proctime: the first key is a processing-time attribute (Flink's ``ProcTimeSort``): rows
            are sorted by their arrival at the sort, not by the column's value.
    """

    ts_index: int = 0
    order: list[int] = field(default_factory=list)
    descending: list[bool] = field(default_factory=list)
    nulls_first: list[bool] = field(default_factory=list)
    labels: str = ""
    out_time_attributes: set = field(default_factory=set)
    proctime: bool = False

    kind: ClassVar[str] = "temporal-sort"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN (Flink's spelling)."""
        return f"TemporalSort(orderBy=[{self.labels}])"


def wants_temporal_sort(sel: exp.Select) -> bool:
    """``sel`` has an ORDER BY without LIMIT / FETCH / OFFSET (the only form planned here)."""
    return sel.args.get("order") is not None and sel.args.get("limit") is None \
        and sel.args.get("offset") is None


def plan_temporal_sort(planner, sel: exp.Select, where: str) -> PlanNode:
    """Plan ``sel`` (an ORDER BY without LIMIT) as its rows under a :class:`TemporalSortNode`.

    ``where``: ``"statement"`` (the statement's own query), ``"view"`` (a view's) or ``""``.
    Only the statement's own query sorts (a top-level SELECT, an INSERT's or a CTAS's query): in a
    subquery or CTE the ORDER BY is dropped, as Calcite removes it there (checked on PyFlink 2.3:
    ``SELECT * FROM (SELECT * FROM ev ORDER BY ts) WHERE id > 1`` plans no sort).

    Keys that are not result columns are hidden columns dropped after the sort, as for
    ``ORDER BY ... LIMIT`` (:func:`~streamsql.plan.limit.select_order_keys`).

    Raises:
        SqlError: in a view's query (Flink keeps or drops it depending on the reader: not done).
        NotTemporalSortError: at the first ORDER BY item when it is not an ascending time
            attribute (event or processing time), or the input is updating (Flink's words).
    """
    order = sel.args["order"]
    if where == "view":
        planner._fail(order, "ORDER BY without LIMIT in a view is not supported yet (Flink sorts, or drops "
                             "the ORDER BY, depending on the query reading the view); put the ORDER BY in "
                             "the query that reads the view")
    if where != "statement":
        rows = sel.copy()  # a subquery or CTE: Calcite drops its ORDER BY (Flink plans no sort)
        rows.set("order", None)
        return planner._select_rows(rows)[0]
    widened, hidden = select_order_keys(sel, any_order=True)
    rows = widened.copy()
    rows.set("order", None)
    node, _ = planner._select_rows(rows)
    keys = widened.args["order"]
    cols, descending, nulls_first, labels = order_columns(planner, keys, node, "ORDER BY")
    first = order.expressions[0]
    name = node.schema.names[cols[0]]
    proctime = is_proctime(node, name)
    timed = not descending[0] and (proctime or name in time_attributes(node))
    if timed and node.mode != INSERT_ONLY:  # Flink 2.3's words (scripts/flink_proctime_sort.py)
        planner._fail(first, "StreamPhysicalTemporalSort doesn't support consuming update and delete "
                             "changes: "
                             "ORDER BY a time attribute without LIMIT sorts an insert-only input only; add "
                             "LIMIT n for a Top-N (docs/ranking.md)", NotTemporalSortError)
    if not timed:
        planner._fail(first, "Sort on a non-time-attribute field is not supported: ORDER BY without LIMIT on "
                             "a stream must start with an ascending time attribute (Flink's temporal "
                             "sort); add LIMIT n for a Top-N (docs/ranking.md); the shell's prompt prints a "
                             "SELECT's final table sorted", NotTemporalSortError)
    sort = TemporalSortNode([node], node.schema, INSERT_ONLY, ts_index=cols[0], order=cols[1:],
                            descending=descending[1:], nulls_first=nulls_first[1:], labels=", ".join(labels),
                            out_time_attributes=time_attributes(node), proctime=proctime)
    return drop_hidden(sort, hidden)
