"""LPAD, RPAD and OVERLAY, which Flink computes over Java's UTF-16 code units.

Flink's other string functions (CHAR_LENGTH, SUBSTRING, LEFT, LOCATE, ...) count characters
(code points), as DuckDB does; these three index Java's ``char[]`` (Flink 2.3: ``LPAD('a😀bc',
6, '*')`` is ``'*a😀bc'``, the emoji counting 2). A character outside the Basic Multilingual
Plane (an emoji) is two code units, and a cut between them leaves half a character, which Flink
writes as ``'?'`` (Java's UTF-8 encoder; ``LPAD('a😀bc', 2, '*')`` is ``'a?'``).

A row whose strings are all within the BMP (the usual case) runs as DuckDB's function, where a
code unit is a character; only the other rows go through Python over UTF-16.
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars.registry import Call, fail_sql, fixed, scalar, template

S, INTEGER = "STRING", "INTEGER"
STRING = fixed("STRING")
_UNIT = 2  # bytes per UTF-16 code unit
# A string within the BMP: NULL, ASCII (as many bytes as characters: no regexp run) or without a
# character from U+10000 on. (Formatted twice, by the build and by template: braces doubled twice.)
_WITHIN_BMP = ("({0} IS NULL OR strlen({0}) = length({0}) OR "
               "NOT regexp_matches({0}, '[\\x{{{{10000}}}}-\\x{{{{10FFFF}}}}]'))")


def _units(s: str) -> bytes:
    return s.encode("utf-16-le", "surrogatepass")


def java_text(units: bytes) -> str:
    """UTF-16 code units as text; half a character becomes '?', as Java's UTF-8 encoder writes it."""
    return units.decode("utf-16-le", "surrogatepass").encode("utf-8", "replace").decode("utf-8")


def _padding(pad: bytes, n: int) -> bytes:
    """``pad`` repeated to ``n`` code units (cut in the last repetition)."""
    return (pad * (n // (len(pad) // _UNIT) + 1))[: n * _UNIT]


def lpad(s: str, n: int, pad: str) -> str | None:
    """Flink's LPAD over code units: NULL for a negative length or an empty pad."""
    if n < 0 or pad == "":
        return None
    units = _units(s)
    missing = max(n - len(units) // _UNIT, 0)
    return java_text(_padding(_units(pad), missing) + units[: (n - missing) * _UNIT])


def rpad(s: str, n: int, pad: str) -> str | None:
    """Flink's RPAD over code units: NULL for a negative length or an empty pad."""
    if n < 0 or pad == "":
        return None
    units = _units(s)[: n * _UNIT]
    return java_text(units + _padding(_units(pad), n - len(units) // _UNIT))


def overlay(s: str, r: str, pos: int, length: int | None = None) -> str:
    """``s`` with ``length`` code units (default: r's) from ``pos`` replaced by ``r``.

    A ``pos`` before the first or past the last unit leaves ``s`` as it is, and a ``length`` of
    0 or less drops the rest of ``s`` (Flink 2.3's SqlFunctionUtils.overlay: OVERLAY('abc'
    PLACING '' FROM 1) is '').
    """
    units, placed = _units(s), _units(r)
    if pos < 1 or pos > len(units) // _UNIT:
        return s
    n = len(placed) // _UNIT if length is None else length
    return java_text(units[: (pos - 1) * _UNIT] + placed + (units[(pos - 1 + n) * _UNIT:] if n > 0 else b""))


def _hybrid(label: str, fn, params: tuple[str, ...], duckdb_sql: str, strings: tuple[int, ...],
            too_long: tuple[str, str] | None = None):
    """A build running ``duckdb_sql`` on rows within the BMP, else ``fn`` (per row, over UTF-16).

    ``strings`` are the indexes of the string arguments, whose characters decide; ``too_long``:
    ``(condition, failure)`` SQL checked first, failing the job before a result too long is built.
    """
    name = f"__streamsql_utf16_{label.lower()}_{len(params)}"
    f = register(VectorFunction(name, f"Function {label}", lambda *a: rowwise(fn, a, pa.string()), params,
                                "VARCHAR"))

    def build(c: Call) -> exp.Expression:
        n = len(c.args)
        casts = ", ".join(f"CAST({{{i}}} AS {t})" for i, t in enumerate(params[:n]))
        within = " AND ".join(_WITHIN_BMP.format(f"{{{i}}}") for i in strings)
        first = f"WHEN {too_long[0]} THEN {too_long[1]} " if too_long else ""
        return template(f"CASE {first}WHEN {within} THEN {duckdb_sql} ELSE {f.name}({casts}) END", *c.args)

    return build


#: The longest string a Java String can hold (characters): a longer result fails the job, as Flink's
#: StringBuilder does (with an OutOfMemoryError), instead of taking all of this process's memory.
JAVA_MAX_STRING = 2**30 - 1

_PAD_NULLS = "NULL if any argument is NULL, the length is negative or the pad is empty"
# DuckDB's lpad/rpad fail on an empty pad: NULL, as Flink
_PAD_SQL = "(CASE WHEN {{1}} < 0 OR {{2}} = '' THEN NULL ELSE {fn}({{0}}, {{1}}, {{2}}) END)"
_PAD_PARAMS = ("VARCHAR", "INTEGER", "VARCHAR")
_PAD_TOO_LONG = "A length past 1,073,741,823 fails the job with a message (Flink: an OutOfMemoryError)."


def _pad_guard(label: str) -> tuple[str, str]:
    """A pad length past :data:`JAVA_MAX_STRING` fails the job (Flink runs out of memory)."""
    message = (f"'{label}: the result would be longer than {JAVA_MAX_STRING:,} characters "
               "(length ' || {1} || ')'")
    return f"{{1}} > {JAVA_MAX_STRING}", fail_sql(message)


scalar("LPAD", group="string", sig=((S, INTEGER, S),), result=STRING, nulls=_PAD_NULLS,
       differences=_PAD_TOO_LONG)(
    _hybrid("LPAD", lpad, _PAD_PARAMS, _PAD_SQL.format(fn="lpad"), (0, 2), _pad_guard("LPAD")))
scalar("RPAD", group="string", sig=((S, INTEGER, S),), result=STRING, nulls=_PAD_NULLS,
       differences=_PAD_TOO_LONG)(
    _hybrid("RPAD", rpad, _PAD_PARAMS, _PAD_SQL.format(fn="rpad"), (0, 2), _pad_guard("RPAD")))

_PARAMS = ("VARCHAR", "VARCHAR", "INTEGER", "INTEGER")
# NULL when any argument is (s is returned as it is only after that check, as Flink's generated code)
_OVERLAY_SQL = ("(CASE WHEN {{1}} IS NULL OR {null} IS NULL THEN NULL "
                "WHEN {{2}} < 1 OR {{2}} > length({{0}}) THEN {{0}} "
                "ELSE substring({{0}}, 1, {{2}} - 1) || {{1}} || "
                "CASE WHEN {length} > 0 THEN substring({{0}}, {{2}} + {length}) ELSE '' END END)")
_OVERLAY_3 = _hybrid("OVERLAY", overlay, _PARAMS[:3], _OVERLAY_SQL.format(length="length({1})", null="{2}"),
                     (0, 1))
_OVERLAY_4 = _hybrid("OVERLAY", overlay, _PARAMS, _OVERLAY_SQL.format(length="{3}", null="{3}"), (0, 1))


@scalar("OVERLAY", group="string", sig=((S, S, INTEGER), (S, S, INTEGER, INTEGER)), result=STRING)
def overlay_call(c: Call) -> exp.Expression:
    """OVERLAY(s PLACING r FROM pos [FOR len]): code units of s from ``pos`` replaced by r.

    ``len`` units are replaced (default: r's length). A ``pos`` before the first or past the
    last unit leaves s as it is (Flink 2.3: 'hello' PLACING 'X' FROM 0 or FROM 6 is 'hello'); a
    ``len`` of 0 or less drops what follows (Flink 2.3: 'hello' PLACING 'X' FROM 2 FOR 0 is 'hX').
    """
    return (_OVERLAY_4 if len(c.args) == 4 else _OVERLAY_3)(c)
