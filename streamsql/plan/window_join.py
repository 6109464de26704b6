"""Window joins: a join of two window TVFs on ``window_start`` and ``window_end``, as Flink's ``WindowJoin``.

``FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, ...))) L JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r,
...))) R ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k`` —
both inputs insert-only window TVF outputs (or window aggregates of them) with the same window,
both window columns among the equality conditions — joins the rows of each window once the
watermark passes its end (a window known by its end alone, as Flink's: :func:`window_start_keys`),
for INNER, LEFT, RIGHT and FULL joins; a row whose window has already closed is late, dropped and
counted (``late_records``), as Flink's ``WindowJoinOperator``. The join planner
(:mod:`streamsql.plan.joins`) asks :func:`window_join_ends` whether a join is one; any other
join of window TVFs stays a regular join. The node is :class:`~streamsql.plan.joins.WindowJoinNode`.
"""

from __future__ import annotations

from streamsql.plan.expressions import quote
from streamsql.plan.nodes import INSERT_ONLY, CalcNode, PlanNode
from streamsql.plan.windows import WindowAggNode, WindowTableFunctionNode


def _window_of(node: PlanNode):
    """``(spec, window_start name, window_end name)`` when ``node`` passes a window TVF's columns on."""
    if isinstance(node, WindowTableFunctionNode):
        return node.spec, "window_start", "window_end"
    if isinstance(node, WindowAggNode):  # a window aggregate's rows keep their window (Flink's window
        return node.spec, "__ws", "__we"  # properties): a window join follows it too
    if isinstance(node, CalcNode):
        inner = _window_of(node.inputs[0])
        if inner is None:
            return None
        out = {}
        for name, e in node.query.items:
            for col in inner[1:]:
                if e == quote(col):
                    out.setdefault(col, name)
        if len(out) == 2:
            return inner[0], out[inner[1]], out[inner[2]]
    return None


def window_join_ends(left: PlanNode, right: PlanNode, left_keys: list[str],
                     right_keys: list[str]) -> tuple[int, int, str | None] | None:
    """``(left window_end index, right window_end index, zone)`` if the join is a window join, else None.

    ``zone`` is the one the windows' bounds are local to (``WindowSpec.zone``), or None.
    """
    found = _window_join(left, right, left_keys, right_keys)
    return None if found is None else found[:3]


def window_start_keys(left: PlanNode, right: PlanNode, left_keys: list[str],
                      right_keys: list[str]) -> tuple[str, str]:
    """The ``(left, right)`` window_start columns of a window join (:func:`window_join_ends` not None).

    Flink 2.3 takes the window_start equality out of a window join's keys
    (``WindowJoinUtil.excludeWindowStartEqualityAndEndEqualityFromWindowJoinCondition``): its
    ``WindowJoinOperator`` knows a window by its end alone, so rows of SESSION windows that end at
    the same instant but start apart are joined (queryfuzz36; ``tests/runtime/session_windows_flink.json``).
    """
    found = _window_join(left, right, left_keys, right_keys)
    assert found is not None
    return found[3]


def _window_join(left: PlanNode, right: PlanNode, left_keys: list[str], right_keys: list[str]):
    """:func:`window_join_ends`' answer and the window_start pair, or None."""
    if left.mode != INSERT_ONLY or right.mode != INSERT_ONLY:
        return None
    lw, rw = _window_of(left), _window_of(right)
    if lw is None or rw is None or lw[0] != rw[0]:
        return None
    pairs = set(zip(left_keys, right_keys))
    if (lw[1], rw[1]) not in pairs or (lw[2], rw[2]) not in pairs:
        return None
    return (left.schema.get_field_index(lw[2]), right.schema.get_field_index(rw[2]), lw[0].zone,
            (lw[1], rw[1]))


def window_join_proctime(node: PlanNode) -> bool:
    """Whether ``node``, an input of a window join, passes a processing-time window TVF's columns on.

    Flink 2.3 refuses such a join (``Processing time Window Join is not supported yet.``).
    """
    window = _window_of(node)
    return window is not None and window[0].proctime
