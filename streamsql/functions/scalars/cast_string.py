"""``CAST(x AS STRING)`` as Flink renders values, where DuckDB's text differs.

======================== ======================================= =============================
source type              Flink                                    DuckDB's own cast
======================== ======================================= =============================
TIMESTAMP(p)             ``2024-03-10 07:59:50.120`` (exactly p   ``2024-03-10 07:59:50.12``
                         fraction digits)
TIMESTAMP_LTZ(p)         the same, in the session time zone       ``...50.12+00``
DOUBLE / FLOAT           Java's ``Double.toString``: ``1.0E20``,  ``1e+20``, ``0.0001``,
                         ``1.0E-4``, ``1.23456789E8``, ``1.5``,    ``123456789.0``, ``inf``
                         ``Infinity``, ``NaN``
BOOLEAN                  ``TRUE`` / ``FALSE``                      ``true`` / ``false``
ROW                      ``(1, a, NULL)``                          ``{'x': 1, ...}``
ARRAY                    ``[1, NULL]``                             ``[1, NULL]``
MAP                      ``{k=1, j=NULL}``                         ``{k=1, j=NULL}``
======================== ======================================= =============================

Inside a composite every value is written as its own CAST to STRING, NULL as ``NULL``.

Every other type keeps DuckDB's text, which is Flink's (DATE, TIME(0), DECIMAL with its scale,
integers, strings). Checked against Flink 2.3 by the conformance cases (tests/functions/cases.py).
"""

from __future__ import annotations

from streamsql.core.types import SqlType
from streamsql.functions.scalars.registry import session_zone, sql_string

STRING_TYPES = ("STRING", "VARCHAR", "CHAR")


def flink_to_string(arg: str, t: SqlType | None) -> str | None:
    """DuckDB SQL rendering ``arg`` (compiled SQL of type ``t``) as Flink's CAST to STRING.

    Returns None where DuckDB's own cast already gives Flink's text.
    """
    if t is None:
        return None
    if t.is_composite:
        return _composite(arg, t, 0)
    if t.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        ts = f"timezone({sql_string(session_zone())}, {arg})" if t.name == "TIMESTAMP_LTZ" else arg
        return _timestamp(ts, 6 if t.precision is None else t.precision)
    if t.name in ("DOUBLE", "FLOAT"):
        return _java_double(arg)
    if t.name == "BOOLEAN":
        return f"CASE WHEN {arg} THEN 'TRUE' WHEN NOT {arg} THEN 'FALSE' END"
    return None


def _composite(arg: str, t: SqlType, depth: int) -> str:
    def text(value: str, vt: SqlType) -> str:
        inner = _composite(value, vt, depth + 1) if vt.is_composite else flink_to_string(value, vt)
        return f"coalesce({inner or f'CAST({value} AS VARCHAR)'}, 'NULL')"

    if t.name == "ROW":
        parts = " || ', ' || ".join(text(f"struct_extract({arg}, {sql_string(n)})", ft) for n, ft in t.fields)
        return f"CASE WHEN {arg} IS NOT NULL THEN '(' || {parts or repr('')} || ')' END"
    v = f"__s{depth}"
    if t.name == "ARRAY":
        items = f"list_transform({arg}, lambda {v}: {text(v, t.children[0])})"
        return f"('[' || array_to_string({items}, ', ') || ']')"
    pair = f"{text(f'{v}.key', t.children[0])} || '=' || {text(f'{v}.value', t.children[1])}"
    return f"('{{' || array_to_string(list_transform(map_entries({arg}), lambda {v}: {pair}), ', ') || '}}')"


def _timestamp(ts: str, precision: int) -> str:
    """``yyyy-MM-dd HH:mm:ss`` and exactly ``precision`` fraction digits (DuckDB has 6)."""
    text = f"strftime({ts}, '%Y-%m-%d %H:%M:%S')"
    if precision == 0:
        return text
    frac = f"substr(strftime({ts}, '%f'), 1, {min(precision, 6)})"
    return f"({text} || '.' || {frac}{' || ' + repr('0' * (precision - 6)) if precision > 6 else ''})"


def _java_double(arg: str) -> str:
    """Java's ``Double.toString`` from DuckDB's shortest round-trip text of ``arg``.

    Java writes ``|x|`` in [1e-3, 1e7) positionally (DuckDB's text, which always has a point)
    and everything else as ``d.ddd`` E exponent with the same shortest digits.
    """
    a = f"abs({arg})"
    s = f"CAST({a} AS VARCHAR)"
    # DuckDB's text is either 'm e±x' or positional 'I.F'; the digits are its shortest ones.
    mant_e = f"split_part({s}, 'e', 1)"
    mant = f"(CASE WHEN contains({mant_e}, '.') THEN {mant_e} ELSE {mant_e} || '.0' END)"
    exp_e = f"CAST(split_part({s}, 'e', 2) AS INTEGER)"
    digits = f"rtrim(ltrim(replace({s}, '.', ''), '0'), '0')"
    big_exp = f"(strpos({s}, '.') - 2)"  # |x| >= 1e7: the point moves left over the integer digits
    small_exp = f"(-(length(split_part({s}, '.', 2)) - length(ltrim(split_part({s}, '.', 2), '0')) + 1))"
    positional_sci = (f"(substr({digits}, 1, 1) || '.' || coalesce(nullif(substr({digits}, 2), ''), '0') "
                      f"|| 'E' || CAST(CASE WHEN {a} >= 1e7 THEN {big_exp} ELSE {small_exp} END AS VARCHAR))")
    body = (f"CASE WHEN isnan({arg}) THEN 'NaN' WHEN isinf({arg}) THEN 'Infinity' "
            f"WHEN {a} = 0 THEN '0.0' "
            f"WHEN contains({s}, 'e') THEN {mant} || 'E' || CAST({exp_e} AS VARCHAR) "
            f"WHEN {a} >= 1e-3 AND {a} < 1e7 THEN {s} ELSE {positional_sci} END")
    # The sign separately: -0.0 and -Infinity keep theirs, NaN has none.
    return f"(CASE WHEN NOT isnan({arg}) AND signbit({arg}) THEN '-' ELSE '' END || {body})"
