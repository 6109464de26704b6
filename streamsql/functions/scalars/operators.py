"""Operators whose Flink semantics differ from DuckDB's, and the types of arithmetic.

============================ ===========================================================
Flink                        DuckDB spelling (why)
============================ ===========================================================
INT / INT                    ``a // b`` (Flink divides integers as integers, truncating toward
                             zero; DuckDB's ``/`` gives a DOUBLE)
x / 0, x % 0 (exact types)   fails the job naming the division as written, as Flink's
                             ArithmeticException (DuckDB's message quotes its compiled SQL);
                             NULL / 0 and NULL % 0 are NULL, as Flink tests for NULL first
DECIMAL / DECIMAL (or INT)   exact: the unscaled values are divided as HUGEINTs and rounded
                             HALF_UP to Flink's result scale (DuckDB divides DECIMALs in DOUBLE)
DECIMAL + - * %              cast to Flink's result precision and scale (see :mod:`.typerules`)
INT % INT                    the type of the right operand (Flink's MOD)
CAST(DECIMAL/DOUBLE AS INT)  ``CAST(trunc(x) AS INT)`` (Flink truncates toward zero; DuckDB rounds);
                             a DOUBLE or FLOAT to INT/BIGINT saturates as Java's cast, NaN is 0
CAST(x AS STRING)            Flink's text for timestamps, floating point and booleans
                             (:mod:`.cast_string`); to VARCHAR(n) ``left(x, n)``, to CHAR(n)
                             ``rpad(x, n, ' ')`` (Flink cuts and pads; DuckDB ignores the length)
CAST(x AS [VAR]BINARY(n))    cut to n bytes, BINARY(n) zero-padded to n, as Flink (DuckDB's BLOB
                             has no length); a string is its UTF-8 bytes
CAST(number AS DECIMAL(p,s)) ``TRY_CAST``: a value with too many integer digits is NULL, as Flink
                             (DuckDB fails); a DOUBLE goes
                             through its shortest text (Flink's BigDecimal.valueOf: 1.005 → 1.01)
CAST(string AS ...)          the texts Flink reads, as it reads them (:mod:`.cast_text`)
TIME +/- INTERVAL            wrapped around midnight (a year-month interval leaves it), as Flink 2.3
CAST(TIME AS TIMESTAMP[_LTZ]) the time of day on 1970-01-01 (an LTZ: in the session time zone)
DATE +/- INTERVAL            a DATE, as Flink: moved by whole days of a day-time interval,
                             truncated (DuckDB's result is a TIMESTAMP)
INTERVAL '...' DAY TO SECOND one unit (months or microseconds) read at planning (:mod:`.intervals`;
                             DuckDB parses no field range)
x IS [NOT] JSON [kind]       Jackson's reading, row by row (``json_functions.is_json``; NULL: false)
x SIMILAR TO 'pattern'       ``regexp_full_match`` of the pattern as Flink reads it (``%`` any text,
                             ``_`` and ``.`` one character, ``$`` and backslash literal; DuckDB
                             reads it as a POSIX regular expression); another pattern, or ESCAPE:
                             Flink's translation row by row (``similar.py``)
CAST(LTZ AS TIMESTAMP/DATE)  ``timezone(zone, x)``: the wall clock in the session time zone
CAST(TIMESTAMP AS DATE)      the day of its epoch ms / 86400000 truncated (Flink: before 1970 the next day)
CAST(DOUBLE AS FLOAT)        Java's: an infinity past Float.MAX_VALUE (DuckDB fails)
CAST(TIMESTAMP AS LTZ)       the instant of that wall clock in the zone (``java_instant``: the
                             earlier offset in a fall-back overlap, as Java)
CAST(x AS TIMESTAMP(p < 6))  the digits past p cut as Flink (``core.timestamp_precision``;
                             DuckDB rounds to TIMESTAMP_MS/TIMESTAMP_S)
============================ ===========================================================
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.core.timestamp_precision import truncate_sql
from streamsql.core.types import SqlType, bounded_bytes_sql, duckdb_cast
from streamsql.functions.scalars import flink_months, java_ints, similar, time_type
from streamsql.functions.scalars.cast_string import STRING_TYPES, flink_to_string
from streamsql.functions.scalars.cast_text import FOLDED, FROM_TEXT, cast_string, reads_string_as
from streamsql.functions.scalars.decimal_product import decimal_product
from streamsql.functions.scalars.intervals import (
    day_time_millis,
    interval_millis,
    interval_months,
    interval_product,
    interval_text,
    single_unit,
    whole_millis,
)
from streamsql.functions.scalars.json_functions import is_json
from streamsql.functions.scalars.nan_compare import NEGATED, java_comparison
from streamsql.functions.scalars.nan_equal import java_equality
from streamsql.functions.scalars.operand_types import SELF_ORDER, SELF_ORDER_KEY
from streamsql.functions.scalars.registry import (
    Arg,
    Call,
    FunctionError,
    big_decimal_of,
    declare_failure,
    fail_sql,
    java_instant,
    session_zone,
    sql_node,
    sql_string,
    template,
    time_operand,
    type_of,
)
from streamsql.functions.scalars.temporal import flink_day, instant
from streamsql.functions.scalars.typerules import arithmetic, as_decimal

# DuckDB's names of the types a CAST fails into, as Flink names them.
_FLINK_TYPE = {"INT8": "TINYINT", "INT16": "SMALLINT", "INT32": "INT", "INT64": "BIGINT", "BOOL": "BOOLEAN",
               "TIMESTAMP WITH TIME ZONE": "TIMESTAMP_LTZ"}

#: The nodes whose failure names them as the user wrote them: the binder keeps that text in their
#: ``meta[WRITTEN]`` before it compiles their operands (DuckDB's own message would quote the
#: compiled SQL, our templates included).
NAMED_WHEN_FAILING = (exp.Div, exp.Mod)
WRITTEN = "written"

#: The failure of a TIMESTAMP(7..9) value outside DuckDB's TIMESTAMP_NS range (docs/types.md).
NANOS_RANGE = ("A timestamp outside the years 1677..2262 does not fit a TIMESTAMP(7..9) or "
               "TIMESTAMP_LTZ(7..9) here: StreamSQL holds precision 7 to 9 in 64-bit nanoseconds (Flink "
               "holds the years 0000..9999); declare or CAST to TIMESTAMP(6) for such values")


def _by_zero(where: str) -> str:
    """The message of an integer or DECIMAL division (or %) by zero; ``where``: `` in <it>`` or ''."""
    return (f"Division by zero{where}: an integer or DECIMAL divided by 0 fails the job, as in Flink; "
            "guard the divisor with NULLIF(divisor, 0) to get NULL instead")


# How the operators' failures on a value read (Flink fails the job on the first two too). A
# division compiled here fails by itself (_nonzero); this is DuckDB's, e.g. of MOD().
declare_failure(r"Division by zero in expression \((.*)\)\.", lambda m: _by_zero(_divided(m.group(1))))
declare_failure(r"Could not convert string '(.*)' to ([A-Z0-9_]+(?: WITH TIME ZONE)?)", lambda m: (
    f"CAST('{m.group(1)}' AS {_FLINK_TYPE.get(m.group(2), m.group(2))}) failed: the value is not a valid "
    f"{_FLINK_TYPE.get(m.group(2), m.group(2))} (Flink fails the job too); use TRY_CAST to get NULL instead"))
declare_failure(r"Could not convert Timestamp to higher precision|Timestamp microseconds out of range",
                lambda m: NANOS_RANGE)
declare_failure(r'invalid (timestamp|date) field format: "(.*)", expected format', lambda m: (
    f"CAST('{m.group(2)}' AS {m.group(1).upper()}) failed: the value is not a valid {m.group(1).upper()} "
    "(Flink fails the job too); use TRY_CAST to get NULL instead"))
declare_failure(r'Could not convert string "(.*)" to DECIMAL\((\d+),(\d+)\)', lambda m: (
    f"CAST('{m.group(1)}' AS DECIMAL({m.group(2)}, {m.group(3)})) failed: the value is not a number or has "
    "more digits than the type holds (Flink fails the job too); use TRY_CAST to get NULL instead"))
# Any other DECIMAL that does not fit its type (an explicit CAST of a number gives NULL instead).
declare_failure(r'(?:Could not cast value (\S+)|Casting value "(.*)") to (?:type )?DECIMAL\((\d+),(\d+)\)',
                lambda m: (f"The value {m.group(1) or m.group(2)} does not fit DECIMAL({m.group(3)}, "
                           f"{m.group(4)}): widen the type"))
declare_failure(r"Overflow in (addition|subtraction|multiplication) of ([A-Z0-9]+) \((.*)\)", lambda m: (
    f"Integer overflow: {m.group(3)} leaves the {_FLINK_TYPE.get(m.group(2), m.group(2))} range (Flink wraps "
    "around; StreamSQL fails the job rather than answer a wrapped value): CAST an operand to BIGINT or "
    "DECIMAL first"))
declare_failure(r"Type ([A-Z0-9]+) with value (\S+) can't be cast because the value is out of range for the "
                r"destination type ([A-Z0-9]+)", lambda m: (
    f"CAST({m.group(2)} AS {_FLINK_TYPE.get(m.group(3), m.group(3))}) is out of the type's range (Flink "
    "wraps around; StreamSQL fails the job rather than answer a wrapped value): use a wider type"))

_OPS = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}
_INTEGER_TYPES = {exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.INT,
                  exp.DataType.Type.BIGINT}
_FRACTIONAL = ("DECIMAL", "DOUBLE", "FLOAT")


def binary_type(n: exp.Expression) -> SqlType | None:
    """The Flink type of an arithmetic operator node (None for anything else)."""
    op = _OPS.get(type(n))
    if op is None:
        return None
    if _is_date_interval(n):
        return SqlType("DATE")
    moved = _timestamp_interval(n)
    if moved is not None:
        return moved
    return arithmetic(op, type_of(n.this), type_of(n.expression))


def compile_operator(n: exp.Expression, t: SqlType | None) -> tuple[exp.Expression, SqlType | None]:
    """The DuckDB form of an operator node whose children are compiled, and its type ``t``."""
    nan_aware = java_comparison(n)  # a comparison of a DOUBLE / FLOAT: Java's NaN
    if nan_aware is None:
        nan_aware = java_equality(n)
    if nan_aware is not None:
        return nan_aware, t
    if isinstance(n, exp.Not) and NEGATED in n.this.meta:  # NOT BETWEEN of a DOUBLE / FLOAT
        return n.this.meta[NEGATED], t
    if SELF_ORDER_KEY in n.meta:  # a VARIANT ordered with itself: Calcite's simplification
        value = SELF_ORDER[n.meta[SELF_ORDER_KEY]]
        operand = f"({n.this.sql(dialect='duckdb')})"
        return template(f"CASE WHEN {{0}} IS NULL THEN NULL ELSE {value} END", operand), t
    if isinstance(n, exp.Interval):
        return single_unit(n) or whole_millis(n) or n, t
    if isinstance(n, exp.Cast) and t is not None and t.is_composite:
        source = type_of(n.this)
        if source is not None and source.name == t.name and source != t:
            # ROW fields by position, as Flink's CAST (DuckDB casts STRUCTs by name: CAST(ROW(s, dt)
            # AS ROW<a STRING, b DATE>) failed, its fields being EXPR$0, EXPR$1)
            return sql_node(duckdb_cast(n.this.sql(dialect="duckdb"), source, t, leaf=_field_cast)), t
    if isinstance(n, exp.Paren) and isinstance(n.this, exp.Interval):  # (INTERVAL ... * k) * 2
        return n.this, t
    if isinstance(n, exp.Mul):
        other = n.expression if isinstance(n.this, exp.Interval) else n.this
        product = interval_product(n, type_of(other))
        if product is not None:
            return product, None
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and t.name in STRING_TYPES \
            and interval_text(n.this) is not None:  # Flink's text of a day-time interval: +d hh:mm:ss.fff
        return _bounded_length(exp.Literal.string(interval_text(n.this)), n.to), t
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and t.name in STRING_TYPES:
        text = flink_to_string(n.this.sql(dialect="duckdb"), type_of(n.this))
        # the text as it is (template): parsing the operand's SQL again cost ~0.1 s per large operand
        return _bounded_length(n if text is None else template("{0}", text), n.to), t
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and t.name == "DECIMAL":
        source = type_of(n.this)
        if source is not None and source.is_numeric:  # as Flink: a value out of DECIMAL(p, s) is NULL
            this = n.this
            if source.name == "DOUBLE":  # Flink: BigDecimal.valueOf(d), the shortest text (1.005 is 1.01)
                this = exp.Cast(this=this, to=exp.DataType.build("VARCHAR"))
            if source.name in ("DOUBLE", "FLOAT"):  # NaN, Infinity fail the job, TRY_CAST's too (Flink 2.3)
                text = "CAST({0} AS VARCHAR)" if source.name == "DOUBLE" else "{0}"
                value = f"TRY_CAST({text} AS {n.to.sql(dialect='duckdb')})"
                return template(big_decimal_of("{0}", f"CAST to {t}", value), _sql(n.this)), t
            return exp.TryCast(this=this, to=n.to), t
    months = _added_months(n, t)
    if months is not None:
        return months, t
    if _is_date_interval(n):
        return _date_interval(n), t
    if t is not None and _timestamp_interval(n) is not None:
        return exp.Cast(this=n, to=t.duckdb_type()), t
    operands = (type_of(n.this), type_of(n.expression)) if isinstance(n, exp.Mod) else ()
    if any(x is not None and x.name in ("DOUBLE", "FLOAT") for x in operands):  # as Flink: exact only
        msg = (f"Cannot apply '%' to arguments of type '<{_calcite_numeric(operands[0])}> % "
               f"<{_calcite_numeric(operands[1])}>'. Supported form(s): '<EXACT_NUMERIC> % <EXACT_NUMERIC>'")
        raise FunctionError(msg, n)
    if isinstance(n, exp.Case) and t is not None and t.name in ("FLOAT", "DOUBLE"):
        return _approximate_case(n, t.name), t
    if isinstance(n, exp.Case) and t is not None and t.is_time:  # TIMESTAMP and TIMESTAMP_LTZ results
        for branch in n.args.get("ifs") or []:
            branch.set("true", time_operand(branch.args["true"], t))
        if n.args.get("default") is not None:
            n.set("default", time_operand(n.args["default"], t))
        return n, t
    if isinstance(n, exp.Is) and isinstance(n.expression, exp.JSON):
        if isinstance(n.this, exp.Null):  # Calcite: IS JSON takes a character string, not NULL
            msg = "Illegal use of 'NULL'"
            raise FunctionError(msg, n.this)
        operand = type_of(n.this)
        if operand is not None and operand.name == "VARIANT":  # Flink 2.3 (scripts/flink_variant.py)
            kind = f"IS JSON {(n.expression.name or 'VALUE').upper()}"
            msg = (f"Cannot apply '{kind}' to arguments of type '<VARIANT> {kind}'. Supported form(s): "
                   f"'<CHARACTER> {kind}'")
            raise FunctionError(msg, n)
        return is_json(n.this, n.expression.name or None), t
    if isinstance(n, exp.SimilarTo):
        return _similar_to(n), t
    if isinstance(n, exp.Escape) and n.this.meta.get(_ESCAPED):  # the SIMILAR TO took its escape
        return n.this, SqlType("BOOLEAN")
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and t.name == "TIMESTAMP" \
            and (t.precision or 0) > 6:
        # DuckDB's TIMESTAMP(7..9) is TIMESTAMP_NS, whose nanoseconds the batch (in microseconds, as
        # every TIMESTAMP(7..9) here) could not hold: cut to microseconds in the CAST itself
        n.set("to", t.duckdb_type())
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and t.name in ("ROW", "ARRAY", "MAP") \
            and _named(type_of(n.this), t.name):
        # as Flink's CAST of a ROW to a ROW type: field by field, whatever their names
        # (CAST(ROW(g, x) AS ROW<a STRING, b INT>), whose fields are EXPR$0, EXPR$1); DuckDB casts by name
        return template(duckdb_cast("{0}", type_of(n.this), t, leaf=_field_cast), _sql(n.this)), t
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and t.name == "BITMAP":
        # only a NULL gets here (operand_types refuses a CAST of a value to BITMAP, as Flink)
        return exp.Cast(this=n.this, to=exp.DataType.build("BLOB", dialect="duckdb")), t
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and t.name == "BYTES":
        cast = _bytes_cast(n, t)
        if cast is not None:
            return cast, t
    if isinstance(n, exp.Cast) and t is not None and t.name == "TIME":
        cast = time_type.compile_cast(n, t)
        if cast is not None:
            return cast, t
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and t.is_time \
            and time_type.is_time(type_of(n.this)):
        # Flink: the time of day on 1970-01-01 (CAST(TIME '12:34:56' AS TIMESTAMP) is 1970-01-01 12:34:56);
        # a TIMESTAMP_LTZ is the instant of that wall clock in the session time zone
        wall = f"CAST({time_type.on_epoch_day('{0}')} AS TIMESTAMP)"
        out = instant(wall) if t.name == "TIMESTAMP_LTZ" else f"CAST({wall} AS {t.duckdb()})"
        return template(out, _sql(n.this)), t
    if isinstance(n, (exp.Cast, exp.TryCast)) and t is not None and reads_string_as(t):
        source = type_of(n.this)
        if source is not None and source.name in STRING_TYPES:
            return cast_string(n, t), t
    if isinstance(n, exp.Cast) and t is not None and t.name == "DATE" and _is_timestamp(type_of(n.this)):
        # as Flink 2.3's cast: the day of the epoch milliseconds / 86400000 truncated, so before 1970
        # the next day (CAST(TIMESTAMP '1969-07-20 20:17:40.5' AS DATE) is 1969-07-21), as EXTRACT
        return template(flink_day("{0}"), f"({n.this.sql(dialect='duckdb')})"), t
    if isinstance(n, exp.Cast) and t is not None:
        cut = _timestamp_precision(n, type_of(n.this), t)
        if cut is not None:
            return cut, t
        zoned = _zoned_cast(n, type_of(n.this), t)
        if zoned is not None:
            return zoned, t
    if isinstance(n, exp.Cast) and t is not None and t.name == "FLOAT" and _named(type_of(n.this), "DOUBLE"):
        return template(_JAVA_FLOAT, f"({n.this.sql(dialect='duckdb')})"), t
    if isinstance(n, exp.Cast) and n.to.this in _INTEGER_TYPES and t is not None:
        java = java_integer_cast(type_of(n.this), t)
        if java is not None:
            return template(java, _sql(n.this)), t
    if isinstance(n, exp.Cast) and n.to.this in _INTEGER_TYPES:
        inner = type_of(n.this)
        if inner is not None and inner.name in _FRACTIONAL:
            n.set("this", exp.func("trunc", n.this))
        return n, t
    if isinstance(n, exp.Neg) and isinstance(n.this, exp.Literal) and t is not None and t.name == "INT" \
            and n.this.this == "2147483648":  # an INT literal in Flink 2.3; DuckDB's -2147483648 is a BIGINT
        return exp.Cast(this=n, to=exp.DataType.build("INTEGER")), t
    if isinstance(n, exp.Neg) and t is not None and t.name in java_ints.BITS \
            and not isinstance(n.this, exp.Literal):  # a literal stays one (a[-1] is checked as such)
        # Java's -x: -(-2147483648) is -2147483648 (DuckDB fails)
        return template(java_ints.wrap(f"-CAST({{0}} AS {java_ints.wider(t.name)})", t.name), _sql(n.this)), t
    op = _OPS.get(type(n))
    if op is None or t is None or not t.is_numeric:
        return n, t
    if op == "+" and t.name in ("DOUBLE", "FLOAT") and (_is_zero(n.this) or _is_zero(n.expression)):
        # Calcite simplifies x + 0 to x before Flink runs it, so a -0.0 stays -0.0 (Flink 2.3:
        # d + CAST(0 AS BIGINT) is -0.0 for d = -0.0; IEEE's sum would be 0.0)
        other = n.expression if _is_zero(n.this) else n.this
        return exp.Cast(this=other, to=t.duckdb_type()), t
    lt, rt = type_of(n.this), type_of(n.expression)
    if lt is None or rt is None or not (lt.is_numeric and rt.is_numeric):
        return n, t
    if t.name in ("DOUBLE", "FLOAT") and op in "+-*/":
        return _approximate(n, lt, rt, t.name), t
    if op == "*" and t.name == "DECIMAL":
        return decimal_product(n.this, n.expression, lt, rt, t), t
    if op in "+-*" and t.name in java_ints.BITS and lt.name in java_ints.BITS and rt.name in java_ints.BITS:
        return _java_arithmetic(n.this, op, n.expression, t.name), t
    if op in ("/", "%") and (t.name in _INT_NAMES or t.name == "DECIMAL"):
        divisor = _nonzero(n.this, n.expression, n.meta.get(WRITTEN))
        if op == "/" and t.name == "DECIMAL":
            return _decimal_division(Arg(n.this, lt), Arg(divisor, rt), t), t
        n.set("expression", divisor)
    if op == "/" and t.name in java_ints.BITS:  # -2147483648 / -1 is -2147483648 in Java
        return _java_arithmetic(n.this, "//", n.expression, t.name), t
    if op == "/" and t.name != "DECIMAL":
        return (exp.IntDiv(this=n.this, expression=n.expression), t) if t.name in _INT_NAMES else (n, t)
    if t.name == "DECIMAL" or (op == "%" and t.name != lt.name):
        return exp.Cast(this=n, to=t.duckdb_type()), t
    return n, t


_INT_NAMES = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def _java_arithmetic(a: exp.Expression, op: str, b: exp.Expression, result: str) -> exp.Expression:
    """Integer ``a op b`` as Java computes it: exact in a wider type, then wrapped to ``result``.

    Flink 2.3: ``2147483647 + 1`` is -2147483648, ``b * 2`` of 9223372036854775807 is -2 (DuckDB
    fails the job on an overflow).
    """
    w = java_ints.wider(result)
    return template(java_ints.wrap(f"CAST({{0}} AS {w}) {op} CAST({{1}} AS {w})", result), _sql(a), _sql(b))


def _sql(node: exp.Expression) -> str:
    """A compiled operand's DuckDB SQL, parenthesized, for :func:`template`."""
    return f"({node.sql(dialect='duckdb')})"


def java_integer_cast(source: SqlType | None, target: SqlType) -> str | None:
    """DuckDB SQL over ``{0}`` of Flink's CAST of ``source`` to the integer type ``target``, or None.

    Where it is Java's narrowing rather than DuckDB's checked cast; None where the two agree.

    A DOUBLE or FLOAT to INT or BIGINT: cut toward zero, saturated (:func:`_java_narrowing`); to TINYINT
    or SMALLINT: to an int first, then its low bits (Flink 2.3: CAST(1E300 AS TINYINT) is -1,
    CAST(123456.789E0 AS TINYINT) 64); a wider integer or a DECIMAL: the low bits of the value, a
    DECIMAL's cut toward zero first (BigDecimal.longValue; CAST(3000000000 AS INT) is -1294967296).
    A ROW field cast to an integer type is cast alike (Flink casts a ROW field by field: CAST(ROW(m, u)
    AS ROW<a SMALLINT, b STRING>) of 99999999.99 is -7937, difffuzz campaign 32).
    """
    if source is None or target.name not in java_ints.BITS:
        return None
    if source.name in ("DOUBLE", "FLOAT"):
        if target.name in ("INT", "BIGINT"):
            return _java_narrowing(getattr(exp.DataType.Type, target.name))
        as_int = _java_narrowing(exp.DataType.Type.INT)
        return java_ints.wrap(f"CAST({as_int} AS BIGINT)", target.name)
    if _narrows(source, target.name):
        whole = "trunc({0})" if source.name == "DECIMAL" else "{0}"
        return java_ints.wrap(f"CAST({whole} AS HUGEINT)", target.name)
    return None


def _field_cast(expr: str, source: SqlType, target: SqlType) -> str | None:
    """A composite CAST's part (``duckdb_cast``'s ``leaf``): Java's integer narrowing, else None."""
    java = java_integer_cast(source, target)
    return None if java is None else java.replace("{0}", f"({expr})")


def _narrows(source: SqlType, target: str) -> bool:
    """A CAST from ``source`` to the integer type ``target`` that may not hold its values."""
    if source.name == "DECIMAL":
        return True
    return source.name in java_ints.BITS and java_ints.BITS[source.name] > java_ints.BITS[target]


def _approximate(n: exp.Expression, lt: SqlType, rt: SqlType, result: str) -> exp.Expression:
    """``a op b`` of a FLOAT or DOUBLE result, as Flink's generated Java computes it.

    The operands are brought to the result's type first, then the operation runs in it: a FLOAT
    result casts a DOUBLE operand with Java's ``(float)`` (an infinity past its range: FLOAT(1E300)
    / 1E300 is NaN in Flink 2.3) and an integer to the nearest float; a DOUBLE result widens a
    FLOAT. DuckDB computed FLOAT with a DECIMAL in FLOAT (``1.1f + 0.000001`` was 1.10000097,
    Flink 1.1000010238418578) and FLOAT with an integer or a DOUBLE in DOUBLE.
    """
    for key, side in (("this", lt), ("expression", rt)):
        value = n.args[key]
        if result == "FLOAT" and side.name == "DOUBLE":
            n.set(key, template(_JAVA_FLOAT, f"({value.sql(dialect='duckdb')})"))
        elif side.name in ("FLOAT", *_INT_NAMES) and side.name != result:
            n.set(key, exp.Cast(this=value, to=exp.DataType.build(result)))
    return n


def to_approximate(value: exp.Expression, source: SqlType | None, result: str) -> exp.Expression:
    """A compiled value (of type ``source``) brought to ``result``, FLOAT or DOUBLE, as Flink's cast.

    Java's ``(float)`` of a DOUBLE (1e300 is Infinity). Each value is cast on its own: DuckDB's
    common type of a DECIMAL and a FLOAT is a FLOAT (12.34 would be 12.34000015258789 as a DOUBLE),
    and its greatest/least of a FLOAT and a DECIMAL loses a -0.0.
    """
    if source is not None and source.name == result:
        return value
    if result == "FLOAT" and source is not None and source.name == "DOUBLE":
        return template(_JAVA_FLOAT, f"({value.sql(dialect='duckdb')})")
    return exp.Cast(this=value, to=exp.DataType.build(result))


def _approximate_case(n: exp.Case, result: str) -> exp.Case:
    """A CASE of FLOAT or DOUBLE results: every result brought to it first, as Calcite's CASE.

    Flink 2.3: ``CASE WHEN f THEN CAST(d AS FLOAT) ELSE d END`` is FLOAT, the ELSE value 1e300 is
    Infinity there (DuckDB's CASE would have been a DOUBLE).
    """
    for branch in n.args.get("ifs") or []:
        branch.set("true", to_approximate(branch.args["true"], type_of(branch.args["true"]), result))
    if n.args.get("default") is not None:
        n.set("default", to_approximate(n.args["default"], type_of(n.args["default"]), result))
    return n


def _nonzero(dividend: exp.Expression, divisor: exp.Expression, division: str | None) -> exp.Expression:
    """``divisor`` (compiled), failing the job when it is 0 and the ``dividend`` is not NULL.

    As Flink, whose integer and DECIMAL division by zero throws an ArithmeticException, while its
    generated code tests the operands for NULL first: a NULL divided by 0 is NULL (Flink 2.3:
    ``NULLIF(i, i) / i`` and ``CAST(NULLIF(d, d) AS DECIMAL(38, 0)) / CAST(d AS DECIMAL(20, 10))``
    of a 0; here the divisor becomes NULL, and so does the quotient). The dividend is computed
    only where the divisor is 0. ``division`` is the division's Flink text for the message (None:
    unknown; the message names none); DuckDB's own failure would quote its compiled SQL, our
    templates included, instead of what the user wrote.
    """
    fail = fail_sql(sql_string(_by_zero(f" in {division}" if division else "")))
    return template("CASE WHEN {0} = 0 THEN (CASE WHEN {1} IS NULL THEN NULL ELSE {2} END) ELSE {0} END",
                    f"({divisor.sql(dialect='duckdb')})", f"({dividend.sql(dialect='duckdb')})", fail)


def _divided(duck_expr: str) -> str:
    """`` in <the division>`` as DuckDB names it, or nothing when that names an internal value.

    DuckDB names an operand it computed itself by reference (``#0``: a DECIMAL's unscaled
    value), which means nothing to the user.
    """
    if re.search(r"#\d", duck_expr):
        return ""
    return f" in {duck_expr.replace('//', '/')}"


def _bounded_length(text: exp.Expression, to: exp.DataType) -> exp.Expression:
    """A CAST's string cut to VARCHAR(n)'s length, or cut and blank-padded to CHAR(n)'s (as Flink).

    DuckDB ignores a string type's length.
    """
    if not to.expressions:
        return text
    length = to.expressions[0].sql(dialect="duckdb")
    if to.this == exp.DataType.Type.CHAR:
        return exp.func("rpad", text, exp.Literal.number(length), exp.Literal.string(" "))
    return exp.func("left", text, exp.Literal.number(length))


def _bytes_cast(n: exp.Cast, t: SqlType) -> exp.Expression | None:
    r"""A CAST to BYTES, VARBINARY(n) or BINARY(n) (``t``) of a string or bytes, as Flink's; None: DuckDB's.

    A string is its UTF-8 bytes (DuckDB's cast to BLOB reads ``\xNN``-style escapes and refuses any other
    non-ASCII character: TRY_CAST('ÄÖü' AS BYTES) was NULL, CAST failed the job). Then, as Flink 2.3,
    cut to the length, and zero-padded to BINARY(n)'s (:func:`~streamsql.core.types.bounded_bytes_sql`;
    DuckDB's BLOB has no length).
    """
    source = type_of(n.this)
    if source is not None and source.name in STRING_TYPES:
        value = f"encode({_sql(n.this)})"
    elif t.precision is None:
        return None
    else:
        value = f"CAST({_sql(n.this)} AS BLOB)"
    return template(bounded_bytes_sql("{0}", t), value)


def _calcite_numeric(t: SqlType | None) -> str:
    """A type as Calcite names it in 'Cannot apply' (``DOUBLE``, ``INTEGER``, ``DECIMAL(3, 1)``)."""
    if t is None:
        return "ANY"
    return "INTEGER" if t.name == "INT" else str(t)


def _timestamp_interval(n: exp.Expression) -> SqlType | None:
    """``TIMESTAMP +/- INTERVAL ...`` (or ``INTERVAL + TIMESTAMP``): Flink keeps the timestamp's type.

    A TIME too: DuckDB's TIME +/- INTERVAL wraps around midnight, as Flink's (its milliseconds of
    the day, modulo a day: ``TIME '23:30:00' + INTERVAL '1' HOUR`` is 00:30:00).
    """
    if not isinstance(n, (exp.Add, exp.Sub)):
        return None
    sides = (n.this, n.expression)
    if not any(isinstance(x, exp.Interval) for x in sides):
        return None
    types = [type_of(x) for x in sides if not isinstance(x, exp.Interval)]
    kinds = ("TIMESTAMP", "TIMESTAMP_LTZ", "TIME")
    return next((t for t in types if t is not None and t.name in kinds), None)


def _added_months(n: exp.Expression, t: SqlType | None) -> exp.Expression | None:
    """A DATE or TIMESTAMP +/- a year-month interval, as Flink's ``addMonths`` (:mod:`.flink_months`).

    None for anything else (a TIMESTAMP_LTZ too: DuckDB's calendar arithmetic, as before).
    """
    if t is None or t.name not in ("DATE", "TIMESTAMP") or not isinstance(n, (exp.Add, exp.Sub)):
        return None
    value, interval = n.this, n.expression
    if isinstance(value, exp.Interval) and isinstance(n, exp.Add):  # INTERVAL ... + x
        value, interval = interval, value
    months = interval_months(interval)
    if months is None or isinstance(value, exp.Interval):
        return None
    if isinstance(n, exp.Sub):  # Flink negates the interval's months in an int
        months = java_ints.java_int(f"-CAST({months} AS BIGINT)")
    value_sql = f"CAST(({value.sql(dialect='duckdb')}) AS {t.duckdb()})"
    out = flink_months.add_months_sql("{0}", "CAST({1} AS INTEGER)", t.name == "DATE")
    return template(f"CAST({out} AS {t.duckdb()})", value_sql, months)


def _is_date_interval(n: exp.Expression) -> bool:
    """``DATE +/- INTERVAL ...`` (or ``INTERVAL + DATE``): Flink's result is a DATE."""
    if not isinstance(n, (exp.Add, exp.Sub)):
        return False
    sides = (n.this, n.expression)
    types = [type_of(x) for x in sides]
    return any(isinstance(x, exp.Interval) for x in sides) and any(
        t is not None and t.name == "DATE" for t in types)


def _date_interval(n: exp.Add | exp.Sub) -> exp.Expression:
    """``DATE +/- INTERVAL ...`` (compiled operands): a DATE, as Flink's ``generateTemporalPlusMinus``.

    A day-time interval moves the date by its milliseconds / 86,400,000 whole days, Java's ``long``
    division (toward zero): ``DATE - INTERVAL '2' HOUR`` is the same day, ``- INTERVAL '25' HOUR``
    the day before (DuckDB's date minus 2 hours is the day before). A year-month interval adds
    months, the day clamped to the month's end, as DuckDB does.
    """
    date, interval = n.this, n.expression
    if isinstance(date, exp.Interval):  # INTERVAL ... + DATE
        date, interval = interval, date
    ms = day_time_millis(interval)
    op = "-" if isinstance(n, exp.Sub) else "+"
    product = interval_millis(interval) if isinstance(interval, exp.Interval) else None
    if product is not None:  # INTERVAL ... * k: the same whole days, computed per row
        days = f"CAST({product} // 86400000 AS INTEGER)"
        return template(f"CAST({{0}} {op} {days} AS DATE)", f"({date.sql(dialect='duckdb')})")
    if ms is None:
        return exp.Cast(this=n, to=exp.DataType.build("DATE"))
    days = abs(ms) // 86_400_000 * (1 if ms >= 0 else -1)
    return template(f"CAST({{0}} {op} ({days}) AS DATE)", f"({date.sql(dialect='duckdb')})")


_ESCAPED = "similar_escape"
"""Meta key of a compiled SIMILAR TO that took the ESCAPE of its parent ``exp.Escape``."""

_SQL_LITERAL_IN_REGEX = {"$": "\\$", "\\": "\\\\", "%": ".*", "_": "."}


def _similar_to(n: exp.SimilarTo) -> exp.Expression:
    """``x SIMILAR TO 'pattern'``: a full match of the SQL regular expression, as Flink (Calcite).

    Raises:
        FunctionError: a pattern that is not a literal, or an ESCAPE clause.
    """
    pattern = n.expression
    # sqlglot reads `x SIMILAR TO p ESCAPE e` as Escape(SimilarTo(x, p), e): its escape, not compiled yet
    escape = n.parent.expression if isinstance(n.parent, exp.Escape) else None
    if not (isinstance(pattern, exp.Literal) and pattern.is_string) or escape is not None:
        # Flink's translation and Java's matching, row by row (functions/scalars/similar.py)
        args = [Arg(a, type_of(a)) for a in (n.this, pattern, escape) if a is not None]
        fn = similar.SIMILAR_ESCAPE if escape is not None else similar.SIMILAR
        out = fn(Call("SIMILAR_TO", args, n))
        out.meta[_ESCAPED] = escape is not None
        return out
    regex = "".join(_SQL_LITERAL_IN_REGEX.get(ch, ch) for ch in pattern.this)
    if _ILLEGAL_REPETITION.search(regex):  # RE2 reads such a brace as itself; Java refuses the pattern
        msg = (f"SIMILAR TO: the pattern {pattern.this!r} is no valid Java regular expression once "
               f"translated ({regex!r}: Illegal repetition); Flink's job fails on it "
               "(PatternSyntaxException)")
        raise FunctionError(msg, n)
    literal = sql_string(regex).replace("{", "{{").replace("}", "}}")  # the text goes into a template
    return template(f"regexp_full_match({{0}}, {literal})", f"({n.this.sql(dialect='duckdb')})")


# A '{' that does not start a repetition {n}, {n,} or {n,m} (an escaped one, \{, is a literal)
_ILLEGAL_REPETITION = re.compile(r"(?<!\\)(?:\\\\)*\{(?!\d+(?:,\d*)?\})")


def _zoned_cast(n: exp.Cast, source: SqlType | None, target: SqlType) -> exp.Expression | None:
    """CAST between an instant and a wall clock, in the session time zone (as Flink).

    DuckDB would use its connection's TimeZone setting instead.
    """
    if source is None:
        return None
    zone, value = sql_string(session_zone()), f"({n.this.sql(dialect='duckdb')})"
    if source.name == "TIMESTAMP_LTZ" and target.name in ("TIMESTAMP", "DATE"):
        return template(f"CAST(timezone({zone}, {{0}}) AS {target.duckdb()})", value)
    if source.name in ("TIMESTAMP", "DATE") and target.name == "TIMESTAMP_LTZ":
        nanos = min(source.precision or 0, target.precision or 0) > 6  # both TIMESTAMP_NS
        return template(java_instant(zone, f"CAST({{0}} AS TIMESTAMP{'_NS' if nanos else ''})"), value)
    return None


def _timestamp_precision(n: exp.Cast, source: SqlType | None, target: SqlType) -> exp.Expression | None:
    """CAST to TIMESTAMP(p) or TIMESTAMP_LTZ(p) below the operand's precision: digits cut as Flink.

    DuckDB rounds to its ``TIMESTAMP_MS``/``TIMESTAMP_S`` unit (``10:00:00.5`` became ``10:00:01``
    at precision 0); Flink cuts (:mod:`streamsql.core.timestamp_precision`: a timestamp value with
    ``DateTimeUtils.truncate``, a literal, a VALUES column Flink's planner folds (``FOLDED``) or a
    string down on the wall clock). The cast is made at
    microseconds (through the session zone when it changes between instant and wall clock, see
    :func:`_zoned_cast`), cut, then cast to the target's type; an operand of precision 7 to 9
    (nanoseconds) at nanoseconds, cut down there first (DuckDB's CAST of a ``TIMESTAMP_NS`` rounds
    to the microsecond). None when nothing is cut (the target has 6 digits or more and the operand
    microseconds, the operand no more digits than the target, or a ``TIMESTAMP '...'`` literal
    itself, typed by its own digits).
    """
    p = 6 if target.precision is None else target.precision
    if source is None or target.name not in _TIMES or p >= 9:
        return None
    nanos = source.name in _TIMES and (source.precision or 0) > 6  # a TIMESTAMP_NS operand
    if p >= 6 and not nanos:
        return None
    if isinstance(n.this, exp.Literal) and not n.to.expressions:
        return None
    # a folded VALUES column keeps Calcite's literal cast to its own type only: to another datetime type
    # (TIMESTAMP to TIMESTAMP_LTZ) Calcite's canRemoveCastFromLiteral says no and Flink runs its own cast
    folded = n.this.meta.get(FOLDED, False) and source.name == target.name
    literal = (isinstance(n.this, exp.Cast) and isinstance(n.this.this, exp.Literal)) or (
        n.this.meta.get(FROM_TEXT) == "literal") or folded
    if source.name in STRING_TYPES or literal:
        floor = True
    elif source.name in _TIMES and (source.precision is None or source.precision > p):
        floor = False
    else:
        return None
    full = SqlType(target.name, 9 if nanos else 6)
    wide = n.copy()
    wide.set("to", full.duckdb_type())
    wide = _zoned_cast(wide, source, full) or wide
    cut = truncate_sql(wide.sql(dialect="duckdb"), p, floor, source=full.precision,
                       ltz=target.name == "TIMESTAMP_LTZ")
    # the SQL as it is, not parsed again: sqlglot's parser recurses ~25 frames per nesting level, and
    # a timestamp array's elements (each cast through the session zone) passed Python's limit
    return exp.Cast(this=template("{0}", cut), to=target.duckdb_type())


_TIMES = ("TIMESTAMP", "TIMESTAMP_LTZ")


def _is_zero(e: exp.Expression) -> bool:
    """True for a numeric literal 0 (0, 0.0, 0E0, CAST(0 AS BIGINT), -0.0, in parentheses)."""
    while isinstance(e, (exp.Paren, exp.Cast, exp.Neg)):
        e = e.this
    return isinstance(e, exp.Literal) and e.is_number and float(e.this) == 0


def _named(t: SqlType | None, *names: str) -> bool:
    return t is not None and t.name in names


def _is_timestamp(t: SqlType | None) -> bool:
    return _named(t, "TIMESTAMP")


# Java's (float) of a double: past Float.MAX_VALUE by half an ulp or more it is an infinity (DuckDB
# fails the cast; Flink 2.3: CAST(1e300 AS FLOAT) is Infinity), below that it rounds to the nearest
# (DuckDB's least/greatest skip a NULL: it is tested first); NaN stays NaN (DuckDB orders it above
# every number: it was Infinity)
_FLOAT_MAX = "3.4028234663852886e38"
_JAVA_FLOAT = (f"CASE WHEN {{0}} IS NULL THEN NULL WHEN isnan({{0}}) THEN CAST('NaN' AS FLOAT) "
               f"WHEN {{0}} >= 3.4028235677973366e38 THEN CAST('Infinity' AS FLOAT) "
               f"WHEN {{0}} <= -3.4028235677973366e38 THEN CAST('-Infinity' AS FLOAT) "
               f"ELSE CAST(greatest(least({{0}}, {_FLOAT_MAX}), -{_FLOAT_MAX}) AS FLOAT) END")


_SATURATING = {exp.DataType.Type.INT: ("INTEGER", 2**31), exp.DataType.Type.BIGINT: ("BIGINT", 2**63)}


def _java_narrowing(to: exp.DataType.Type) -> str:
    """DuckDB SQL (over ``{0}``, a DOUBLE or FLOAT) of Java's ``(int)``/``(long)`` cast, as Flink's CAST.

    Java cuts toward zero and saturates: past the type's range the result is its bound
    (CAST(1E300 AS BIGINT) is 9223372036854775807), NaN is 0 (DuckDB fails on both). TRY_CAST is
    the same, as the cast never fails. TINYINT and SMALLINT are the int's low bits (compile_operator).
    """
    name, bound = _SATURATING[to]
    return (f"CASE WHEN isnan({{0}}) THEN CAST(0 AS {name}) "
            f"WHEN {{0}} >= {float(bound)!r} THEN CAST({bound - 1} AS {name}) "
            f"WHEN {{0}} <= {float(-bound)!r} THEN CAST({-bound} AS {name}) "
            f"ELSE CAST(trunc({{0}}) AS {name}) END")


def _unscaled(a: Arg, text: str) -> tuple[str, int]:
    """DuckDB SQL of the unscaled HUGEINT value of a DECIMAL or integer argument, and its scale.

    ``text``: the argument's SQL as it is to be written (a template's placeholder).
    """
    _, s = as_decimal(a.type)
    if s == 0:
        return f"CAST({text} AS HUGEINT)", 0
    return f"CAST({text} * {10 ** s} AS HUGEINT)", s


def _decimal_division(a: Arg, b: Arg, t: SqlType) -> exp.Expression:
    """``a / b`` exactly, rounded HALF_UP to ``t``'s scale (Flink's DECIMAL division).

    A template over both: each is named three times, and is computed once (a RAND() or a Python
    function in it gave the quotient of one value and the rounding of another). NULL where either is
    NULL, before any product (as Flink's generated code checks its operands first): the scaled
    dividend of a NULL divisor (``CAST(10 AS DECIMAL(38, 37))``, NULL) could leave INT128 and fail the
    job where Flink answers NULL (campaign 34). A product beyond INT128 of two values still fails it.
    """
    num, s1 = _unscaled(a, "{0}")
    den, s2 = _unscaled(b, "{1}")
    k = t.scale - s1 + s2  # num / den * 10^k is the result's unscaled value
    if k > 0:
        num = f"({num} * CAST('{10 ** k}' AS HUGEINT))"
    elif k < 0:
        den = f"({den} * CAST('{10 ** -k}' AS HUGEINT))"
    q = f"({num} // {den})"
    r = f"({num} % {den})"
    rounded = f"({q} + CASE WHEN 2 * abs({r}) >= abs({den}) THEN sign({num}) * sign({den}) ELSE 0 END)"
    unit = "0." + "0" * (t.scale - 1) + "1" if t.scale else "1"
    quotient = f"CAST(CAST({rounded} AS DECIMAL(38, 0)) * {unit} AS {t.duckdb()})"
    return template(f"CASE WHEN {{0}} IS NULL OR {{1}} IS NULL THEN NULL ELSE {quotient} END", a, b)
