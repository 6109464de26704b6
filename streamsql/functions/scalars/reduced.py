"""What Flink's planner does to a constant expression: it evaluates it once and keeps a literal.

Calcite's ``ReduceExpressionsRule`` replaces each largest constant, deterministic sub-expression
of a projection or condition (no column, no ``RAND()``/``NOW()``-like call) by the literal of its
value (Flink's ``ExpressionReducer``). A DOUBLE literal goes through ``java.math.BigDecimal``,
which has no negative zero, and a FLOAT literal is stored as one too: a constant expression that
evaluates to ``-0.0`` is ``0.0`` in Flink 2.3 (``ATAN(-0.5) * ROUND(3.0E-5, -2)`` prints ``0.0``;
``-d`` of a column that holds 0.0 still prints ``-0.0``, as it is computed per row). A DATE literal
holds the years 1 to 9999 only: a constant date outside them fails the planning (Flink 2.3:
``DATE '0001-01-01' - INTERVAL '1' DAY`` is refused with ``Year out of range: [0]``, wherever it
stands, even in a branch no row takes).

:func:`mark` flags those sub-expressions before binding; :func:`as_literal` wraps a flagged one's
DuckDB expression so that it has the literal's value (``x + 0.0`` is ``x`` for every double but
``-0.0``, which it turns into ``0.0``; NaN and the infinities stay) and :func:`check_year` refuses
a date out of the literals' range, :func:`check_float` a FLOAT NaN or infinity.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.timestamp_precision import truncate_time_sql
from streamsql.core.types import SqlType
from streamsql.functions import python_functions
from streamsql.functions.scalars import calls
from streamsql.functions.scalars.registry import FunctionError, lookup, template

REDUCED = "streamsql_reduced_constant"
"""Meta key of a node that is a largest constant sub-expression (see :func:`mark`)."""

# Nodes that make an expression depend on its input or its evaluation: never constant.
_VARYING = (exp.Column, exp.Star, exp.Subquery, exp.Select, exp.AggFunc, exp.Window, exp.Placeholder,
            exp.Parameter)


def _constant(n: exp.Expression, memo: dict[int, bool]) -> bool:
    """Whether ``n`` has no column and calls only deterministic functions (children first)."""
    const = all([_constant(c, memo) for c in n.iter_expressions()])  # noqa: C419  (visit every child)
    if isinstance(n, _VARYING):
        const = False
    elif const and isinstance(n, exp.Func):
        fn = lookup(calls.name_of(n))
        const = fn is None or fn.deterministic
    memo[id(n)] = const
    return const


def mark(tree: exp.Expression) -> None:
    """Flag (``meta[REDUCED]``) each largest constant sub-expression of ``tree``, under parentheses.

    Not an added one (``d + c``, ``c + d``, ``d - c``): Calcite then simplifies ``d + 0`` to ``d``
    (Flink 2.3 prints ``d + (-0.0E0)`` of ``d`` = -0.0 as -0.0), which ``d + -0.0`` computes
    exactly and ``d + 0.0`` does not.
    """
    # Calcite's parser folds a minus sign into the numeric literal after it, a BigDecimal: -0.0E0 is
    # the literal 0.0 wherever it stands (Flink 2.3: ATAN2(-0.0E0, -1) is pi; it was -pi here)
    for neg in [n for n in tree.walk() if isinstance(n, exp.Neg) and n is not tree]:
        lit = neg.this
        if isinstance(lit, exp.Literal) and lit.is_number and float(lit.this) == 0:
            neg.replace(lit)
    memo: dict[int, bool] = {}
    _constant(tree, memo)
    for n in tree.walk():
        parent = n.parent if n is not tree else None
        if not memo.get(id(n)) or parent is not None and memo.get(id(parent)):
            continue
        if isinstance(parent, exp.Add) or isinstance(parent, exp.Sub) and n is parent.expression:
            continue
        while isinstance(n, exp.Paren):
            n = n.this
        n.meta[REDUCED] = True


def as_literal(out: exp.Expression, t: SqlType | None) -> exp.Expression:
    """``out`` (the DuckDB form of a flagged node of type ``t``) with the value of Flink's literal.

    A DOUBLE or FLOAT ``-0.0`` becomes ``0.0``; a TIME(p) is cut to its p digits, as the TIME(p)
    literal Flink folds it into (``TIME '12:00:00.5' + INTERVAL '0.25' SECOND`` is 12:00:00.7, where
    the same sum over a TIME(1) column keeps 12:00:00.75: compat case ``time_json_read_print``); any
    other value or type is unchanged.
    """
    if t is not None and t.name == "TIME" and (t.precision or 0) < 3:
        cut = template(truncate_time_sql("{0}", t.precision or 0), f"({out.sql(dialect='duckdb')})")
        cut.meta.update(out.meta)
        return cut
    if t is None or t.name not in ("DOUBLE", "FLOAT"):
        return out
    zero = exp.cast(exp.Literal.number(0), "DOUBLE" if t.name == "DOUBLE" else "FLOAT")
    wrapped = exp.Paren(this=exp.Add(this=exp.Paren(this=out), expression=zero))
    wrapped.meta.update(out.meta)
    return wrapped


_DAYS = {"DATE": "CAST(({0}) - DATE '1970-01-01' AS BIGINT)"}


def check_year(n: exp.Expression, out: exp.Expression, t: SqlType | None) -> None:
    """Refuse the flagged constant ``n`` (compiled: ``out``, of type ``t``): a DATE outside 1..9999.

    As Flink's planner refuses the DATE literal it would fold the constant into: Flink 2.3 writes
    the date's text (four year digits: the year 10000 is ``0000``) and reads it back as a
    literal: ``DATE '0001-01-01' - INTERVAL '1' DAY`` and ``DATE '9999-12-31' + INTERVAL '1' DAY``
    both fail with ``Year out of range: [0]``, ``TIMESTAMPADD(DAY, -1, DATE '0001-01-01')`` too.
    A TIMESTAMP constant out of the range is answered there (and here), and so is a constant the
    date is only part of (``YEAR(DATE '0001-01-01' - INTERVAL '1' DAY)`` is 0). The constant is
    evaluated here, once, at planning; one that fails to evaluate (its job fails on every row, as
    it would) or is NULL is left to the job.

    Raises:
        FunctionError: Calcite's ``Year out of range: [<year>]``.
    """
    if t is None or t.name not in _DAYS or isinstance(n, exp.Literal) or _is_typed_literal(n):
        return
    con = python_functions.planning_connection().cursor()  # the planner may be reading its own
    try:
        row = con.execute("SELECT " + _DAYS[t.name].format(out.sql(dialect="duckdb"))).fetchone()
    except Exception:  # noqa: BLE001  (evaluated by the job instead, which reports its failure)
        return
    finally:
        con.close()
    if row is None or row[0] is None:
        return
    year = civil_year(int(row[0]))
    if not 1 <= year <= 9999:
        written = year % 10000 if year > 9999 else year  # as Flink writes it: four digits
        msg = (f"Year out of range: [{written}] (Flink evaluates a constant while planning, and its DATE "
               f"literal holds the years 1 to 9999: this one is in the year {year})")
        raise FunctionError(msg, n)


def check_float(n: exp.Expression, out: exp.Expression, t: SqlType | None) -> None:
    """Refuse the flagged constant ``n`` (compiled: ``out``) of type FLOAT when it is NaN or infinite.

    As Flink 2.3's planner, which folds the constant into a FLOAT literal through a ``BigDecimal``:
    ``CAST('NaN' AS FLOAT)``, ``CAST('Infinity' AS FLOAT)`` and ``TRY_CAST('-Infinity' AS FLOAT)``
    fail with ``Infinite or NaN`` wherever they stand (``WHERE f = CAST('NaN' AS FLOAT)`` too),
    where the DOUBLE ones are answered (recorded by ``scripts/flink_nan_equal.py``). A constant
    that fails to evaluate or is NULL is left to the job, as in :func:`check_year`.

    Raises:
        FunctionError: Java's ``Infinite or NaN``, naming the constant.
    """
    if t is None or t.name != "FLOAT":
        return
    con = python_functions.planning_connection().cursor()
    try:
        row = con.execute(f"SELECT isfinite(({out.sql(dialect='duckdb')}))").fetchone()
    except Exception:  # noqa: BLE001  (evaluated by the job instead, which reports its failure)
        return
    finally:
        con.close()
    if row is not None and row[0] is False:
        msg = (f"Infinite or NaN: {n.sql(dialect='flink')} (Flink evaluates a constant while planning and "
               "cannot make a FLOAT literal of a NaN or an infinity; CAST it AS DOUBLE instead)")
        raise FunctionError(msg, n)


def _is_typed_literal(n: exp.Expression) -> bool:
    """``DATE '...'``, ``TIMESTAMP '...'`` or a CAST of a literal: checked where it is read."""
    return isinstance(n, exp.Cast) and isinstance(n.this, exp.Literal)


def civil_year(days: int) -> int:
    """The proleptic Gregorian year (0 is 1 BC) of the day ``days`` after 1970-01-01.

    >>> civil_year(0), civil_year(-719163), civil_year(-719162), civil_year(2932897)
    (1970, 0, 1, 10000)
    """
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    return yoe + era * 400 + (1 if mp >= 10 else 0)
