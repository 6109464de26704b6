"""``FLOOR(FLOOR(x TO u1) TO u2)`` is ``FLOOR(x TO u2)`` when u2 rolls u1 up, as Calcite simplifies it.

Flink's planner runs Calcite's ``RexSimplify.simplifyCeilFloor``: a FLOOR of a FLOOR (a CEIL of a
CEIL) to a unit that is as coarse as the inner one or coarser drops the inner call (``canRollUp``:
both units among YEAR, QUARTER, MONTH, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, a
QUARTER only under a YEAR or a QUARTER, nothing but a YEAR over a QUARTER). So Flink 2.3 answers
``FLOOR(FLOOR(t TO MICROSECOND) TO QUARTER)`` though ``FLOOR(t TO MICROSECOND)`` alone fails its job
(``/ by zero``); the rewrite comes before the inner call is compiled, as in Flink.
"""

from __future__ import annotations

from sqlglot import exp

_ORDER = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "QUARTER", "MILLISECOND", "MICROSECOND")
"""The units ``canRollUp`` takes, in the order of Calcite's ``TimeUnit`` (coarse first; QUARTER apart)."""


def _unit(n: exp.Expression) -> str | None:
    to = n.args.get("to")
    return to.name.upper() if to is not None else None


def _can_roll_up(outer: str, inner: str) -> bool:
    """Calcite's ``RexSimplify.canRollUp(outer, inner)``."""
    if outer not in _ORDER or inner not in _ORDER:
        return False
    if inner == "QUARTER":
        return outer in ("YEAR", "QUARTER")
    if outer == "QUARTER":
        return inner != "YEAR"
    return _ORDER.index(outer) <= _ORDER.index(inner)


def _inner(n: exp.Expression) -> exp.Expression | None:
    """The FLOOR (CEIL) to a unit that ``n`` (a FLOOR / CEIL to a unit) directly wraps, or None."""
    child = n.this
    while isinstance(child, exp.Paren):
        child = child.this
    if type(child) is type(n) and _unit(child) is not None:
        return child
    return None


def handles(n: exp.Expression) -> bool:
    """Whether ``n`` is a FLOOR (CEIL) to a unit of one to a unit it rolls up."""
    if not isinstance(n, (exp.Floor, exp.Ceil)) or _unit(n) is None:
        return False
    inner = _inner(n)
    return inner is not None and _can_roll_up(_unit(n), _unit(inner))


def rewrite(n: exp.Floor | exp.Ceil) -> exp.Expression:
    """``n`` over the inner call's operand (positioned as ``n``)."""
    out = n.copy()
    out.set("this", _inner(n).this.copy())
    return out
