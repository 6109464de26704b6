"""Final tables of the Nexmark queries, summarized the same way for Flink and for StreamSQL.

Standard library only (the Flink venv imports it). A final table (the print sink's changelog
folded, cells as printed text) of at most :data:`FULL_ROWS` rows is kept whole; a larger one as
its row count, the SHA-256 of its sorted rows and its first rows, so that the committed
expectations stay small and a difference still shows.
"""

from __future__ import annotations

import hashlib
import json

from tests.compat.changelog import fold

FULL_ROWS = 40
SAMPLE_ROWS = 3
#: The bounded input the results are compared on: events, event-time rate (events/s; 10,000
#: events span 200 s, so the 2 s / 10 s windows fire many times) and a time base 2 minutes
#: before midnight (the DATE_FORMAT(..., 'yyyy-MM-dd') groups of q15-q17 see two days).
COMPARE = {"events": 10_000, "rate": 50, "base_time_ms": 1_767_225_480_000}  # 2025-12-31 23:58:00 UTC


def options_arg(parser, items: list[str]) -> dict[str, str]:
    """``--option KEY=VALUE`` arguments as a dict of nexmark connector options (else ``parser.error``)."""
    options = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            parser.error(f"--option {item!r}: expected KEY=VALUE (a nexmark connector option)")
        options[key.strip()] = value.strip()
    return options


#: Queries whose Flink plan sends an upsert changelog to the print sink, and its key columns:
#: q9's ``Rank(strategy=[AppendFastStrategy])`` (top-1 per auction over an insert-only join) emits
#: ``+I`` then only ``+U`` rows, without ``-U`` (the print sink accepts any changelog mode, so the
#: planner asks for updates after only, keyed by the partition key ``id``). Its final table is
#: then the last row per key, as an upsert sink keyed on ``id`` would hold.
UPSERT_KEYS = {"q9": ("id",)}


def fold_upsert(lines: list[str], columns: list[str], key: tuple[str, ...]) -> list[list[str | None]]:
    """The final table of an upsert changelog: per ``key``, the last ``+I``/``+U`` row (``-D`` drops it)."""
    at = [columns.index(k) for k in key]
    table: dict[tuple, list[str | None]] = {}
    for line in lines:
        line = line.strip()
        if line[:3] not in ("+I[", "+U[", "-U[", "-D["):
            continue
        row = fold(["+I" + line[2:]])[0]
        if line[0] == "+":
            table[tuple(row[i] for i in at)] = row
        else:
            table.pop(tuple(row[i] for i in at), None)
    return list(table.values())


def _sorted(rows: list[list[str | None]]) -> list[list[str | None]]:
    return sorted(rows, key=lambda r: json.dumps(r, ensure_ascii=False))


def window_totals(rows: list[list[str | None]]) -> dict:
    """q12's outcome that does not depend on the wall clock: bids per bidder summed over the windows.

    ``rows`` are q12's final rows ``[bidder, bid_count, starttime, endtime]`` (cells as printed),
    all its windows fired (an unbounded source left idle). Returns ``{"bids": total, "bidders":
    summary of (bidder, bids) rows, "violations": [...]}``: a violation is a window that is not 10 s
    long on a 10 s boundary, or a (bidder, window) counted twice.
    """
    import datetime as dt

    per: dict[str, int] = {}
    seen: set[tuple] = set()
    bad = []
    for bidder, count, start, end in rows:
        t0, t1 = dt.datetime.fromisoformat(start), dt.datetime.fromisoformat(end)
        if (t1 - t0).total_seconds() != 10 or t0.second % 10 or t0.microsecond:
            bad.append(f"window [{start}, {end})")
        if (bidder, start) in seen:
            bad.append(f"bidder {bidder} twice in [{start}, {end})")
        seen.add((bidder, start))
        per[bidder] = per.get(bidder, 0) + int(count)
    bidders = summary(["bidder", "bids"], [[b, str(n)] for b, n in per.items()])
    return {"bids": sum(per.values()), "bidders": bidders, "violations": bad[:5]}


def write_rows(path, columns: list[str], rows: list[list[str | None]]) -> None:
    """The whole final table, sorted as :func:`summary` sorts it: one JSON list per line after the columns."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(columns, ensure_ascii=False) + "\n")
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in _sorted(rows))


def file_summary(folder: str, columns: list[str], keys: list[str]) -> dict:
    """A filesystem sink's result: :func:`summary` of its committed rows, and its partitions.

    ``folder``: the table's path; ``columns``: its columns, the partition ``keys`` last (q10's).
    The rows are the committed part files' CSV records (cells as written) with the partition values
    of their folders; ``"partitions"`` lists each partition folder, ``"success"`` those holding a
    ``_SUCCESS`` file, ``"hidden"`` counts files still in progress (``.``-named).
    """
    import csv
    import os
    from urllib.parse import unquote

    rows: list[list[str | None]] = []
    partitions, success, hidden = [], [], 0
    for root, _dirs, files in os.walk(folder):
        rel = os.path.relpath(root, folder).replace(os.sep, "/")
        values = [unquote(c.partition("=")[2]) for c in rel.split("/")] if rel != "." else []
        if len(values) == len(keys) and keys:
            partitions.append(rel)
            if "_SUCCESS" in files:
                success.append(rel)
        for name in files:
            if name.startswith("."):
                hidden += 1
            elif not name.startswith("_"):
                with open(os.path.join(root, name), newline="", encoding="utf-8") as f:
                    rows.extend([*r, *values] for r in csv.reader(f))
    return {**summary(columns, rows), "partitions": sorted(partitions), "success": sorted(success),
            "hidden": hidden}


def summary(columns: list[str], rows: list[list[str | None]]) -> dict:
    """``{"columns", "count", "rows"}`` or, for a large table, ``{"columns", "count", "sha256", "first"}``."""
    rows = _sorted(rows)
    doc: dict = {"columns": columns, "count": len(rows)}
    if len(rows) <= FULL_ROWS:
        doc["rows"] = rows
    else:
        doc["sha256"] = hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()
        doc["first"] = rows[:SAMPLE_ROWS]
    return doc
