"""Record Apache Flink 2.3's answers about the BITMAP type and its 18 functions.

Each script of ``SCRIPTS`` runs in a fresh streaming TableEnvironment (session zone UTC,
parallelism 1), statement by statement. A query's rows are recorded with their row kinds
(``["+I", "1", "{1,2}"]``: the kind, then each value as text: ``None`` for NULL, a ``BYTES`` value
as ``x'0a0b'`` lowercase hex); an ``INSERT`` waits for its job and records the lines Flink's
``print`` sink wrote (``print``) or the files a ``filesystem`` sink wrote under ``${DIR}``
(``files``). An error is recorded as Flink's own message (``flink_compat._error_text``). The
answers go to ``tests/functions/bitmap_flink.json``, which ``tests/functions/test_bitmap.py``
compares StreamSQL's with. Regenerate::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_bitmap.py [SCRIPT ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "functions" / "bitmap_flink.json"
sys.path.insert(0, str(ROOT / "scripts"))
from flink_compat import Capture, _error_text  # noqa: E402  (the JVM's stdout; Flink's own message)
from flink_session import record_scripts  # noqa: E402

from tests.functions.bitmap_oracle import TSRC_ROWS, collected_text  # noqa: E402  (flink_compat's path)

# Bitmaps computed in a projection: Flink 2.3 fails on BITMAP_BUILD inside VALUES rows (``VALUES_B``).
B = ("CREATE TEMPORARY VIEW b AS SELECT k, BITMAP_BUILD(a) AS x, BITMAP_BUILD(c) AS y FROM (VALUES "
     "(1, ARRAY[1, 2, 3], ARRAY[2, 3, 4]), "
     "(2, ARRAY[-1, 0, 1], ARRAY[-1, -2]), "
     "(3, ARRAY[5], CAST(NULL AS ARRAY<INT>)), "
     "(4, ARRAY[CAST(NULL AS INT)], ARRAY[70000, 1, 65536])"
     ") AS v(k, a, c)")
VALUES_B = ("CREATE TEMPORARY VIEW vb AS SELECT * FROM (VALUES (1, BITMAP_BUILD(ARRAY[1, 2, 3])), "
            "(2, BITMAP_BUILD(ARRAY[4]))) AS v(k, x)")
G = ("CREATE TEMPORARY VIEW g AS SELECT * FROM (VALUES "
     "('A', 1), ('A', 2), ('A', CAST(NULL AS INT)), ('A', 4), ('A', 2), ('B', -1), ('B', 1), "
     "('C', CAST(NULL AS INT))) AS v(s, i)")
# A changelog input: the inner GROUP BY's updates retract earlier bitmaps of the outer one.
U = ("CREATE TEMPORARY VIEW u AS SELECT s, BITMAP_BUILD_AGG(i) AS bm FROM (VALUES "
     "('A', 'p', 1), ('A', 'p', 2), ('A', 'q', 2), ('A', 'q', 3), ('B', 'r', 7), ('B', 'r', 8), "
     "('C', 's', CAST(NULL AS INT))) AS v(g, s, i) GROUP BY g, s")
T = ("CREATE TABLE tsrc (k STRING, i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
     "'connector' = 'filesystem', 'path' = '${DIR}/tsrc.json', 'format' = 'json')")
AGGS = ("BITMAP_BUILD_AGG", "BITMAP_BUILD_CARDINALITY_AGG")
BM_AGGS = ("BITMAP_AND_AGG", "BITMAP_AND_CARDINALITY_AGG", "BITMAP_OR_AGG", "BITMAP_OR_CARDINALITY_AGG",
           "BITMAP_XOR_AGG", "BITMAP_XOR_CARDINALITY_AGG")


def _bm_aggs(arg: str) -> str:
    """The six bitmap-argument aggregates over ``arg``, bitmaps shown with BITMAP_TO_STRING."""
    return ", ".join(f"BITMAP_TO_STRING({f}({arg}))" if "CARD" not in f else f"{f}({arg})"
                     for f in BM_AGGS)


SCRIPTS: dict[str, list[str]] = {
    "scalars": [
        B,
        "SELECT k, BITMAP_TO_STRING(x), BITMAP_TO_STRING(y), BITMAP_CARDINALITY(x), "
        "BITMAP_CARDINALITY(y) FROM b",
        "SELECT k, BITMAP_TO_STRING(BITMAP_AND(x, y)), BITMAP_TO_STRING(BITMAP_OR(x, y)), "
        "BITMAP_TO_STRING(BITMAP_XOR(x, y)), BITMAP_TO_STRING(BITMAP_ANDNOT(x, y)), "
        "BITMAP_TO_STRING(BITMAP_ANDNOT(y, x)) FROM b",
        "SELECT k, BITMAP_TO_ARRAY(x), BITMAP_TO_ARRAY(y), BITMAP_TO_BYTES(x), BITMAP_TO_BYTES(y) FROM b",
        "SELECT k, BITMAP_TO_STRING(BITMAP_FROM_BYTES(BITMAP_TO_BYTES(y))) FROM b",
        "SELECT TYPEOF(x), TYPEOF(BITMAP_CARDINALITY(x)), TYPEOF(BITMAP_TO_ARRAY(x)), "
        "TYPEOF(BITMAP_TO_BYTES(x)), TYPEOF(BITMAP_TO_STRING(x)), TYPEOF(BITMAP_AND(x, y)) FROM b "
        "WHERE k = 1",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[3, CAST(NULL AS INT), 1]))",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(CAST(NULL AS ARRAY<INT>)))",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[2147483647, -2147483648, 65535, 65536, 0]))",
        "SELECT BITMAP_TO_ARRAY(BITMAP_BUILD(ARRAY[2147483647, -2147483648, 65535, 65536, 0]))",
        "SELECT BITMAP_TO_BYTES(BITMAP_BUILD(ARRAY[2147483647, -2147483648, 65535, 65536, 0]))",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[CAST(1 AS TINYINT), CAST(2 AS TINYINT)]))",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[CAST(1 AS BIGINT)]))",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(ARRAY['a']))",
        "SELECT BITMAP_BUILD(1)",
        "SELECT BITMAP_CARDINALITY(ARRAY[1])",
        "SELECT BITMAP_AND(BITMAP_BUILD(ARRAY[1]), CAST(NULL AS BITMAP)) IS NULL, "
        "BITMAP_CARDINALITY(CAST(NULL AS BITMAP)), BITMAP_TO_STRING(CAST(NULL AS BITMAP)), "
        "BITMAP_TO_ARRAY(CAST(NULL AS BITMAP)), BITMAP_TO_BYTES(CAST(NULL AS BITMAP)), "
        "BITMAP_FROM_BYTES(CAST(NULL AS BYTES)) IS NULL",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES(x'3a300000010000000000020010000000010002000300'))",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES(x'00'))",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES(x''))",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES(x'3a30000001000000'))",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES(x'0000000000000000'))",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES(x'3a300000010000000000020010000000010002000300ff'))",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES(x'3b3000000100001d00010001001d00'))",
        "SELECT BITMAP_TO_BYTES(BITMAP_FROM_BYTES(x'3b3000000100001d00010001001d00'))",
        "SELECT BITMAP_TO_BYTES(BITMAP_AND(BITMAP_BUILD(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), "
        "BITMAP_BUILD(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])))",
        "SELECT BITMAP_TO_BYTES(BITMAP_ANDNOT(BITMAP_BUILD(ARRAY[9]), BITMAP_BUILD(ARRAY[9])))",
        "SELECT BITMAP_TO_STRING(BITMAP_OR(BITMAP_BUILD(ARRAY[1]), BITMAP_BUILD(CAST(NULL AS ARRAY<INT>)))), "
        "BITMAP_TO_STRING(BITMAP_XOR(CAST(NULL AS BITMAP), BITMAP_BUILD(ARRAY[1]))), "
        "BITMAP_TO_STRING(BITMAP_ANDNOT(BITMAP_BUILD(ARRAY[1]), CAST(NULL AS BITMAP)))",
        "SELECT BITMAP_AND(BITMAP_BUILD(ARRAY[1]), 1)",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES('abc'))",
        "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES(CAST('abc' AS BINARY(3))))",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "
        "17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]))",
        "SELECT BITMAP_TO_BYTES(BITMAP_BUILD(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "
        "17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]))",
    ],
    "types": [
        VALUES_B,
        "SELECT k, BITMAP_TO_STRING(x) FROM vb",
        B,
        "SELECT x FROM b WHERE k = 1",
        "SELECT CAST(x AS STRING) FROM b WHERE k = 1",
        "SELECT CAST(x AS BYTES) FROM b WHERE k = 1",
        "SELECT CAST(x AS VARBINARY(100)) FROM b WHERE k = 1",
        "SELECT CAST('{1,2}' AS BITMAP)",
        "SELECT CAST(x'3a300000010000000000020010000000010002000300' AS BITMAP)",
        "SELECT CAST(1 AS BITMAP)",
        "SELECT CAST(CAST(NULL AS BITMAP) AS BITMAP) IS NULL",
        "SELECT CAST(CAST(NULL AS STRING) AS BITMAP) IS NULL",
        "SELECT TRY_CAST(x AS INT) FROM b",
        "SELECT x = y FROM b",
        "SELECT COUNT(*) FROM b GROUP BY x",
        "SELECT k FROM b ORDER BY x",
        "SELECT DISTINCT x FROM b",
        "SELECT COUNT(DISTINCT x) FROM b",
        "SELECT COUNT(x), FIRST_VALUE(BITMAP_TO_STRING(x)) FROM b",
        "SELECT BITMAP_TO_STRING(COALESCE(y, x)), BITMAP_TO_STRING(CASE WHEN k > 2 THEN x ELSE y END) "
        "FROM b",
        "SELECT BITMAP_TO_STRING(x) FROM b WHERE x IS NOT NULL AND y IS NULL",
        "SELECT ARRAY[x, y] FROM b",
        "CREATE TEMPORARY VIEW bv AS SELECT k, x, BITMAP_CARDINALITY(x) AS c FROM b",
        "DESCRIBE bv",
        "CREATE TABLE ddl (id INT, bm BITMAP, nb BITMAP NOT NULL) WITH ('connector' = 'datagen')",
        "DESCRIBE ddl",
        "CREATE TABLE ddl2 (id INT, bm BITMAP(3)) WITH ('connector' = 'datagen')",
    ],
    "sinks": [
        B,
        "CREATE TABLE p (k INT, x BITMAP, y BITMAP) WITH ('connector' = 'print')",
        "INSERT INTO p SELECT k, x, y FROM b",
        "CREATE TABLE fs_json (k INT, x BITMAP) WITH ('connector' = 'filesystem', 'path' = '${DIR}/json', "
        "'format' = 'json')",
        "INSERT INTO fs_json SELECT k, x FROM b",
        "CREATE TABLE fs_csv (k INT, x BITMAP) WITH ('connector' = 'filesystem', 'path' = '${DIR}/csv', "
        "'format' = 'csv')",
        "INSERT INTO fs_csv SELECT k, x FROM b",
        "CREATE TABLE src_json (k INT, x BITMAP) WITH ('connector' = 'filesystem', 'path' = "
        "'${DIR}/json', 'format' = 'json')",
        "SELECT k, BITMAP_TO_STRING(x) FROM src_json",
        "CREATE TABLE dg (x BITMAP) WITH ('connector' = 'datagen', 'number-of-rows' = '1')",
        "SELECT BITMAP_CARDINALITY(x) >= 0 FROM dg",
    ],
    "group_by": [
        G,
        "SELECT s, " + ", ".join(f"BITMAP_TO_STRING({f}(i))" if "CARD" not in f else f"{f}(i)"
                                 for f in AGGS) + " FROM g GROUP BY s",
        "SELECT s, " + _bm_aggs("BITMAP_BUILD(ARRAY[i, i + 1])") + " FROM g GROUP BY s",
        "SELECT " + _bm_aggs("bm") + " FROM (SELECT s, BITMAP_BUILD_AGG(i) AS bm FROM g GROUP BY s)",
        "SELECT s, BITMAP_TO_STRING(BITMAP_AND_AGG(BITMAP_BUILD(ARRAY[i]))) FROM g GROUP BY s",
        U,
        "SELECT " + _bm_aggs("bm") + " FROM u",
        "SELECT s, BITMAP_TO_STRING(BITMAP_BUILD_AGG(c)), BITMAP_BUILD_CARDINALITY_AGG(c) FROM "
        "(SELECT s, CAST(COUNT(*) AS INT) AS c FROM g GROUP BY s, i) GROUP BY s",
        "SELECT BITMAP_BUILD_AGG(CAST(i AS BIGINT)) FROM g",
        "SELECT BITMAP_BUILD_AGG(CAST(i AS SMALLINT)) FROM g",
        "SELECT BITMAP_BUILD_AGG(CAST(i AS STRING)) FROM g",
        "SELECT BITMAP_OR_AGG(i) FROM g",
        "SELECT s, BITMAP_TO_STRING(BITMAP_BUILD_AGG(DISTINCT i)), BITMAP_BUILD_CARDINALITY_AGG(i) "
        "FILTER (WHERE i > 1) FROM g GROUP BY s",
        "SELECT s, BITMAP_BUILD_AGG(i) FROM g GROUP BY s",
    ],
    "windows": [
        T,
        "SELECT k, window_start, BITMAP_TO_STRING(BITMAP_BUILD_AGG(i)), BITMAP_BUILD_CARDINALITY_AGG(i), "
        "BITMAP_TO_STRING(BITMAP_OR_AGG(BITMAP_BUILD(ARRAY[i]))), "
        "BITMAP_XOR_CARDINALITY_AGG(BITMAP_BUILD(ARRAY[i, 100])) "
        "FROM TABLE(TUMBLE(TABLE tsrc, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
        "GROUP BY k, window_start, window_end",
        "SELECT k, i, BITMAP_TO_STRING(BITMAP_BUILD_AGG(i) OVER (PARTITION BY k ORDER BY ts)), "
        "BITMAP_BUILD_CARDINALITY_AGG(i) OVER (PARTITION BY k ORDER BY ts) FROM tsrc",
        "SELECT k, i, BITMAP_AND_CARDINALITY_AGG(BITMAP_BUILD(ARRAY[i, 2])) OVER w, "
        "BITMAP_TO_STRING(BITMAP_XOR_AGG(BITMAP_BUILD(ARRAY[i, 2])) OVER w), "
        "BITMAP_TO_STRING(BITMAP_BUILD_AGG(i) OVER w) FROM tsrc "
        "WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
        "SELECT k, window_start, BITMAP_TO_STRING(BITMAP_BUILD_AGG(i)), BITMAP_AND_CARDINALITY_AGG("
        "BITMAP_BUILD(ARRAY[i, 2])) FROM TABLE(HOP(TABLE tsrc, DESCRIPTOR(ts), INTERVAL '5' SECOND, "
        "INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end",
        "SELECT k, window_start, BITMAP_TO_STRING(BITMAP_BUILD_AGG(i)), BITMAP_TO_STRING(BITMAP_OR_AGG("
        "BITMAP_BUILD(ARRAY[i]))) FROM TABLE(SESSION(TABLE tsrc PARTITION BY k, DESCRIPTOR(ts), "
        "INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end",
        "SELECT k, BITMAP_TO_STRING(BITMAP_BUILD_AGG(i)) FROM tsrc GROUP BY k, TUMBLE(ts, INTERVAL '10' "
        "SECOND)",
    ],
    "extras": [
        B,
        G,
        T,
        "SELECT k, BITMAP_TO_STRING(IF(k > 2, x, y)) FROM b",
        "SELECT k, CAST(x AS VARCHAR(3)), CAST(x AS CHAR(20)) FROM b",
        "SELECT k, ROW(x, k).k FROM b",
        "SELECT s, BITMAP_TO_STRING(BITMAP_XOR_AGG(DISTINCT BITMAP_BUILD(ARRAY[i]))) FROM g GROUP BY s",
        "SELECT s, BITMAP_TO_STRING(BITMAP_OR_AGG(DISTINCT BITMAP_BUILD(ARRAY[i]))), "
        "BITMAP_AND_CARDINALITY_AGG(DISTINCT BITMAP_BUILD(ARRAY[i])) FROM g GROUP BY s",
        "SELECT k, window_start, window_end, BITMAP_TO_STRING(BITMAP_BUILD_AGG(i)), "
        "BITMAP_TO_STRING(BITMAP_XOR_AGG(BITMAP_BUILD(ARRAY[i, 2]))) FROM TABLE(CUMULATE(TABLE tsrc, "
        "DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY k, window_start, window_end",
        "SELECT BITMAP_BUILD_AGG(i, i) FROM g",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD_AGG(CAST(NULL AS INT)))",
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[CAST(NULL AS INT)]))",
    ],
}


def _run(tenv_factory, statements: list[str], folder: Path, capture: Capture) -> list[dict]:
    """Each statement's answer (columns and rows, print lines, files, or Flink's error)."""
    tenv = tenv_factory()
    (folder / "tsrc.json").write_text("\n".join(TSRC_ROWS) + "\n")
    out = []
    for st in statements:
        sql = st.replace("${DIR}", str(folder))
        try:
            mark = capture.mark()
            result = tenv.execute_sql(sql)
            if st.startswith("INSERT"):
                result.wait()
                sink = st.split()[2]
                if sink == "p":
                    out.append({"sql": st, "print": sorted(capture.since(mark))})
                else:
                    sub = folder / sink.split("_")[1]
                    files = sorted(p for p in sub.rglob("*") if p.is_file() and not p.name.startswith("."))
                    text = "".join(p.read_text() for p in files)
                    out.append({"sql": st, "files": sorted(text.splitlines())})
                continue
            columns = list(result.get_table_schema().get_field_names())
            with result.collect() as rows:
                got = [[str(row.get_row_kind())] + [collected_text(v) for v in row] for row in rows]
            out.append({"sql": st, "columns": columns, "rows": got})
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer
            out.append({"sql": st, "error": _error(e)})
    return out


def _error(e: Exception) -> str:
    """Flink's own message; for a Java ``Error`` (no 'Exception:' line) the line naming it."""
    text = _error_text(e)
    if text.startswith("An error occurred while calling"):
        lines = [ln.strip(" :") for ln in str(e).splitlines()[1:] if ln.strip(" :")]
        return lines[0][:800] if lines else text
    return text


def main(argv: list[str]) -> None:
    """Run the named scripts (default: all) and write their answers to :data:`OUT`."""
    record_scripts(OUT, SCRIPTS, argv, _run, Capture(), label="flink_bitmap")


if __name__ == "__main__":
    main(sys.argv[1:])
