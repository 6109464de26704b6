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
as its order keys, an updating Top-N over an insert-only or updating input (:func:`_sort_limit`);
keys that are not result columns are hidden SELECT items (:func:`select_order_keys`).

Refused at their keyword: LIMIT without ORDER BY over an updating input of more than one row
(Flink keeps the first rows in the order its operators emit updates row by row, which batched
operators here do not reproduce, so the rows kept would differ), OFFSET without LIMIT/FETCH
(Flink's "FETCH is missed, which on streaming table is not supported currently"), a count that
is not a non-negative integer literal, FETCH without a count (``FETCH FIRST ROW ONLY``: Flink's
parser refuses it), FETCH ... WITH TIES / PERCENT. ``LIMIT ALL`` is no limit and ``LIMIT m, n``
is refused as Flink refuses it, both at parsing (:func:`streamsql.sql.parser._limit_forms`).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.connectors.registry import get_connector
from streamsql.plan.expressions import integer_literal, quote
from streamsql.plan.nodes import INSERT_ONLY, RETRACT, CalcNode, GroupAggNode, PlanNode, ScanNode, ValuesNode
from streamsql.plan.query import compile_query
from streamsql.plan.ranking import TOP_N, RankNode


def select_order_keys(sel: exp.Select, any_order: bool = False) -> tuple[exp.Select, int]:
    """``sel`` selecting too the ORDER BY keys of its ``ORDER BY ... LIMIT`` that are not result columns.

    Flink sorts by any expression of the FROM's columns (Calcite adds it to the projection under
    the SortLimit and drops it after: ``SELECT id FROM t ORDER BY v LIMIT 3`` is ``Calc(select=
    [id])`` over ``SortLimit(orderBy=[v ASC])``). Here such a key becomes a hidden SELECT item
    (named after the column, else ``EXPR$<position>``, as Flink's plan) and the ORDER BY names it;
    a key equal to a SELECT item's expression (``SELECT id AS x ... ORDER BY id``) orders by that
    item. :func:`plan_limit` drops the hidden columns after the limit. With ``any_order`` an ORDER
    BY without LIMIT is widened too (a temporal sort, :mod:`.temporal_sort`).

    Returns:
        ``(sel, 0)`` when nothing is added (no LIMIT, a DISTINCT result, every key a result
        column), else ``(a copy of sel with hidden items last, how many)``.
    """
    order = sel.args.get("order")
    unlimited = sel.args.get("limit") is None and not any_order
    if order is None or unlimited or sel.args.get("distinct") is not None:
        return sel, 0
    items = list(sel.expressions)
    star = any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
               for e in items)
    names = {e.alias_or_name.lower() for e in items if isinstance(e, (exp.Alias, exp.Column))}
    bare = [e.this if isinstance(e, exp.Alias) else e for e in items]
    keys, hidden = [], []
    for item in order.expressions:
        ref = item.this
        if isinstance(ref, exp.Literal) or (isinstance(ref, exp.Column) and not ref.table
                                            and (ref.name.lower() in names or star)):
            keys.append(item)  # a result column by position or name (resolved by _sort_limit)
        elif not star and ref in bare:
            keys.append(_order_by(item, exp.Literal.number(bare.index(ref) + 1)))
        else:
            position = len(items) + len(hidden)
            plain = isinstance(ref, exp.Column) and ref.name.lower() not in names
            name = ref.name if plain else f"EXPR${position}"
            names.add(name.lower())
            hidden.append(exp.alias_(ref.copy(), name, quoted=True))
            keys.append(_order_by(item, exp.column(name, quoted=True)))
    if not hidden and all(k is o for k, o in zip(keys, order.expressions)):
        return sel, 0
    widened = sel.copy()
    widened.set("expressions", [e.copy() for e in items] + hidden)
    widened.set("order", exp.Order(expressions=keys))
    return widened, len(hidden)


def _order_by(item: exp.Ordered, key: exp.Expression) -> exp.Ordered:
    """``item`` (``<expr> [ASC|DESC] [NULLS ...]``) ordering by ``key`` instead, at the same position."""
    ordered = item.copy()
    key.meta.update(item.this.meta)  # errors about the key point at the ORDER BY item
    ordered.set("this", key)
    return ordered


def plan_limit(planner, q: exp.Query, node: PlanNode, hidden: int = 0) -> PlanNode:
    """``node`` limited by ``q``'s LIMIT/FETCH and OFFSET, or ``node`` itself when it has neither.

    ``hidden``: how many of ``node``'s last columns are the hidden ORDER BY keys of
    :func:`select_order_keys`, dropped after the limit.

    Raises:
        SqlError: for a form refused above, at its position.
    """
    limit, offset = q.args.get("limit"), q.args.get("offset")
    if limit is None and offset is None:
        return node
    if limit is None:
        planner._fail(offset, "FETCH is missed, which on streaming table is not supported currently: OFFSET "
                              "needs a LIMIT or FETCH here, as in Flink")
    if isinstance(limit, exp.Fetch):
        options = limit.args.get("limit_options")
        if options is not None and (options.args.get("percent") or options.args.get("with_ties")):
            planner._fail(limit, "FETCH ... PERCENT / WITH TIES is not supported")
        fetch = _count(planner, limit, limit.args.get("count"), "FETCH")
    else:
        fetch = _count(planner, limit, limit.expression, "LIMIT")
    skip = _count(planner, offset, offset.expression, "OFFSET") if offset is not None else 0
    if q.args.get("order") is not None:
        return drop_hidden(_sort_limit(planner, q.args["order"], node, skip, fetch), hidden)
    if node.mode != INSERT_ONLY:
        if not _one_row(node):
            planner._fail(limit, "LIMIT without ORDER BY over an updating input (a GROUP BY, DISTINCT, a "
                                 "Top-N, a join) is not supported: Flink keeps the first rows in the order "
                                 "its operators emit updates, row by row, which differs here (updates are "
                                 "emitted per batch), so the rows kept would differ; add an ORDER BY")
        return _limit_node(node, RETRACT, skip, fetch)  # one row at most: the same whatever the order
    _push_into_scan(node, skip + fetch)
    return _limit_node(node, INSERT_ONLY, skip, fetch)


def _one_row(node: PlanNode) -> bool:
    """``node`` has one row at most: an aggregate without GROUP BY, under Calcs (HAVING, a projection)."""
    while isinstance(node, CalcNode):
        node = node.inputs[0]
    return isinstance(node, GroupAggNode) and node.num_keys == 0


def drop_hidden(node: PlanNode, hidden: int) -> PlanNode:
    """``node`` without its last ``hidden`` columns (a Calc dropping the hidden ORDER BY keys)."""
    if not hidden:
        return node
    names = node.schema.names[:-hidden]
    return CalcNode.over(node, compile_query([(n, quote(n)) for n in names], None, node.schema))


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
    if value is None and keyword == "FETCH":  # Flink 2.3's parser: Encountered "ROW"
        planner._fail(clause, "FETCH FIRST needs a count: FETCH FIRST 1 ROW ONLY (Flink's parser refuses "
                              "FETCH FIRST ROW ONLY)")
    return integer_literal(planner, value, f"{keyword} takes a non-negative integer literal", at=clause)


def _sort_limit(planner, order: exp.Order, node: PlanNode, skip: int, fetch: int) -> RankNode:
    """``ORDER BY ... LIMIT``: Flink's ``SortLimit``, a Top-N without PARTITION BY (updating)."""
    cols, descending, nulls_first, labels = order_columns(planner, order, node, "ORDER BY ... LIMIT")
    return _limit_node(node, RETRACT, skip, fetch, cols, descending, nulls_first, ", ".join(labels))


def order_columns(planner, order: exp.Order, node: PlanNode, what: str
                  ) -> tuple[list[int], list[bool], list[bool], list[str]]:
    """The ORDER BY items as ``node``'s columns: ``(indexes, descending, nulls_first, EXPLAIN labels)``.

    The items name result columns (by name or 1-based position), as Flink sorts the SELECT's
    output; ``what`` names the clause in the error.

    Raises:
        SqlError: an ordinal out of range, or an expression that is not a result column.
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
            planner._fail(ref, f"{what} orders by the result's columns: select this expression "
                               "and order by its name")
        desc = bool(item.args.get("desc"))
        cols.append(i)
        descending.append(desc)
        nulls_first.append(bool(item.args.get("nulls_first")))
        labels.append(f"{node.schema.names[i]} {'DESC' if desc else 'ASC'}")
    return cols, descending, nulls_first, labels
