"""Record how Apache Flink 2.3 orders DOUBLE / FLOAT sort keys holding NaN, -0.0, 0.0, +-Infinity, NULL.

Flink's generated sort-key comparators (``ComparatorCodeGenerator`` over
``GenerateUtils.generateCompare``) compare FLOAT and DOUBLE as Java primitives, ``l > r ? 1 : l < r
? -1 : 0``: -0.0 ties 0.0, and NaN ties every number — not a total order, so where a NaN lands
depends on which rows it met (the arrival order and the sorted map's shape). This script runs the
same queries over the same rows in several arrival orders (:data:`ORDERS`) and records each answer.

Rows: ``id`` 1..n with ``s`` the text of a value (:data:`VALUES`), ``v AS CAST(s AS DOUBLE)``, ``r
AS CAST(s AS FLOAT)``, one partition ``k``, and a rowtime ``ts`` (all rows in one minute, one row
a second in arrival order; the watermark ``ts``; the temporal sort's rows share one rowtime, source
``t_same``, its watermark a second behind). Sources ``*_nonan`` leave the NaN row out. The file is
read by one task, in order.

Writes ``tests/runtime/sort_keys_flink.json``: ``{"values": ..., "orders": {name: [id, ...]},
"cases": {case: {"query", "source", "runs": {order: changelog or {"error"}}}}}``; a changelog is
``[[kind, cell, ...], ...]`` in Flink's order, a DOUBLE cell as its text (``CAST(... AS STRING)``
in the query). ``tests/runtime/test_sort_keys_flink.py`` compares StreamSQL with it::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_sort_keys.py [CASE ...]
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, collect, error_text, table_env

OUT = ROOT / "tests" / "runtime" / "sort_keys_flink.json"

#: id -> the text of its value (None: NULL).
VALUES = {1: "NaN", 2: "-0.0", 3: "0.0", 4: "Infinity", 5: "-Infinity", 6: None, 7: "1.0", 8: "-1.0"}


def _orders() -> dict[str, list[int]]:
    ids = list(VALUES)
    rng = random.Random(36)
    out = {"ids": ids, "reversed": ids[::-1], "nan_last": [*ids[1:], 1],
           "zero_first": [3, 2, *[i for i in ids if i not in (2, 3)]]}
    for n in range(4):
        shuffled = ids[:]
        rng.shuffle(shuffled)
        out[f"shuffle{n}"] = shuffled
    return out


ORDERS = _orders()
#: the same rows without NaN: -0.0 and 0.0 tie, a total preorder (the answer is arrival order's)
NO_NAN = {name: [i for i in ids if i != 1] for name, ids in ORDERS.items()}

COLUMNS = "id INT, k INT, s STRING, ts TIMESTAMP(3)"
DERIVED = "v AS CAST(s AS DOUBLE), r AS CAST(s AS FLOAT), WATERMARK FOR ts AS ts"
#: the temporal sort's rows share one rowtime: a watermark behind it, so that none of them is late
DERIVED_SAME = "v AS CAST(s AS DOUBLE), r AS CAST(s AS FLOAT), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"


def _ranked(order: str, n: int, col: str = "v", rn: bool = True, fn: str = "ROW_NUMBER") -> str:
    cols = "id, s, rn" if rn else "id, s"
    return (f"SELECT {cols} FROM (SELECT id, s, {fn}() OVER (PARTITION BY k ORDER BY {col} {order}) AS rn "
            f"FROM t) WHERE rn <= {n}")


def _window_topn(order: str, n: int, col: str = "v") -> str:
    return (f"SELECT id, s, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end "
            f"ORDER BY {col} {order}) AS rn FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)))"
            f" WHERE rn <= {n}")


def _over(frame: str) -> str:
    return ("SELECT id, s, COUNT(*) OVER w AS c, SUM(id) OVER w AS si FROM t WINDOW w AS (PARTITION BY k "
            f"ORDER BY v {frame} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)")


def _cases() -> dict[str, dict]:
    cases = {
        "topn_rn_asc_8": _ranked("ASC", 8),
        "topn_rank_asc_8": _ranked("ASC", 8, fn="RANK"),
        "topn_norn_asc_3": _ranked("ASC", 3, rn=False),
        "topn_norn_desc_3": _ranked("DESC", 3, rn=False),
        "topn_norn_asc_nulls_last_8": _ranked("ASC NULLS LAST", 8, rn=False),
        "topn_norn_float_desc_3": _ranked("DESC", 3, col="r", rn=False),
        "window_topn_asc_8": _window_topn("ASC", 8),
        "window_topn_desc_3": _window_topn("DESC", 3),
        "window_topn_asc_nulls_last_3": _window_topn("ASC NULLS LAST", 3),
        "window_topn_float_asc_8": _window_topn("ASC", 8, "r"),
        "over_rows": _over("ROWS"),
        "over_range": _over("RANGE"),
        "temporal_sort": "SELECT id, s FROM t ORDER BY ts, v",
        "temporal_sort_desc": "SELECT id, s FROM t ORDER BY ts, v DESC",
        "temporal_sort_nulls_last": "SELECT id, s FROM t ORDER BY ts, v NULLS LAST",
    }
    out = {}
    for name, query in cases.items():
        same = "_same" if name.startswith("temporal_sort") else ""  # rows of one rowtime: sorted by v
        out[name] = {"query": query, "source": f"t{same}"}
        out[f"{name}_nonan"] = {"query": query, "source": f"t{same}_nonan"}
    return out


CASES = _cases()


def rows_for(ids: list[int], same: bool = False) -> list[dict]:
    """The records of ``ids`` in that order, a second apart from 2024-01-01 00:00:00 (``same``: all then)."""
    return [{"id": i, "k": 1, "s": VALUES[i], "ts": f"2024-01-01 00:00:{0 if same else n:02d}"}
            for n, i in enumerate(ids)]


def run(names: list[str]) -> dict:
    """Run the cases ``names`` (all when empty) over every order; the cases' records."""
    chosen = names or list(CASES)
    t = table_env(utc=True)
    runs: dict[str, dict] = {name: {} for name in chosen}
    with tempfile.TemporaryDirectory() as tmp:
        for oname, ids in ORDERS.items():
            for src, order in (("t", ids), ("t_nonan", NO_NAN[oname]), ("t_same", ids),
                               ("t_same_nonan", NO_NAN[oname])):
                if not any(CASES[name]["source"] == src for name in chosen):
                    continue
                path = Path(tmp) / f"{src}_{oname}.json"
                path.write_text("".join(json.dumps(r) + "\n" for r in rows_for(order, "same" in src)))
                t.execute_sql("DROP TABLE IF EXISTS t")
                derived = DERIVED_SAME if "same" in src else DERIVED
                t.execute_sql(f"CREATE TABLE t ({COLUMNS}, {derived}) WITH ('connector' = 'filesystem', "
                              f"'path' = '{path}', 'format' = 'json')")
                for name in chosen:
                    if CASES[name]["source"] != src:
                        continue
                    try:
                        runs[name][oname] = collect(t, CASES[name]["query"], kinds=True)
                    except Exception as e:  # noqa: BLE001 - Flink's refusal or job failure is the answer
                        runs[name][oname] = {"error": error_text(e)}
            print(oname, "done", flush=True)
    return {name: {**CASES[name], "runs": runs[name]} for name in chosen}


def main() -> int:
    """Record the cases named on the command line (all when none), keep the others', write :data:`OUT`."""
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    cases = {**old.get("cases", {}), **run(sys.argv[1:])}
    OUT.write_text(json.dumps({"values": {str(k): v for k, v in VALUES.items()}, "orders": ORDERS,
                               "cases": {k: cases[k] for k in CASES if k in cases}}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
