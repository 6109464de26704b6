"""Arithmetic functions: ABS, MOD, POWER, SQRT, LN, LOG10, EXP, ROUND, TRUNCATE, FLOOR, CEIL, SIGN.

Result types are Flink's: the argument's type for ABS/SIGN/ROUND/TRUNCATE/FLOOR/CEIL of integers
and doubles, a narrowed DECIMAL for ROUND/TRUNCATE/FLOOR/CEIL of a DECIMAL (see
:func:`_round_type`), DOUBLE for the transcendental functions. ``FLOOR(t TO unit)`` and
``CEIL(t TO unit)`` share the names and are built by :mod:`.temporal`.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.scalars import java_ints, temporal
from streamsql.functions.scalars.registry import (
    Call,
    big_decimal_of,
    duckdb_call,
    fixed,
    same_as,
    scalar,
    template,
)
from streamsql.functions.scalars.typerules import arithmetic as arithmetic_type
from streamsql.functions.scalars.typerules import as_decimal

N, INTEGER = "NUMERIC", "INTEGER"
DOUBLE = fixed("DOUBLE")


@scalar("ABS", group="arithmetic", sig=((N,),), result=same_as(0))
def abs_(c: Call) -> exp.Expression:
    """The absolute value; of an integer as Java's Math.abs: ABS(-2147483648) is -2147483648."""
    t = c.args[0].type
    if t is not None and t.name in java_ints.BITS:
        return template(java_ints.wrap(f"abs(CAST({{0}} AS {java_ints.wider(t.name)}))", t.name), *c.args)
    return template("abs({0})", *c.args)


def _mod_type(c: Call) -> SqlType | None:
    return arithmetic_type("%", c.args[0].type, c.args[1].type)


@scalar("MOD", group="arithmetic", sig=((N, N),), result=_mod_type)
def mod(c: Call) -> exp.Expression:
    """The remainder, with the sign of the dividend (Java's %); of the divisor's type."""
    return template("{0} % {1}", *c.args)


def _double(fn: str):
    def build(c: Call) -> exp.Expression:
        """The DOUBLE function over DOUBLE arguments (NaN or an infinity where Java gives one)."""
        # placeholders, not the arguments' text, which may hold braces (a regular expression's)
        return template(f"{fn}(" + ", ".join(f"CAST({{{i}}} AS DOUBLE)" for i in range(len(c.args))) + ")",
                        *c.args)

    return build


scalar("POWER", "POW", group="arithmetic", sig=((N, N),), result=DOUBLE)(_double("pow"))
scalar("SQRT", group="arithmetic", sig=((N,),), result=DOUBLE)(_double("sqrt"))
scalar("EXP", group="arithmetic", sig=((N,),), result=DOUBLE)(_double("exp"))


def _log(fn: str):
    """``fn``: a DuckDB function name, or a form over ``{x}`` (the argument as a DOUBLE)."""
    form = fn if "{x}" in fn else fn + "({x})"

    def build(c: Call) -> exp.Expression:
        """Java's logarithm: -Infinity at 0 and NaN below (DuckDB fails the query on both)."""
        value = form.format(x="CAST({0} AS DOUBLE)")
        return template(f"CASE WHEN CAST({{0}} AS DOUBLE) > 0 THEN {value} "
                        "WHEN CAST({0} AS DOUBLE) = 0 THEN CAST('-Infinity' AS DOUBLE) "
                        "WHEN CAST({0} AS DOUBLE) < 0 THEN CAST('NaN' AS DOUBLE) END", *c.args)

    return build


scalar("LN", group="arithmetic", sig=((N,),), result=DOUBLE)(_log("ln"))
scalar("LOG10", group="arithmetic", sig=((N,),), result=DOUBLE)(_log("log10"))


def _round_type(c: Call) -> SqlType | None:
    """Flink's ROUND/TRUNCATE result type.

    A DECIMAL(p, s) rounded to r digits is DECIMAL(1 + p - s + r, r) for 0 <= r < s,
    DECIMAL(1 + p - s, 0) for r < 0, unchanged for r >= s; other types are unchanged.
    """
    t = c.args[0].type
    if t is None or t.name != "DECIMAL":
        return same_as(0)(c)
    r = c.literal(1, "the number of digits") if len(c.args) == 2 else 0
    p, s = as_decimal(t)
    if r is None or r >= s:
        return SqlType("DECIMAL", p, s)
    if r < 0:
        return SqlType("DECIMAL", min(38, 1 + p - s), 0)
    return SqlType("DECIMAL", 1 + p - s + r, r)


def _rounding(fn: str):
    def build(c: Call) -> exp.Expression:
        """Rounded half away from zero (ROUND) or truncated toward zero (TRUNCATE) to r digits.

        A DOUBLE is rounded as its shortest decimal text, as Java's BigDecimal.valueOf (so
        ROUND(1.005, 2) is 1.01, not 1.0 as in binary).
        """
        digits = "{1}" if len(c.args) == 2 else "0"
        t = c.args[0].type
        if t is not None and t.name in ("DOUBLE", "FLOAT"):
            value = big_decimal_of("{0}", c.name)  # Flink 2.3: a BigDecimal, Infinity and NaN fail
            return template(f"CASE WHEN abs({{0}}) < 1e17 THEN CAST({fn}(CAST(CAST({{0}} AS VARCHAR) AS "
                            f"DECIMAL(38, 20)), {digits}) AS DOUBLE) ELSE {fn}({value}, {digits}) END",
                            *c.args)
        if fn == "round" and len(c.args) == 2 and t is not None and t.name in java_ints.BITS:
            return template(_integer_round(t.name), *c.args)
        return template(f"{fn}({{0}}, {digits})", *c.args)

    return build


def _integer_round(name: str) -> str:
    """DuckDB SQL of ROUND(``{0}``, ``{1}``) of an integer of type ``name``, as Flink 2.3's ``sround``.

    The integer is rounded HALF_UP as a ``BigDecimal`` to ``{1}`` digits (a multiple of 10^-{1}
    for a negative ``{1}``; itself otherwise), then narrowed to its type as Java's
    ``longValue()``/``intValue()`` do: the low bits, so past the type's range it wraps around
    (ROUND(9223372036854775807, -1) is -9223372036854775806; DuckDB fails on it). From 20 digits
    on, every value rounds to 0.
    """
    x = "CAST({0} AS HUGEINT)"
    p = "CAST(pow(10, -({1})) AS HUGEINT)"
    rounded = java_ints.wrap(f"sign({x}) * ((abs({x}) + {p} // 2) // {p} * {p})", name)
    return f"CASE WHEN {{1}} >= 0 OR {{0}} IS NULL THEN {{0}} WHEN {{1}} < -19 THEN 0 ELSE {rounded} END"


scalar("ROUND", group="arithmetic", sig=((N,), (N, INTEGER)), result=_round_type)(_rounding("round"))
scalar("TRUNCATE", group="arithmetic", sig=((N,), (N, INTEGER)), result=_round_type)(_rounding("trunc"))


def _floor_ceil_type(c: Call) -> SqlType | None:
    t = c.args[0].type
    if c.unit is not None or t is None or t.name != "DECIMAL":
        return same_as(0)(c)
    # Flink keeps the precision (Calcite's ARG0_OR_EXACT_NO_SCALE): FLOOR(DECIMAL(21, 13)) is
    # DECIMAL(21, 0), FLOOR of a DECIMAL(10, 2) column DECIMAL(10, 0) (query fuzz seed 100076)
    p, _ = as_decimal(t)
    return SqlType("DECIMAL", p, 0)


def _floor_ceil(fn: str):
    def build(c: Call) -> exp.Expression:
        """FLOOR/CEIL of a number, or of a date/timestamp TO a unit (see :mod:`.temporal`)."""
        if c.unit is not None:
            return temporal.floor_ceil_to(c, fn)
        if c.args[0].type is not None and not c.args[0].type.is_numeric:
            msg = f"{c.name} of a {c.args[0].type} needs TO <unit>"
            raise c.fail(msg)
        if c.args[0].type is not None and c.args[0].type.name in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
            # an integer is its own FLOOR/CEIL (DuckDB's would go through a DOUBLE: FLOOR of
            # 9223372036854775807 failed as out of range, Flink 2.3 gives it back)
            return template("{0}", *c.args)
        return template(f"{fn}({{0}})", *c.args)

    return build


scalar("FLOOR", group="arithmetic", sig=((N,), ("DATETIME",), ("TIME",)), result=_floor_ceil_type)(
    _floor_ceil("floor"))
scalar("CEIL", "CEILING", group="arithmetic", sig=((N,), ("DATETIME",), ("TIME",)),
       result=_floor_ceil_type)(_floor_ceil("ceil"))


@scalar("SIGN", group="arithmetic", sig=((N,),), result=same_as(0))
def sign(c: Call) -> exp.Expression:
    """-1, 0 or 1 in the argument's type.

    A DOUBLE or FLOAT as Java's Math.signum, which keeps a zero's sign and NaN (Flink 2.3:
    SIGN(-0.0E0) is -0.0; DuckDB's sign gives 0).
    """
    t = c.args[0].type
    if t is not None and t.name in ("DOUBLE", "FLOAT"):
        return template(f"CASE WHEN {{0}} > 0 THEN CAST(1 AS {t.duckdb()}) WHEN {{0}} < 0 "
                        f"THEN CAST(-1 AS {t.duckdb()}) ELSE {{0}} END", *c.args)
    return duckdb_call("sign")(c)


# -- trigonometric, logarithms, constants ---------------------------------------------------------
for _names, _fn in ((("SIN",), "sin"), (("COS",), "cos"), (("TAN",), "tan"), (("COT",), "cot"),
                    (("ASIN",), "asin"), (("ACOS",), "acos"), (("SINH",), "sinh"),
                    (("TANH",), "tanh"), (("DEGREES",), "degrees"),
                    (("RADIANS",), "radians")):
    scalar(*_names, group="arithmetic", sig=((N,),), result=DOUBLE)(_double(_fn))
# COSH, ATAN, ATAN2: Java's fdlibm algorithms (.fdlibm)
# Flink's LOG2 is Math.log(x) / Math.log(2) (SqlFunctionUtils.log2), which differs from a true
# base-2 logarithm in the last digit (LOG2(1.05): 0.07038932789139801, DuckDB's log2 0.070389327891398)
scalar("LOG2", group="arithmetic", sig=((N,),), result=DOUBLE)(_log("(ln({x}) / ln(2))"))


@scalar("LOG", group="arithmetic", sig=((N,), (N, N)), result=DOUBLE)
def log(c: Call) -> exp.Expression:
    """LOG(x) is the natural logarithm (DuckDB's log is base 10); LOG(b, x) = LN(x) / LN(b)."""
    if len(c.args) == 1:
        return _log("ln")(c)
    return template("ln(CAST({1} AS DOUBLE)) / ln(CAST({0} AS DOUBLE))", *c.args)


scalar("PI", group="arithmetic", sig=((),), result=DOUBLE)(duckdb_call("pi"))


@scalar("E", group="arithmetic", sig=((),), result=DOUBLE)
def e(c: Call) -> exp.Expression:
    """Euler's number."""
    return template("exp(CAST(1 AS DOUBLE))")
