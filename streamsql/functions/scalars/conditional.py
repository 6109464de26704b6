"""Conditional functions: COALESCE, NULLIF, IF, GREATEST, LEAST.

CASE and IS [NOT] DISTINCT FROM are operators, compiled as they are.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import SqlType, duckdb_cast
from streamsql.functions.scalars.operand_types import calcite_type, equality_refusal, timestamps_and_dates
from streamsql.functions.scalars.operators import to_approximate
from streamsql.functions.scalars.registry import Arg, Call, scalar, template
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
    """The arguments, each brought to an approximate ``result`` type first (else as they are)."""
    if result is None or result.name not in ("FLOAT", "DOUBLE"):
        return list(args)
    return [f"({to_approximate(a.sql, a.type, result.name).sql(dialect='duckdb')})" for a in args]


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
    if all(t is not None and not is_null(t) for t in types[1:]) and common_type(types[1:]) is None:
        operands = ", ".join(f"<{calcite_type(t)}>" for t in types)
        msg = (f"Cannot apply 'IF' to arguments of type 'IF({operands})'. Supported form(s): "
               "'IF(<ANY_TYPE>, <NUMERIC_TYPE>, <NUMERIC_TYPE>)'")
        raise c.fail(msg)
    result = _if_type(c)
    if result is None or not result.is_time:  # a FLOAT or DOUBLE: each branch brought to it, as CASE
        return template("CASE WHEN {0} THEN {1} ELSE {2} END", c.args[0], *_brought(c.args[1:], result))
    # Flink's IfCallGen casts both branches to the result type: a timestamp's extra digits are cut.
    values = [duckdb_cast(a.text, a.type, result) if a.type is not None and not is_null(a.type) else a.text
              for a in c.args[1:]]
    return template("CASE WHEN {0} THEN {1} ELSE {2} END", c.args[0], *values)


def _extreme(fn: str):
    def build(c: Call) -> exp.Expression:
        """NULL if any argument is NULL (DuckDB's greatest/least skip NULLs)."""
        nulls = " OR ".join("{%d} IS NULL" % i for i in range(len(c.args)))
        args = _brought(c.args, _common(c))
        if _common(c) is not None and _common(c).name == "FLOAT":  # DuckDB's least of REALs loses a -0.0
            args = [f"CAST({a} AS DOUBLE)" for a in args]
        return template(f"CASE WHEN {nulls} THEN NULL ELSE {fn}({_list(c)}) END", *args)

    return build


scalar("GREATEST", group="conditional", sig=(("ANY", "ANY..."),), result=_common)(_extreme("greatest"))
scalar("LEAST", group="conditional", sig=(("ANY", "ANY..."),), result=_common)(_extreme("least"))
