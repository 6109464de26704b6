"""A FLOAT compared with a DOUBLE: ``=``, ``<>`` and IN in FLOAT, the orderings in DOUBLE, as Flink 2.3.

Flink's planner brings an equality's operands (``=``, ``<>`` and each ``IN`` item with the value
looked for) to their least restrictive type before comparing (:func:`~.typerules.least_restrictive`:
of FLOAT and DOUBLE the first met wins). So ``f = d`` of a FLOAT ``f`` and a DOUBLE ``d`` compares
in FLOAT, ``d`` narrowed (0.1 = 0.1 is TRUE, 16777216 = 16777217 TRUE, 3.4028235E38 = 3.5E38 FALSE
as 3.5E38 narrows to Infinity), and ``d = f`` in DOUBLE (FALSE: ``f`` widened is 0.10000000149011612).
An ordering (``<``, ``<=``, ``>``, ``>=``, BETWEEN) and ``IS [NOT] DISTINCT FROM`` compare in DOUBLE
whichever comes first: ``f > d`` of 0.1 and 0.1 is TRUE, ``f < d`` of 16777217 and 16777217 TRUE,
``f > d`` of Infinity and 3.5E38 TRUE, ``f IS DISTINCT FROM d`` of 0.1 and 0.1 TRUE. Recorded by
``scripts/flink_negative_zero.py`` (``float_double``: ``equal``, ``in_list``, ``in_list_double``;
``float_order``: every comparison over pairs where FLOAT and DOUBLE differ).
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from streamsql.core.types import duckdb_cast
from streamsql.functions.scalars.registry import TYPE, type_of
from streamsql.functions.scalars.typerules import least_restrictive

NARROWED = frozenset({"=", "<>"})
"""The comparison operators whose DOUBLE operand is narrowed beside a FLOAT one (with IN's items)."""


def narrow_doubles(n: exp.Expression, keys: tuple[str, ...]) -> None:
    """Cast the DOUBLE operands of comparison ``n`` to FLOAT when their least restrictive type is FLOAT.

    ``keys``: the args of ``n`` compared (a list arg item by item); else ``n`` is left alone.

    Only numbers of known types take part: any other operand (or an unknown type) leaves ``n`` as is.
    """
    sides = []
    for k in keys:
        v = n.args.get(k)
        items = enumerate(v) if isinstance(v, list) else [(None, v)]
        sides.extend((k, i, x) for i, x in items)
    types = [type_of(x) for _, _, x in sides if x is not None]
    if not types or any(t is None or not t.is_numeric for t in types):
        return
    names = {t.name for t in types}
    if not {"FLOAT", "DOUBLE"} <= names or least_restrictive(types).name != "FLOAT":
        return
    for k, i, x in sides:
        t = type_of(x)
        if t is None or t.name != "DOUBLE":
            continue
        narrowed = replace(t, name="FLOAT")  # Java's (float): ±Infinity past the range
        cast = exp.Var(this="(" + duckdb_cast(f"({x.sql(dialect='duckdb')})", t, narrowed) + ")")
        cast.meta[TYPE] = narrowed
        if i is None:
            n.set(k, cast)
        else:
            items = list(n.args[k])
            items[i] = cast
            n.set(k, items)
