"""Record Apache Flink 2.3's answers to small statements: values, DESCRIBE, SHOW, window offsets.

Each script of ``SCRIPTS`` runs in a fresh TableEnvironment, statement by statement (as
``scripts/flink_catalog.py``, whose runner it uses); the answers (result columns and rows, or the
error and its causes) go to ``tests/sql/flink_statements/flink.json``, which
``tests/sql/test_flink_statements.py`` compares ours with. ``${DIR}`` in a statement is that
folder (the CSV table and the Python UDF module live there). Regenerate::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_statements.py [SCRIPT ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "tests" / "sql" / "flink_statements"
OUT = DIR / "flink.json"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(DIR))

EVENTS = ("CREATE TABLE ev (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
          "'connector' = 'filesystem', 'path' = '${DIR}/events.csv', 'format' = 'csv')")


def _window(kind: str, offset: str) -> str:
    return (f"SELECT window_start, window_end, COUNT(*) AS n, SUM(a) AS s FROM TABLE({kind}(TABLE ev, "
            f"DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND, INTERVAL '{offset}' SECOND)) "
            "GROUP BY window_start, window_end")


SCRIPTS: dict[str, list[str]] = {
    "values": ["SELECT USER", "SELECT user", "SELECT CURRENT_USER", "SELECT SESSION_USER",
               "SELECT SYSTEM_USER", "SELECT CURRENT_ROLE", "SELECT CURRENT_PATH", "SELECT CURRENT_CATALOG",
               "SELECT CURRENT_SCHEMA", "SELECT USER()"],
    "database": ["SELECT CURRENT_DATABASE()", "SELECT CURRENT_DATABASE", "CREATE DATABASE d2", "USE d2",
                 "SELECT CURRENT_DATABASE() AS d, CHAR_LENGTH(CURRENT_DATABASE()) AS n"],
    "alter_partitions": [
        "CREATE TABLE fs (id INT, k STRING, d STRING) PARTITIONED BY (k) WITH ('connector' = 'filesystem', "
        "'path' = '${DIR}/alter_fs', 'format' = 'json')",
        "ALTER TABLE fs DROP k", "ALTER TABLE fs DROP (id, k)", "ALTER TABLE fs RENAME k TO k2",
        "ALTER TABLE fs DROP d", "ALTER TABLE fs RENAME id TO id2", "DESCRIBE fs"],
    "catalogs": ["DESCRIBE CATALOG nope", "DESC CATALOG EXTENDED nope", "DESCRIBE CATALOG default_catalog",
                 "CREATE CATALOG c1 WITH ('type' = 'generic_in_memory')", "DESCRIBE CATALOG c1",
                 "DESCRIBE CATALOG EXTENDED c1"],
    "casts": ["SELECT CAST(1 AS VARCHAR(10) NOT NULL)", "SELECT CAST(NULL AS INT NOT NULL)",
              "SELECT CAST(1 AS INT NULL)"],
    "offsets": [EVENTS] + [_window("HOP", o) for o in ("7", "12", "-5", "-13")]
    + [_window("CUMULATE", o) for o in ("10", "-10", "13", "23")],
    "match": [EVENTS] + [
        "SELECT * FROM ev MATCH_RECOGNIZE (ORDER BY ts MEASURES FINAL LAST(A.a) AS x, FINAL COUNT(A.a) AS c "
        "PATTERN (A+ B) DEFINE A AS a < 3)",
        "SELECT * FROM ev MATCH_RECOGNIZE (ORDER BY ts MEASURES RUNNING LAST(A.a) AS x PATTERN (A B) "
        "DEFINE A AS a > 0)",
        "SELECT * FROM ev MATCH_RECOGNIZE (ORDER BY ts MEASURES LAST(A.a) AS x PATTERN (A B) "
        "DEFINE A AS RUNNING LAST(a) > 0)",
        "SELECT * FROM ev MATCH_RECOGNIZE (ORDER BY ts MEASURES LAST(A.a) AS x PATTERN (A B) "
        "DEFINE A AS FINAL LAST(A.a) > 0)",
    ],
    "show": ["SHOW JARS", "SHOW MODELS", "SHOW MATERIALIZED TABLES", "SHOW MODELS FROM default_database",
             "SHOW MATERIALIZED TABLES IN default_database", "SHOW MODELS LIKE 'm%'",
             "SHOW MATERIALIZED TABLES LIKE 'm%'", "SHOW MODELS FROM nope"],
    # which SHOW statements take ILIKE, and Flink's words for those that do not
    "show_ilike": ["CREATE TABLE m1 (a INT) WITH ('connector' = 'datagen')",
                   "CREATE VIEW mv AS SELECT 1 AS a",
                   "SHOW MODELS ILIKE 'm%'", "SHOW MATERIALIZED TABLES ILIKE 'm%'", "SHOW TABLES ILIKE 'M%'",
                   "SHOW VIEWS ILIKE 'M%'", "SHOW COLUMNS FROM m1 ILIKE 'A'", "SHOW FUNCTIONS ILIKE 'LOWE_'",
                   "SHOW DATABASES ILIKE 'DEFAULT%'", "SHOW CATALOGS ILIKE 'DEFAULT%'", "SHOW JARS ILIKE 'x'",
                   "SHOW PROCEDURES ILIKE 'x'", "SHOW MODULES ILIKE 'x'", "SHOW JOBS ILIKE 'x'"],
    # datagen's ROW, ARRAY and MAP columns: per-field options under the column's name ('fields.r.a.min',
    # 'fields.arr.element.max', 'fields.m.key.min'); bounds min = max make the random values known
    "datagen_nested": [
        "CREATE TABLE g (id INT, r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<INT, INT>) WITH ("
        "'connector' = 'datagen', 'number-of-rows' = '3', 'fields.id.kind' = 'sequence', "
        "'fields.id.start' = '1', 'fields.id.end' = '3', 'fields.r.a.min' = '7', 'fields.r.a.max' = '7', "
        "'fields.r.b.length' = '2', 'fields.arr.element.min' = '5', 'fields.arr.element.max' = '5', "
        "'fields.m.key.min' = '1', 'fields.m.key.max' = '1', 'fields.m.value.min' = '4', "
        "'fields.m.value.max' = '4')",
        "SELECT id, r.a, CHAR_LENGTH(r.b), CARDINALITY(arr), arr[1], arr[3], CARDINALITY(m), m[1] FROM g",
        "CREATE TABLE g2 (id INT, arr ARRAY<STRING>, r ROW<x ROW<y BIGINT>>, m MAP<STRING, DOUBLE>) WITH ("
        "'connector' = 'datagen', 'number-of-rows' = '2', 'fields.arr.length' = '2', "
        "'fields.arr.element.length' = '4', 'fields.r.x.y.min' = '9', 'fields.r.x.y.max' = '10', "
        "'fields.m.length' = '5', 'fields.m.key.length' = '8')",
        # (a BIGINT's random min = max fails Flink's job: commons-math's nextLong wants lower < upper)
        "SELECT CARDINALITY(arr), CHAR_LENGTH(arr[2]), r.x.y BETWEEN 9 AND 10, CARDINALITY(m) FROM g2",
        "CREATE TABLE g3 (r ROW<a INT>) WITH ('connector' = 'datagen', 'number-of-rows' = '2', "
        "'fields.r.null-rate' = '1')",
        "SELECT r IS NULL FROM g3",
        "CREATE TABLE g4 (r ROW<a INT>) WITH ('connector' = 'datagen', 'number-of-rows' = '2', "
        "'fields.r.c.min' = '1')",
        "SELECT * FROM g4",
        "CREATE TABLE g5 (r ROW<a INT>) WITH ('connector' = 'datagen', 'fields.r.a.kind' = 'sequence', "
        "'fields.r.a.start' = '1', 'fields.r.a.end' = '3')",
        "SELECT r.a FROM g5",
        "CREATE TABLE g6 (r ROW<a INT>) WITH ('connector' = 'datagen', 'number-of-rows' = '2', "
        "'fields.r.kind' = 'sequence', 'fields.r.start' = '1', 'fields.r.end' = '3')",
        "SELECT * FROM g6",
        "CREATE TABLE g7 (arr ARRAY<INT>) WITH ('connector' = 'datagen', 'number-of-rows' = '2', "
        "'fields.arr.element.null-rate' = '1', 'fields.arr.null-rate' = '0')",
        "SELECT CARDINALITY(arr), arr[1] IS NULL FROM g7",
        # an option its column's type does not take
        "CREATE TABLE g8 (a INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1', "
        "'fields.a.length' = '3', 'fields.s.min' = '1')",
        "SELECT * FROM g8",
    ],
    # CASTs between a nested type and another type, and a FROM_BASE64 of text that is no base64
    "cast_nested": ["SELECT CAST(ARRAY[1] AS INT)", "SELECT CAST(1 AS ARRAY<INT>)",
                    "SELECT CAST(ROW(1, 'a') AS INT)",
                    "SELECT CAST(MAP['a', 1] AS BIGINT)", "SELECT CAST('[1]' AS ARRAY<INT>)",
                    "SELECT CAST(ARRAY[1] AS ROW<a INT>)", "SELECT CAST(ARRAY[1, 2] AS STRING)",
                    "SELECT CAST(ARRAY[1] AS BOOLEAN)", "SELECT FROM_BASE64('***')"],
    "functions": [
        "DESCRIBE FUNCTION `upper`", "DESCRIBE FUNCTION EXTENDED `upper`", "DESC FUNCTION `SUM`",
        "DESCRIBE FUNCTION EXTENDED `SUM`", "DESCRIBE FUNCTION `concat_ws`", "DESCRIBE FUNCTION nope",
        "DESCRIBE FUNCTION EXTENDED nope", "DESCRIBE FUNCTION upper",
        "CREATE TEMPORARY FUNCTION plus_one AS 'describe_udfs.plus_one' LANGUAGE PYTHON",
        "DESCRIBE FUNCTION plus_one", "DESCRIBE FUNCTION EXTENDED plus_one",
        "CREATE TEMPORARY SYSTEM FUNCTION sys_plus AS 'describe_udfs.plus_one' LANGUAGE PYTHON",
        "DESCRIBE FUNCTION sys_plus", "DESCRIBE FUNCTION EXTENDED sys_plus",
        "CREATE FUNCTION cat_plus AS 'describe_udfs.plus_one' LANGUAGE PYTHON",
        "DESCRIBE FUNCTION cat_plus", "DESCRIBE FUNCTION EXTENDED cat_plus",
        "DESCRIBE FUNCTION default_catalog.default_database.cat_plus",
    ],
}


def main(argv: list[str]) -> None:
    """Run the named scripts (default: all) and write their answers."""
    from flink_catalog import run

    names = argv or list(SCRIPTS)
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    for name in names:
        old[name] = run([s.replace("${DIR}", str(DIR)) for s in SCRIPTS[name]])
        for r in old[name]:
            r["sql"] = r["sql"].replace(str(DIR), "${DIR}")
        OUT.write_text(json.dumps(old, indent=1) + "\n")
        print(name, "done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
