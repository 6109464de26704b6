"""``=`` / ``<>`` of two structured values (OBJECT_OF / OBJECT_UPDATE) of other types: refused, as Flink 2.3.

Flink compares structured values only of the same type, field types nullability and precision included:
``OBJECT_OF('C', 'a', DATE '2024-12-31') = OBJECT_OF('C', 'a', dt)`` is refused ("Incompatible
structured types: STRUCTURED<'C', `a` DATE NOT NULL> and STRUCTURED<'C', `a` DATE>."), so is a
TIMESTAMP(0) field against a TIMESTAMP(3) one (difffuzz campaign 34). The types are Flink's as TYPEOF
derives them (:func:`.typeof.flink_type`); where one is not certain, the comparison is not judged here.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.functions.scalars import calls, typeof
from streamsql.functions.scalars.registry import FunctionError

_STRUCTURED = ("OBJECT_OF", "OBJECT_UPDATE")


def _structured(n: exp.Expression) -> bool:
    n = n.unnest()
    return isinstance(n, exp.Func) and calls.name_of(n) in _STRUCTURED


def check(n: exp.Expression, bind: Callable[[exp.Expression], exp.Expression]) -> None:
    """Refuse ``n`` (uncompiled), an ``=`` / ``<>`` of two structured values whose Flink types differ.

    Raises:
        FunctionError: Flink's "Incompatible structured types: A and B.", at ``n``.
    """
    if not isinstance(n, (exp.EQ, exp.NEQ)) or not (_structured(n.this) and _structured(n.expression)):
        return
    try:
        left, right = typeof.flink_type(n.this, bind), typeof.flink_type(n.expression, bind)
    except (FunctionError, SqlError):
        return
    if left.with_nullable(True) != right.with_nullable(True):
        msg = f"Incompatible structured types: {left.sql()} and {right.sql()}."
        raise FunctionError(msg, n)
