"""Record Apache Flink 2.3's answers for session 33's small function gaps.

``variance``: VAR_POP / VAR_SAMP / STDDEV_POP / STDDEV_SAMP with DISTINCT over insert-only rows,
over a changelog (an inner GROUP BY's updates retract values) and in window TVFs; ``typeof``:
TYPEOF of the BITMAP functions; ``to_timestamp``: TO_TIMESTAMP[_LTZ] of an hour 24 read by
``H`` / ``HH``; ``collect``: COLLECT's MULTISET in a ``print`` sink, in ``TableResult.print()``
(the tableau the SQL shell shows) and a MULTISET column in DDL.

Each script runs in a fresh streaming TableEnvironment (session zone UTC, parallelism 1),
statement by statement, as ``scripts/flink_bitmap.py`` runs its own (its ``_run``: rows with
their kinds, the ``print`` sink's lines for an INSERT INTO ``p``, or Flink's error); a statement
led by ``PRINT `` is run with ``TableResult.print()`` and its lines recorded (``"tableau"``).
Writes ``tests/functions/funcs33_flink.json``, which ``tests/functions/test_funcs33.py`` replays::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_funcs33.py [SCRIPT ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "functions" / "funcs33_flink.json"
sys.path.insert(0, str(ROOT / "scripts"))
from flink_bitmap import T, _error, _run  # noqa: E402  (the same runner and source)
from flink_compat import Capture  # noqa: E402  (the JVM's stdout)
from flink_session import record_scripts  # noqa: E402

VARIANCE = ("VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP")


def _calls(arg: str) -> str:
    """The four calls of the family with DISTINCT over ``arg``, each CAST to STRING."""
    return ", ".join(f"CAST({f}(DISTINCT {arg}) AS STRING)" for f in VARIANCE)


# insert-only rows with repeated values (a repeat changes the plain call's answer, not DISTINCT's)
INSERTS = ("CREATE TEMPORARY VIEW i AS SELECT * FROM (VALUES "
     "('A', 1, 1.5, CAST(1.25 AS DECIMAL(10, 2))), ('A', 2, 2.5, CAST(2.50 AS DECIMAL(10, 2))), "
     "('A', 2, 2.5, CAST(2.50 AS DECIMAL(10, 2))), ('A', 7, 0.1, CAST(-3.75 AS DECIMAL(10, 2))), "
     "('A', 1, 1.5, CAST(1.25 AS DECIMAL(10, 2))), ('B', 4, 4.0, CAST(4.00 AS DECIMAL(10, 2))), "
     "('B', 4, 4.0, CAST(4.00 AS DECIMAL(10, 2))), ('C', CAST(NULL AS INT), CAST(NULL AS DOUBLE), "
     "CAST(NULL AS DECIMAL(10, 2))), ('C', 9, 0.3, CAST(0.30 AS DECIMAL(10, 2)))) AS v(g, x, d, m)")
# a changelog: each (g, s)'s SUM is updated, retracting its earlier value from the outer GROUP BY
U = ("CREATE TEMPORARY VIEW u AS SELECT g, s, SUM(x) AS x, SUM(d) AS d FROM (VALUES "
     "('A', 'p', 1, 0.1), ('A', 'q', 1, 0.1), ('A', 'r', 5, 0.7), ('A', 'p', 2, 0.2), "
     "('A', 'q', 3, 1.1), ('B', 's', 6, 2.5), ('B', 't', 6, 2.5), ('B', 's', -6, -2.5), "
     "('A', 'r', -5, -0.7)) AS v(g, s, x, d) GROUP BY g, s")
_TUMBLE = "TABLE(TUMBLE(TABLE tsrc, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
_HOP = "TABLE(HOP(TABLE tsrc, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))"

BITMAPS = ("BITMAP_BUILD(ARRAY[1, 2])", "BITMAP_BUILD(a)",
           "BITMAP_CARDINALITY(BITMAP_BUILD(ARRAY[1, 2]))", "BITMAP_CARDINALITY(BITMAP_BUILD(a))",
           "BITMAP_AND(BITMAP_BUILD(ARRAY[1]), BITMAP_BUILD(ARRAY[2]))",
           "BITMAP_AND(BITMAP_BUILD(ARRAY[1]), BITMAP_BUILD(a))",
           "BITMAP_ANDNOT(BITMAP_BUILD(ARRAY[1]), BITMAP_BUILD(ARRAY[2]))",
           "BITMAP_OR(BITMAP_BUILD(a), BITMAP_BUILD(ARRAY[2]))",
           "BITMAP_XOR(BITMAP_BUILD(ARRAY[1]), BITMAP_BUILD(ARRAY[2]))",
           "BITMAP_TO_BYTES(BITMAP_BUILD(ARRAY[1, 2]))", "BITMAP_TO_BYTES(BITMAP_BUILD(a))",
           "BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[1, 2]))", "BITMAP_TO_STRING(BITMAP_BUILD(a))",
           "BITMAP_TO_ARRAY(BITMAP_BUILD(ARRAY[1, 2]))", "BITMAP_TO_ARRAY(BITMAP_BUILD(a))",
           "BITMAP_FROM_BYTES(b)", "BITMAP_FROM_BYTES(BITMAP_TO_BYTES(BITMAP_BUILD(ARRAY[1, 2])))")
BSRC = ("CREATE TABLE bsrc (k STRING, a ARRAY<INT>, b BYTES) WITH ('connector' = 'filesystem', "
        "'path' = '${DIR}/tsrc.json', 'format' = 'json')")

STAMPS = (("2024-01-01 24:00", "yyyy-MM-dd HH:mm"), ("2024-01-01 24:00", "yyyy-MM-dd H:mm"),
          ("2024-12-31 24:00:00", "yyyy-MM-dd HH:mm:ss"),
          ("2024-02-28 24:00:00.000", "yyyy-MM-dd HH:mm:ss.SSS"),
          ("2024-01-01 24:30", "yyyy-MM-dd HH:mm"), ("2024-01-01 24:00:01", "yyyy-MM-dd HH:mm:ss"),
          ("2024-01-01 24", "yyyy-MM-dd HH"), ("2024-01-01 25:00", "yyyy-MM-dd HH:mm"),
          ("2024-01-01 23:00", "yyyy-MM-dd H:mm"), ("2024-01-01 24:00", "yyyy-MM-dd kk:mm"))

SCRIPTS = {
    "variance": [
        INSERTS, U, T,
        f"SELECT g, {_calls('x')} FROM i GROUP BY g",
        f"SELECT g, {_calls('d')}, {_calls('m')} FROM i GROUP BY g",
        f"SELECT {_calls('x')} FROM i",
        f"SELECT g, {_calls('x')}, {_calls('d')} FROM u GROUP BY g",
        f"SELECT k, {_calls('i')} FROM {_TUMBLE} GROUP BY k, window_start, window_end",
        f"SELECT k, CAST(window_start AS STRING), {_calls('i')}, {_calls('CAST(i AS DOUBLE) / 4')} "
        f"FROM {_HOP} GROUP BY k, window_start, window_end",
        "SELECT k, CAST(STDDEV_POP(DISTINCT i) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING "
        "AND CURRENT ROW) AS STRING) FROM tsrc",
    ],
    "typeof": [T, BSRC, *(f"SELECT TYPEOF({b}) FROM bsrc WHERE k = 'b'" for b in BITMAPS)],
    "to_timestamp": [
        *(f"SELECT CAST(TO_TIMESTAMP('{s}', '{f}') AS STRING), CAST(TO_TIMESTAMP_LTZ('{s}', '{f}') AS STRING)"
          for s, f in STAMPS),
    ],
    "collect": [
        T,
        "CREATE TABLE p (k STRING, ms MULTISET<INT>) WITH ('connector' = 'print')",
        "INSERT INTO p SELECT k, COLLECT(i) FROM tsrc GROUP BY k",
        "PRINT SELECT k, COLLECT(i) AS ms FROM tsrc GROUP BY k",
        "SELECT k, CAST(COLLECT(i) AS STRING) FROM tsrc GROUP BY k",
        "CREATE TABLE mtab (k STRING, m MULTISET<STRING>) WITH ('connector' = 'filesystem', "
        "'path' = '${DIR}/mtab.json', 'format' = 'json')",
        "SELECT k, CAST(m AS STRING), CARDINALITY(m) FROM mtab",
        "PRINT SELECT k, m FROM mtab",
    ],
}
MTAB_ROWS = ['{"k": "a", "m": {"x": 2, "y": 1}}', '{"k": "b", "m": {}}', '{"k": "c", "m": null}']


def _script(factory, statements: list[str], folder: Path, capture: Capture) -> list[dict]:
    """``_run``'s answers, a ``PRINT`` statement's tableau lines in between (in order)."""
    (folder / "mtab.json").write_text("\n".join(MTAB_ROWS) + "\n")
    tenv = factory()
    out: list[dict] = []
    batch: list[str] = []

    def flush():
        if batch:
            out.extend(_run(lambda: tenv, list(batch), folder, capture))
            batch.clear()

    for st in statements:
        if not st.startswith("PRINT "):
            batch.append(st)
            continue
        flush()
        try:
            mark = capture.mark()
            tenv.execute_sql(st.removeprefix("PRINT ").replace("${DIR}", str(folder))).print()
            out.append({"sql": st, "tableau": capture.since(mark)})
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer
            out.append({"sql": st, "error": _error(e)})
    flush()
    return out


def main(argv: list[str]) -> None:
    """Run the named scripts (default: all) and write their answers to :data:`OUT`."""
    record_scripts(OUT, SCRIPTS, argv, _script, Capture(), label="flink_funcs33")


if __name__ == "__main__":
    main(sys.argv[1:])
