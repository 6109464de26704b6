"""EXPLAIN in Flink's type names: the target types of the CASTs in a plan line's DuckDB SQL.

The plan nodes carry their expressions as DuckDB SQL, whose CASTs name DuckDB's types
(``TEXT(5)``, ``INTEGER``, ``TIMESTAMP_MS``, ``STRUCT(...)``); a Flink user reads Flink's
(``VARCHAR(5)``, ``INT``, ``TIMESTAMP(3)``, ``ROW<...>``), so EXPLAIN spells them that way.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.errors import ParseError

from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.sql.dialect import Flink

_CAST = re.compile(r"\b(?:TRY_)?CAST\(", re.IGNORECASE)
_BOUNDED = re.compile(r"(?:TEXT|VARCHAR|STRING)\s*\(\s*(\d+)\s*\)", re.IGNORECASE)
_T = exp.DataType.Type
# DuckDB's fixed-precision timestamps and 128-bit integers, which Flink spells with a precision.
_PRECISE = {_T.TIMESTAMP_S: "TIMESTAMP(0)", _T.TIMESTAMP_MS: "TIMESTAMP(3)",
            _T.TIMESTAMP: "TIMESTAMP(6)", _T.TIMESTAMPNTZ: "TIMESTAMP(6)", _T.TIMESTAMP_NS: "TIMESTAMP(9)",
            _T.TIMESTAMPTZ: "TIMESTAMP_LTZ(6)", _T.INT128: "DECIMAL(38, 0)"}


def flink_types(line: str) -> str:
    """``line`` with the target type of each ``CAST(x AS T)`` / ``TRY_CAST`` in Flink's spelling.

    A type that is not recognised is left as it is.
    """
    spans = []
    for m in _CAST.finditer(line):
        span = _type_span(line, m.end())
        if span is not None:
            spans.append(span)
    for start, end in sorted(spans, reverse=True):
        line = line[:start] + flink_type(line[start:end]) + line[end:]
    return line


def flink_type(duck: str) -> str:
    """A DuckDB type's Flink name (``TEXT(5)`` → ``VARCHAR(5)``, ``TIMESTAMP_MS`` → ``TIMESTAMP(3)``)."""
    bounded = _BOUNDED.fullmatch(duck.strip())
    if bounded:  # DuckDB's parser drops a string type's length
        return f"VARCHAR({bounded.group(1)})"
    try:
        tree = exp.DataType.build(duck, dialect="duckdb")
    except (ParseError, ValueError):
        return duck
    tree = tree.transform(_flink_node)
    try:
        return SqlType.parse(tree.sql(Flink)).sql()
    except SqlError:
        return duck


def _flink_node(node: exp.Expression) -> exp.Expression:
    # A precision written out is Flink's own spelling (a plan line's Flink SQL: CAST(s AS
    # TIMESTAMP(3))); DuckDB's SQL never writes one (TIMESTAMP_MS). Mapping it as DuckDB's bare
    # TIMESTAMP showed the user's TIMESTAMP(3) as TIMESTAMP(6).
    if isinstance(node, exp.DataType) and node.this in _PRECISE and not node.expressions:
        return exp.DataType.build(_PRECISE[node.this], dialect=Flink)
    return node


def _type_span(line: str, start: int) -> tuple[int, int] | None:
    """Where the type of the CAST whose argument list starts at ``start`` is, or None.

    The type runs from after the list's last top-level `` AS `` to its closing parenthesis
    (quoted text and nested parentheses are skipped).
    """
    depth, quote, last_as = 0, None, None
    i = start
    while i < len(line):
        ch = line[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                return (last_as, i) if last_as is not None else None
            depth -= 1
        elif depth == 0 and line.startswith(" AS ", i):
            last_as = i + 4
        i += 1
    return None
