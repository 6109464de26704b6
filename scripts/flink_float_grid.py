"""Record Apache Flink 2.3's aggregates over -0.0, 0.0, NaN, the infinities and NULL in every aggregate path.

A grid: the value groups of :data:`GROUPS` (DOUBLE ``d``, the same value as FLOAT ``f`` and as
DECIMAL(10, 2) ``m``; a NaN or an infinity is a finite DECIMAL there) through each call set of
:data:`SETS` (SUM, SUM0 as ``COALESCE(SUM(x), 0)``, AVG, MIN, MAX, FILTER forms; VAR_POP / VAR_SAMP /
STDDEV_* with SUM and AVG beside them, which Flink's AggregateReduceFunctionsRule rewrites;
COUNT / SUM(DISTINCT); FIRST_VALUE / LAST_VALUE) in each path of :data:`PATHS`: GROUP BY plain,
mini-batch, two-phase and with the distinct split; an aggregate over a GROUP BY's retracting
output (table ``u``: each ``id`` first holds -0.0 or NaN, then its value, so those are retracted);
window TVFs TUMBLE, HOP, CUMULATE, SESSION (and TUMBLE / HOP two-phase); the legacy
``GROUP BY TUMBLE(...)``; OVER ROWS and RANGE frames. Each call is selected as ``CAST(... AS
STRING)``, Java's text (``-0.0``, ``NaN``, ``Infinity``): PyFlink's ``collect`` cannot read a raw
NaN or infinity back (its ``ast.literal_eval`` fails on ``NaN``), so each set's ``raw_query`` (the
calls as they are) is recorded for the test to run here, its values compared with that text.

Rows are read from one file by one task in ``ts`` order (each group ``g``'s rows at ``10 * g``,
``+2``, ``+4``, ``+6`` seconds: a TUMBLE / SESSION window per group, HOP and CUMULATE windows of
one or two 5-second slices). Writes ``tests/functions/float_grid_flink.json`` (per path, per call
set, the query, its raw form and the rows Flink collected ``[kind, cell, ...]`` or its error), which
``tests/functions/test_float_grid.py`` replays. Name paths to rerun only those (the others are
kept; run in two halves, each within one hold of the lock)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_float_grid.py [PATH ...]
"""

from __future__ import annotations

import decimal
import json
import math
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, collect, error_text, table_env

OUT = ROOT / "tests" / "functions" / "float_grid_flink.json"
NAN, INF = math.nan, math.inf
#: Per group ``g`` its values in arrival order.
GROUPS = {1: [-0.0], 2: [0.0], 3: [-0.0, 0.0], 4: [0.0, -0.0], 5: [-0.0, -0.0], 6: [NAN],
          7: [1.0, NAN, -1.0], 8: [INF, -INF], 9: [INF, 1.0], 10: [None], 11: [-0.0, None],
          12: [None, -0.0, 2.0, -2.0], 13: [-INF, NAN, INF]}
#: A DECIMAL(10, 2) cannot hold NaN or an infinity: these stand for them in ``m``.
_DECIMAL = {"NaN": 1.5, "Infinity": 99999999.99, "-Infinity": -99999999.99}
TABLES = {"t": "id INT, g INT, b BOOLEAN, d DOUBLE, f FLOAT, m DECIMAL(10, 2), ts TIMESTAMP(3), "
               "WATERMARK FOR ts AS ts",
          "u": "id INT, g INT, b BOOLEAN, d DOUBLE, f FLOAT, m DECIMAL(10, 2)"}
COLUMNS = ("d", "f", "m")


def _num(v):
    """A DOUBLE as the JSON format reads it: NaN and the infinities as strings (Java's parseDouble)."""
    if v is None or math.isfinite(v):
        return v
    return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")


def _row(i: int, g: int, v, ts: str | None) -> dict:
    """Row ``i`` of group ``g`` with value ``v`` in ``d``, ``f`` and ``m``; ``b`` is TRUE on odd ids."""
    m = None if v is None else _DECIMAL.get(_num(v), v)
    out = {"id": i, "g": g, "b": i % 2 == 1, "d": _num(v), "f": _num(v), "m": m}
    return out if ts is None else {**out, "ts": ts}


def rows() -> dict[str, list[dict]]:
    """Table ``t``'s rows (by ``ts``) and table ``u``'s (each id first with -0.0 or NaN, then its value)."""
    t, u, i = [], [], 0
    for g, values in GROUPS.items():
        for j, v in enumerate(values):
            i += 1
            s = 10 * g + 2 * j
            t.append(_row(i, g, v, f"2024-01-01 00:{s // 60:02d}:{s % 60:02d}"))
            u.append(_row(i, g, -0.0 if i % 2 else NAN, None))
            u.append(_row(i, g, v, None))
    return {"t": t, "u": u}


def _calls(c: str) -> dict[str, list[str]]:
    """Per call set, its calls of column ``c``."""
    return {"sums": [f"SUM({c})", f"COALESCE(SUM({c}), 0)", f"AVG({c})", f"MIN({c})", f"MAX({c})",
                     f"SUM({c}) FILTER (WHERE b)", f"AVG({c}) FILTER (WHERE b)",
                     f"MIN({c}) FILTER (WHERE b)"],
            "variance": [f"SUM({c})", f"AVG({c})", f"VAR_POP({c})", f"VAR_SAMP({c})", f"STDDEV_POP({c})",
                         f"STDDEV_SAMP({c})", f"SUM({c}) FILTER (WHERE b)", f"AVG({c}) FILTER (WHERE b)"],
            "distinct": [f"COUNT(DISTINCT {c})", f"SUM(DISTINCT {c})", f"SUM(DISTINCT {c}) FILTER (WHERE b)"],
            "first_last": [f"FIRST_VALUE({c})", f"LAST_VALUE({c})"]}


SETS = tuple(_calls("d"))


def items(call_set: str, over: str | None = None, raw: bool = False) -> str:
    """The select items of ``call_set`` over every column: each call as STRING (``raw``: as it is)."""
    calls = [c for col in COLUMNS for c in _calls(col)[call_set]]
    if over is not None:
        # FILTER is not allowed in an OVER call: those are left out
        calls = [c.replace(")", f") OVER {over}", 1) for c in calls if "FILTER" not in c]
    return ", ".join(calls if raw else (f"CAST({c} AS STRING)" for c in calls))


_MB = {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "1 s",
       "table.exec.mini-batch.size": "100"}
_TWO = {**_MB, "table.optimizer.agg-phase-strategy": "TWO_PHASE"}
_TVF = {"tumble": "TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
        "hop": "HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)",
        "cumulate": "CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)",
        "session": "SESSION(TABLE t PARTITION BY g, DESCRIPTOR(ts), INTERVAL '3' SECOND)"}
_FRAMES = {"over_rows": "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
           "over_rows_bounded": "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW",
           "over_range": "RANGE BETWEEN INTERVAL '3' SECOND PRECEDING AND CURRENT ROW"}
_UPDATING = ("(SELECT id, g, b, LAST_VALUE(d) AS d, LAST_VALUE(f) AS f, LAST_VALUE(m) AS m FROM u "
             "GROUP BY id, g, b)")


def _group(call_set: str, raw: bool, source: str = "t") -> str:
    return f"SELECT g, {items(call_set, raw=raw)} FROM {source} GROUP BY g"


def _window(kind: str, call_set: str, raw: bool) -> str:
    return (f"SELECT g, CAST(window_start AS STRING), {items(call_set, raw=raw)} FROM TABLE({_TVF[kind]}) "
            "GROUP BY g, window_start, window_end")


def _over(frame: str, call_set: str, raw: bool) -> str:
    return f"SELECT id, {items(call_set, f'(PARTITION BY g ORDER BY ts {_FRAMES[frame]})', raw)} FROM t"


def _legacy(call_set: str, raw: bool) -> str:
    return (f"SELECT g, CAST(TUMBLE_START(ts, INTERVAL '10' SECOND) AS STRING), {items(call_set, raw=raw)} "
            "FROM t GROUP BY g, TUMBLE(ts, INTERVAL '10' SECOND)")


#: Per path: its settings and its query of a call set (``raw``: the calls as they are, not as STRING).
PATHS = {
    "group": ({}, _group),
    "group_minibatch": (_MB, _group),
    "group_two_phase": (_TWO, _group),
    "group_distinct_split": ({"table.optimizer.distinct-agg.split.enabled": "true"}, _group),
    "group_updating": ({}, lambda s, raw: _group(s, raw, _UPDATING)),
    **{kind: ({}, lambda s, raw, k=kind: _window(k, s, raw)) for kind in _TVF},
    "tumble_two_phase": (_TWO, lambda s, raw: _window("tumble", s, raw)),
    "hop_two_phase": (_TWO, lambda s, raw: _window("hop", s, raw)),
    "legacy_tumble": ({}, lambda s, raw: _legacy(s, raw)),
    **{frame: ({}, lambda s, raw, f=frame: _over(f, s, raw)) for frame in _FRAMES},
}


def cell(v):
    """A collected cell as JSON keeps it: a float as is (``-0.0``, ``NaN``), a DECIMAL as its text."""
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v if v is None or isinstance(v, (bool, int, float, str)) else str(v)


def main(names: list[str]) -> int:
    """Run the paths ``names`` (default: all) over every call set, merge their answers into :data:`OUT`."""
    data = rows()
    old = json.loads(OUT.read_text())["paths"] if OUT.exists() else {}
    out: dict = {"tables": TABLES, "rows": data, "paths": {p: old[p] for p in PATHS if p in old}}
    with tempfile.TemporaryDirectory() as tmp:
        for path_name in names or list(PATHS):
            settings, query = PATHS[path_name]
            t = table_env(utc=True)
            for key, value in settings.items():
                t.get_config().set(key, value)
            for name, columns in TABLES.items():
                path = Path(tmp) / f"{name}.json"
                path.write_text("".join(json.dumps(r) + "\n" for r in data[name]))
                t.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                              f"'path' = '{path}', 'format' = 'json')")
            answers = {"settings": settings, "sets": {}}
            for call_set in SETS:
                q = query(call_set, False)
                answer = answers["sets"][call_set] = {"query": q, "raw_query": query(call_set, True)}
                try:
                    answer["rows"] = [[cell(v) for v in r] for r in collect(t, q, kinds=True)]
                except Exception as e:  # noqa: BLE001 - Flink's refusal or job failure is the answer
                    answer["error"] = error_text(e)
            out["paths"][path_name] = answers
            out["paths"] = {p: out["paths"][p] for p in PATHS if p in out["paths"]}
            OUT.write_text(json.dumps(out, indent=1) + "\n")
            print(path_name, "done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
