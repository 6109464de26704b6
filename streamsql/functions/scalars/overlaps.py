"""``(start1, end1) OVERLAPS (start2, end2)``: rewritten into comparisons, as Calcite's convertlet.

Flink inherits Calcite's ``StandardConvertletTable.convertOverlaps``: each period is a pair of
datetimes (DATE, TIME, TIMESTAMP) or a datetime and an INTERVAL (``end = start + interval``); each
pair is put in order (:func:`_ordered`), then the periods overlap when ``end1 >= start2 AND end2 >=
start1`` (closed periods: touching ends overlap). The Flink docs' examples
(``(TIME '2:55:00', INTERVAL '1' HOUR) OVERLAPS (TIME '3:30:00', INTERVAL '2' HOUR)`` is TRUE)
are conformance cases.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.registry import FunctionError


def handles(n: exp.Expression) -> bool:
    """Whether ``n`` is an OVERLAPS predicate."""
    return isinstance(n, exp.Overlaps)


def rewrite(n: exp.Overlaps) -> exp.Expression:
    """The comparisons ``n`` means (uncompiled sqlglot, positioned as ``n``).

    Raises:
        FunctionError: an operand that is not a pair ``(datetime, datetime | interval)``.
    """
    s1, e1 = _period(n.this, n)
    s2, e2 = _period(n.expression, n)
    lo1, hi1 = _ordered(s1, e1)
    lo2, hi2 = _ordered(s2, e2)
    both = exp.and_(exp.GTE(this=hi1, expression=lo2), exp.GTE(this=hi2, expression=lo1))
    out = exp.paren(both, copy=False)
    out.meta.update({k: v for k, v in n.meta.items() if k in ("line", "col", "start", "end")})
    return out


def _period(side: exp.Expression, n: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
    if not isinstance(side, exp.Tuple) or len(side.expressions) != 2:
        msg = "OVERLAPS needs two periods, each (start, end) or (start, interval)"
        raise FunctionError(msg, n)
    start, end = side.expressions
    if isinstance(end, exp.Interval):
        end = exp.paren(exp.Add(this=start.copy(), expression=end), copy=False)
    return start, end


def _ordered(start: exp.Expression, end: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
    """(the earlier, the later) of a period's two ends, as Calcite's CASE.

    ``CASE WHEN start <= end THEN start ELSE end END`` and the other way round: with a NULL end the
    period is ``(NULL, start)``, so ``(TIME '10:00:00', NULL) OVERLAPS (TIME '10:30:00', TIME
    '11:00:00')`` is FALSE (10:00 >= 10:30), not NULL, as in Flink 2.3.
    """
    ordered = exp.LTE(this=start.copy(), expression=end.copy())
    lo = exp.Case(ifs=[exp.If(this=ordered, true=start.copy())], default=end.copy())
    hi = exp.Case(ifs=[exp.If(this=ordered.copy(), true=end.copy())], default=start.copy())
    return lo, hi
