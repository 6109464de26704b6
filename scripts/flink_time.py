"""Record Apache Flink 2.3's answers about the TIME type (DDL, DESCRIBE, literals, casts, formats).

Flink is the oracle for StreamSQL's TIME / TIME(p): this script runs, on PyFlink's local
mini-cluster (session zone UTC, parallelism 1),

- ``DESCRIBE`` of tables and views with TIME columns and expressions (which precisions the type
  keeps, NOT NULL, inside ROW / ARRAY / MAP);
- ``PLANS``: statements whose planning error (or success) is recorded (bad literals, precisions
  out of range, casts Flink refuses);
- ``QUERIES``: bounded queries whose collected rows are recorded as text (``CAST(... AS STRING)``
  in the query, so no Python conversion is involved);
- ``SINKS``: a batch INSERT of TIME values into a filesystem table of each format; the files'
  text is recorded (how a format writes TIME);

and writes ``tests/e2e/time_flink.json``, which ``tests/e2e/test_time_type.py`` compares with
StreamSQL's answers::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_time.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "e2e" / "time_flink.json"
sys.path.insert(0, str(ROOT / "scripts"))
from flink_compat import _error_text  # noqa: E402  (Flink's own message of a Py4J error)

TABLE = ("CREATE TABLE t (a TIME, b TIME(0), c TIME(3), d TIME(6), e TIME(9), f TIME NOT NULL, "
         "g TIME WITHOUT TIME ZONE, r ROW<x TIME(3), y INT>, arr ARRAY<TIME>, m MAP<STRING, TIME(2)>) "
         "WITH ('connector' = 'datagen')")
VIEWS = [
    "CREATE VIEW v_lit AS SELECT TIME '12:34:56' AS l0, TIME '12:34:56.1' AS l1, "
    "TIME '12:34:56.123' AS l3, TIME '12:34:56.123456' AS l6, CAST('12:00:00' AS TIME) AS c, "
    "CAST('12:00:00' AS TIME(3)) AS c3, CAST(TIMESTAMP '2024-01-01 10:20:30.456' AS TIME) AS ts0, "
    "c + INTERVAL '1' HOUR AS plus, LOCALTIME AS lt, CURRENT_TIME AS ct, HOUR(a) AS h, "
    "EXTRACT(SECOND FROM c) AS s, CAST(c AS STRING) AS str FROM t",
]
VIEW_NAMES = ["t", "v_lit"]

PLANS = [
    "SELECT TIME '24:00:00'",
    "SELECT TIME '12:60:00'",
    "SELECT TIME '12:34'",
    "SELECT TIME 'abc'",
    "SELECT TIME '1:2:3'",
    "SELECT TIME '12:34:56.1234567891'",
    "SELECT CAST(TIME '12:00:00' AS TIMESTAMP)",
    "SELECT CAST(TIME '12:00:00' AS TIMESTAMP(3))",
    "SELECT CAST(TIME '12:00:00' AS TIMESTAMP_LTZ(3))",
    "SELECT CAST(TIME '12:00:00' AS DATE)",
    "SELECT CAST(TIME '12:00:00' AS INT)",
    "SELECT CAST(TIME '12:00:00' AS BIGINT)",
    "SELECT CAST(DATE '2024-01-01' AS TIME)",
    "SELECT CAST(12 AS TIME)",
    "SELECT TIME '12:00:00' + INTERVAL '1' DAY",
    "SELECT TIME '12:00:00' + INTERVAL '1' MONTH",
    "SELECT TIME '12:00:00' - TIME '11:00:00'",
    "SELECT DATE_FORMAT(TIME '12:00:00', 'HH:mm')",
    "SELECT TIME '12:00:00' = TIMESTAMP '2024-01-01 12:00:00'",
    "SELECT TIME '12:00:00' < '13:00:00'",
    "SELECT YEAR(TIME '12:00:00')",
    "SELECT EXTRACT(DAY FROM TIME '12:00:00')",
    "SELECT TIMESTAMPDIFF(SECOND, TIME '12:00:00', TIME '13:00:00')",
    "SELECT TIMESTAMPADD(HOUR, 1, TIME '23:00:00')",
    "SELECT CAST(TIME '12:00:00' AS TIME(10))",
    "CREATE TABLE bad (a TIME(10)) WITH ('connector' = 'datagen')",
    "CREATE TABLE bad_raw (a TIME) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'raw')",
]

QUERIES = [
    "SELECT CAST(TIME '12:34:56.123456' AS STRING), CAST(TIME '12:34:56.1' AS STRING), "
    "CAST(TIME '00:00:00' AS STRING), CAST(CAST(TIME '12:34:56.987654' AS TIME(6)) AS STRING), "
    "CAST(CAST(TIME '12:34:56.987654' AS TIME(0)) AS STRING), "
    "CAST(CAST(TIME '12:34:56.987' AS TIME(1)) AS STRING)",
    "SELECT CAST(CAST('12:34:56.987654321' AS TIME(9)) AS STRING), CAST(CAST('1:2:3' AS TIME) AS STRING), "
    "CAST(CAST('12:34' AS TIME) AS STRING), CAST(CAST(' 12:34:56 ' AS TIME) AS STRING)",
    "SELECT CAST(TIME '23:30:00' + INTERVAL '1' HOUR AS STRING), "
    "CAST(TIME '00:30:00' - INTERVAL '1' HOUR AS STRING), "
    "CAST(TIME '12:00:00' + INTERVAL '25' HOUR AS STRING), "
    "CAST(TIME '12:00:00.5' + INTERVAL '0.25' SECOND AS STRING), "
    "CAST(TIME '12:00:00' + INTERVAL '1 01:00:00' DAY TO SECOND AS STRING)",
    "SELECT HOUR(TIME '12:34:56'), MINUTE(TIME '12:34:56'), SECOND(TIME '12:34:56.789'), "
    "EXTRACT(HOUR FROM TIME '12:34:56'), EXTRACT(MILLISECOND FROM TIME '12:34:56.789'), "
    "EXTRACT(MICROSECOND FROM TIME '12:34:56.789')",
    "SELECT CAST(CAST(TIMESTAMP '2024-01-01 10:20:30.456789' AS TIME) AS STRING), "
    "CAST(CAST(TIMESTAMP '2024-01-01 10:20:30.456789' AS TIME(6)) AS STRING), "
    "CAST(CAST(TIMESTAMP '2024-01-01 10:20:30.456789' AS TIME(3)) AS STRING)",
    "SELECT CAST(FLOOR(TIME '12:44:31' TO MINUTE) AS STRING), CAST(CEIL(TIME '12:44:31' TO HOUR) AS STRING), "
    "CAST(FLOOR(TIME '12:44:31.5' TO SECOND) AS STRING)",
    "SELECT TIME '12:00:00' < TIME '13:00:00', TIME '12:00:00.001' > TIME '12:00:00', "
    "TIME '12:00:00' = CAST('12:00:00' AS TIME(3)), "
    "TIME '12:00:00' BETWEEN TIME '11:00:00' AND TIME '13:00:00'",
    "SELECT CAST(t AS STRING) FROM (VALUES (TIME '12:00:00'), (TIME '01:00:00.5'), (TIME '23:59:59.999')) "
    "AS v(t) ORDER BY t",
    "SELECT CAST(MIN(t) AS STRING), CAST(MAX(t) AS STRING), COUNT(DISTINCT t) "
    "FROM (VALUES (TIME '12:00:00'), "
    "(TIME '01:00:00.5'), (TIME '12:00:00'), (CAST(NULL AS TIME))) AS v(t)",
    "SELECT CAST(TYPEOF(TIME '12:00:00.5') AS STRING), TYPEOF(CAST('1:00:00' AS TIME(6))), "
    "TYPEOF(TIME '12:00:00' + INTERVAL '1' SECOND)",
]

FORMATS = ["json", "csv", "debezium-json", "avro"]
SINK_ROWS = ("(1, TIME '12:34:56', TIME '12:34:56.123', CAST('12:34:56.123456' AS TIME(6))), "
             "(2, TIME '00:00:00', TIME '23:59:59.5', CAST(NULL AS TIME(6)))")


def _tenv(batch: bool = False):
    from pyflink.table import EnvironmentSettings, TableEnvironment

    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    tenv = TableEnvironment.create(settings)
    tenv.get_config().set("table.local-time-zone", "UTC")
    tenv.get_config().set("parallelism.default", "1")
    return tenv


def _plan(tenv, statement: str) -> dict:
    try:
        if statement.startswith("SELECT"):
            tenv.sql_query(statement).get_schema()
            types = [str(t) for t in tenv.sql_query(statement).get_schema().get_field_data_types()]
            return {"ok": types}
        tenv.execute_sql(statement)
        return {"ok": []}
    except Exception as e:  # noqa: BLE001  (Flink's rejection is the answer)
        return {"error": _error_text(e)}


def _query(tenv, statement: str) -> dict:
    try:
        with tenv.execute_sql(statement).collect() as rows:
            return {"rows": [[None if v is None else str(v) for v in row] for row in rows]}
    except Exception as e:  # noqa: BLE001
        return {"error": _error_text(e)}


def _sink(fmt: str) -> dict:
    tenv = _tenv(batch=True)
    folder = tempfile.mkdtemp(prefix=f"flink_time_{fmt.replace('-', '_')}_")
    try:
        tenv.execute_sql(f"CREATE TABLE s (id INT, a TIME, b TIME(3), c TIME(6)) WITH ('connector' = "
                         f"'filesystem', 'path' = '{folder}', 'format' = '{fmt}')")
        tenv.execute_sql(f"INSERT INTO s VALUES {SINK_ROWS}").wait()
        text = "".join(p.read_text(errors="replace") if fmt != "avro" else "(binary)"
                       for p in sorted(Path(folder).rglob("*")) if p.is_file() and not p.name.startswith("."))
        back = _query(tenv, "SELECT id, CAST(a AS STRING), CAST(b AS STRING), CAST(c AS STRING) FROM s")
        return {"text": text, "read_back": back}
    except Exception as e:  # noqa: BLE001
        return {"error": _error_text(e)}


def _read(fmt: str, lines: list[str]) -> dict:
    """A filesystem source of ``fmt`` over ``lines`` read as TIME(0), TIME(3), TIME(6)."""
    tenv = _tenv(batch=True)
    folder = Path(tempfile.mkdtemp(prefix="flink_time_read_"))
    (folder / "in.txt").write_text("\n".join(lines) + "\n")
    tenv.execute_sql(f"CREATE TABLE r (a TIME(0), b TIME(3), c TIME(6)) WITH ('connector' = 'filesystem', "
                     f"'path' = '{folder}', 'format' = '{fmt}')")
    rows = []
    for line in lines:
        (folder / "in.txt").write_text(line + "\n")
        got = _query(tenv, "SELECT CAST(a AS STRING), CAST(b AS STRING), CAST(c AS STRING) FROM r")
        rows.append({"line": line, **got})
    return {"rows": rows}


def main() -> int:
    """Run every probe and write the JSON."""
    tenv = _tenv()
    tenv.execute_sql(TABLE)
    for v in VIEWS:
        tenv.execute_sql(v)
    describe = {n: [[str(c) for c in row] for row in tenv.execute_sql(f"DESCRIBE {n}").collect()]
                for n in VIEW_NAMES}
    plans = {s: _plan(tenv, s) for s in PLANS}
    queries = {q: _query(tenv, q) for q in QUERIES}
    sinks = {f: _sink(f) for f in FORMATS}
    json_in = [json.dumps({"a": s, "b": s, "c": s}) for s in
               ("12:34:56", "12:34:56.123456789", "12:34", "1:2:3", "12:34:56Z", "bad")]
    csv_in = ["12:34:56,12:34:56.5,12:34:56.123456", "12:34:56.7,12:34:56.1234,12:34:56.1234567"]
    reads = {"json": _read("json", json_in), "csv": _read("csv", csv_in)}
    doc = {"table": TABLE, "views": VIEWS, "describe": describe, "plans": plans, "queries": queries,
           "sinks": {"rows": SINK_ROWS, **sinks}, "reads": reads}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(doc, indent=1, ensure_ascii=False), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
