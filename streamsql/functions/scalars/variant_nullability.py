"""VARIANT values of both nullabilities meeting in one expression: refused, as Flink 2.3 refuses them.

Flink 2.3 has no assignment rule from ``VARIANT NOT NULL`` to ``VARIANT``: where Calcite brings two
VARIANT operands to a common type and one is NOT NULL, the other nullable, it inserts a CAST that
Flink's planner cannot convert ("No assign rules for VARIANT defined"). So a comparison (``=``,
``<>``, ``IN``), a CASE or an ``ARRAY[...]`` whose VARIANT values differ in
nullability is refused: ``PARSE_JSON(JSON_OBJECT('a' VALUE i)) = TRY_PARSE_JSON(u)`` (NOT NULL with
nullable), ``CASE WHEN f THEN TRY_PARSE_JSON(s) ELSE PARSE_JSON('null') END``,
``ARRAY[v['a'], PARSE_JSON(JSON_ARRAY(i))]``; Flink's own COALESCE (its type nullable only when every
value is) takes both: ``COALESCE(v, PARSE_JSON('0'))`` is answered (scripts/flink_variant.py), and so
is ``IS [NOT] DISTINCT FROM`` (``PARSE_JSON(JSON_OBJECT(..)) IS DISTINCT FROM TRY_PARSE_JSON(s)``);
``PARSE_JSON('{"a": 1}') <> PARSE_JSON(JSON_OBJECT('o' VALUE i))`` (both NOT NULL) is answered
(difffuzz campaign 34; scripts/flink_variant.py's ``v = PARSE_JSON('1')`` of a nullable ``v``). The
nullability is Flink's as TYPEOF derives it (:func:`.typeof.flink_type`); where it is not certain
for an operand, the operand is not judged here (:data:`.operand_types.CONSTANT_VARIANT`'s rule
applies to a comparison then).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.functions.scalars import typeof
from streamsql.functions.scalars.operand_types import VARIANT_NULLABILITY_CHECKED as CHECKED
from streamsql.functions.scalars.registry import FunctionError

_PARSERS = ("PARSE_JSON", "TRY_PARSE_JSON")


def _operands(n: exp.Expression) -> list[exp.Expression] | None:
    """The operands ``n`` brings to one type, or None for a node of another kind."""
    if isinstance(n, (exp.EQ, exp.NEQ)):
        return [n.this, n.expression]
    if isinstance(n, exp.In) and not n.args.get("query"):
        return [n.this, *n.expressions]
    if isinstance(n, exp.Case):
        return [w.args["true"] for w in n.args.get("ifs") or []] + \
            ([n.args["default"]] if n.args.get("default") is not None else [])
    if isinstance(n, exp.Array):
        return list(n.expressions)
    return None


def _may_hold_variant(n: exp.Expression) -> bool:
    return any(isinstance(x, exp.ParseJSON) or (isinstance(x, exp.Anonymous) and x.name.upper() in _PARSERS)
               for x in n.walk())


def check(n: exp.Expression, bind: Callable[[exp.Expression], exp.Expression]) -> None:
    """Refuse ``n`` (uncompiled) when its VARIANT operands are of both nullabilities.

    A comparison whose operands' nullabilities are all derived is marked (:data:`CHECKED`).

    Raises:
        FunctionError: Flink's "No assign rules for VARIANT defined", at ``n``.
    """
    if isinstance(n, (exp.NullSafeEQ, exp.NullSafeNEQ)):  # IS [NOT] DISTINCT FROM: answered either way
        n.meta[CHECKED] = True
        return
    operands = _operands(n)
    if not operands or not _may_hold_variant(n):
        return
    nullable: list[bool] = []
    certain = True
    for o in operands:
        try:
            t = typeof.flink_type(o, bind)
        except (FunctionError, SqlError):
            certain = False
            continue
        if t.name == "VARIANT":
            nullable.append(t.nullable)
    if len(set(nullable)) > 1:
        msg = ("No assign rules for VARIANT defined: Flink 2.3 cannot bring a VARIANT NOT NULL and a "
               "nullable VARIANT to one type (in a comparison, CASE or ARRAY[...]); make both nullable or "
               "both NOT NULL")
        raise FunctionError(msg, n)
    if certain and nullable:
        n.meta[CHECKED] = True
