"""``LIMIT n [OFFSET m]`` / ``[OFFSET m ROWS] FETCH FIRST n ROWS ONLY`` on a stream, as Flink's ``Limit``.

Flink 2.3 plans a query's LIMIT without ORDER BY as ``Limit(offset=[m], fetch=[n])`` behind a
single-task exchange: the rows ``m + 1 .. m + n`` in arrival order, insert-only (checked on
PyFlink: ``SELECT id FROM src LIMIT 3 OFFSET 2`` over ids 1..20 gives 3, 4, 5; changelog
``[I]``); the source keeps being read after the n-th row, so a job over an unbounded source
runs until it is stopped. Here it is a :class:`~streamsql.plan.ranking.RankNode` without
PARTITION BY or ORDER BY: every row ties with those before it and ranks after them (arrival
order), so the first ``m + n`` rows are kept in state and never displaced, and the ranked range
is emitted as ``+I`` rows only.

Refused at their keyword: LIMIT over an updating input (Flink ranks retractions there; not done
here), OFFSET without LIMIT/FETCH (every row after the offset would be kept in state), a count
that is not a non-negative integer literal, FETCH ... WITH TIES / PERCENT. ORDER BY with LIMIT
(Flink's ``SortLimit``) is refused by the planner at the ORDER BY, as before.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.plan.nodes import INSERT_ONLY, PlanNode
from streamsql.plan.ranking import TOP_N, RankNode


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
    if node.mode != INSERT_ONLY:
        planner._fail(limit, "LIMIT over an updating input (a GROUP BY, a join, a Top-N) is not "
                             "supported yet")
    return RankNode([node], node.schema, INSERT_ONLY, strategy=TOP_N, partition=[], order=[],
                    descending=[], nulls_first=[], rank_start=skip + 1, rank_end=skip + fetch,
                    rn_index=-1, output_rank=False, limit=True)


def _count(planner, clause: exp.Expression, value: exp.Expression | None, keyword: str) -> int:
    """A LIMIT/FETCH/OFFSET count: a non-negative integer literal."""
    if value is None and keyword == "FETCH":
        return 1  # FETCH FIRST ROW ONLY
    if not (isinstance(value, exp.Literal) and not value.is_string and value.this.isdigit()):
        planner._fail(value if value is not None else clause,
                      f"{keyword} takes a non-negative integer literal")
    return int(value.this)
