"""Flink 2.3's answers to the random queries of :mod:`tests.runtime.query_fuzz`: the fixture's format.

``scripts/flink_queryfuzz.py`` (PyFlink, streaming mode) writes them and
``tests/runtime/test_query_fuzz_flink.py`` replays them on StreamSQL. This module imports nothing of
the engine nor DuckDB (the Flink venv has neither): the script imports it by path.

The fixture (:data:`FIXTURE`) is one JSON document::

    {"generated_by", "flink", "config", "data": {table: sha256 of its file},
     "cases": [{"seed", "shape", "source", "query",
                "columns": [name, ...], "types": [Flink's type text, ...],
                "rows": [[cell, ...], ...]}          # the folded changelog, sorted (a multiset)
               | {"seed", ..., "refused": Flink's planning error}
               | {"seed", ..., "types", "error": Flink's job failure}
               | {"seed", ..., "skipped": why (no answer from Flink: left out of the replay)}]}

A case may also hold ``"text": [column indices]``: PyFlink could not hand those columns' values over,
so its rows are those of :func:`text_query` (the columns cast to STRING), replayed alike.

A cell is :func:`cell` of the value: JSON's null, booleans, integers and strings as they are, a
DOUBLE/FLOAT as ``{"f": repr}`` (``'nan'``, ``'inf'`` too), a DECIMAL as ``{"dec": str}`` (its
scale kept: ``12.50``), a date or time as ``{"t": ISO text}``, bytes as ``{"hex": ...}``, and a
ROW / ARRAY / MAP as a list (a map of ``[key, value]`` pairs, sorted).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from decimal import Decimal
from pathlib import Path

FIXTURE = Path(__file__).with_name("query_fuzz_flink.json")
#: Flink's session: UTC (no conversions hidden in TIMESTAMP_LTZ), one task (the order of a
#: changelog is then the input's, as one StreamSQL task reads it).
CONFIG = {"table.local-time-zone": "UTC", "parallelism.default": "1"}


def cell(v):
    """The JSON form of one value of a result row (see the module docstring)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return {"f": repr(v)}
    if isinstance(v, Decimal):
        return {"dec": str(v)}
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return {"t": v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v.isoformat()}
    if isinstance(v, (bytes, bytearray)):
        return {"hex": bytes(v).hex()}
    if isinstance(v, dict):
        return sorted(([cell(k), cell(x)] for k, x in v.items()), key=json.dumps)
    if isinstance(v, (list, tuple)):
        return [cell(x) for x in v]
    # a PyFlink Row or another sequence-like value
    return [cell(x) for x in list(v)]


def row_key(row: list) -> str:
    """A row's text, for sorting and counting rows."""
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def fold(changes, key: list[int] | None = None) -> list[list]:
    """``(kind, cells)`` pairs (kind ``'+I' '-U' '+U' '-D'``) folded into the final rows, sorted.

    Without ``key`` the changelog is a retract stream: a ``+U`` adds its row, a ``-U``/``-D``
    takes one copy away. With ``key`` (column indices: the query's upsert key) it is an upsert
    stream, as Flink emits when no consumer needs the ``-U`` (a Top-1's ``+U`` without ``-U``): a
    ``+I``/``+U`` replaces the row holding its key, a ``-U``/``-D`` removes it.

    Raises:
        ValueError: a retraction of a row (or key) that is not in the result.
    """
    if key is not None:
        by_key: dict[str, list] = {}
        for n, (kind, r) in enumerate(changes):
            k = row_key([r[i] for i in key])
            if kind in ("+I", "+U"):
                by_key[k] = r
            elif by_key.pop(k, None) is None:
                msg = f"change #{n}: {kind}{row_key(r)} retracts a key that is not in the result"
                raise ValueError(msg)
        return sorted(by_key.values(), key=row_key)
    state: dict[str, int] = {}
    rows: dict[str, list] = {}
    for n, (kind, r) in enumerate(changes):
        key_text = row_key(r)
        if kind in ("+I", "+U"):
            state[key_text] = state.get(key_text, 0) + 1
            rows[key_text] = r
        else:
            if state.get(key_text, 0) <= 0:
                msg = f"change #{n}: {kind}{key_text} retracts a row that is not in the result"
                raise ValueError(msg)
            state[key_text] -= 1
    return [rows[k] for k in sorted(state) for _ in range(state[k])]


def upsert_only(changes) -> bool:
    """The changelog updates rows (``+U``) without retracting them first (no ``-U``): an upsert
    stream, to fold by its key (:func:`fold`)."""
    kinds = {kind for kind, _ in changes}
    return "+U" in kinds and "-U" not in kinds


def same_cell(ours, theirs) -> bool:
    """Two cells agree: exactly, but a DOUBLE/FLOAT within 1e-9 relative (sums add in another
    order), a NaN equal to a NaN."""
    if isinstance(ours, dict) and isinstance(theirs, dict) and "f" in ours and "f" in theirs:
        a, b = float(ours["f"]), float(theirs["f"])
        return (math.isnan(a) and math.isnan(b)) or a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(ours, list) and isinstance(theirs, list):
        return len(ours) == len(theirs) and all(same_cell(a, b) for a, b in zip(ours, theirs))
    return ours == theirs


def first_log_difference(ours, theirs) -> str | None:
    """Where changelog ``ours`` first departs from ``theirs`` (``[kind, cells]`` pairs, each in its
    engine's order; cells alike as :func:`same_cell`), or None: the same changes in the same order."""
    for n, ((ok, orow), (tk, trow)) in enumerate(zip(ours, theirs)):
        if ok != tk or not same_cell(list(orow), list(trow)):
            return (f"change #{n}: {ok}{row_key(list(orow))} here, {tk}{row_key(list(trow))} in Flink "
                    f"(of {len(ours)} here, {len(theirs)} in Flink)")
    if len(ours) != len(theirs):
        same = min(len(ours), len(theirs))
        return f"{len(ours)} changes here, {len(theirs)} in Flink (the first {same} alike)"
    return None


def unseen_states(ours, theirs) -> list[list]:
    """The rows changelog ``ours`` inserts (``+I`` / ``+U``) that ``theirs`` never inserts.

    Flink's GROUP BY without mini-batch emits the state of a key after every input row; an engine
    that folds a batch before it emits skips some of those states but never shows one Flink did not
    have, so over the same input order every row it inserts is one Flink inserted (cells alike as
    :func:`same_cell`)."""
    seen = {row_key(list(r)) for kind, r in theirs if kind in ("+I", "+U")}
    loose = [list(r) for kind, r in theirs if kind in ("+I", "+U")]
    out = []
    for kind, r in ours:
        if kind not in ("+I", "+U") or row_key(list(r)) in seen:
            continue
        if not any(same_cell(list(r), t) for t in loose):
            out.append(list(r))
    return out


def load(path: Path = FIXTURE) -> dict:
    """The fixture document."""
    return json.loads(path.read_text(encoding="utf-8"))


#: Type names whose values PyFlink's collect may fail to hand over (an ARRAY with a NULL element:
#: "Ran out of input"; a TIME: a pickling error): such columns are recorded as Flink's text.
AS_TEXT = re.compile(r"^(ARRAY|MAP|ROW|MULTISET|TIME\b)")


def text_columns(types: list[str]) -> list[int]:
    """The result columns (indices) of Flink ``types`` that :data:`AS_TEXT` names."""
    return [i for i, t in enumerate(types) if AS_TEXT.match(t)]


def text_query(query: str, columns: list[str], text: list[int]) -> str:
    """``query`` with its columns ``text`` cast to STRING (the others as they are), in order.

    A case recorded with ``"text": [...]`` holds the rows of this query: Flink's CAST(... AS STRING)
    of the nested or TIME values, which the replay computes the same way.
    """
    def col(i: int, name: str) -> str:
        quoted = "`" + name.replace("`", "``") + "`"
        return f"CAST({quoted} AS STRING) AS {quoted}" if i in text else quoted

    return f"SELECT {', '.join(col(i, n) for i, n in enumerate(columns))} FROM ({query})"
