"""``<``, ``<=``, ``>``, ``>=`` and BETWEEN over a DOUBLE or FLOAT operand as Java compares.

NaN is neither smaller nor greater than anything (Flink's generated code compares the primitives:
``NaN > 0``, ``NaN <= NaN`` and ``NaN BETWEEN -1 AND 1`` are FALSE; query fuzz seeds 500009, 500017,
500066).

DuckDB orders NaN above every number and equal to itself (``NaN > 0`` is TRUE there), so DuckDB's
answer is wrong only where the NaN is on the side it would win from: the right of ``<`` / ``<=``,
the left of ``>`` / ``>=`` (a NaN on the other side already compares FALSE). Only that side, when it
is a DOUBLE / FLOAT, is checked: ``CASE WHEN isnan(g) THEN (CASE WHEN o IS NULL THEN NULL ELSE FALSE
END) ELSE a op b END`` (NULL stays NULL, as Java's boxed comparison in Flink's code). Checking one
side keeps ``r < 2`` (r a Calc's ``RAND()``) one reference of ``r``, so the two Calcs still merge as
Flink merges them (a non-deterministic item read twice would stop the merge: plan/calc_merge.py).
BETWEEN is Calcite's ``x >= low AND x <= high``, NOT BETWEEN its ``x < low OR x > high`` (FALSE for a
NaN ``x``, not the negation of BETWEEN's FALSE: Flink 2.3, ``scripts/flink_negative_zero.py``
``float_order``), which the compiled BETWEEN carries for its NOT (:data:`NEGATED`). Against a
DECIMAL operand (a literal ``0.0``) Flink compares as ``Double.compare`` instead (:func:`total_order`).
``=``, ``<>``, ``IN`` and ``IS [NOT] DISTINCT FROM`` are :mod:`.nan_equal`'s (Java's ``==``: a NaN
is distinct from everything, itself included; -0.0 and 0.0 are not distinct); equi-join and
grouping keys compare bits, as Flink's binary rows do (-0.0 apart, NaN = NaN there).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.registry import template, type_of

_OPS = {exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
NEGATED = "java_negated"
"""Meta key of a compiled BETWEEN: its NOT BETWEEN (``x < low OR x > high``, Java's NaN)."""


def _floating(n: exp.Expression) -> bool:
    t = type_of(n)
    return t is not None and t.name in ("DOUBLE", "FLOAT")


def _decimal(n: exp.Expression) -> bool:
    t = type_of(n)
    return t is not None and t.name == "DECIMAL"


def _compare(op: str, left: exp.Expression, right: exp.Expression) -> str | None:
    """The comparison's SQL over ``{0}`` (left) and ``{1}`` (right), Java's NaN; None if DuckDB's is."""
    total = total_order(op, left, right)
    if total is not None:
        return total
    guarded, other = ("{1}", "{0}") if op in ("<", "<=") else ("{0}", "{1}")
    if not _floating(right if op in ("<", "<=") else left):
        return None
    return (f"CASE WHEN isnan({guarded}) THEN (CASE WHEN {other} IS NULL THEN NULL ELSE FALSE END) "
            f"ELSE {{0}} {op} {{1}} END")


def total_order(op: str, left: exp.Expression, right: exp.Expression) -> str | None:
    """A DOUBLE / FLOAT compared with a DECIMAL over ``{0}`` / ``{1}``, as ``Double.compare``; else None.

    Flink's code compares a DECIMAL with another number through ``DecimalDataUtils.compare(decimal,
    double)``, ``Double.compare``: a NaN is above every number, -0.0 below 0.0 (a DECIMAL has no
    -0), so ``d >= -0.0`` (the literal a DECIMAL 0) drops a -0.0 and keeps a NaN, and ``d BETWEEN
    -0.0 AND 0.0`` keeps 0.0 alone (recorded by ``scripts/flink_nan_equal.py``). DuckDB already
    orders NaN above every number; only a -0.0 against a zero DECIMAL is checked.
    """
    otherwise = f"ELSE {{0}} {op} {{1}} END"
    if _floating(left) and _decimal(right):
        return f"CASE WHEN {{0}} = 0 AND {{1}} = 0 AND signbit({{0}}) THEN -1 {op} 0 {otherwise}"
    if _decimal(left) and _floating(right):
        return f"CASE WHEN {{0}} = 0 AND {{1}} = 0 AND signbit({{1}}) THEN 0 {op} -1 {otherwise}"
    return None


def java_comparison(n: exp.Expression) -> exp.Expression | None:
    """The compiled comparison ``n`` (operands compiled and typed) with Java's NaN.

    None when no operand is a DOUBLE / FLOAT (or ``n`` is no ordering comparison).
    """
    def sql(x: exp.Expression) -> str:
        return f"({x.sql(dialect='duckdb')})"

    if type(n) in _OPS:
        text = _compare(_OPS[type(n)], n.this, n.expression)
        return None if text is None else template(text, sql(n.this), sql(n.expression))
    if isinstance(n, exp.Between):
        low, high = n.args["low"], n.args["high"]
        above, below = _compare(">=", n.this, low), _compare("<=", n.this, high)
        if above is None and below is None:
            return None
        args = (sql(n.this), sql(low), sql(high))
        below = (below or "{0} <= {1}").replace("{1}", "{2}")
        out = template(f"({above or '{0} >= {1}'}) AND ({below})", *args)
        under, over = _compare("<", n.this, low) or "{0} < {1}", _compare(">", n.this, high) or "{0} > {1}"
        out.meta[NEGATED] = template(f"({under}) OR ({over.replace('{1}', '{2}')})", *args)
        return out
    return None
