"""Conditional functions: COALESCE, NULLIF, IF, GREATEST, LEAST.

CASE and IS [NOT] DISTINCT FROM are operators, compiled as they are.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import duckdb_cast
from streamsql.functions.scalars.operand_types import calcite_type, equality_refusal
from streamsql.functions.scalars.registry import Call, scalar, template
from streamsql.functions.scalars.typerules import common_type, is_null


def _common(c: Call):
    return common_type([a.type for a in c.args])


def _common_after_first(c: Call):
    return common_type([a.type for a in c.args[1:]])


_LEAST_RESTRICTIVE = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "STRING", "CHAR",
                      "BYTES", "NULL")


def _if_type(c: Call):
    """IF's result type, as Flink 2.3's ``FlinkReturnTypes.IF_NULLABLE``.

    Numbers, strings and bytes take their common type; any other type is the first branch's, the
    other branch brought to it (``IF(f, TIMESTAMP '... 00:00:00', TIMESTAMP '... 12:00:00.5')``
    is a TIMESTAMP(0): the ELSE value loses its .5, where CASE keeps it as a TIMESTAMP(1)).
    """
    first, second = (a.type for a in c.args[1:])
    if first is None or second is None or all(t.name in _LEAST_RESTRICTIVE for t in (first, second)):
        return _common_after_first(c)
    return first.with_nullable(True)


def _list(c: Call, start: int = 0) -> str:
    return ", ".join("{%d}" % i for i in range(start, len(c.args)))


@scalar("COALESCE", "IFNULL", group="conditional", sig=(("ANY", "ANY..."),), result=_common,
        nulls="the first non-NULL argument; NULL if all are NULL")
def coalesce(c: Call) -> exp.Expression:
    """The first argument that is not NULL."""
    return template(f"coalesce({_list(c)})", *c.args)


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
    if result is None or not result.is_time:
        return template("CASE WHEN {0} THEN {1} ELSE {2} END", *c.args)
    # Flink's IfCallGen casts both branches to the result type: a timestamp's extra digits are cut.
    values = [duckdb_cast(a.text, a.type, result) if a.type is not None and not is_null(a.type) else a.text
              for a in c.args[1:]]
    return template("CASE WHEN {0} THEN {1} ELSE {2} END", c.args[0], *values)


def _extreme(fn: str):
    def build(c: Call) -> exp.Expression:
        """NULL if any argument is NULL (DuckDB's greatest/least skip NULLs)."""
        nulls = " OR ".join("{%d} IS NULL" % i for i in range(len(c.args)))
        return template(f"CASE WHEN {nulls} THEN NULL ELSE {fn}({_list(c)}) END", *c.args)

    return build


scalar("GREATEST", group="conditional", sig=(("ANY", "ANY..."),), result=_common)(_extreme("greatest"))
scalar("LEAST", group="conditional", sig=(("ANY", "ANY..."),), result=_common)(_extreme("least"))
