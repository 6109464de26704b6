"""Record Apache Flink 2.3's answers to catalog, database and ``CREATE TABLE ... LIKE`` statements.

Each script of ``SCRIPTS`` runs in a fresh TableEnvironment, statement by statement; for each
statement the file keeps Flink's result columns and rows (SHOW, DESCRIBE, SHOW CREATE TABLE and
bounded SELECTs) or its error messages (the exception's message and every ``Caused by``).
``tests/catalog/test_catalog_flink.py`` runs the same scripts here and compares::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_catalog.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "catalog" / "catalog_flink.json"
SRC = ("CREATE TABLE s (id INT NOT NULL, ts TIMESTAMP(3), c AS id + 1, "
       "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED) "
       "WITH ('connector' = 'datagen', 'number-of-rows' = '3', 'fields.id.kind' = 'sequence', "
       "'fields.id.start' = '1', 'fields.id.end' = '3')")
SCRIPTS: dict[str, list[str]] = {
    "namespace": [
        "SHOW CATALOGS", "SHOW CURRENT CATALOG", "SHOW DATABASES", "SHOW CURRENT DATABASE",
        "SHOW MODULES", "SHOW FULL MODULES", "USE MODULES core", "USE MODULES `core`", "USE MODULES hive",
        "USE MODULES core, hive", "USE MODULES core, core", "USE MODULES CORE", "SHOW FULL MODULES",
        "CREATE DATABASE db1", "CREATE DATABASE IF NOT EXISTS db1", "CREATE DATABASE db1",
        "CREATE DATABASE IF NOT EXISTS a_db", "SHOW DATABASES",
        "USE db1", "SHOW CURRENT DATABASE",
        "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '2', "
        "'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '2')",
        "SHOW TABLES", "USE default_database", "SHOW TABLES",
        "SELECT a FROM db1.t", "SELECT a FROM default_catalog.db1.t", "SELECT a FROM t",
        "CREATE VIEW db1.v AS SELECT a + 1 AS b FROM db1.t", "SELECT b FROM db1.v",
        "CREATE TABLE default_catalog.default_database.x (a INT) WITH ('connector' = 'datagen', "
        "'number-of-rows' = '1', 'fields.a.kind' = 'sequence', 'fields.a.start' = '7', 'fields.a.end' = '7')",
        "SHOW TABLES", "SELECT a FROM x", "SELECT a FROM default_database.x",
        "CREATE TABLE nope.y (a INT) WITH ('connector' = 'datagen')",
        "CREATE TABLE c9.db1.y (a INT) WITH ('connector' = 'datagen')",
        "SELECT a FROM nope.t", "SELECT a FROM db1.nope",
        "DROP TABLE db1.t", "DROP VIEW db1.v",
        "CREATE TABLE db1.t2 (a INT) WITH ('connector' = 'datagen')",
        "DROP DATABASE db1", "DROP DATABASE db1 RESTRICT", "DROP DATABASE db1 CASCADE",
        "SHOW DATABASES", "DROP DATABASE IF EXISTS nope", "DROP DATABASE nope",
        "DROP DATABASE default_database",
        "USE nope", "USE CATALOG nope", "USE default_catalog.default_database",
        "CREATE CATALOG c1 WITH ('type' = 'generic_in_memory')", "SHOW CATALOGS",
        "CREATE CATALOG c1 WITH ('type' = 'generic_in_memory')",
        "CREATE CATALOG IF NOT EXISTS c1 WITH ('type' = 'generic_in_memory')",
        "USE CATALOG c1", "SHOW CURRENT CATALOG", "SHOW DATABASES", "SHOW CURRENT DATABASE",
        "SHOW TABLES", "CREATE DATABASE c1db", "USE c1db", "SHOW CURRENT DATABASE",
        "DROP CATALOG c1",
        "USE CATALOG default_catalog", "SHOW CURRENT DATABASE", "SHOW TABLES",
        "SHOW DATABASES", "USE c1.c1db", "SHOW CURRENT CATALOG", "SHOW CURRENT DATABASE",
        "USE CATALOG default_catalog", "DROP CATALOG c1", "DROP CATALOG IF EXISTS c1", "DROP CATALOG c1",
        "SHOW CATALOGS",
        "CREATE CATALOG h WITH ('type' = 'hive')", "CREATE CATALOG j WITH ('type' = 'jdbc')",
        "CREATE CATALOG n WITH ('a' = 'b')",
        "CREATE CATALOG z WITH ('type' = 'generic_in_memory', 'x' = 'y')",
        "CREATE CATALOG default_catalog WITH ('type' = 'generic_in_memory')",
        "SHOW TABLES FROM db_missing", "SHOW TABLES IN default_database", "SHOW VIEWS",
    ],
    "views": [
        "CREATE DATABASE d", "USE d",
        "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1', "
        "'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '1')",
        "CREATE VIEW v AS SELECT a FROM t", "USE default_database",
        "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1', "
        "'fields.a.kind' = 'sequence', 'fields.a.start' = '5', 'fields.a.end' = '5')",
        "SELECT a FROM d.v", "SELECT a FROM t", "SELECT a FROM default_catalog.d.t",
        "SHOW VIEWS FROM d", "SHOW TABLES IN d", "SHOW TABLES FROM default_catalog.d", "SHOW VIEWS",
        "SHOW CREATE TABLE d.t", "DROP VIEW v", "DROP TABLE d.t", "SHOW TABLES FROM d",
        "CREATE TABLE d.t2 WITH ('number-of-rows' = '2') LIKE t", "SHOW CREATE TABLE d.t2",
        "SELECT a FROM d.t2",
    ],
    "like": [
        SRC,
        "CREATE TABLE s2 WITH ('number-of-rows' = '5') LIKE s",
        "SHOW CREATE TABLE s2", "DESCRIBE s2", "SELECT id, c FROM s2",
        "CREATE TABLE s3 (extra STRING, e2 AS UPPER(extra)) WITH ('connector' = 'datagen') "
        "LIKE s (EXCLUDING OPTIONS)",
        "SHOW CREATE TABLE s3",
        "CREATE TABLE s4 (WATERMARK FOR ts AS ts) LIKE s",
        "CREATE TABLE s5 (WATERMARK FOR ts AS ts) LIKE s (OVERWRITING WATERMARKS)",
        "SHOW CREATE TABLE s5",
        "CREATE TABLE s6 LIKE s (EXCLUDING WATERMARKS)", "SHOW CREATE TABLE s6",
        "CREATE TABLE s7 (id BIGINT) LIKE s",
        "CREATE TABLE s8 (c AS id + 2) LIKE s",
        "CREATE TABLE s9 (c AS id + 2) LIKE s (OVERWRITING GENERATED)", "SHOW CREATE TABLE s9",
        "CREATE TABLE s10 (c AS id + 2) LIKE s (EXCLUDING GENERATED)", "SHOW CREATE TABLE s10",
        "CREATE TABLE s11 (PRIMARY KEY (ts) NOT ENFORCED) LIKE s",
        "CREATE TABLE s12 (PRIMARY KEY (ts) NOT ENFORCED) LIKE s (EXCLUDING CONSTRAINTS)",
        "SHOW CREATE TABLE s12",
        "CREATE TABLE s13 LIKE s (OVERWRITING CONSTRAINTS)",
        "CREATE TABLE s14 WITH ('number-of-rows' = '5') LIKE s (INCLUDING OPTIONS)",
        "CREATE TABLE s15 WITH ('rows-per-second' = '5') LIKE s (INCLUDING OPTIONS)", "SHOW CREATE TABLE s15",
        "CREATE TABLE s16 LIKE s (EXCLUDING ALL)", "SHOW CREATE TABLE s16",
        "CREATE TABLE s17 LIKE s (EXCLUDING ALL INCLUDING GENERATED)", "SHOW CREATE TABLE s17",
        "CREATE TABLE s18 LIKE s (INCLUDING ALL)", "SHOW CREATE TABLE s18",
        "CREATE TABLE s19 LIKE s (INCLUDING ALL EXCLUDING OPTIONS)", "SHOW CREATE TABLE s19",
        "CREATE TABLE s20 LIKE s (OVERWRITING ALL)",
        "CREATE TABLE s21 LIKE s (INCLUDING OPTIONS INCLUDING OPTIONS)",
        "CREATE TABLE s22 LIKE nope", "CREATE TABLE s23 LIKE default_catalog.default_database.s",
        "SHOW CREATE TABLE s23",
        "CREATE TABLE s24 (m STRING METADATA FROM 'x') LIKE s", "SHOW CREATE TABLE s24",
        "CREATE TABLE s25 LIKE s (INCLUDING PARTITIONS)",
        "CREATE TABLE s26 LIKE s (EXCLUDING METADATA)",
        "CREATE VIEW v AS SELECT id FROM s", "CREATE TABLE s27 LIKE v",
        "CREATE TABLE s28 (extra INT, PRIMARY KEY (extra) NOT ENFORCED, WATERMARK FOR ts AS ts) "
        "WITH ('number-of-rows' = '1') LIKE s (EXCLUDING CONSTRAINTS OVERWRITING WATERMARKS)",
        "SHOW CREATE TABLE s28", "DESCRIBE s28",
        "CREATE TABLE s29 (x INT) WITH ('connector' = 'datagen')", "CREATE TABLE s30 (y INT) LIKE s29",
        "SHOW CREATE TABLE s30",
        "CREATE TABLE s31 (WATERMARK FOR nope AS nope) LIKE s (EXCLUDING WATERMARKS)",
    ],
    "show": [
        "CREATE TABLE c (id INT NOT NULL COMMENT 'the id', name STRING COMMENT 'who''s', ts TIMESTAMP(3), "
        "fp STRING METADATA FROM 'file.path' VIRTUAL COMMENT 'the file', c2 AS id + 1 COMMENT 'computed', "
        "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED) COMMENT 'a table' "
        "WITH ('connector' = 'filesystem', 'path' = '/tmp/none.jsonl', 'format' = 'json')",
        "CREATE TABLE cat_t (a INT) WITH ('connector' = 'datagen')",
        "CREATE TABLE plain (a INT COMMENT 'only a column comment') WITH ('connector' = 'datagen')",
        "CREATE VIEW cv AS SELECT id, name FROM c",
        "SHOW CREATE TABLE c", "SHOW CREATE TABLE plain", "DESCRIBE c", "DESC c", "DESCRIBE EXTENDED c",
        "DESC EXTENDED c", "DESCRIBE EXTENDED cv", "DESCRIBE cv",
        "SHOW COLUMNS FROM c", "SHOW COLUMNS IN c", "SHOW COLUMNS FROM c LIKE '%a%'",
        "SHOW COLUMNS FROM c NOT LIKE 'n%'", "SHOW COLUMNS FROM c LIKE 'i_'", "SHOW COLUMNS FROM c LIKE 'ID'",
        "SHOW COLUMNS FROM c ILIKE 'ID'", "SHOW COLUMNS FROM cv", "SHOW COLUMNS FROM default_database.c",
        "SHOW COLUMNS FROM nope",
        "SHOW TABLES LIKE 'c%'", "SHOW TABLES NOT LIKE 'c%'", "SHOW TABLES LIKE 'C%'",
        "SHOW TABLES ILIKE 'C%'",
        "SHOW TABLES LIKE 'c_'", "SHOW TABLES LIKE 'c\\_t'",
        "CREATE DATABASE d2", "CREATE TABLE d2.dt (x INT) WITH ('connector' = 'datagen')",
        "CREATE TABLE d2.other (x INT) WITH ('connector' = 'datagen')",
        "SHOW TABLES FROM d2 LIKE 'd%'", "SHOW TABLES IN d2 NOT LIKE 'd%'",
        "SHOW TABLES FROM default_catalog.d2 LIKE '_t'", "SHOW TABLES FROM d2", "SHOW VIEWS LIKE 'c%'",
    ],
}


def _error(e: Exception) -> list[str]:
    text = str(e)
    lines = text.splitlines()
    first = next((ln for ln in lines if "Exception:" in ln), lines[0] if lines else "")
    return [first.strip()] + [ln[len("Caused by: "):].strip() for ln in lines if ln.startswith("Caused by: ")]


def run(statements: list[str]) -> list[dict]:
    """Each statement's result on a fresh streaming TableEnvironment."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("table.local-time-zone", "UTC")
    tenv.get_config().set("parallelism.default", "1")
    out = []
    for st in statements:
        try:
            result = tenv.execute_sql(st)
            columns = list(result.get_table_schema().get_field_names())
            rows = [[None if v is None else str(v) for v in row] for row in result.collect()]
            out.append({"sql": st, "columns": columns, "rows": rows})
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer
            out.append({"sql": st, "error": _error(e)})
    return out


def main(argv: list[str]) -> None:
    """Run the named scripts (default: all) and write their answers."""
    names = argv or list(SCRIPTS)
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    for name in names:
        old[name] = run(SCRIPTS[name])
    OUT.write_text(json.dumps(old, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
