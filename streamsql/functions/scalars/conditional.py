"""Conditional functions: COALESCE, NULLIF, IF, GREATEST, LEAST.

CASE and IS [NOT] DISTINCT FROM are operators, compiled as they are.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import SqlType, duckdb_cast
from streamsql.functions.scalars.operand_types import (
    calcite_type,
    equality_refusal,
    pair_kind,
    timestamps_and_dates,
)
from streamsql.functions.scalars.operators import to_approximate
from streamsql.functions.scalars.registry import Arg, Call, scalar, template, to_time
from streamsql.functions.scalars.temporal import flink_day
from streamsql.functions.scalars.typerules import common_type, is_null, least_restrictive


def _common(c: Call):
    return common_type([a.type for a in c.args])


_LEAST_RESTRICTIVE = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "STRING", "CHAR",
                      "BYTES", "NULL")


def _if_type(c: Call):
    """IF's result type, as Flink 2.3's ``FlinkReturnTypes.IF_NULLABLE``.

    Numbers, strings and bytes take Calcite's least restrictive type (a FLOAT first and a DOUBLE
    is FLOAT: ``IF(f, CAST(d AS FLOAT), d)``); any other type is the first branch's, the
    other branch brought to it (``IF(f, TIMESTAMP '... 00:00:00', TIMESTAMP '... 12:00:00.5')``
    is a TIMESTAMP(0): the ELSE value loses its .5, where CASE keeps it as a TIMESTAMP(1)).
    """
    first, second = (a.type for a in c.args[1:])
    if first is None or second is None or all(t.name in _LEAST_RESTRICTIVE for t in (first, second)):
        return least_restrictive([first, second])
    return first.with_nullable(True)


def _list(c: Call, start: int = 0) -> str:
    return ", ".join("{%d}" % i for i in range(start, len(c.args)))


def _brought(args: list[Arg], result) -> list[Arg | str]:
    """The arguments brought to ``result``: to an approximate type, or a TIMESTAMP to a TIMESTAMP_LTZ.

    The latter in the session time zone (:func:`~.registry.to_time`); other arguments as they are.
    """
    if result is not None and result.name == "TIMESTAMP_LTZ":
        return [f"({to_time(a.text, a.type, SqlType(result.name, a.type.precision))})"
                if _kind(a, "TIMESTAMP") else a for a in args]
    if result is None or result.name not in ("FLOAT", "DOUBLE"):
        return list(args)
    return [f"({to_approximate(a.sql, a.type, result.name).sql(dialect='duckdb')})" for a in args]


def _kind(a: Arg, name: str) -> bool:
    return a.type is not None and a.type.name == name


def _coalesce_type(c: Call):
    """COALESCE's type: the common type, and a DATE for TIMESTAMPs with DATEs (as Flink 2.3)."""
    if timestamps_and_dates([a.type for a in c.args]):
        return SqlType("DATE")
    return _common(c)


@scalar("COALESCE", "IFNULL", group="conditional", sig=(("ANY", "ANY..."),), result=_coalesce_type,
        nulls="the first non-NULL argument; NULL if all are NULL")
def coalesce(c: Call) -> exp.Expression:
    """The first argument that is not NULL.

    A TIMESTAMP among DATEs is cast to DATE as Flink casts it (its epoch milliseconds / 86,400,000,
    truncated: 1969-07-20 20:17:40.5 is 1969-07-21; Flink 2.3 prints that for COALESCE(ts, dt)).
    """
    if timestamps_and_dates([a.type for a in c.args]):
        days = [flink_day(a.text) if a.type is not None and a.type.name == "TIMESTAMP" else a.text
                for a in c.args]
        return template(f"coalesce({_list(c)})", *days)
    return template(f"coalesce({_list(c)})", *_brought(c.args, _common(c)))


@scalar("NULLIF", group="conditional", sig=(("ANY", "ANY"),), result=lambda c: common_type([c.args[0].type]),
        nulls="NULL if the arguments are equal, else the first")
def nullif(c: Call) -> exp.Expression:
    """NULL when both are equal, else the first (refused where Flink cannot compare them)."""
    msg = equality_refusal(c.args[0].type, c.args[1].type)
    if msg:
        raise c.fail(msg)
    kind = pair_kind(c.args[0].type, c.args[1].type)
    if kind:  # a TIMESTAMP and a TIMESTAMP_LTZ compared in one kind, as ``=`` (operand_types)
        a, b = (to_time(x.text, x.type, SqlType(kind, x.type.precision)) for x in c.args)
        return template(f"CASE WHEN ({a}) = ({b}) THEN NULL ELSE {{0}} END", c.args[0])
    return template("nullif({0}, {1})", *c.args)


@scalar("IF", group="conditional", sig=(("BOOLEAN", "ANY", "ANY"),), result=_if_type,
        nulls="a NULL condition takes the ELSE value")
def if_(c: Call) -> exp.Expression:
    """``CASE WHEN c THEN a ELSE b END``.

    Branches of types without a common one are refused in Flink's words (Flink 2.3: IF(b,
    TIMESTAMPADD(HOUR, 1, dt), dt) is "Cannot apply 'IF' to arguments of type 'IF(<BOOLEAN>,
    <TIMESTAMP(6)>, <DATE>)'...").
    """
    types = [a.type for a in c.args]
    bitmaps = any(t is not None and t.name == "BITMAP" for t in types[1:])  # Flink 2.3 refuses them too
    if all(t is not None and not is_null(t) for t in types[1:]) and common_type(types[1:]) is None or bitmaps:
        operands = ", ".join(f"<{calcite_type(t)}>" for t in types)
        msg = (f"Cannot apply 'IF' to arguments of type 'IF({operands})'. Supported form(s): "
               "'IF(<ANY_TYPE>, <NUMERIC_TYPE>, <NUMERIC_TYPE>)'")
        raise c.fail(msg)
    result = _if_type(c)
    if result is None or not (result.is_time or result.name == "TIME"):  # a FLOAT or DOUBLE: each
        # branch brought to it, as CASE
        return template("CASE WHEN {0} THEN {1} ELSE {2} END", c.args[0], *_brought(c.args[1:], result))
    # Flink's IfCallGen casts both branches to the result type: a timestamp's or a TIME's extra digits
    # are cut (IF(FALSE, TIME '00:00:00', t3) is t3 cut to seconds: difffuzz campaign 32), a TIMESTAMP
    # and a TIMESTAMP_LTZ meet in the session time zone
    values = [(to_time if a.type.is_time and result.is_time else duckdb_cast)(a.text, a.type, result)
              if a.type is not None and not is_null(a.type) else a.text for a in c.args[1:]]
    return template("CASE WHEN {0} THEN {1} ELSE {2} END", c.args[0], *values)


def _extreme(fn: str):
    def build(c: Call) -> exp.Expression:
        """NULL if any argument is NULL (DuckDB's greatest/least skip NULLs).

        A TIMESTAMP among TIMESTAMP_LTZs is read as the instant of its wall clock in UTC, whatever
        the session time zone: Flink 2.3's GREATEST/LEAST reinterpret its value (America/New_York:
        GREATEST(TIMESTAMP '2024-02-29 13:45:30.123', TO_TIMESTAMP_LTZ(10, 3)) is 13:45:30.123Z,
        not 18:45:30.123Z as CAST and COALESCE give), unlike every other place the two meet.
        """
        nulls = " OR ".join("{%d} IS NULL" % i for i in range(len(c.args)))
        common = _common(c)
        if common is not None and common.name == "TIMESTAMP_LTZ":
            args = [f"timezone('UTC', CAST({a.text} AS TIMESTAMP))" if _kind(a, "TIMESTAMP") else a
                    for a in c.args]
            return template(f"CASE WHEN {nulls} THEN NULL ELSE {fn}({_list(c)}) END", *args)
        args = _brought(c.args, common)
        if _common(c) is not None and _common(c).name == "FLOAT":  # DuckDB's least of REALs loses a -0.0
            args = [f"CAST({a} AS DOUBLE)" for a in args]
        return template(f"CASE WHEN {nulls} THEN NULL ELSE {fn}({_list(c)}) END", *args)

    return build


scalar("GREATEST", group="conditional", sig=(("ANY", "ANY..."),), result=_common)(_extreme("greatest"))
scalar("LEAST", group="conditional", sig=(("ANY", "ANY..."),), result=_common)(_extreme("least"))
