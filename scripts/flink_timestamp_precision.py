"""Record Apache Flink 2.3's answers on timestamp precision: nanoseconds, casts, the json and csv formats.

Flink is the oracle. This script runs, on PyFlink's local mini-cluster (session zone UTC,
parallelism 1),

- ``QUERIES`` (streaming): CAST of text with up to 10 fraction digits to TIMESTAMP(p),
  TIMESTAMP_LTZ(p) and TIME(p) for every p (cut or rounded?), casts between precisions,
  TIMESTAMP(9) values through arithmetic, comparison, GROUP BY / MIN / MAX / DISTINCT, the time
  functions (EXTRACT, DATE_FORMAT, TO_TIMESTAMP, TIMESTAMPDIFF, FLOOR, ...), TYPEOF; each answer is
  its changelog (row kind first, values as text) or Flink's error;
- ``ROWTIME_QUERIES``: TIMESTAMP(9) values through OVER windows, ORDER BY a rowtime,
  MATCH_RECOGNIZE and window aggregates (a json file with a rowtime, streaming);
- ``READS``: a file of the ``json`` or ``csv`` format read into columns TIMESTAMP(0..9),
  TIMESTAMP_LTZ(0..9) and TIME(0..3) from text with more fraction digits than the column declares:
  each column's value as text, its comparison with literals, and the bytes the same format writes
  back for it (INSERT of the table into a filesystem table of the same columns, batch mode);

and writes ``tests/functions/timestamp_precision_flink.json``, which
``tests/functions/test_timestamp_precision.py`` compares with StreamSQL's answers::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_timestamp_precision.py PART

(PART: queries, rowtime, json or csv; all of them without one)

(one part per run keeps each hold of the lock short; the answers are merged into the file).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_time import _error_text, _tenv  # noqa: E402
from flink_time_break import _changelog  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "functions" / "timestamp_precision_flink.json"

_TEXTS = ["2024-01-01 10:00:00.123456789", "2024-12-31 23:59:59.9999999995", "2024-01-01 10:00:00.1239",
          "2024-01-01 10:00:00.987654", "2024-01-01 10:00:00"]
_P = range(10)
#: Text with more fraction digits than TIMESTAMP(0..6) hold, after 1970 and before.
_MORE_DIGITS = ["2024-01-01 00:00:00.1234567", "1969-12-31 23:59:59.9999", "1969-12-31 23:59:59.9999999"]
#: Three TIMESTAMP(9) values (one NULL) in a VALUES table v(k, a, b).
V = ("(VALUES (1, CAST('2024-01-01 10:00:00.123456789' AS TIMESTAMP(9)), "
     "CAST('2024-01-01 10:00:00.123456788' AS TIMESTAMP(9))), "
     "(1, CAST('2024-01-01 10:00:00.123456789' AS TIMESTAMP(9)), "
     "CAST('2024-01-01 10:00:00.123456789' AS TIMESTAMP(9))), "
     "(2, CAST('1969-12-31 23:59:59.999999999' AS TIMESTAMP(9)), CAST(NULL AS TIMESTAMP(9)))) AS v(k, a, b)")
QUERIES = [
    *["SELECT " + ", ".join(f"CAST(CAST('{s}' AS TIMESTAMP({p})) AS STRING)" for p in _P) for s in _TEXTS],
    *["SELECT " + ", ".join(f"CAST(CAST('{s}' AS TIMESTAMP_LTZ({p})) AS STRING)" for p in (0, 3, 6, 7, 9))
      for s in _TEXTS[:3]],
    *["SELECT " + ", ".join(f"CAST(CAST('10:00:00.{f}' AS TIME({p})) AS STRING)" for p in (0, 3, 9))
      for f in ("123456789", "9999")],
    *[f"SELECT CAST(TIMESTAMP '{s}' AS STRING), TYPEOF(TIMESTAMP '{s}')" for s in _TEXTS[:4]],
    "SELECT " + ", ".join(f"CAST(CAST(a AS TIMESTAMP({p})) AS STRING)" for p in (0, 3, 6, 8)) + f" FROM {V}",
    "SELECT " + ", ".join(f"CAST(CAST(a AS TIMESTAMP_LTZ({p})) AS STRING)" for p in (3, 9)) + f" FROM {V}",
    "SELECT CAST('2024-01-01 10:00:00.1239' AS TIMESTAMP(3)) = TIMESTAMP '2024-01-01 10:00:00.123'",
    "SELECT CAST('2024-01-01 10:00:00.1239' AS TIMESTAMP(4)) = TIMESTAMP '2024-01-01 10:00:00.123'",
    "SELECT TIMESTAMP '2024-01-01 10:00:00.123456789' = TIMESTAMP '2024-01-01 10:00:00.123456788'",
    f"SELECT k, a = b, a < b, a > b, a <> b, a IS DISTINCT FROM b FROM {V}",
    f"SELECT k, CAST(a + INTERVAL '1' SECOND AS STRING), CAST(a - INTERVAL '0.001' SECOND AS STRING) "
    f"FROM {V}",
    f"SELECT k, CAST(TIMESTAMPADD(DAY, 1, a) AS STRING), CAST(TIMESTAMPADD(SECOND, -1, a) AS STRING) "
    f"FROM {V}",
    f"SELECT k, TIMESTAMPDIFF(SECOND, b, a), TIMESTAMPDIFF(DAY, a, b) FROM {V}",
    f"SELECT k, EXTRACT(NANOSECOND FROM a), EXTRACT(MICROSECOND FROM a), EXTRACT(MILLISECOND FROM a), "
    f"SECOND(a) FROM {V}",
    f"SELECT k, DATE_FORMAT(a, 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS'), DATE_FORMAT(a, 'HH:mm:ss.SSS') FROM {V}",
    f"SELECT k, CAST(FLOOR(a TO SECOND) AS STRING), CAST(CEIL(a TO SECOND) AS STRING), "
    f"CAST(FLOOR(a TO MILLISECOND) AS STRING) FROM {V}",
    f"SELECT k, CAST(a AS DATE), CAST(CAST(a AS TIME(3)) AS STRING), CAST(a AS VARCHAR(40)) FROM {V}",
    f"SELECT k, UNIX_TIMESTAMP(CAST(a AS STRING)) FROM {V}",
    f"SELECT CAST(a AS STRING), COUNT(*) FROM {V} GROUP BY a",
    f"SELECT k, CAST(MIN(b) AS STRING), CAST(MAX(b) AS STRING), COUNT(DISTINCT b) FROM {V} GROUP BY k",
    f"SELECT DISTINCT CAST(b AS STRING) FROM {V}",
    f"SELECT CAST(x AS STRING) FROM (SELECT a AS x FROM {V} UNION ALL SELECT b FROM {V})",
    f"SELECT k, CAST(COALESCE(b, a) AS STRING), CAST(GREATEST(a, b) AS STRING) FROM {V}",
    f"SELECT k, TYPEOF(a), TYPEOF(COALESCE(a, CAST(a AS TIMESTAMP(3)))) FROM {V}",
    f"SELECT JSON_OBJECT('a' VALUE a), JSON_STRING(a), CAST(ROW(a) AS STRING), CAST(ARRAY[a] AS STRING) "
    f"FROM {V} WHERE k = 2",
    f"SELECT CAST(a AS STRING) || 'x', CONCAT('y', CAST(b AS STRING)) FROM {V} WHERE k = 1",
    "SELECT CAST(TO_TIMESTAMP('2024-01-01 10:00:00.123456789', 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS') AS STRING), "
    "TYPEOF(TO_TIMESTAMP('2024-01-01 10:00:00.123456789', 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS'))",
    "SELECT CAST(TO_TIMESTAMP('2024-01-01 10:00:00.123456789') AS STRING), "
    "TYPEOF(TO_TIMESTAMP('2024-01-01 10:00:00.123456789'))",
    "SELECT CAST(TO_TIMESTAMP_LTZ(1704103200123456789, 9) AS STRING)",
    "SELECT TYPEOF(CURRENT_TIMESTAMP), TYPEOF(LOCALTIMESTAMP), TYPEOF(NOW())",
    f"SELECT k, CAST(a AS STRING), CAST(LAG(a) OVER (ORDER BY PROCTIME()) AS STRING) FROM {V}",
    # TIMESTAMP(9) values through the operators that hold Python objects here
    f"SELECT k, CAST(ARRAY_AGG(b) AS STRING) FROM {V} GROUP BY k",
    f"SELECT k, CAST(FIRST_VALUE(b) AS STRING), CAST(LAST_VALUE(b) AS STRING) FROM {V} GROUP BY k",
    f"SELECT CAST(MIN(m) AS STRING), CAST(MAX(m) AS STRING), COUNT(DISTINCT m) "
    f"FROM (SELECT k, MAX(b) AS m FROM {V} GROUP BY k)",
    f"SELECT k, CAST(b AS STRING) FROM (SELECT k, b, ROW_NUMBER() OVER (PARTITION BY k ORDER BY b DESC) "
    f"AS rn FROM {V}) WHERE rn <= 1",
    f"SELECT CAST(b AS STRING), n FROM (SELECT b, n, ROW_NUMBER() OVER (PARTITION BY b ORDER BY n DESC) "
    f"AS rn FROM (SELECT b, COUNT(*) AS n FROM {V} GROUP BY b)) WHERE rn <= 1",
    f"SELECT x.k, CAST(x.b AS STRING), CAST(y.a AS STRING) FROM {V.replace(' v(', ' x(')} "
    f"JOIN {V.replace(' v(', ' y(')} ON x.k = y.k",
    f"SELECT x.k, CAST(x.b AS STRING) FROM {V.replace(' v(', ' x(')} JOIN {V.replace(' v(', ' y(')} "
    f"ON x.b = y.a",
    f"SELECT x.k, CAST(y.b AS STRING) FROM {V.replace(' v(', ' x(')} LEFT JOIN {V.replace(' v(', ' y(')} "
    f"ON x.a = y.b",
    # a CAST of a VALUES column: folded as a literal's where the Calc over the VALUES is folded?
    f"SELECT CAST(CAST(x.a AS TIMESTAMP(0)) AS STRING) FROM {V.replace(' v(', ' x(')} "
    f"JOIN {V.replace(' v(', ' y(')} ON x.k = y.k WHERE x.k = 2",
    f"SELECT CAST(CAST(a AS TIMESTAMP_LTZ(0)) AS STRING) FROM {V} WHERE k = 2",
    f"SELECT CAST(CAST(x AS TIMESTAMP(0)) AS STRING) FROM (SELECT a AS x FROM {V} WHERE k = 2)",
    f"SELECT CAST(CAST(MAX(a) AS TIMESTAMP(0)) AS STRING) FROM {V} WHERE k = 2",
    # text with more fraction digits than the precision: CAST, TO_TIMESTAMP (cut or rounded?)
    *[f"SELECT CAST(CAST('{s}' AS TIMESTAMP(0)) AS STRING), CAST(CAST('{s}' AS TIMESTAMP(3)) AS STRING), "
      f"CAST(CAST('{s}' AS TIMESTAMP(6)) AS STRING), CAST(CAST('{s}' AS TIMESTAMP_LTZ(3)) AS STRING)"
      for s in _MORE_DIGITS],
    *[f"SELECT CAST(TO_TIMESTAMP('{s}') AS STRING)" for s in _MORE_DIGITS],
    *[f"SELECT CAST(TO_TIMESTAMP('{s}', 'yyyy-MM-dd HH:mm:ss.{f}') AS STRING)"
      for s in _MORE_DIGITS[:1] for f in ("SSS", "SSSSSS", "SSSSSSS")],
    f"SELECT CAST(TO_TIMESTAMP_LTZ('{_MORE_DIGITS[0]}', 'yyyy-MM-dd HH:mm:ss.SSSSSSS') AS STRING)",
]
#: TIMESTAMP(9) values in a table with a rowtime, through the operators that need one (OVER windows,
#: ORDER BY the rowtime, MATCH_RECOGNIZE, window aggregates): json lines, the table (``{path}``), queries.
ROWTIME_LINES = [
    '{"k": 1, "ts": "2024-01-01 10:00:00", "b": "2024-01-01 10:00:00.123456789"}',
    '{"k": 1, "ts": "2024-01-01 10:00:01", "b": "2024-01-01 10:00:00.123456788"}',
    '{"k": 1, "ts": "2024-01-01 10:00:02", "b": "1969-12-31 23:59:59.999999999"}',
    '{"k": 2, "ts": "2024-01-01 10:00:03", "b": null}',
]
ROWTIME_DDL = ("CREATE TABLE t (k INT, ts TIMESTAMP(3), b TIMESTAMP(9), WATERMARK FOR ts AS ts) WITH "
               "('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
ROWTIME_QUERIES = [
    "SELECT k, CAST(b AS STRING), CAST(MIN(b) OVER w AS STRING), CAST(MAX(b) OVER w AS STRING) FROM t "
    "WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
    "SELECT k, CAST(LAG(b) OVER (PARTITION BY k ORDER BY ts) AS STRING) FROM t",
    "SELECT k, CAST(b AS STRING) FROM t ORDER BY ts",
    "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES CAST(A.b AS STRING) AS ab, "
    "CAST(LAST(B.b) AS STRING) AS bb ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) "
    "DEFINE B AS B.b < A.b)",
    "SELECT k, CAST(MAX(b) AS STRING), COUNT(DISTINCT b), CAST(ARRAY_AGG(b) AS STRING) "
    "FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY k, window_start",
    "SELECT k, CAST(MAX(b) AS STRING), COUNT(DISTINCT b) FROM TABLE(SESSION(TABLE t PARTITION BY k, "
    "DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY k, window_start",
]
#: The columns of a read table, per kind: TIMESTAMP(0..9), TIMESTAMP_LTZ(0..9), TIME(0..3).
COLUMNS = {"ts": [f"ts{p} TIMESTAMP({p})" for p in _P], "ltz": [f"ltz{p} TIMESTAMP_LTZ({p})" for p in _P],
           "t": [f"t{p} TIME({p})" for p in range(4)]}
#: The text of each record, per kind (every column of the kind reads it), for both formats.
RECORDS = {"ts": ["2024-01-01 10:00:00.123456789", "2024-01-01 10:00:00.1239", "2024-01-01 10:00:00",
                  "2024-01-01T10:00:00.5", "2024-01-01 10:00:00.9999999999",
                  *_MORE_DIGITS],
           "ltz": ["2024-01-01 10:00:00.123456789Z", "2024-01-01 10:00:00.1239Z", "2024-01-01 10:00:00Z",
                   "2024-01-01 10:00:00.1239"],
           "t": ["10:00:00.123456789", "10:00:00.1239", "10:00:00"]}
FORMATS = ("json", "csv")
#: Per kind: comparisons of the read columns with literals.
COMPARISONS = {
    "ts": ["ts3 = TIMESTAMP '2024-01-01 10:00:00.123'", "ts0 = TIMESTAMP '2024-01-01 10:00:00'",
           "ts9 = TIMESTAMP '2024-01-01 10:00:00.123456789'", "ts6 = TIMESTAMP '2024-01-01 10:00:00.123456'",
           "ts3 = ts9", "ts3 = CAST(ts3 AS TIMESTAMP(3))", "EXTRACT(NANOSECOND FROM ts3)",
           "EXTRACT(NANOSECOND FROM ts9)"],
    "ltz": ["ltz3 = ltz9", "CAST(ltz3 AS TIMESTAMP(3)) = TIMESTAMP '2024-01-01 10:00:00.123'"],
    "t": ["t0 = TIME '10:00:00'", "t3 = TIME '10:00:00.123'", "t0 = t3"],
}


def _names(kind: str) -> list[str]:
    return [c.split(" ")[0] for c in COLUMNS[kind]]


def _line(fmt: str, kind: str, text: str) -> str:
    """One record of ``fmt`` giving every column of ``kind`` the ``text``."""
    if fmt == "json":
        return json.dumps(dict.fromkeys(_names(kind), text))
    return ",".join([text] * len(_names(kind)))


def _read(fmt: str, kind: str, text: str) -> dict:
    """One record read back: each column as text, the comparisons, the bytes the format writes."""
    folder = Path(tempfile.mkdtemp(prefix=f"flink_tsprec_{fmt}_"))
    (folder / "in").mkdir()
    (folder / "in" / "part-0").write_text(_line(fmt, kind, text) + "\n")
    tenv = _tenv(batch=True)
    cols = ", ".join(COLUMNS[kind])
    tenv.execute_sql(f"CREATE TABLE r ({cols}) WITH ('connector' = 'filesystem', "
                     f"'path' = '{folder / 'in'}', 'format' = '{fmt}')")
    tenv.execute_sql(f"CREATE TABLE w ({cols}) WITH ('connector' = 'filesystem', "
                     f"'path' = '{folder / 'out'}', 'format' = '{fmt}')")
    record: dict = {"line": _line(fmt, kind, text)}
    select = ", ".join(f"CAST({n} AS STRING)" for n in _names(kind))
    record["values"] = _changelog(tenv, f"SELECT {select} FROM r")
    record["comparisons"] = _changelog(tenv, f"SELECT {', '.join(COMPARISONS[kind])} FROM r")
    try:
        tenv.execute_sql("INSERT INTO w SELECT * FROM r").wait()
        record["written"] = "".join(p.read_text() for p in sorted((folder / "out").rglob("*"))
                                    if p.is_file() and not p.name.startswith("."))
    except Exception as e:  # noqa: BLE001  (Flink's failure is the answer)
        record["written_error"] = _error_text(e)
    print(fmt, kind, text, "->", json.dumps(record)[:300], flush=True)
    return record


def _rowtime() -> dict:
    """:data:`ROWTIME_QUERIES` over :data:`ROWTIME_LINES` (streaming; the bounded source ends them)."""
    folder = Path(tempfile.mkdtemp(prefix="flink_tsprec_rowtime_"))
    (folder / "t.json").write_text("\n".join(ROWTIME_LINES) + "\n")
    tenv = _tenv()
    tenv.execute_sql(ROWTIME_DDL.format(path=folder / "t.json"))
    out: dict = {"lines": ROWTIME_LINES, "ddl": ROWTIME_DDL, "queries": {}}
    for q in ROWTIME_QUERIES:
        out["queries"][q] = _changelog(tenv, q)
        print(q[:100], "->", json.dumps(out["queries"][q])[:300], flush=True)
    return out


def main() -> int:
    """Run every probe and write the JSON."""
    part = sys.argv[1] if len(sys.argv) > 1 else "all"
    doc = json.loads(OUT.read_text()) if OUT.exists() else {}
    doc.update({"columns": COLUMNS, "comparisons": COMPARISONS})
    if part in ("all", "queries"):
        tenv = _tenv()
        doc["queries"] = {}
        for q in QUERIES:
            doc["queries"][q] = _changelog(tenv, q)
            print(q[:100], "->", json.dumps(doc["queries"][q])[:200], flush=True)
            OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    if part in ("all", "rowtime"):
        doc["rowtime"] = _rowtime()
        OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    for fmt in FORMATS if part == "all" else [part] if part in FORMATS else []:
        doc.setdefault("reads", {})
        for kind, texts in RECORDS.items():
            for text in texts:
                doc["reads"][f"{fmt}|{kind}|{text}"] = _read(fmt, kind, text)
                OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
