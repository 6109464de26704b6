"""DECIMAL multiplication as Flink 2.3 computes it: exact, rounded to the result type, NULL on overflow.

Flink's ``DecimalDataUtils.multiply`` multiplies the two ``BigDecimal`` values exactly, then
``fromBigDecimal`` rounds the product HALF_UP to the result's scale and returns NULL when it has
more digits than the result's precision (the result type is :func:`.typerules.arithmetic`'s:
DECIMAL(p1 + p2 + 1, s1 + s2), narrowed to 38 digits keeping at least 6 fraction digits). So
``CAST(m AS DECIMAL(38, 18)) * CAST(m AS DECIMAL(38, 18))`` is a DECIMAL(38, 6) (152.275600 for
12.34), and a product past 38 digits is NULL (Flink 2.3, differential fuzzer regression cases).

DuckDB fails instead, twice: when both operands have at most 18 digits it multiplies in 64 bits
and fails past them (``Overflow in multiplication of DECIMAL(18)``, though the product fits the
result type), and it keeps the scale s1 + s2 up to 38 digits, failing past them. Here:

- p1 + p2 <= 38 digits: the product is exact in DuckDB's 128 bits once the left operand is a
  DECIMAL(38, s1); then TRY_CAST to the result type rounds it half up (as DuckDB's cast does) and
  is NULL past its precision;
- more: the product is computed exactly in Python (``decimal``, over the operands' text) and
  rounded there; a few rows a second at most (such products are rare).
"""

from __future__ import annotations

import decimal

import pyarrow as pa
from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.python_functions import rowwise
from streamsql.functions.scalars.registry import python_call, template
from streamsql.functions.scalars.typerules import MAX_PRECISION, as_decimal

_EXACT_DIGITS = 200  # enough for any product of two DECIMAL(38) values


def from_big_decimal(value: decimal.Decimal, precision: int, scale: int) -> decimal.Decimal | None:
    """``value`` as a DECIMAL(``precision``, ``scale``), as Flink's ``DecimalData.fromBigDecimal``.

    Rounded HALF_UP to ``scale`` fraction digits, exactly (whatever the ambient ``decimal``
    context's precision); None when the rounded value has more than ``precision`` digits.
    """
    with decimal.localcontext() as ctx:
        ctx.prec = _EXACT_DIGITS
        rounded = value.quantize(decimal.Decimal(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP)
    if len(rounded.as_tuple().digits) > precision and rounded != 0:
        return None
    return rounded


def quotient_of_type(dividend, divisor: int, precision: int, scale: int) -> decimal.Decimal | None:
    """``dividend / divisor`` as a DECIMAL(``precision``, ``scale``), as Flink's AVG of a DECIMAL.

    Rounded and NULL as :func:`from_big_decimal` (AVG divides its sum by its count); the quotient
    is taken to ``_EXACT_DIGITS`` digits first, not to the ambient context's 28.
    """
    with decimal.localcontext() as ctx:
        ctx.prec = _EXACT_DIGITS
        quotient = decimal.Decimal(dividend) / divisor
    return from_big_decimal(quotient, precision, scale)


def _multiply(a: str, b: str, precision: int, scale: int) -> str | None:
    """The text of a * b rounded HALF_UP to ``scale`` digits; None past ``precision`` digits."""
    with decimal.localcontext() as ctx:
        ctx.prec = _EXACT_DIGITS
        product = from_big_decimal(decimal.Decimal(a) * decimal.Decimal(b), precision, scale)
    return None if product is None else format(product, "f")


# registered at import as __streamsql_decimal_multiply_4 (python_call's name: its label and arity)
python_call("DECIMAL_MULTIPLY", lambda a, b, p, s: rowwise(_multiply, (a, b, p, s), pa.string()),
            ("VARCHAR", "VARCHAR", "INTEGER", "INTEGER"), "VARCHAR")


def decimal_product(left: exp.Expression, right: exp.Expression, lt: SqlType, rt: SqlType,
                    result: SqlType) -> exp.Expression:
    """DuckDB SQL of Flink's ``left * right`` (compiled exact operands) of the DECIMAL ``result``."""
    (p1, s1), (p2, _) = as_decimal(lt), as_decimal(rt)
    a, b = (f"({x.sql(dialect='duckdb')})" for x in (left, right))
    to = f"DECIMAL({result.precision}, {result.scale})"
    if p1 + p2 <= MAX_PRECISION:
        return template(f"TRY_CAST(CAST({{0}} AS DECIMAL(38, {s1})) * {{1}} AS {to})", a, b)
    call = (f"__streamsql_decimal_multiply_4(CAST({{0}} AS VARCHAR), CAST({{1}} AS VARCHAR), "
            f"{result.precision}, {result.scale})")
    return template(f"CAST({call} AS {to})", a, b)
