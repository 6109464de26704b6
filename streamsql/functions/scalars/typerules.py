"""Flink's type derivation rules: arithmetic result types and the common type of several values.

The common type serves CASE, COALESCE, GREATEST...

The DECIMAL rules are Flink's ``LogicalTypeMerging`` (precision capped at 38, keeping at least 6
fraction digits when a division or product has to be narrowed):

============ ====================================================== ======================
operation    precision                                              scale
============ ====================================================== ======================
a + b, a - b max(p1 - s1, p2 - s2) + max(s1, s2) + 1                max(s1, s2)
a * b        p1 + p2 + 1                                            s1 + s2
a / b        p1 - s1 + s2 + max(6, s1 + p2 + 1)                     max(6, s1 + p2 + 1)
MOD(a, b)    min(p1 - s1, p2 - s2) + max(s1, s2)                    max(s1, s2)
============ ====================================================== ======================

An integer operand counts as DECIMAL(3/5/10/19, 0) (TINYINT/SMALLINT/INT/BIGINT); two integers
give the wider integer (a division too: Flink divides integers as integers). With a FLOAT or
DOUBLE operand, arithmetic takes Calcite's type, the first approximate operand's (FLOAT + d is
FLOAT, d + FLOAT DOUBLE, i * FLOAT FLOAT), but DOUBLE with a DECIMAL (checked against Flink 2.3
by the differential fuzzer's regression cases).

The common type of several values has two rules in Flink 2.3, by where it is derived:

- :func:`common_type`, Flink's ``LogicalTypeMerging.findCommonType`` (COALESCE, GREATEST, LEAST,
  built-in functions typed by ``TypeStrategies.COMMON``): DOUBLE for a DOUBLE, or a FLOAT with a
  DECIMAL; FLOAT for FLOATs with integers (``COALESCE(CAST(d AS FLOAT), i)`` is FLOAT);
- :func:`least_restrictive`, Calcite's ``SqlTypeFactoryImpl.leastRestrictive`` (CASE, IF): the same,
  except that FLOAT and DOUBLE have the same precision there, so the first approximate type met
  wins (``CASE WHEN f THEN CAST(d AS FLOAT) ELSE d END`` is FLOAT, the DOUBLE cut as Java's
  ``(float)``: 1e300 is Infinity).

A TIMESTAMP with a TIMESTAMP_LTZ (Flink 2.3's answers, ``scripts/flink_difffuzz.py``): the common
type is the TIMESTAMP_LTZ of the largest precision; Calcite's least restrictive type (CASE, UNION,
VALUES, ARRAY[...]) is met in order: a type of the same precision as the one so far leaves it, one of
another precision makes it its own kind with the larger precision (``CASE WHEN f THEN ts ELSE
ltz3 END`` is TIMESTAMP(3), ``THEN ltz3 ELSE ts`` TIMESTAMP_LTZ(3), ``THEN ts6 ELSE ltz3``
TIMESTAMP_LTZ(6), ``THEN ltz3 ELSE ts6`` TIMESTAMP(6)). The values move between the kinds in the
session time zone (:func:`~streamsql.functions.scalars.registry.to_time`).
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from streamsql.core.types import SqlType

_INT_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}
_INT_RANK = {"TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4}
_APPROXIMATE = ("FLOAT", "DOUBLE")
_TIMES = ("TIMESTAMP", "TIMESTAMP_LTZ")
MAX_PRECISION = 38


def is_null(t: SqlType | None) -> bool:
    """True for the type of an untyped NULL literal."""
    return t is not None and t.name == "NULL"


def as_decimal(t: SqlType) -> tuple[int, int]:
    """(precision, scale) of a DECIMAL or integer type."""
    if t.name == "DECIMAL":
        return t.precision or 10, t.scale or 0
    return _INT_DIGITS[t.name], 0


def _adjust(p: int, s: int) -> SqlType:
    if p <= MAX_PRECISION:
        return SqlType("DECIMAL", p, s)
    digits = p - s
    return SqlType("DECIMAL", MAX_PRECISION, max(MAX_PRECISION - digits, min(s, 6)))


def arithmetic(op: str, a: SqlType | None, b: SqlType | None) -> SqlType | None:
    """The Flink type of ``a op b`` for op in ``+ - * / %`` (None when it cannot be told)."""
    if a is None or b is None:
        return None
    if is_null(a) or is_null(b):
        return None if is_null(a) and is_null(b) else (b if is_null(a) else a)
    if not (a.is_numeric and b.is_numeric):
        return a if op in "+-" and not a.is_numeric else (b if op == "+" and not b.is_numeric else None)
    if a.name in _APPROXIMATE or b.name in _APPROXIMATE:
        if "DECIMAL" in (a.name, b.name):
            return SqlType("DOUBLE")
        return SqlType(a.name if a.name in _APPROXIMATE else b.name)
    if a.name in _INT_RANK and b.name in _INT_RANK:
        if op == "%":
            return SqlType(b.name)
        return SqlType(a.name if _INT_RANK[a.name] >= _INT_RANK[b.name] else b.name)
    (p1, s1), (p2, s2) = as_decimal(a), as_decimal(b)
    if op in "+-":
        s = max(s1, s2)
        return _adjust(max(p1 - s1, p2 - s2) + s + 1, s)
    if op == "*":
        return _adjust(p1 + p2 + 1, s1 + s2)
    if op == "/":
        s = max(6, s1 + p2 + 1)
        return _adjust(p1 - s1 + s2 + s, s)
    s = max(s1, s2)
    if s == 0:  # Calcite's deriveDecimalModType: of two scales 0, the divisor's type (Flink 2.3:
        # CAST(x AS DECIMAL(38, 0)) % 7 is an INT)
        return SqlType(b.name, b.precision, b.scale) if b.name == "DECIMAL" else SqlType(b.name)
    return _adjust(min(p1 - s1, p2 - s2) + s, s)


def common_type(types: list[SqlType | None]) -> SqlType | None:
    """The type several values are brought to (CASE branches, COALESCE, GREATEST...).

    Numbers widen (integers → DECIMAL → DOUBLE); strings stay STRING; timestamps take the
    largest precision; untyped NULLs are skipped. None when a type is unknown or they differ.
    """
    known = [t for t in types if not is_null(t)]
    if not known or any(t is None for t in known):
        return None
    first = known[0]
    if first.is_composite:  # part by part; a ROW keeps the first one's field names (Flink: by position)
        if any(t.name != first.name or len(t.children) != len(first.children) for t in known):
            return None
        parts = [common_type([t.children[i] for t in known]) for i in range(len(first.children))]
        return None if None in parts else replace(first, children=tuple(parts), nullable=True)
    if all(t.name == first.name for t in known) and first.name != "DECIMAL":
        if first.name == "BYTES":
            return _common_bytes(known)
        if first.name in (*_TIMES, "TIME"):  # the largest precision (a TIME's too: TIME(1) over TIME(0))
            return SqlType(first.name, max(t.precision or 0 for t in known))
        return SqlType(first.name)
    if all(t.name in _TIMES for t in known):  # both kinds: an instant (LogicalTypeMerging)
        return SqlType("TIMESTAMP_LTZ", max(t.precision or 0 for t in known))
    if not all(t.is_numeric for t in known):
        return None
    if any(t.name in _APPROXIMATE for t in known):
        floats_only = all(t.name in ("FLOAT", *_INT_RANK) for t in known)
        return SqlType("FLOAT" if floats_only else "DOUBLE")
    if all(t.name in _INT_RANK for t in known):
        return SqlType(max((t.name for t in known), key=_INT_RANK.__getitem__))
    decs = [as_decimal(t) for t in known]
    s = max(sc for _, sc in decs)
    return _adjust(max(p - sc for p, sc in decs) + s, s)


def _common_bytes(types: list[SqlType]) -> SqlType:
    """The common type of BYTES, VARBINARY(n) and BINARY(n) values, as Calcite's in Flink 2.3.

    BINARY(n) when all are BINARY(n) of one length; else VARBINARY of the largest length (a ragged
    CASE, COALESCE, VALUES or UNION: ``CASE ... THEN X'01' ELSE X'0203' END`` is VARBINARY(2)),
    BYTES when one is.
    """
    if any(t.precision is None for t in types):
        return SqlType("BYTES")
    if all(t.padded for t in types) and len({t.precision for t in types}) == 1:
        return SqlType("BYTES", types[0].precision, padded=True)
    return SqlType("BYTES", max(t.precision for t in types))


def least_restrictive(types: list[SqlType | None]) -> SqlType | None:
    """The type of CASE's (and IF's) results, as Calcite's ``leastRestrictive`` in Flink 2.3.

    As :func:`common_type`, except for approximate numbers, met in order: the first FLOAT or
    DOUBLE is kept against a later one (their precisions are equal in Flink's type system), an
    integer does not change it, and a DECIMAL before or after it makes it DOUBLE.
    """
    known = [t for t in types if not is_null(t)]
    if known and all(t is not None and t.name in _TIMES for t in known):
        return _least_restrictive_time(known)
    if not known or any(t is None for t in known) or not all(t.is_numeric for t in known) \
            or not any(t.name in _APPROXIMATE for t in known):
        return common_type(types)
    result: SqlType = known[0]
    for t in known[1:]:
        if t.name in _APPROXIMATE and result.name in _APPROXIMATE:
            continue
        if t.name in _APPROXIMATE:
            result = SqlType("DOUBLE") if result.name == "DECIMAL" else SqlType(t.name)
        elif result.name in _APPROXIMATE and t.name == "DECIMAL":
            result = SqlType("DOUBLE")
        elif result.name not in _APPROXIMATE:
            result = common_type([result, t]) or result
    return SqlType(result.name)


def _least_restrictive_time(types: list[SqlType]) -> SqlType:
    """Calcite's least restrictive type of TIMESTAMPs and TIMESTAMP_LTZs, met in order (Flink 2.3).

    A type of another precision than the result so far replaces it, with the larger precision; one
    of the same precision leaves it (whatever its kind): ``(ts3, ltz3)`` is TIMESTAMP(3), ``(ts6,
    ltz3)`` TIMESTAMP_LTZ(6), ``(ts6, ltz3, ts3)`` TIMESTAMP(6).
    """
    result = types[0]
    for t in types[1:]:
        if (t.precision or 0) != (result.precision or 0):
            result = SqlType(t.name, max(t.precision or 0, result.precision or 0))
    return SqlType(result.name, result.precision)


def rows_type(types: list[SqlType | None]) -> SqlType | None:
    """The type of values brought together by position: a UNION's or VALUES' column, ARRAY[...].

    :func:`least_restrictive` for TIMESTAMPs and TIMESTAMP_LTZs (Flink 2.3: ``SELECT ts ... UNION ALL
    SELECT ltz ...`` is TIMESTAMP(3), ``ARRAY[ts, ltz]`` ARRAY<TIMESTAMP(3)>) and for numbers of which
    one is FLOAT or DOUBLE (Flink 2.3: ``SELECT f ... UNION ALL SELECT d ...`` of a FLOAT f and a
    DOUBLE d is FLOAT, d's values narrowed; DOUBLE first gives DOUBLE; recorded by
    ``scripts/flink_negative_zero.py``), else :func:`common_type`.
    """
    known = [t for t in types if not is_null(t)]
    if known and all(t is not None and t.name in _TIMES for t in known):
        return least_restrictive(types)
    if known and all(t is not None and t.is_numeric for t in known) \
            and any(t.name in _APPROXIMATE for t in known):
        return least_restrictive(types)
    if known and all(t is not None and (t.name == "DECIMAL" or t.name in _INT_RANK) for t in known) \
            and any(t.name == "DECIMAL" for t in known):
        return _least_restrictive_decimal([as_decimal(t) for t in known])
    return common_type(types)


def _least_restrictive_decimal(decs: list[tuple[int, int]]) -> SqlType:
    """Calcite's least restrictive type of exact numbers ``(precision, scale)`` (a UNION's column).

    As Flink 2.3 types it: the integer digits first, the scale cut to what is left of 38 digits.

    ``DECIMAL(38, 6) UNION ALL DECIMAL(38, 2)`` is DECIMAL(38, 2) (Flink 2.3, wide seed 200373), not
    the DECIMAL(38, 6) of arithmetic's rule (:func:`common_type`), which keeps 6 fraction digits.
    """
    digits = min(max(p - s for p, s in decs), MAX_PRECISION)
    scale = min(max(s for _, s in decs), MAX_PRECISION - digits)
    return SqlType("DECIMAL", digits + scale, scale)


def branches(n: exp.Expression) -> list[exp.Expression]:
    """The values a CASE, IF or COALESCE may give (not its conditions)."""
    if isinstance(n, exp.Case):
        values = [i.args["true"] for i in n.args.get("ifs") or []]
        return values + ([n.args["default"]] if n.args.get("default") else [])
    if isinstance(n, exp.Coalesce):
        return [n.this, *n.expressions]
    return [v for v in (n.args.get("true"), n.args.get("false")) if v is not None]
