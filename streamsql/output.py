"""Rendering results for people: tableau tables and messages (used by ``run`` and the shell)."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal
from typing import Any, TextIO

import numpy as np
import pyarrow as pa

from streamsql.core import bitmap
from streamsql.core.elements import RowKind
from streamsql.core.float_text import java_float_text
from streamsql.core.types import SqlType
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


# -- values as Flink's SQL client prints them -------------------------------------------------
# Flink's client prints a cell as CAST(x AS STRING) in printing mode (RowDataToStringConverterImpl,
# CastRule.Context.isPrinting): a TIMESTAMP(p) with exactly p fraction digits (a TIME(p) with up to p,
# at least one: Calcite's unixTimeToString), a TIMESTAMP_LTZ in
# 'table.local-time-zone', FLOAT/DOUBLE as Java's Float/Double.toString, a DECIMAL plain with its
# scale, BYTES as x'hex'. Python's str() gave '10:00:00.123000', '...+00:00', '1e+20', '0E-10' and
# "b'\\x01'". The values below keep their Python type (sorting, widths), only their str() changes.


class _Shown:
    """A value whose ``str()`` is the text Flink's SQL client shows for it (``_text``)."""

    _text: str

    def __str__(self) -> str:
        return self._text


class _ShownTimestamp(_Shown, dt.datetime):
    pass


class _ShownDecimal(_Shown, Decimal):
    pass


class _ShownTime(_Shown, dt.time):
    pass


class _ShownBytes(_Shown, bytes):
    pass


class _JavaDouble(float):
    """A DOUBLE printed as Java's ``Double.toString`` (computed when shown: most never are)."""

    single = False

    def __str__(self) -> str:
        v = float(self)
        if 1e-3 <= abs(v) < 1e7:  # Java writes these positionally, with Python's shortest digits
            return str(np.float32(v)) if self.single else repr(v)
        arr = pa.array([v], pa.float32() if self.single else pa.float64())
        return java_float_text(arr, single=self.single)[0].as_py()


class _JavaFloat(_JavaDouble):
    single = True


def _timestamp_text(v: dt.datetime, precision: int) -> str:
    text = v.strftime("%Y-%m-%d %H:%M:%S")
    if precision <= 0:
        return text
    nanos = v.microsecond * 1000 + getattr(v, "nanosecond", 0)  # pandas.Timestamp has nanoseconds
    return text + "." + f"{nanos:09d}"[:precision]


def shown_value(v: Any, t: SqlType | None, zone: dt.tzinfo) -> Any:
    """``v`` (a collected value of SQL type ``t``) as a value whose ``str()`` is Flink's client text.

    NULL stays None; types printed as Python prints them (integers, strings, dates) are returned
    as they are; composites are converted field by field.
    """
    if v is None or t is None:
        return v
    name = t.name
    if name in ("TIMESTAMP", "TIMESTAMP_LTZ") and isinstance(v, dt.datetime):
        wall = v  # the value keeps its instant (sorting); the text is the zone's wall clock
        if name == "TIMESTAMP_LTZ":
            wall = (v if v.tzinfo else v.replace(tzinfo=dt.timezone.utc)).astimezone(zone)
        out = _ShownTimestamp(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, v.tzinfo)
        out._text = _timestamp_text(wall, 6 if t.precision is None else t.precision)
        return out
    if name == "TIME" and isinstance(v, dt.time):  # CAST(t AS STRING): up to p digits, at least one
        out = _ShownTime(v.hour, v.minute, v.second, v.microsecond)
        p = min(t.precision or 0, 3)
        digits = f"{v.microsecond // 1000:03d}"[:p].rstrip("0") or "0"
        out._text = v.strftime("%H:%M:%S") + (f".{digits}" if p else "")
        return out
    if name in ("DOUBLE", "FLOAT") and isinstance(v, float):
        return (_JavaFloat if name == "FLOAT" else _JavaDouble)(v)
    if name == "DECIMAL" and isinstance(v, Decimal):
        out = _ShownDecimal(v)
        out._text = format(v, "f")  # BigDecimal.toPlainString: 0.0000000000, not 0E-10
        return out
    if name == "BYTES" and isinstance(v, bytes):
        out = _ShownBytes(v)
        out._text = f"x'{v.hex()}'"
        return out
    if name == "BITMAP" and isinstance(v, bytes):  # as the print sink: Bitmap.toString(), {1,2,3}
        out = _ShownBytes(v)
        out._text = bitmap.text(bitmap.from_bytes(v))
        return out
    if name == "ROW" and isinstance(v, dict):
        return {k: shown_value(x, ft, zone) for (k, x), ft in zip(v.items(), t.children)}
    if name == "ARRAY" and isinstance(v, list):
        return [shown_value(x, t.children[0], zone) for x in v]
    if name == "MULTISET" and isinstance(v, list):  # as its MAP of element to count
        return shown_value(v, t.counted(), zone)
    if name == "MAP" and isinstance(v, list):
        kt, vt = t.children
        return [(shown_value(k, kt, zone), shown_value(x, vt, zone)) for k, x in v]
    return v


def shown_changelog(rows: Iterable[tuple[RowKind, tuple]], types: Sequence[SqlType] | None,
                    zone: str | None) -> Iterator[tuple[RowKind, tuple]]:
    """A query's ``(kind, row)`` pairs with each value made to print as Flink's SQL client prints it.

    Args:
        rows: the changelog (``TableResult.collect()``).
        types: the column types (``TableResult.column_types``); None or empty: rows as they are.
        zone: ``'table.local-time-zone'``, for TIMESTAMP_LTZ values (None: UTC).
    """
    if not types:
        yield from rows
        return
    tz = zoneinfo.ZoneInfo(zone or "UTC")
    for kind, row in rows:
        yield kind, tuple(shown_value(v, t, tz) for v, t in zip(row, types))


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


def counted(n: int, noun: str) -> str:
    """``n`` with a plural noun made singular for one: ``1 row``, ``2 rows``, ``0 rows``."""
    return f"{n} {noun[:-1] if n == 1 and noun.endswith('s') else noun}"


def print_result(result: TableResult, out: TextIO) -> None:
    """Print a statement's result: messages, rows, a query's changelog, EXPLAIN text.

    A query's changelog is printed once the query ends (the table's widths need every row). A
    KeyboardInterrupt while an unbounded query runs prints the rows received until then, with
    ``Query terminated, received a total of N rows`` as the shell says, and is raised again.
    (``streamsql run`` and ``shell -f`` print a query's rows as they arrive instead, as Flink's
    SQL client ``-f``: ``streamsql.shell.script_query``.)
    """
    if result.kind == "rows" and not result.rows:
        out.write("Empty set\n")  # as Flink's SQL client, and our shell
    elif result.kind == "rows":
        out.write(tableau(result.columns, result.rows) + f"\n{counted(len(result.rows), 'rows')} in set\n")
    elif result.kind == "text":
        out.write(result.message + "\n")
    elif result.kind == "query":
        rows: list[tuple] = []
        try:
            for k, r in shown_changelog(result.collect(), result.column_types, result.time_zone):
                rows.append((k.short,) + r)
        except KeyboardInterrupt:
            # Ctrl-C (or SIGTERM) ends an unbounded query: show what it received, as the shell does,
            # instead of dropping it; the caller then cancels the jobs
            total = counted(len(rows), "rows")
            out.write(tableau(result.columns, rows, with_op=True)
                      + f"\nQuery terminated, received a total of {total}\n")
            out.flush()
            raise
        total = counted(len(rows), "rows")
        out.write(tableau(result.columns, rows, with_op=True) + f"\nReceived a total of {total}\n")
    elif result.message:
        out.write(result.message + "\n")
    out.flush()
