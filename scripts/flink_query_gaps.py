"""Record Apache Flink 2.3's answers to queries that StreamSQL once refused or answered otherwise.

Each script of ``SCRIPTS`` runs in a fresh streaming TableEnvironment (session zone UTC,
parallelism 1), statement by statement. A query's rows are recorded with their row kinds
(``["+I", "1", "a"]``: the kind, then each value's ``str``), so a changelog can be folded into its
final table; an ``INSERT`` waits for its job, and ``${DIR}`` (a scratch folder of this run) lets a
filesystem sink's files be read back (their text is recorded under ``files``). An error is
recorded as Flink's own message (``flink_compat._error_text``). The answers go to
``tests/sql/flink_query_gaps/flink.json``, which ``tests/sql/test_flink_query_gaps.py`` compares
StreamSQL's with. Regenerate::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_query_gaps.py [SCRIPT ...]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "sql" / "flink_query_gaps" / "flink.json"
sys.path.insert(0, str(ROOT / "scripts"))
from flink_compat import _error_text  # noqa: E402  (Flink's own message of a Py4J error)

T = ("CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES (1, 'a', DECIMAL '1.50', TIMESTAMP '2024-01-01 "
     "10:00:00.5'), "
     "(1, 'b', DECIMAL '2.25', TIMESTAMP '2024-01-02 11:00:00'), (2, 'c', CAST(NULL AS DECIMAL(3, 2)), "
     "CAST(NULL AS TIMESTAMP(3)))) AS v(k, s, d, ts)")
A = "CREATE TEMPORARY VIEW a AS SELECT * FROM (VALUES (1, 'x'), (2, 'y'), (3, 'z')) AS v(id, n)"
B = "CREATE TEMPORARY VIEW b AS SELECT * FROM (VALUES (10, 'p'), (20, 'q')) AS v(g, m)"
C = ("CREATE TEMPORARY VIEW c AS SELECT k, COUNT(*) AS cnt FROM (VALUES (1), (1), (2)) AS v(k) GROUP BY k")
E = "CREATE TEMPORARY VIEW e AS SELECT * FROM (VALUES (1, 'x')) AS v(id, n) WHERE id > 5"
CEIL_T = ("CREATE TEMPORARY VIEW ct AS SELECT * FROM (VALUES (TIME '23:59:59.999'), (TIME "
          "'12:00:00.500')) AS v(t)")
PT = ("CREATE TABLE pt (f BOOLEAN NOT NULL, t0 TIME(0) NOT NULL, t3 TIME(3) NOT NULL, n0 TIME(0), n3 "
      "TIME(3)) "
      "WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
H = ("CREATE TEMPORARY VIEW h AS SELECT * FROM (VALUES "
     "('a', CAST('ab' AS CHAR(4)), TRUE, CAST(-3 AS TINYINT), CAST(300 AS SMALLINT), 123456, "
     "CAST(-9876543210 AS BIGINT), "
     "CAST(1.5 AS FLOAT), CAST(-0.1 AS DOUBLE), CAST(12.345 AS DECIMAL(10, 3)), "
     "CAST('-12345678901234567890.5' AS "
     "DECIMAL(30, 1)), DATE '2024-02-29', TIME '23:59:59', TIMESTAMP '2024-01-01 10:00:00.123', "
     "CAST(TIMESTAMP '1969-12-31 23:59:59.123456789' AS TIMESTAMP(9))), "
     "('héllo €𝄞', CAST('' AS CHAR(4)), FALSE, CAST(0 AS TINYINT), CAST(-1 AS SMALLINT), -1, "
     "CAST(4294967296 AS BIGINT), "
     "CAST(-2.5 AS FLOAT), CAST(1e300 AS DOUBLE), CAST(-0.001 AS DECIMAL(10, 3)), CAST(0 AS "
     "DECIMAL(30, 1)), "
     "DATE '1900-01-01', TIME '00:00:00', TIMESTAMP '1970-01-01 00:00:00', "
     "CAST(TIMESTAMP '2262-04-11 23:47:16.854775807' AS TIMESTAMP(9))), "
     "(CAST(NULL AS STRING), CAST(NULL AS CHAR(4)), CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), "
     "CAST(NULL AS SMALLINT), CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS FLOAT), CAST(NULL "
     "AS DOUBLE), "
     "CAST(NULL AS DECIMAL(10, 3)), CAST(NULL AS DECIMAL(30, 1)), CAST(NULL AS DATE), CAST(NULL AS TIME), "
     "CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP(9)))) "
     "AS v(s, c, b, ti, si, i, bi, f, d, dc, bdc, dt, tm, ts, ts9)")
P = ("CREATE TEMPORARY VIEW p AS SELECT * FROM (VALUES (TRUE, TIME '01:02:03', TIME '04:05:06.789')) AS "
     "v(f, t0, t3)")

SCRIPTS: dict[str, list[str]] = {
    "agg_element": [
        T,
        "SELECT k, ARRAY_AGG(s)[1] AS f FROM t GROUP BY k",
        "SELECT ARRAY_AGG(k)[2] AS x, ARRAY_AGG(d)[1] AS y, CAST(ARRAY_AGG(ts)[2] AS STRING) AS z FROM t",
        "SELECT k, ARRAY_AGG(s)[3] AS f FROM t GROUP BY k",
        "SELECT k, CARDINALITY(ARRAY_AGG(s)) + 1 AS n, UPPER(ARRAY_AGG(s)[1]) AS u FROM t GROUP BY k",
        "SELECT k, CARDINALITY(COLLECT(s)) AS n FROM t GROUP BY k",
        "SELECT k, SUBSTRING(LISTAGG(s), 1, 1) AS f, CHAR_LENGTH(LISTAGG(s, '--')) AS n FROM t GROUP BY k",
        "SELECT k, JSON_QUERY(JSON_ARRAYAGG(s), '$[0]') AS j, CHAR_LENGTH(JSON_OBJECTAGG(KEY s VALUE "
        "k)) AS n "
        "FROM t GROUP BY k",
        "CREATE TEMPORARY VIEW w AS SELECT k, ARRAY_AGG(s)[1] AS f, ARRAY_AGG(d)[1] AS g, "
        "ARRAY_AGG(ts)[1] AS h FROM t GROUP BY k",
        "DESCRIBE w",
        "SELECT k, COUNT(*) FROM t GROUP BY k HAVING BAR(COUNT(*)) > 1",
    ],
    "hash_code": [
        H,
        "SELECT HASH_CODE('a')",
        "SELECT HASHCODE('a')",
        "SELECT `$HASHCODE$1`('a')",
        "SELECT HASH_CODE(s) AS s, HASH_CODE(c) AS c, HASH_CODE(b) AS b, HASH_CODE(ti) AS ti, "
        "HASH_CODE(si) AS si, "
        "HASH_CODE(i) AS i, HASH_CODE(bi) AS bi FROM h",
        "SELECT HASH_CODE(f) AS f, HASH_CODE(d) AS d, HASH_CODE(dc) AS dc, HASH_CODE(bdc) AS bdc, "
        "HASH_CODE(dt) AS dt, HASH_CODE(tm) AS tm, HASH_CODE(ts) AS ts FROM h",
        "SELECT HASH_CODE(ts9) AS ts9 FROM h",
        "SELECT HASH_CODE(TRUE), HASH_CODE(CAST(1.5 AS DOUBLE)), HASH_CODE(DECIMAL '-1.50'), "
        "HASH_CODE(12345678901), "
        "HASH_CODE(DATE '2024-01-01'), HASH_CODE(TIME '12:00:00'), HASH_CODE(TIMESTAMP '2024-01-01 "
        "10:00:00.123'), "
        "HASH_CODE('héllo €𝄞'), HASH_CODE(CAST('a' AS CHAR(3))), HASH_CODE(CAST(NULL AS INT))",
        "SELECT TYPEOF(HASH_CODE(1)), TYPEOF(HASH_CODE(CAST(NULL AS STRING)))",
        "SELECT HASH_CODE(x'0102')",
        "SELECT HASH_CODE(ARRAY[1])",
        "SELECT HASH_CODE(MAP['a', 1])",
        "SELECT HASH_CODE(ROW(1, 'a'))",
        "SELECT HASH_CODE(TO_TIMESTAMP_LTZ(0, 3))",
        "SELECT HASH_CODE(INTERVAL '1' DAY)",
        "SELECT HASH_CODE(1, 2)",
        "SELECT HASH_CODE()",
        "SELECT HASH_CODE(NULL)",
    ],
    "show_functions": ["SHOW FUNCTIONS"],
    "cross_join": [
        A, B, C, E,
        "SELECT * FROM a, b",
        "SELECT * FROM a CROSS JOIN b WHERE a.id > 1",
        "SELECT a.n, b.m FROM a JOIN b ON TRUE WHERE b.g = 20",
        "SELECT * FROM a LEFT JOIN b ON TRUE",
        "SELECT * FROM a RIGHT JOIN e ON TRUE",
        "SELECT * FROM a LEFT JOIN e ON TRUE",
        "SELECT * FROM e FULL JOIN b ON TRUE",
        "SELECT * FROM a FULL OUTER JOIN b ON TRUE",
        "SELECT * FROM a, c",
        "SELECT * FROM c CROSS JOIN c AS c2 WHERE c.k = 1",
        "SELECT * FROM c LEFT JOIN a ON TRUE WHERE c.cnt > 1",
        "SELECT * FROM a LEFT JOIN c ON TRUE",
        "SELECT * FROM a JOIN b ON 1 = 1",
    ],
    "time_ceil": [
        CEIL_T,
        "SELECT CAST(CEIL(t TO SECOND) AS STRING) AS s FROM ct",
        "SELECT CEIL(t TO SECOND) > TIME '23:59:59' AS gt, CEIL(t TO SECOND) = TIME '00:00:00' AS eq0, "
        "CEIL(t TO SECOND) < TIME '01:00:00' AS lt FROM ct",
        "SELECT HOUR(CEIL(t TO SECOND)) AS h, MINUTE(CEIL(t TO SECOND)) AS m, "
        "EXTRACT(MILLISECOND FROM CEIL(t TO SECOND)) AS ms FROM ct",
        "SELECT CAST(CEIL(t TO SECOND) + INTERVAL '1' SECOND AS STRING) AS p, "
        "CAST(CAST(CEIL(t TO SECOND) AS TIME(3)) AS STRING) AS c3, "
        "CAST(CEIL(t TO MINUTE) AS STRING) AS mi, CAST(CEIL(t TO HOUR) AS STRING) AS hr FROM ct",
        "SELECT CAST(CEIL(TIME '23:59:59.999' TO SECOND) AS STRING) AS s",
        "SELECT CEIL(t TO SECOND) AS r FROM ct",
        "SELECT CAST(CEIL(t TO SECOND) AS STRING) AS s, COUNT(*) AS n FROM ct GROUP BY CEIL(t TO SECOND)",
        "SELECT CAST(t AS STRING) AS s FROM ct WHERE CEIL(t TO SECOND) > t",
        "CREATE TABLE snk_csv (t TIME, s STRING) WITH ('connector' = 'filesystem', 'path' = '${DIR}/csv', "
        "'format' = 'csv')",
        "INSERT INTO snk_csv SELECT CEIL(t TO SECOND), CAST(t AS STRING) FROM ct",
        "SELECT CAST(t AS STRING) AS t, s FROM snk_csv",
        "CREATE TABLE snk_json (t TIME, s STRING) WITH ('connector' = 'filesystem', 'path' = '${DIR}/json', "
        "'format' = 'json')",
        "INSERT INTO snk_json SELECT CEIL(t TO SECOND), CAST(t AS STRING) FROM ct",
    ],
    "time_precision": [
        P, PT,
        "SELECT TYPEOF(CASE WHEN f THEN t0 ELSE t3 END) AS a, TYPEOF(COALESCE(t0, t3)) AS b, "
        "TYPEOF(IF(f, t0, t3)) AS c, TYPEOF(COALESCE(t3, TIME '01:00:00')) AS d, "
        "TYPEOF(CASE WHEN f THEN TIME '01:00:00.5' ELSE t0 END) AS e, TYPEOF(NULLIF(t0, t3)) AS g FROM pt",
        "SELECT TYPEOF(COALESCE(n0, n3)) AS a, TYPEOF(COALESCE(n0, t3)) AS b, TYPEOF(CASE WHEN f THEN "
        "n3 END) AS c, "
        "TYPEOF(IF(f, n3, t0)) AS d, TYPEOF(IF(f, t0, n3)) AS e FROM pt",
        "SELECT CAST(CASE WHEN f THEN t0 ELSE t3 END AS STRING) AS a, CAST(COALESCE(t3, t0) AS STRING) AS b, "
        "CAST(IF(NOT f, t0, t3) AS STRING) AS c FROM p",
        "CREATE TEMPORARY VIEW u AS SELECT n0 AS x FROM pt UNION ALL SELECT n3 FROM pt",
        "DESCRIBE u",
        "CREATE TEMPORARY VIEW up AS SELECT t0 AS x FROM p UNION ALL SELECT t3 FROM p",
        "SELECT CAST(x AS STRING) AS x FROM up",
        "CREATE TEMPORARY VIEW cw AS SELECT CASE WHEN f THEN n0 ELSE n3 END AS a, COALESCE(n0, n3) AS b, "
        "IF(f, n3, n0) AS c, IF(f, n0, n3) AS d FROM pt",
        "DESCRIBE cw",
    ],
    "typeof_derived": [
        "CREATE TABLE nn (id INT NOT NULL, n INT NOT NULL, m INT, s STRING NOT NULL, v VARCHAR(5)) WITH "
        "('connector' = 'datagen', 'number-of-rows' = '1')",
        "SELECT TYPEOF(c) AS a, TYPEOF(d) AS b, TYPEOF(e) AS c, TYPEOF(f) AS d, TYPEOF(g) AS e FROM "
        "(SELECT n AS c, n + 1 AS d, m AS e, m * n AS f, s AS g FROM nn)",
        "SELECT TYPEOF(x) AS a, TYPEOF(y) AS b FROM (SELECT c AS x, c = 1 AS y FROM (SELECT n AS c FROM nn))",
        "SELECT TYPEOF(c) AS a, TYPEOF(c + 1) AS b, TYPEOF(c2) AS c FROM (SELECT COUNT(*) AS c, "
        "COUNT(m) AS c2 FROM nn)",
        "SELECT TYPEOF(c) AS a, c + 1 IS NULL AS b, c IS NOT NULL AS c FROM (SELECT COUNT(m) AS c FROM nn)",
        "SELECT TYPEOF(c) AS a FROM (SELECT COUNT(DISTINCT m) FILTER (WHERE n > 0) AS c FROM nn)",
        "SELECT TYPEOF(t.n) AS a FROM (SELECT * FROM nn) AS t",
        "SELECT TYPEOF(ARRAY_AGG(n)[1]) AS a, TYPEOF(ARRAY_AGG(m)[1]) AS b FROM nn",
        "SELECT TYPEOF(CARDINALITY(ARRAY_AGG(n))) AS a FROM nn",
    ],
    "collect": [
        T,
        "CREATE TEMPORARY VIEW tc AS SELECT k, COLLECT(s) AS m, COLLECT(d) AS md FROM t GROUP BY k",
        "DESCRIBE tc",
        "SELECT k, CAST(m AS STRING) AS m, CAST(md AS STRING) AS md FROM tc",
        "SELECT k, COLLECT(s) AS m FROM t GROUP BY k",
        "SELECT TYPEOF(COLLECT(s)) AS a, TYPEOF(COLLECT(k)) AS b FROM t",
        "SELECT CAST(COLLECT(c) AS STRING) AS m FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k)",
        "SELECT CAST(COLLECT(s) AS STRING) AS m FROM (VALUES ('x'), ('y'), ('x'), (CAST(NULL AS STRING)), "
        "('z'), ('y'), ('x')) AS v(s)",
        "SELECT CAST(COLLECT(DISTINCT s) AS STRING) AS m FROM (VALUES ('x'), ('y'), ('x')) AS v(s)",
        "SELECT CAST(COLLECT(s) FILTER (WHERE s <> 'y') AS STRING) AS m FROM (VALUES ('x'), ('y'), ('x')) "
        "AS v(s)",
        "SELECT CAST(COLLECT(n) AS STRING) AS m FROM (VALUES (3), (1), (2), (1), (20), (10)) AS v(n)",
        "SELECT CAST(COLLECT(CAST(n AS BIGINT)) AS STRING) AS m FROM (VALUES (3), (1), (2), (1), (20), "
        "(10)) AS v(n)",
        "SELECT CAST(COLLECT(s) AS STRING) AS m FROM (VALUES ('b'), ('a'), ('c'), ('aa'), ('ab'), ('ba'), "
        "('hello'), ('x1'), ('x2'), ('x10'), ('é')) AS v(s)",
        # 13 values held at once (its state map grows to 32 buckets), then 10 of them retracted
        "SELECT CAST(COLLECT(m) AS STRING) AS m FROM (SELECT k, MAX(s) AS m FROM (VALUES "
        + ", ".join(f"({i}, '{c}')" for i, c in enumerate("abcdefghijklm", 1))
        + ", " + ", ".join(f"({i}, 'zz')" for i in range(1, 11)) + ") AS v(k, s) GROUP BY k)",
        # 'xj' then 'xb' share a bucket of 16 but not of 32: held 13 at once, the state map's 32 buckets
        # give 'xb' first (StateMapView.getMap copies in that order); by insertion 'xj' would be
        "SELECT CAST(COLLECT(m) AS STRING) AS m FROM (SELECT k, MAX(s) AS m FROM (VALUES (1, 'xj'), "
        "(2, 'xb'), " + ", ".join(f"({i}, '{c}')" for i, c in enumerate("abcdefghijk", 3))
        + ", " + ", ".join(f"({i}, 'xj')" for i in range(3, 14)) + ") AS v(k, s) GROUP BY k)",
        "SELECT CAST(COLLECT(DISTINCT m) AS STRING) AS m FROM (SELECT k, MAX(s) AS m FROM (VALUES (1, 'x'), "
        "(2, 'y'), (3, 'x'), (1, 'z'), (3, 'zz')) AS v(k, s) GROUP BY k)",
        "SELECT CAST(COLLECT(b) AS STRING) AS m, CAST(COLLECT(CAST(n AS SMALLINT)) AS STRING) AS n FROM "
        "(VALUES (TRUE, -1), (FALSE, 70000), (TRUE, 5)) AS v(b, n)",
        "SELECT CARDINALITY(COLLECT(s)) AS n FROM t",
        "SELECT COLLECT(s) = COLLECT(s) AS e FROM t",
    ],
    "view_database": [
        "CREATE DATABASE db1",
        "CREATE DATABASE db2",
        "USE db1",
        "CREATE VIEW v AS SELECT CURRENT_DATABASE() AS d",
        "CREATE TEMPORARY VIEW tv AS SELECT CURRENT_DATABASE() AS d",
        "SELECT * FROM v",
        "USE db2",
        "SELECT * FROM db1.v",
        "SELECT * FROM db1.tv",
        "SELECT d, CURRENT_DATABASE() AS here FROM db1.v",
        "SHOW CREATE VIEW db1.v",
    ],
}


def _run(statements: list[str], folder: Path) -> list[dict]:
    """Each statement's answer (columns and kind-tagged rows, or Flink's error) in one environment."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("table.local-time-zone", "UTC")
    tenv.get_config().set("parallelism.default", "1")
    out = []
    for st in statements:
        sql = st.replace("${DIR}", str(folder))
        try:
            result = tenv.execute_sql(sql)
            if st.startswith("INSERT"):
                result.wait()
                files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
                out.append({"sql": st, "files": "".join(p.read_text() for p in files
                                                       if p.parent.name == st.split()[2].split("_")[1])})
                continue
            columns = list(result.get_table_schema().get_field_names())
            with result.collect() as rows:
                got = [[str(row.get_row_kind())] + [None if v is None else str(v) for v in row]
                       for row in rows]
            out.append({"sql": st, "columns": columns, "rows": got})
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer
            out.append({"sql": st, "error": _error_text(e)})
    return out


def main(argv: list[str]) -> None:
    """Run the named scripts (default: all) and write their answers."""
    names = argv or list(SCRIPTS)
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    for name in names:
        old[name] = _run(SCRIPTS[name], Path(tempfile.mkdtemp(prefix=f"flink_gaps_{name}_")))
        OUT.write_text(json.dumps(old, indent=1) + "\n")
        print(name, "done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
