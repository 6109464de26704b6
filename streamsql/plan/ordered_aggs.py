"""Planning FIRST_VALUE, LAST_VALUE and LISTAGG calls (:mod:`streamsql.functions.ordered_aggregates`).

sqlglot parses ``FIRST_VALUE(x)`` and ``LAST_VALUE(x)`` into aggregate nodes already;
:func:`mark_listagg` turns ``LISTAGG(x [, separator])`` (an anonymous call) into a
:class:`~streamsql.plan.expressions.ListAggCall`, so the GROUP BY and window planners treat it as
any aggregate. :func:`ordered_agg_call` gives the ``AggSpec`` function (``*_retract`` over an
updating input, as Flink picks its WithRetract functions) and the argument expressions. Their
accumulators are folded row by row, which OVER and SESSION window operators do not do: there
they are refused at the call. FIRST_VALUE and LAST_VALUE are refused in HOP and CUMULATE windows
as Flink refuses them there (its FirstValueAggFunction has no ``merge``, which combining a
window's slices needs: "Could not find an implementation method 'merge'"); LISTAGG is refused
there for now (Flink 2.3 joins the slices newest first, each in arrival order: not reproduced).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.plan.expressions import ListAggCall
from streamsql.plan.nodes import INSERT_ONLY

ORDERED_CALLS = (exp.FirstValue, exp.LastValue, ListAggCall)
_NAMES = {exp.FirstValue: "FIRST_VALUE", exp.LastValue: "LAST_VALUE", ListAggCall: "LISTAGG"}


def mark_listagg(q: exp.Expression) -> exp.Expression:
    """``q`` with every ``LISTAGG(...)`` call as a :class:`ListAggCall`."""

    def mark(n: exp.Expression) -> exp.Expression:
        if type(n) is exp.Anonymous and n.name.upper() == "LISTAGG":
            call = ListAggCall(this=n.this, expressions=n.expressions)
            call.meta.update(n.meta)  # keep the source position for errors
            return call
        return n

    return q.transform(mark)


def ordered_agg_call(planner, call: exp.Expression, mode: str) -> tuple[str, list[exp.Expression]]:
    """``(AggSpec function, argument expressions)`` of a FIRST_VALUE, LAST_VALUE or LISTAGG call.

    Raises:
        SqlError: in an OVER window; DISTINCT; LISTAGG with other than one or two arguments or a
            separator that is not a string literal (positioned at the call).
    """
    name = _NAMES[type(call)]
    if isinstance(call.parent, exp.Window):
        planner._fail(call, f"{name} in an OVER window is not supported yet; use it in a GROUP BY or a "
                            "TUMBLE/HOP/CUMULATE window aggregate")
    args = list(call.expressions) if isinstance(call, ListAggCall) else [call.this]
    if any(isinstance(a, exp.Distinct) for a in args):
        planner._fail(call, f"{name}(DISTINCT ...) is not supported yet")
    if not isinstance(call, ListAggCall):
        return name.lower() + ("" if mode == INSERT_ONLY else "_retract"), args
    if len(args) not in (1, 2):
        planner._fail(call, f"LISTAGG takes one or two arguments (value [, separator]), got {len(args)}")
    if len(args) == 1:
        args.append(exp.Literal.string(","))  # Flink's default separator
    elif not (isinstance(args[1], exp.Literal) and args[1].is_string):
        planner._fail(args[1], "The separator of LISTAGG must be a string literal")
    return "listagg", args


def reject_ordered_aggregates(planner, calls, where: str) -> None:
    """Refuse FIRST_VALUE, LAST_VALUE and LISTAGG among ``calls`` (aggregate call nodes) of a ``where``.

    Raises:
        SqlError: at the first one.
    """
    for c in calls:
        if isinstance(c, ORDERED_CALLS):
            planner._fail(c, f"{_NAMES[type(c)]} in {where} is not supported yet; use it in a GROUP BY or a "
                             "TUMBLE/HOP/CUMULATE window aggregate")


def reject_in_sliced_window(planner, calls, where: str) -> None:
    """Refuse FIRST_VALUE, LAST_VALUE and LISTAGG among ``calls`` of a ``where`` (HOP, CUMULATE).

    Raises:
        SqlError: at the first one.
    """
    for c in calls:
        if isinstance(c, (exp.FirstValue, exp.LastValue)):
            planner._fail(c, f"{_NAMES[type(c)]} cannot be used in {where}: it has no merge of the "
                             "window's slices (as in Flink); use a TUMBLE window or a GROUP BY")
        if isinstance(c, ListAggCall):
            planner._fail(c, f"LISTAGG in {where} is not supported yet (Flink joins the window's slices "
                             "newest first); use a TUMBLE window or a GROUP BY")
