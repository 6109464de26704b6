"""``<``, ``<=``, ``>``, ``>=`` and BETWEEN over a DOUBLE or FLOAT operand as Java compares.

NaN is neither smaller nor greater than anything (Flink's generated code compares the primitives:
``NaN > 0``, ``NaN <= NaN`` and ``NaN BETWEEN -1 AND 1`` are FALSE; query fuzz seeds 500009, 500017,
500066).

DuckDB orders NaN above every number (``NaN > 0`` is TRUE there), so a comparison with a floating
operand is written ``CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN isnan(a) OR isnan(b) THEN FALSE
ELSE a op b END`` (NULL stays NULL, as Java's boxed comparison in Flink's code). BETWEEN is Calcite's
``x >= low AND x <= high``. ``=`` and ``<>`` are left to DuckDB: equi-join and grouping keys compare
bits, as Flink's binary rows do (-0.0 apart, NaN = NaN there).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.registry import template, type_of

_OPS = {exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}


def _floating(n: exp.Expression) -> bool:
    t = type_of(n)
    return t is not None and t.name in ("DOUBLE", "FLOAT")


def _compare(op: str, left: exp.Expression, right: exp.Expression) -> str:
    """The comparison's SQL over ``{0}`` (left) and ``{1}`` (right), a NaN on a floating side FALSE."""
    nans = " OR ".join(f"isnan({{{i}}})" for i, side in enumerate((left, right)) if _floating(side))
    return (f"CASE WHEN {{0}} IS NULL OR {{1}} IS NULL THEN NULL WHEN {nans} THEN FALSE "
            f"ELSE {{0}} {op} {{1}} END")


def java_comparison(n: exp.Expression) -> exp.Expression | None:
    """The compiled comparison ``n`` (operands compiled and typed) with Java's NaN.

    None when no operand is a DOUBLE / FLOAT (or ``n`` is no ordering comparison).
    """
    def sql(x: exp.Expression) -> str:
        return f"({x.sql(dialect='duckdb')})"

    if type(n) in _OPS and (_floating(n.this) or _floating(n.expression)):
        return template(_compare(_OPS[type(n)], n.this, n.expression), sql(n.this), sql(n.expression))
    if isinstance(n, exp.Between) and any(_floating(x) for x in (n.this, n.args["low"], n.args["high"])):
        low, high = n.args["low"], n.args["high"]
        both = (f"({_compare('>=', n.this, low)}) AND "
                f"({_compare('<=', n.this, high).replace('{1}', '{2}')})")
        return template(both, sql(n.this), sql(low), sql(high))
    return None
