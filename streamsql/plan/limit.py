"""``LIMIT n [OFFSET m]`` / ``[OFFSET m ROWS] FETCH FIRST n ROWS ONLY`` on a stream, as Flink's ``Limit``.

Flink 2.3 plans a query's LIMIT without ORDER BY as ``Limit(offset=[m], fetch=[n])`` behind a
single-task exchange: the rows ``m + 1 .. m + n`` in arrival order, insert-only (checked on
PyFlink: ``SELECT id FROM src LIMIT 3 OFFSET 2`` over ids 1..20 gives 3, 4, 5; changelog
``[I]``). Flink pushes ``m + n`` into a scan right under the limit (through projections only)
whose source supports it (datagen here, :func:`_push_into_scan`), so the job over an unbounded
datagen table ends; elsewhere the source keeps being read after the n-th row and a job over an
unbounded source runs until it is stopped. Here it is a :class:`~streamsql.plan.ranking.RankNode`
without PARTITION BY or ORDER BY: every row ties with those before it and ranks after them (arrival
order), so the first ``m + n`` rows are kept in state and never displaced, and the ranked range
is emitted as ``+I`` rows only.

``ORDER BY ... LIMIT`` is Flink's ``SortLimit``: the same node with the ORDER BY's result columns
as its order keys, an updating Top-N over an insert-only or updating input (:func:`_sort_limit`).

Refused at their keyword: LIMIT without ORDER BY over an updating input (Flink ranks retractions
there; not done here), OFFSET without LIMIT/FETCH (every row after the offset would be kept in
state), a count that is not a non-negative integer literal, FETCH ... WITH TIES / PERCENT.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.connectors.registry import get_connector
from streamsql.plan.nodes import INSERT_ONLY, RETRACT, CalcNode, PlanNode, ScanNode, ValuesNode
from streamsql.plan.ranking import TOP_N, RankNode, integer_literal


def plan_limit(planner, q: exp.Query, node: PlanNode) -> PlanNode:
    """``node`` limited by ``q``'s LIMIT/FETCH and OFFSET, or ``node`` itself when it has neither.

    Raises:
        SqlError: for a form refused above, at its position.
    """
    limit, offset = q.args.get("limit"), q.args.get("offset")
    if limit is None and offset is None:
        return node
    if limit is None:
        planner._fail(offset, "OFFSET without LIMIT or FETCH is not supported in a streaming query yet")
    if isinstance(limit, exp.Fetch):
        options = limit.args.get("limit_options")
        if options is not None and (options.args.get("percent") or options.args.get("with_ties")):
            planner._fail(limit, "FETCH ... PERCENT / WITH TIES is not supported")
        fetch = _count(planner, limit, limit.args.get("count"), "FETCH")
    else:
        fetch = _count(planner, limit, limit.expression, "LIMIT")
    skip = _count(planner, offset, offset.expression, "OFFSET") if offset is not None else 0
    if q.args.get("order") is not None:
        return _sort_limit(planner, q.args["order"], node, skip, fetch)
    if node.mode != INSERT_ONLY:
        planner._fail(limit, "LIMIT over an updating input (a GROUP BY, a join, a Top-N) is not "
                             "supported yet")
    _push_into_scan(node, skip + fetch)
    return _limit_node(node, INSERT_ONLY, skip, fetch)


def _limit_node(node: PlanNode, mode: str, skip: int, fetch: int, order: list[int] | None = None,
                descending: list[bool] | None = None, nulls_first: list[bool] | None = None,
                label: str = "") -> RankNode:
    """The RankNode of a Limit (no ``order``) or SortLimit: rows ``skip + 1 .. skip + fetch`` of ``node``."""
    return RankNode([node], node.schema, mode, strategy=TOP_N, partition=[], order=order or [],
                    descending=descending or [], nulls_first=nulls_first or [], rank_start=skip + 1,
                    rank_end=skip + fetch, rn_index=-1, output_rank=False, limit=True, labels=("", label))


def _push_into_scan(node: PlanNode, rows: int) -> None:
    """Push a Limit of the first ``rows`` rows of ``node`` into the scan under it, as Flink 2.3.

    Flink moves a Limit below a projection (``Calc`` without a condition: computed columns too)
    and, when the scan's source supports it (``SupportsLimitPushDown``: datagen here,
    :attr:`~streamsql.core.connector.ConnectorSpec.source_limit`), into the scan
    (``TableSourceScan(table=[[..., g, limit=[3]]])``): the source ends after ``rows`` rows, so
    the job over an unbounded datagen table ends. Nothing is pushed through a WHERE, a
    watermark assigner or any other node (checked on PyFlink: ``WHERE v > 0`` or a table with a
    WATERMARK keeps the scan unlimited and the job running); ``OFFSET m`` pushes ``m + n``.
    """
    while isinstance(node, CalcNode) and node.query.condition is None:
        node = node.inputs[0]
    if isinstance(node, ScanNode) and not isinstance(node, ValuesNode) \
            and get_connector(node.table.connector).source_limit:
        node.limit = rows


def _count(planner, clause: exp.Expression, value: exp.Expression | None, keyword: str) -> int:
    """A LIMIT/FETCH/OFFSET count: a non-negative integer literal."""
    if value is None and keyword == "FETCH":
        return 1  # FETCH FIRST ROW ONLY
    return integer_literal(planner, value, f"{keyword} takes a non-negative integer literal", at=clause)


def _sort_limit(planner, order: exp.Order, node: PlanNode, skip: int, fetch: int) -> RankNode:
    """``ORDER BY ... LIMIT``: Flink's ``SortLimit``, a Top-N without PARTITION BY (updating).

    The ORDER BY items name result columns (by name or 1-based position), as Flink sorts the
    SELECT's output.
    """
    names = [n.lower() for n in node.schema.names]
    cols, descending, nulls_first, labels = [], [], [], []
    for item in order.expressions:
        ref = item.this
        if isinstance(ref, exp.Literal) and not ref.is_string and ref.this.isdigit():
            i = int(ref.this) - 1
            if not 0 <= i < len(names):
                planner._fail(ref, f"Ordinal out of range: ORDER BY {ref.this} with {len(names)} result "
                                   "columns")
        elif isinstance(ref, exp.Column) and ref.name.lower() in names:
            i = names.index(ref.name.lower())
        else:
            planner._fail(ref, "ORDER BY ... LIMIT orders by the result's columns: select this expression "
                               "and order by its name")
        desc = bool(item.args.get("desc"))
        cols.append(i)
        descending.append(desc)
        nulls_first.append(bool(item.args.get("nulls_first")))
        labels.append(f"{node.schema.names[i]} {'DESC' if desc else 'ASC'}")
    return _limit_node(node, RETRACT, skip, fetch, cols, descending, nulls_first, ", ".join(labels))
