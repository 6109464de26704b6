"""Java's integer arithmetic in DuckDB SQL: results wrap around their type, as Flink's generated code.

Flink 2.3 compiles integer ``+ - *``, unary minus, ABS, integer division and CAST to a narrower
integer type to Java's own operators and casts, which keep the low bits of the exact result
(``2147483647 + 1`` is -2147483648, ``CAST(3000000000 AS INT)`` -1294967296, ``ABS(CAST(-128 AS
TINYINT))`` -128). DuckDB fails on these instead; the operators compute the exact result in a
wider type (BIGINT for TINYINT .. INT, HUGEINT for BIGINT) and :func:`wrap` keeps its low bits.
"""

from __future__ import annotations

BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
"""The width of each integer type."""

_DUCKDB = {"TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INTEGER", "BIGINT": "BIGINT"}


def wider(name: str) -> str:
    """The DuckDB type that holds any sum, difference or product of two values of type ``name``."""
    return "HUGEINT" if name == "BIGINT" else "BIGINT"


def wrap(value: str, name: str) -> str:
    """DuckDB SQL of ``value`` (an exact BIGINT or HUGEINT) narrowed as Java narrows it to ``name``.

    The two's complement low bits: ((value + 2^(bits-1)) & (2^bits - 1)) - 2^(bits-1).
    """
    bits = BITS[name]
    half, mask = 2 ** (bits - 1), 2 ** bits - 1
    mask_sql = f"CAST({mask} AS HUGEINT)" if bits == 64 else str(mask)
    return f"CAST(((({value}) + {half}) & {mask_sql}) - {half} AS {_DUCKDB[name]})"


def java_int(value: str) -> str:
    """DuckDB SQL of Java's ``(int)`` of a long ``value`` (a BIGINT): its low 32 bits, signed."""
    return wrap(value, "INT")


def java_long(value: str) -> str:
    """DuckDB SQL of Java's ``long`` result of ``value`` (a HUGEINT computation): its low 64 bits."""
    return wrap(value, "BIGINT")
