"""Rendering results for people: tableau tables and messages (used by ``run`` and the shell)."""

from __future__ import annotations

from typing import TextIO

from streamsql.table_result import TableResult

NULL_TEXT = "<NULL>"


def format_value(v) -> str:
    """A cell as Flink's SQL client shows it (NULL as ``<NULL>``).

    Composite values as Flink's client writes them: a ROW ``(1, a, NULL)``, an ARRAY
    ``[1, NULL]``, a MAP ``{k=1}`` (a collected MAP is a list of key/value tuples).
    """
    if v is None:
        return NULL_TEXT
    return _text(v)


def _text(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, dict):
        return "(" + ", ".join(_text(x) for x in v.values()) + ")"
    if isinstance(v, list):
        if v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
            return "{" + ", ".join(f"{_text(k)}={_text(x)}" for k, x in v) + "}"
        return "[" + ", ".join(_text(x) for x in v) + "]"
    return str(v)


def tableau(columns: list[str], rows: list[tuple], with_op: bool = False) -> str:
    """A boxed text table, as Flink's tableau result mode."""
    headers = (["op"] if with_op else []) + list(columns)
    cells = [[format_value(x) for x in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    out = [line, "|" + "|".join(f" {h:>{w}} " for h, w in zip(headers, widths)) + "|", line]
    out += ["|" + "|".join(f" {c:>{w}} " for c, w in zip(r, widths)) + "|" for r in cells]
    out.append(line)
    return "\n".join(out)


def print_result(result: TableResult, out: TextIO) -> None:
    """Print a statement's result: messages, rows, a query's changelog, EXPLAIN text."""
    if result.kind == "rows":
        out.write(tableau(result.columns, result.rows) + f"\n{len(result.rows)} rows in set\n")
    elif result.kind == "text":
        out.write(result.message + "\n")
    elif result.kind == "query":
        rows = [(k.short,) + r for k, r in result.collect()]
        out.write(tableau(result.columns, rows, with_op=True) + f"\nReceived a total of {len(rows)} rows\n")
    elif result.message:
        out.write(result.message + "\n")
    out.flush()
