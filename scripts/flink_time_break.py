"""Record Apache Flink 2.3's answers to TIME through every operator: the breaker's probes.

Flink is the oracle (``scripts/flink_time.py`` recorded the type itself). This script runs, on
PyFlink's local mini-cluster (streaming mode, session zone UTC, parallelism 1),

- ``QUERIES``: bounded queries over TIME columns and literals (edge text casts, big and negative
  intervals, CASE / COALESCE / IN / BETWEEN mixing TIME(0) and TIME(3), GROUP BY / MIN / MAX over
  changelogs, DISTINCT, UNION, Top-N, joins, ARRAY_AGG / LISTAGG / JSON functions); each answer is
  its changelog (row kind first, values as text: every value is CAST to STRING in the query) or
  Flink's error;
- ``ZONED``: casts between TIME and TIMESTAMP_LTZ in the session time zones ``ZONES``;
- ``SINKS``: a batch INSERT of a query into a filesystem table of each format whose TIME column
  has another precision (a TIME(3) into a TIME(0) column: cut or rounded?); the file's text and
  the column read back;

and writes ``tests/e2e/time_break_flink.json``, which ``tests/e2e/test_time_break.py`` compares
with StreamSQL's answers::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_time_break.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_time import _error_text, _tenv  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "e2e" / "time_break_flink.json"

#: A TIME(0) column t and a TIME(3) column u (NULLs, midnight, the last millisecond of the day).
V = ("(VALUES (1, TIME '01:00:00', TIME '01:00:00.250'), (1, TIME '23:30:00', TIME '00:00:00.001'), "
     "(2, TIME '01:00:00', TIME '12:00:00.500'), (3, CAST(NULL AS TIME), TIME '23:59:59.999')) AS v(k, t, u)")
QUERIES = [
 # literal / cast edge text
 "SELECT CAST(CAST('23:59:59.9995' AS TIME(3)) AS STRING)",
 "SELECT CAST(CAST('23:59:59.9995' AS TIME) AS STRING)",
 "SELECT CAST(CAST(' 12:00' AS TIME) AS STRING)",
 "SELECT CAST(CAST('12:00:00Z' AS TIME) AS STRING)",
 "SELECT CAST(CAST('-01:00:00' AS TIME) AS STRING)",
 "SELECT CAST(CAST('+01:00:00' AS TIME) AS STRING)",
 "SELECT CAST(CAST('１２:００:００' AS TIME) AS STRING)",
 "SELECT CAST(CAST('12:00:00.' AS TIME) AS STRING)",
 "SELECT CAST(CAST('12::00' AS TIME) AS STRING)",
 "SELECT CAST(CAST('' AS TIME) AS STRING)",
 "SELECT CAST(CAST('12:00:00 AM' AS TIME) AS STRING)",
 "SELECT CAST(CAST('12:00:60' AS TIME) AS STRING)",
 "SELECT CAST(CAST('12:00:00.0005' AS TIME(3)) AS STRING)",
 "SELECT CAST(CAST('12:00:00.1234567890123' AS TIME(3)) AS STRING)",
 "SELECT CAST(CAST('2024-01-01 12:00:00' AS TIME) AS STRING)",
 "SELECT CAST(CAST('12:00:00.5' AS TIME(3)) AS STRING), CAST(CAST('12:00:00.5' AS TIME(1)) AS STRING)",
 "SELECT CAST(TRY_CAST('25:00:00' AS TIME) AS STRING), CAST(TRY_CAST('x' AS TIME) AS STRING)",
 "SELECT CAST(CAST('012:00:00' AS TIME) AS STRING)",
 "SELECT CAST(CAST('12:00:00.5 ' AS TIME(3)) AS STRING)",
 "SELECT CAST(TIME '12:00:00' AS VARCHAR(5)), CAST(TIME '12:00:00.5' AS CHAR(12))",
 # intervals
 "SELECT CAST(TIME '12:00:00' + INTERVAL '100' DAY AS STRING)",
 "SELECT CAST(TIME '12:00:00' - INTERVAL '1' DAY AS STRING)",
 "SELECT CAST(TIME '12:00:00' + INTERVAL '-25' HOUR AS STRING)",
 "SELECT CAST(TIME '12:00:00' + INTERVAL '1' YEAR AS STRING)",
 "SELECT CAST(TIME '12:00:00' - INTERVAL '13' MONTH AS STRING)",
 "SELECT CAST(TIME '12:00:00' + INTERVAL '0.0005' SECOND AS STRING)",
 "SELECT CAST(INTERVAL '2' HOUR + TIME '23:00:00' AS STRING)",
 "SELECT CAST(TIME '00:00:00' - INTERVAL '0.001' SECOND AS STRING)",
 "SELECT CAST(TIME '12:00:00' + INTERVAL '99 23:59:59.999' DAY TO SECOND AS STRING)",
 "SELECT k, CAST(t + INTERVAL '1' DAY AS STRING), CAST(t - INTERVAL '25' HOUR AS STRING), CAST(u + "
  f"INTERVAL '1' MONTH AS STRING), CAST(u - INTERVAL '0.002' SECOND AS STRING) FROM {V}",
 "SELECT k, CAST(TIMESTAMPADD(DAY, 1, t) AS STRING), CAST(TIMESTAMPADD(SECOND, -3601, t) AS STRING), "
  f"CAST(TIMESTAMPADD(MONTH, 1, t) AS STRING) FROM {V}",
 f"SELECT k, TIMESTAMPDIFF(MINUTE, t, u), TIMESTAMPDIFF(SECOND, u, t) FROM {V}",
 # type mixing
 "SELECT CAST(CASE WHEN RAND() < 2 THEN TIME '12:00:00' ELSE TIME '12:00:00.123' END AS STRING), "
  "TYPEOF(CASE WHEN RAND() < 2 THEN TIME '12:00:00' ELSE TIME '12:00:00.123' END)",
 "SELECT k, CAST(CASE WHEN k = 1 THEN t ELSE u END AS STRING), CAST(COALESCE(t, u) AS STRING), "
  f"TYPEOF(COALESCE(t, u)), CAST(IF(k = 2, u, t) AS STRING), CAST(NULLIF(u, t) AS STRING) FROM {V}",
 f"SELECT k, CAST(GREATEST(t, u) AS STRING), CAST(LEAST(t, u) AS STRING) FROM {V}",
 "SELECT TIME '12:00:00' IN (TIME '12:00:00.000', TIME '13:00:00'), TIME '12:00:00.5' IN (TIME "
  "'12:00:00', TIME '13:00:00'), TIME '12:00:00' = TIME '12:00:00.0001'",
 "SELECT k, u IN (TIME '00:00:00.001', TIME '12:00:00.5'), t IN (TIME '01:00:00', TIME '02:00:00'), "
  f"u NOT IN (TIME '23:59:59.999') FROM {V}",
 f"SELECT k, t = '01:00:00', u = '12:00:00.5', u IN ('12:00:00.5', '00:00:00.001') FROM {V}",
 "SELECT TIME '01:00:00' BETWEEN TIME '23:00:00' AND TIME '02:00:00', TIME '01:00:00' BETWEEN "
  "SYMMETRIC TIME '23:00:00' AND TIME '02:00:00', TIME '01:00:00' NOT BETWEEN TIME '23:00:00' AND TIME "
  "'02:00:00'",
 "SELECT k, u BETWEEN TIME '23:00:00' AND TIME '01:00:00', u BETWEEN SYMMETRIC TIME '23:00:00' AND "
  f"TIME '01:00:00' FROM {V}",
 f"SELECT k, t IS DISTINCT FROM u, t IS NOT DISTINCT FROM TIME '01:00:00' FROM {V}",
 # operators
 f"SELECT CAST(t AS STRING), COUNT(*) FROM (SELECT k, MAX(t) AS t FROM {V} GROUP BY k) GROUP BY t",
 "SELECT CAST(MIN(t) AS STRING), CAST(MAX(t) AS STRING), CAST(MIN(u) AS STRING), CAST(MAX(u) AS "
  f"STRING) FROM (SELECT k, MAX(t) AS t, MIN(u) AS u FROM {V} GROUP BY k)",
 f"SELECT k, CAST(FIRST_VALUE(u) AS STRING), CAST(LAST_VALUE(u) AS STRING) FROM {V} GROUP BY k",
 f"SELECT DISTINCT CAST(t AS STRING) FROM {V}",
 f"SELECT COUNT(DISTINCT t), COUNT(DISTINCT u) FROM {V}",
 "SELECT CAST(x AS STRING), TYPEOF(x) FROM (SELECT TIME '12:00:00' AS x UNION ALL SELECT TIME '12:00:00.5')",
 "SELECT CAST(x AS STRING) FROM (SELECT TIME '12:00:00' AS x UNION SELECT TIME '12:00:00.000' UNION "
  "SELECT TIME '12:00:00.5')",
 "SELECT k, CAST(t AS STRING), rn FROM (SELECT k, t, ROW_NUMBER() OVER (PARTITION BY t ORDER BY u "
  f"DESC) AS rn FROM {V}) WHERE rn <= 1",
 "SELECT k, CAST(u AS STRING), rn FROM (SELECT k, u, ROW_NUMBER() OVER (ORDER BY u DESC) AS rn FROM "
  f"{V}) WHERE rn <= 2",
 f"SELECT k, CAST(u AS STRING) FROM {V} ORDER BY u DESC LIMIT 2",
 f"SELECT k, SUM(k) OVER (ORDER BY u ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM {V}",
 "SELECT a.k, b.k, CAST(a.t AS STRING) FROM (VALUES (1, TIME '12:00:00'), (2, TIME '13:00:00')) AS "
  "a(k, t) JOIN (VALUES (10, TIME '12:00:00.000'), (20, TIME '13:00:00.001'), (30, CAST('13:00:00' AS "
  "TIME(3)))) AS b(k, t) ON a.t = b.t",
 "SELECT a.k, b.k FROM (VALUES (1, TIME '12:00:00'), (2, TIME '13:00:00')) AS a(k, t) JOIN (VALUES "
  "(10, TIME '12:30:00'), (20, TIME '14:00:00')) AS b(k, t) ON b.t BETWEEN a.t AND a.t + INTERVAL '1' "
  "HOUR",
 "SELECT a.k, b.k FROM (VALUES (1, TIME '12:00:00'), (2, CAST(NULL AS TIME))) AS a(k, t) LEFT JOIN "
  "(VALUES (10, TIME '12:00:00'), (20, CAST(NULL AS TIME))) AS b(k, t) ON a.t = b.t",
 # aggs / functions
 f"SELECT LISTAGG(CAST(u AS STRING)) FROM {V}",
 f"SELECT CAST(ARRAY_AGG(u) AS STRING) FROM (SELECT * FROM {V} WHERE k = 2)",
 f"SELECT CAST(ARRAY[t, u] AS STRING) FROM {V} WHERE k = 2",
 f"SELECT JSON_OBJECT('a' VALUE u) FROM {V}",
 f"SELECT JSON_ARRAYAGG(u) FROM {V}",
 f"SELECT JSON_STRING(u) FROM {V}",
 f"SELECT CAST(ROW(t, u) AS STRING) FROM {V} WHERE k = 2",
 f"SELECT CONCAT('x', u) FROM {V}",
 f"SELECT 'x' || u FROM {V}",
 "SELECT k, CAST(CAST(u AS TIME(0)) AS STRING), CAST(CAST(u AS TIME(1)) AS STRING), CAST(CAST(CAST(u "
  f"AS STRING) AS TIME(2)) AS STRING) FROM {V}",
 f"SELECT k, CAST(CAST(u AS TIMESTAMP(3)) AS STRING), CAST(CAST(u AS TIMESTAMP(0)) AS STRING) FROM {V}",
 f"SELECT k, HOUR(u), MINUTE(u), SECOND(u), EXTRACT(MILLISECOND FROM u) FROM {V}",
 "SELECT k, CAST(FLOOR(u TO SECOND) AS STRING), CAST(CEIL(u TO SECOND) AS STRING), CAST(CEIL(u TO "
  f"MINUTE) AS STRING) FROM {V}",
 "SELECT EXTRACT(EPOCH FROM TIME '12:00:00')",
 "SELECT DATE '2024-01-01' + TIME '12:00:00'",
 "SELECT CAST(TIMESTAMP '2024-01-01 00:00:00' + TIME '12:00:00' AS STRING)",
 "SELECT CAST(MAX(x) AS STRING) FROM (VALUES (TIME '12:00:00'), (CAST('12:00:00.5' AS TIME(3)))) AS v(x)",
 "SELECT SUM(x) FROM (VALUES (TIME '12:00:00')) AS v(x)",
 "SELECT AVG(x) FROM (VALUES (TIME '12:00:00')) AS v(x)",
 "SELECT CAST(CAST(TIME '12:00:00' AS TIMESTAMP_LTZ(3)) AS STRING)",
 "SELECT TO_TIMESTAMP(CONCAT('2024-01-01 ', CAST(TIME '12:00:00.5' AS STRING)))",
 "SELECT CAST(TIME '12:00:00.5' AS STRING) LIKE '12:00:00.5%'",
 "SELECT HASH_CODE(TIME '12:00:00')",
 "SELECT CAST(CAST(CAST('12:00:00.123' AS TIME(3)) AS TIME(0)) AS STRING), "
  "CAST(CAST(CAST('12:00:00.987' AS TIME(3)) AS TIME(2)) AS STRING)",
 f"SELECT CAST(ARRAY_AGG(u) AS STRING), CAST(ARRAY_AGG(u)[1] AS STRING) FROM (SELECT * FROM {V} WHERE k = 2)",
 f"SELECT k, CAST(ARRAY_AGG(u) AS STRING) FROM {V} GROUP BY k",
 f"SELECT CAST(MAP[k, u] AS STRING) FROM {V} WHERE k = 2",
 f"SELECT CAST(ARRAY[u] AS STRING), CAST(ARRAY[t] AS STRING) FROM {V} WHERE k = 2",
 f"SELECT CAST(ROW(u) AS STRING) FROM {V} WHERE k = 2",
 f"SELECT k, CAST(LAG(u) OVER (PARTITION BY k ORDER BY u) AS STRING) FROM {V}",
 f"SELECT k, CAST(x AS STRING) FROM (SELECT k, MAX(u) AS x FROM {V} GROUP BY k) WHERE x > TIME '01:00:00.2'",
 f"SELECT CAST(MIN(u) FILTER (WHERE k > 1) AS STRING) FROM {V}",
 f"SELECT k, CAST(ARRAY_AGG(DISTINCT t) AS STRING) FROM {V} GROUP BY k",
]

#: Whether TIME(0) and TIME(3) compare in IN and IS [NOT] DISTINCT FROM, one operator at a time.
QUERIES += [
    "SELECT TIME '12:00:00' IN (TIME '12:00:00.000', TIME '13:00:00')",
    "SELECT TIME '12:00:00.5' IN (TIME '12:00:00', TIME '13:00:00')",
    "SELECT TIME '12:00:00' = TIME '12:00:00.0001'",
    f"SELECT k, t IS DISTINCT FROM u FROM {V}",
    f"SELECT k, t IS NOT DISTINCT FROM TIME '01:00:00' FROM {V}",
    f"SELECT k, u IS DISTINCT FROM TIME '01:00:00.25' FROM {V}",
    f"SELECT k, t = u, t < u FROM {V}",
    f"SELECT k, t IN (u, TIME '01:00:00') FROM {V}",
    f"SELECT k, t IN (TIME '01:00:00.5', TIME '02:00:00') FROM {V}",
    f"SELECT k, u IN (TIME '01:00:00', TIME '02:00:00') FROM {V}",
    f"SELECT k, CAST(x AS STRING) FROM (SELECT k, t AS x FROM {V} UNION ALL SELECT k, u FROM {V})",
]
#: Casts between TIME and TIMESTAMP_LTZ, run in each of these session time zones.
ZONES = ["Asia/Kolkata", "America/Los_Angeles"]
ZONED = [
    "SELECT CAST(CAST(TIME '12:00:00.5' AS TIMESTAMP_LTZ(3)) AS STRING), "
    "CAST(CAST(TIME '02:00:00' AS TIMESTAMP_LTZ(0)) AS STRING)",
    "SELECT CAST(CAST(TO_TIMESTAMP_LTZ(0, 3) AS TIME(3)) AS STRING), "
    "CAST(CAST(TO_TIMESTAMP_LTZ(1700000000123, 3) AS TIME(3)) AS STRING)",
    "SELECT CAST(CAST(CAST(TIME '12:00:00.5' AS TIMESTAMP_LTZ(3)) AS TIME(3)) AS STRING)",
    "SELECT UNIX_TIMESTAMP(CAST(CAST(TIME '12:00:00' AS TIMESTAMP_LTZ(3)) AS STRING))",
    "SELECT CAST(CAST(TIME '12:00:00.5' AS TIMESTAMP(3)) AS STRING)",
    "SELECT TIME '12:00:00' < CAST(CAST(TO_TIMESTAMP_LTZ(0, 3) AS TIME) AS TIME)",
]
_TEXT3 = "SELECT CAST(s AS TIME(3)) FROM (VALUES ('12:34:56.789'), ('23:59:59.999')) AS v(s)"
#: Sink column type and the INSERT's query, per case; run for the json and csv formats.
SINKS = {
    "lit3_into_t0": ("a TIME(0)", "SELECT TIME '12:34:56.789'"),
    "col3_into_t0": ("a TIME(0)", "SELECT t FROM (VALUES (TIME '12:34:56.789'), (TIME '00:00:00.5')) "
                                  "AS v(t)"),
    "cast3_into_t0": ("a TIME(0)", _TEXT3),
    "col3_into_t1": ("a TIME(1)", _TEXT3),
    "str_into_t": ("a TIME(3)", "SELECT s FROM (VALUES ('12:34:56.789')) AS v(s)"),
    "ts_into_t": ("a TIME(3)", "SELECT TIMESTAMP '2024-01-01 12:34:56.789'"),
}
SINK_FORMATS = ["json", "csv"]


def _changelog(tenv, query: str) -> dict:
    """The query's collected changelog (row kind, then each value's text), or Flink's error."""
    try:
        with tenv.execute_sql(query).collect() as rows:
            return {"rows": [[str(r.get_row_kind()), *(None if v is None else str(v) for v in r)]
                             for r in rows]}
    except Exception as e:  # noqa: BLE001  (Flink's rejection is the answer)
        return {"error": _error_text(e)}


def _sink(fmt: str, column: str, select: str) -> dict:
    """INSERT ``select`` into a ``fmt`` filesystem table of the one ``column``: text and read-back."""
    tenv = _tenv(batch=True)
    folder = tempfile.mkdtemp(prefix="flink_time_break_")
    try:
        tenv.execute_sql(f"CREATE TABLE s ({column}) WITH ('connector' = 'filesystem', 'path' = '{folder}', "
                         f"'format' = '{fmt}')")
        tenv.execute_sql(f"INSERT INTO s {select}").wait()
        text = "".join(p.read_text() for p in sorted(Path(folder).rglob("*"))
                       if p.is_file() and not p.name.startswith("."))
        with tenv.execute_sql("SELECT CAST(a AS STRING) FROM s").collect() as rows:
            back = [str(r[0]) for r in rows]
        return {"text": text, "back": back}
    except Exception as e:  # noqa: BLE001
        return {"error": _error_text(e)}


def main() -> int:
    """Run every probe and write the JSON."""
    tenv = _tenv()
    queries = {q: _changelog(tenv, q) for q in QUERIES}
    zoned = {}
    for zone in ZONES:
        zoned_env = _tenv()
        zoned_env.get_config().set("table.local-time-zone", zone)
        zoned.update({f"{zone}|{q}": _changelog(zoned_env, q) for q in ZONED})
    sinks = {f"{fmt}:{name}": _sink(fmt, *SINKS[name]) for fmt in SINK_FORMATS for name in SINKS}
    doc = {"queries": queries, "zoned": zoned, "sinks": {"cases": SINKS, **sinks}}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
