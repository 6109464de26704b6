"""The SQL types of user-defined Python functions, read from annotations.

Shared by scalar (:mod:`.udf`), aggregate (:mod:`.udaf`) and table (:mod:`.udtf`) functions:
a type declared with a decorator wins; failing that, the annotations give it (see
:data:`ANNOTATIONS`).
"""

from __future__ import annotations

import datetime
import decimal
import inspect

ANNOTATIONS: dict[object, str] = {
    int: "BIGINT",
    float: "DOUBLE",
    str: "STRING",
    bool: "BOOLEAN",
    bytes: "BYTES",
    decimal.Decimal: "DECIMAL(38, 18)",
    datetime.date: "DATE",
    datetime.datetime: "TIMESTAMP(6)",
}
"""The SQL type of each annotation a UDF may use."""


def annotation_type(a: object) -> str | None:
    """The SQL type of annotation ``a`` (a type, or its name under postponed annotations), or None."""
    if isinstance(a, str):  # from __future__ import annotations: the annotation's text
        return next((t for k, t in ANNOTATIONS.items() if getattr(k, "__name__", None) == a), None)
    return ANNOTATIONS.get(a)


def argument_types(
    params: list[inspect.Parameter],
    declared: list[str] | None,
) -> tuple[list[str] | None, int | None]:
    """``(argument types or None, arity or None)`` of a function's parameters ``params``.

    The declared types win; else every parameter's annotation (all of them, or none is used).
    The arity is None for ``*args``.
    """
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    if declared is None and params and not varargs and all(annotation_type(p.annotation) for p in params):
        declared = [annotation_type(p.annotation) for p in params]
    if declared:
        return list(declared), len(declared)
    return None, None if varargs else len(params)


def mark(f: object, declared: dict):
    """``f`` (a class is instantiated with no argument) carrying ``declared`` as its declared types.

    With ``f`` None, the decorator that does it: ``@udaf(result_type=...)`` / ``udaf(f, ...)``.
    """

    def declare(target):
        impl = target() if isinstance(target, type) else target
        impl.__streamsql_udf__ = declared
        return impl

    return declare(f) if f is not None else declare
