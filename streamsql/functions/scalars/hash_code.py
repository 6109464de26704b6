"""HASH_CODE(x): the Java ``hashCode()`` Flink 2.3's generated code takes of the value it holds.

Flink 2.3 (``FlinkSqlOperatorTable.HASH_CODE``, ``HashCodeCallGen``) returns an INT, NULL for
NULL, for a BOOLEAN, a number, a string, a DATE, a TIME or a TIMESTAMP, hashed as its internal
data (``CodeGenUtils.hashCodeForType``; values recorded from Flink by
``scripts/flink_query_gaps.py``):

- BOOLEAN: ``Boolean.hashCode``, 1231 / 1237; TINYINT, SMALLINT, INT: the value; DATE: its days
  since 1970-01-01; TIME: its milliseconds of the day (86400000 for a CEIL to 24:00);
- BIGINT: ``Long.hashCode``, ``(int) (v ^ v >>> 32)``; FLOAT / DOUBLE: ``Float.hashCode`` /
  ``Double.hashCode`` of the bits (every NaN the canonical one);
- DECIMAL(p, s): ``BigDecimal.hashCode`` of the value at the type's scale s (``DecimalData``);
- CHAR / VARCHAR: ``Math.abs(String.hashCode())`` over the UTF-16 code units, a CHAR(n) padded to
  n (``SqlFunctionUtils.hashCode``: -2147483648 stays negative);
- TIMESTAMP(p): ``TimestampData.hashCode``, ``31 * ((int) ms ^ (int) (ms >> 32)) + nanoOfMilli``
  (a TIMESTAMP(7..9) in nanoseconds, its nano-of-millisecond whole).

Refused as Flink refuses them: BINARY / VARBINARY, ARRAY, MAP, ROW, intervals (Calcite's
``Cannot apply 'HASH_CODE' to arguments of type ...``), a TIMESTAMP_LTZ (Flink's code generator:
``Unsupported call: HASH_CODE(TIMESTAMP_LTZ(3))``), an untyped NULL (``Illegal use of 'NULL'``),
and other than one argument.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pyarrow as pa
from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.python_functions import rowwise
from streamsql.functions.scalars.collections import java_string_hash_sql
from streamsql.functions.scalars.registry import (
    NULL,
    Call,
    FunctionError,
    fixed,
    python_call,
    scalar,
    template,
)

_FAMILIES = ("BOOLEAN", "NUMERIC", "CHARACTER", "TIMESTAMP", "TIME", "DATE")
_FORMS = ", ".join(f"'HASH_CODE(<{f}>)'" for f in _FAMILIES)
_INT32 = "(({x}) & 4294967295) - ((({x}) & 2147483648) << 1)"  # the low 32 bits, as Java's (int)


def _int32(sql: str) -> str:
    """DuckDB SQL of Java's ``(int)`` of a BIGINT expression (its low 32 bits, signed)."""
    return "CAST(" + _INT32.format(x=sql) + " AS INTEGER)"


def _float_hash(a: pa.ChunkedArray) -> pa.Array:
    values = a.to_numpy(zero_copy_only=False).astype(np.float32)
    bits = np.where(np.isnan(values), np.int32(0x7FC00000), values.view(np.int32))
    return pa.array(bits, pa.int32(), mask=a.is_null().to_numpy(zero_copy_only=False))


def _double_hash(a: pa.ChunkedArray) -> pa.Array:
    values = a.to_numpy(zero_copy_only=False).astype(np.float64)
    bits = np.where(np.isnan(values), np.int64(0x7FF8000000000000), values.view(np.int64))
    folded = (bits ^ (bits.view(np.uint64) >> np.uint64(32)).view(np.int64)).astype(np.int32)
    return pa.array(folded, pa.int32(), mask=a.is_null().to_numpy(zero_copy_only=False))


def java_int(v: int) -> int:
    """``v`` wrapped to Java's 32-bit ``int``."""
    return (v + 2**31) % 2**32 - 2**31


def big_decimal_hash(text: str) -> int:
    """Java's ``BigDecimal.hashCode`` of the decimal written ``text`` (its scale: the digits after the point).

    >>> big_decimal_hash("-1.50"), big_decimal_hash("12.345"), big_decimal_hash("0.0")
    (-4648, 382696, 1)
    """
    sign, digits, exponent = Decimal(text).as_tuple()
    unscaled, scale = int("".join(map(str, digits)) or "0"), -int(exponent)
    if unscaled < 2**63:  # compact: the long's two halves
        temp = java_int(((unscaled >> 32) & 0xFFFFFFFF) * 31 + (unscaled & 0xFFFFFFFF))
        return java_int(31 * (-temp if sign else temp) + scale)
    h = 0  # BigInteger.hashCode: the magnitude's 32-bit words, most significant first, times signum
    for shift in range((unscaled.bit_length() + 31) // 32 * 32 - 32, -1, -32):
        h = java_int(31 * h + ((unscaled >> shift) & 0xFFFFFFFF))
    return java_int(31 * java_int(h * (-1 if sign else 1)) + scale)


_FLOAT = python_call("HASH_CODE_FLOAT", _float_hash, ("FLOAT",), "INTEGER")
_DOUBLE = python_call("HASH_CODE_DOUBLE", _double_hash, ("DOUBLE",), "INTEGER")
_DECIMAL = python_call("HASH_CODE_DECIMAL", lambda a: rowwise(big_decimal_hash, (a,), pa.int32()),
                       ("VARCHAR",), "INTEGER")


def _timestamp(c: Call) -> exp.Expression:
    """``TimestampData.hashCode`` of a TIMESTAMP(p): in microseconds, or nanoseconds for p > 6."""
    t = c.args[0].type
    nanos = t is not None and (t.precision or 0) > 6  # a TIMESTAMP_NS
    per_ms = 1_000_000 if nanos else 1000
    units = "epoch_ns({0})" if nanos else "epoch_us({0})"
    below = f"((({units} % {per_ms}) + {per_ms}) % {per_ms})"  # units past the millisecond
    ms = f"(({units} - {below}) // {per_ms})"
    folded = f"xor({_int32(ms)}, {_int32(f'{ms} >> 32')})"
    nano_of_ms = below if nanos else f"{below} * 1000"
    return template(_int32(f"31 * CAST({folded} AS BIGINT) + {nano_of_ms}"), c.args[0])


def _refusal(c: Call, t: SqlType | None) -> FunctionError:
    """Flink's refusal of a HASH_CODE call of no accepted argument type (or count)."""
    if len(c.args) != 1:
        return c.fail("Invalid number of arguments to function 'HASH_CODE'. Was expecting 1 arguments")
    if t is not None and (t == NULL or t.name == "NULL"):
        return c.fail("Illegal use of 'NULL'")
    if t is not None and t.name == "TIMESTAMP_LTZ":
        return c.fail(f"Unsupported call: HASH_CODE({t})")
    return c.fail(f"Cannot apply 'HASH_CODE' to arguments of type 'HASH_CODE(<{t or 'ANY'}>)'. "
                  f"Supported form(s): {_FORMS}")


@scalar("HASH_CODE", group="hash", sig=((), ("ANY...",)), result=fixed("INT"),
        differences="One BOOLEAN, number, string, DATE, TIME or TIMESTAMP (other arguments refused with "
                    "Flink's messages).")
def hash_code(c: Call) -> exp.Expression:
    """HASH_CODE(x): Java's ``hashCode()`` of Flink's internal value of x, an INT (module docstring)."""
    t = c.args[0].type if len(c.args) == 1 else None
    name = t.name if t is not None else None
    if name == "BOOLEAN":
        return template("CASE WHEN {0} THEN 1231 WHEN NOT {0} THEN 1237 END", c.args[0])
    if name in ("TINYINT", "SMALLINT", "INT"):
        return template("CAST({0} AS INTEGER)", c.args[0])
    if name == "BIGINT":
        return template(_int32("xor({0}, {0} >> 32)"), c.args[0])
    if name == "DATE":
        return template("CAST(date_diff('day', DATE '1970-01-01', {0}) AS INTEGER)", c.args[0])
    if name == "TIME":
        return template("CAST(hour({0}) * 3600000 + minute({0}) * 60000 + millisecond({0}) AS INTEGER)",
                        c.args[0])
    if name == "FLOAT":
        return _FLOAT(c)
    if name == "DOUBLE":
        return _DOUBLE(c)
    if name == "DECIMAL":
        return _DECIMAL(c)
    if name == "STRING":
        signed = "(" + _INT32.format(x=java_string_hash_sql("{0}")) + ")"
        return template(f"CASE WHEN {{0}} IS NOT NULL THEN {_int32(f'abs({signed})')} END", c.args[0])
    if name == "TIMESTAMP":
        return _timestamp(c)
    raise _refusal(c, t)
