"""Names the engine makes up for its own columns, kept apart from the user's.

Flink takes any column name, ``__agg0`` or ``__row`` too, so a made-up column can never assume its
name is free: each one added next to columns that came from the user's schema is named with
:func:`apart`, which picks a name none of them has. (References to such columns in the planner's
scopes are kept apart the same way by marking them: :func:`streamsql.plan.scope.generated_column`.)
"""

from __future__ import annotations

from collections.abc import Iterable


def apart(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name`` with underscores added until none of ``taken`` is called so.

    Compared without case: DuckDB's column names are case-insensitive (``__K0`` and ``__k0``
    are one column in a query).

    >>> apart("__row", ["id", "__ROW", "__row_"])
    '__row__'
    """
    used = {n.lower() for n in taken}
    while name.lower() in used:
        name += "_"
    return name


def apart_all(names: Iterable[str], taken: Iterable[str]) -> list[str]:
    """Each of ``names`` made :func:`apart` from ``taken`` and from the ones before it, in order.

    >>> apart_all(["__k0", "__ts"], ["__k0", "x"])
    ['__k0_', '__ts']
    """
    used = [*taken]
    out = []
    for n in names:
        out.append(apart(n, used))
        used.append(out[-1])
    return out
