"""``=``, ``<>``, ``IN`` and ``IS [NOT] DISTINCT FROM`` of a DOUBLE / FLOAT, as Java's ``==``.

Flink's generated code compares DOUBLE / FLOAT operands of a filter or projection with Java's
primitive ``==`` / ``!=``: a NaN equals nothing, another NaN included (``d = CAST('NaN' AS
DOUBLE)`` keeps no row, ``CASE WHEN d = CAST('NaN' AS DOUBLE)`` takes no NaN), and ``-0.0 ==
0.0``. DuckDB's ``=`` makes NaN equal to NaN, so an operand that is NaN is checked first: ``CASE
WHEN isnan(a) OR isnan(b) THEN (CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE FALSE END) ELSE
a = b END`` (TRUE for ``<>``; NULL stays NULL; ``IS [NOT] DISTINCT FROM`` is NULL-safe, a NaN
distinct from a NaN).

``x IN (v, ...)`` is Calcite's ``x = v OR ...``: a NaN ``x`` is FALSE (NULL if an item is NULL);
a NaN item alone matches nothing in DuckDB already. An IN of two or more exact number literals
(``d IN (0.0, 2.0)``, ``d IN (0, 2)``) is Calcite's search of a value set, which Flink compares
as ``Double.compare`` (:func:`.nan_compare.total_order`): a -0.0 matches no item there (its
points have no -0), where ``d = 0.0`` and ``d IN (0.0)`` (Calcite's ``=``) keep it. ``x = x``
is Calcite's ``x IS NOT NULL OR NULL`` (TRUE for a NaN too) and ``x <> x`` FALSE: DuckDB's
answers. ``CASE x WHEN v`` is Calcite's ``CASE WHEN x = v``. Recorded by
``scripts/flink_nan_equal.py`` (``tests/functions/nan_equal_flink.json``).

Equi-join and grouping keys are not expressions compiled here: they compare the binary rows, as
Flink's (NaN groups and joins with NaN, -0.0 apart from 0.0).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.nan_compare import _floating
from streamsql.functions.scalars.reduced import REDUCED
from streamsql.functions.scalars.registry import template, type_of

_EXACT = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL")
_EQUALITY = {exp.EQ: ("=", "FALSE"), exp.NEQ: ("<>", "TRUE")}
#: IS [NOT] DISTINCT FROM: NULL-safe, and a NaN is distinct from everything (Java's ``==``)
_DISTINCT = {exp.NullSafeEQ: ("IS NOT DISTINCT FROM", "FALSE"), exp.NullSafeNEQ: ("IS DISTINCT FROM", "TRUE")}


def _exact(n: exp.Expression) -> bool:
    """Whether ``n`` is a constant of an exact number type (INT, DECIMAL, ...): a Sarg's point."""
    t = type_of(n)
    return t is not None and t.name in _EXACT and bool(n.meta.get(REDUCED))


def _sql(x: exp.Expression) -> str:
    return f"({x.sql(dialect='duckdb')})"


def _number_literal(n: exp.Expression) -> bool:
    """Whether ``n`` is a number literal, never a NaN.

    Under parentheses, a sign or a CAST, or a sum of such (the binder types ``1E20`` as ``1E20 +
    CAST(0 AS DOUBLE)``).
    """
    while isinstance(n, (exp.Paren, exp.Neg, exp.Cast)):
        n = n.this
    if isinstance(n, exp.Add):
        return _number_literal(n.this) and _number_literal(n.expression)
    return isinstance(n, exp.Literal) and not n.is_string


def java_equality(n: exp.Expression) -> exp.Expression | None:
    """The compiled ``=`` / ``<>`` / ``IN`` ``n`` (operands compiled and typed) with Java's NaN.

    None when ``n`` is none of them, or the operand(s) checked are no DOUBLE / FLOAT.
    """
    if type(n) in _EQUALITY:
        op, nan_answer = _EQUALITY[type(n)]
        nans = [f"isnan({{{i}}})" for i, x in enumerate((n.this, n.expression)) if _floating(x)]
        if not nans or n.this == n.expression:  # Calcite: x = x is x IS NOT NULL OR NULL (a NaN too)
            return None
        if _number_literal(n.this) or _number_literal(n.expression):
            return None  # against a number DuckDB's NaN equals nothing too (a partition filter stays plain)
        return template(f"CASE WHEN {' OR '.join(nans)} THEN (CASE WHEN {{0}} IS NULL OR {{1}} IS NULL "
                        f"THEN NULL ELSE {nan_answer} END) ELSE {{0}} {op} {{1}} END",
                        _sql(n.this), _sql(n.expression))
    if type(n) in _DISTINCT and n.this != n.expression:
        op, nan_answer = _DISTINCT[type(n)]
        nans = [f"isnan({{{i}}})" for i, x in enumerate((n.this, n.expression)) if _floating(x)]
        if not nans:
            return None
        return template(f"CASE WHEN {' OR '.join(nans)} THEN {nan_answer} ELSE {{0}} {op} {{1}} END",
                        _sql(n.this), _sql(n.expression))
    if isinstance(n, exp.Case) and n.this is not None and _floating(n.this):
        return _searched(n)
    if isinstance(n, exp.In) and not n.args.get("query") and n.expressions and _floating(n.this):
        items = [_sql(x) for x in n.expressions]
        listed = ", ".join(f"{{{i + 1}}}" for i in range(len(items)))
        nulls = " OR ".join(f"{{{i + 1}}} IS NULL" for i in range(len(items)))
        unmatched = "isnan({0})"
        if len(items) > 1 and all(_exact(x) for x in n.expressions):  # a Sarg: Double.compare
            unmatched += " OR ({0} = 0 AND signbit({0}))"
        return template(f"CASE WHEN {unmatched} THEN (CASE WHEN {nulls} THEN NULL ELSE FALSE END) "
                        f"ELSE {{0}} IN ({listed}) END", _sql(n.this), *items)
    return None


def _searched(n: exp.Case) -> exp.Expression:
    """``CASE x WHEN v THEN ...`` as Calcite's ``CASE WHEN x = v THEN ...``, each ``=`` Java's."""
    ifs = []
    for branch in n.args.get("ifs") or []:
        eq = exp.EQ(this=n.this.copy(), expression=branch.this)
        ifs.append(exp.If(this=java_equality(eq) or eq, true=branch.args["true"]))
    return exp.Case(ifs=ifs, default=n.args.get("default"))
