"""``ORDER BY`` of a query typed in the shell: the final table, sorted, when the query ends.

An ORDER BY whose first key is an ascending time attribute is Flink's temporal sort: the job
itself emits the rows in order as the watermark (or the processing-time clock) passes them, and the
shell shows what it emits, as Flink's SQL client does (``shell/app.py``). Any other ORDER BY
cannot be emitted in order by a streaming query (a later row may sort first), and the planner
refuses it in a job. In the shell's result view it is a presentation of the result,
as in Flink's SQL client over a bounded query (batch mode): the query runs without its ORDER BY,
its changelog is folded into the table it ends with, and that table is printed sorted once the
query has ended — a bounded query by itself, an unbounded one when the user stops it (the table
of the rows received until then, said so).

The sort keys are columns of the result, by name (or alias) or by position (``ORDER BY 2``),
each ``ASC`` (default) or ``DESC`` with NULLs first for ASC and last for DESC unless ``NULLS
FIRST|LAST`` says otherwise (as Flink). Values compare as SQL values: numbers by value, strings
by code point (= their UTF-8 bytes, as Flink), dates and timestamps in time order. Anything else
in ORDER BY, or with LIMIT / OFFSET / FETCH, is left to the planner, which refuses it at its
position. An ORDER BY that starts with an ascending time attribute (event or processing time)
is not a shell sort: it is Flink's temporal sort, which the planner runs (shell/app.py tries it
first).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.plan.scope import position_of


@dataclass(frozen=True)
class SortKey:
    """One ORDER BY key, resolved against the result's columns."""

    index: int
    descending: bool
    nulls_first: bool


def split_order_by(tree: exp.Expression) -> tuple[exp.Expression, list[exp.Ordered]]:
    """``(the query without its ORDER BY, the ORDER BY keys)``; ``(tree, [])`` when not a shell sort.

    A shell sort is a query (SELECT or set operation) with a top-level ORDER BY and no LIMIT,
    OFFSET or FETCH (those stay for the planner, which refuses them on a stream).
    """
    order = tree.args.get("order") if isinstance(tree, exp.Query) else None
    if order is None or any(tree.args.get(k) is not None for k in ("limit", "offset", "fetch")):
        return tree, []
    stripped = tree.copy()
    stripped.set("order", None)
    return stripped, list(order.expressions)


def resolve_keys(keys: list[exp.Ordered], columns: list[str], sql: str) -> list[SortKey]:
    """The ORDER BY keys as result column indexes.

    Raises:
        SqlError: at a key that is neither a result column's name nor a position 1..n.
    """
    lower = [c.lower() for c in columns]
    out = []
    for key in keys:
        e = key.this
        if isinstance(e, exp.Literal) and not e.is_string and e.this.isdigit() \
                and 1 <= int(e.this) <= len(columns):
            index = int(e.this) - 1
        elif isinstance(e, exp.Column) and not e.table and e.name.lower() in lower:
            index = lower.index(e.name.lower())
        else:
            line, col, length = position_of(e)
            msg = (f"ORDER BY {e.sql()}: the shell sorts the result by its columns; name a column of the "
                   f"SELECT list ({', '.join(columns)}) or give its position (1..{len(columns)})")
            raise SqlError(msg, sql, line, col, length)
        # the parser already applies Flink's default (NULLS FIRST for ASC, LAST for DESC)
        out.append(SortKey(index, bool(key.args.get("desc")), bool(key.args.get("nulls_first"))))
    return out


def sort_rows(rows: list[tuple], keys: list[SortKey]) -> list[tuple]:
    """``rows`` in ORDER BY order (stable: rows equal on every key keep their order)."""
    rows = list(rows)
    for key in reversed(keys):  # stable sorts, least significant key first
        i = key.index
        values = [r for r in rows if r[i] is not None]
        nulls = [r for r in rows if r[i] is None]
        values.sort(key=lambda r: r[i], reverse=key.descending)  # Python's reverse sort stays stable
        rows = nulls + values if key.nulls_first else values + nulls
    return rows
