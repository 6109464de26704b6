"""Record what Apache Flink 2.3 says to the statement examples of its SHOW, DESCRIBE, DDL, EXPLAIN pages.

The examples of docs/content/docs/sql/reference/utility/*.md and ddl/*.md, made runnable.

Writes ``tests/e2e/docs_statements_flink.json`` (planning only: no job runs), read by
``tests/e2e/test_docs_statements_flink.py``, which runs the same statements here. Per step: the
statement and ``"ok"`` (with the rows of a SHOW or DESCRIBE, SHOW CREATE ... excepted) or Flink's
error (the messages of its exception and causes). Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_docs_statements.py
"""

from __future__ import annotations

import json
import sys

from flink_session import ROOT, run_step, table_env

OUT = ROOT / "tests" / "e2e" / "docs_statements_flink.json"

ORDERS = ("CREATE TABLE orders (`user` BIGINT NOT NULL, product VARCHAR(32), amount INT, ts TIMESTAMP(3), "
          "ptime AS PROCTIME(), PRIMARY KEY(`user`) NOT ENFORCED, "
          "WATERMARK FOR ts AS ts - INTERVAL '1' SECONDS) "
          "WITH ('connector' = 'datagen')")
SRC = ("CREATE TABLE source_table (id BIGINT, name STRING, ts TIMESTAMP(3)) "
       "WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
#: Each scenario's statements run in one new session, in order; every outcome is recorded.
SCENARIOS = [
    {"name": "show", "statements": [
        "SHOW CATALOGS", "SHOW CURRENT CATALOG", "SHOW DATABASES", "SHOW CURRENT DATABASE",
        "CREATE CATALOG cat2 WITH ('type' = 'generic_in_memory', 'default-database' = 'db')",
        "SHOW CREATE CATALOG cat2",
        "SHOW CATALOGS LIKE '%at2'", "SHOW CATALOGS NOT LIKE '%at2'", "SHOW CATALOGS ILIKE '%AT2'",
        "CREATE DATABASE db1", "SHOW DATABASES LIKE 'db%'", "SHOW DATABASES FROM cat2",
        "SHOW DATABASES IN cat2 LIKE 'd_'",
        ORDERS,
        "CREATE TABLE my_table (field1 INT, field2 BYTES) WITH ('connector' = 'datagen')",
        "SHOW TABLES", "SHOW TABLES LIKE '%table'", "SHOW TABLES NOT LIKE '%table'",
        "SHOW TABLES FROM default_database LIKE 'o%'", "SHOW TABLES IN default_catalog.default_database",
        "SHOW COLUMNS FROM my_table LIKE '%f%'", "SHOW COLUMNS FROM orders LIKE '%r'",
        "SHOW COLUMNS FROM orders NOT LIKE '%_r'", "SHOW COLUMNS IN orders ILIKE '%R'",
        "SHOW COLUMNS FROM orders",
        "CREATE VIEW my_view AS SELECT * FROM my_table", "SHOW VIEWS", "SHOW CREATE VIEW my_view",
        "SHOW CREATE TABLE my_table", "SHOW CREATE TABLE orders",
        "SHOW USER FUNCTIONS", "SHOW MODULES", "SHOW FULL MODULES", "SHOW JARS",
        "SHOW FUNCTIONS LIKE 'sha%'", "SHOW FUNCTIONS ILIKE 'SHA2%'",
        "SHOW PROCEDURES", "SHOW MATERIALIZED TABLES", "SHOW MODELS",
        "SHOW TABLES FROM db1", "USE db1", "SHOW TABLES", "SHOW CURRENT DATABASE",
        "USE CATALOG cat2", "SHOW CURRENT CATALOG", "SHOW DATABASES",
    ]},
    {"name": "describe", "statements": [
        ORDERS, "DESCRIBE orders", "DESC orders", "DESCRIBE default_catalog.default_database.orders",
        "CREATE CATALOG cat2 WITH ('type' = 'generic_in_memory', 'default-database' = 'db')",
        "DESCRIBE CATALOG cat2", "DESC CATALOG EXTENDED cat2",
        "DESCRIBE FUNCTION sha2", "DESCRIBE FUNCTION EXTENDED sha2",
        "CREATE VIEW v AS SELECT product, amount FROM orders", "DESCRIBE v",
    ]},
    {"name": "create_view_alter", "statements": [
        ORDERS,
        "CREATE VIEW IF NOT EXISTS v1 (p, a) COMMENT 'the products' AS SELECT product, amount FROM orders",
        "DESCRIBE v1", "SHOW CREATE VIEW v1",
        "ALTER VIEW v1 RENAME TO v2", "SHOW VIEWS",
        "ALTER VIEW v2 AS SELECT product FROM orders", "DESCRIBE v2",
        "CREATE TEMPORARY VIEW tv AS SELECT 1 AS x", "SHOW VIEWS", "DROP TEMPORARY VIEW tv",
        "DROP VIEW IF EXISTS v9", "DROP VIEW v2", "SHOW VIEWS",
        "CREATE DATABASE IF NOT EXISTS db2 COMMENT 'second' WITH ('k' = 'v')",
        "ALTER DATABASE db2 SET ('k2' = 'v2')", "DESCRIBE DATABASE db2", "DESCRIBE DATABASE EXTENDED db2",
        "DROP DATABASE IF EXISTS db2 RESTRICT",
        "ALTER TABLE orders SET ('number-of-rows' = '5')", "SHOW CREATE TABLE orders",
        "ALTER TABLE orders RESET ('number-of-rows')", "SHOW CREATE TABLE orders",
        "ALTER TABLE IF EXISTS nosuch RENAME TO x",
        "CREATE TABLE t_as WITH ('connector' = 'blackhole') AS SELECT product, amount FROM orders",
        "SHOW CREATE TABLE t_as",
    ]},
    {"name": "explain", "statements": [
        "CREATE TABLE MyTable1 (`count` BIGINT, word VARCHAR(256)) WITH ('connector' = 'datagen')",
        "CREATE TABLE MyTable2 (`count` BIGINT, word VARCHAR(256)) WITH ('connector' = 'datagen')",
        "EXPLAIN PLAN FOR SELECT `count`, COUNT(word) FROM ( SELECT `count`, word FROM MyTable1 "
        "WHERE word LIKE 'F%' UNION ALL SELECT `count`, word FROM MyTable2 ) tmp GROUP BY `count`",
        "EXPLAIN ESTIMATED_COST, CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN SELECT `count`, "
        "COUNT(word) FROM ( SELECT `count`, word FROM MyTable1 WHERE word LIKE 'F%' UNION ALL "
        "SELECT `count`, word FROM MyTable2 ) tmp GROUP BY `count`",
        "EXPLAIN CHANGELOG_MODE SELECT word, COUNT(*) FROM MyTable1 GROUP BY word",
        "CREATE TABLE sink1 (`count` BIGINT, word VARCHAR(256)) WITH ('connector' = 'blackhole')",
        "EXPLAIN STATEMENT SET BEGIN INSERT INTO sink1 SELECT * FROM MyTable1; "
        "INSERT INTO sink1 SELECT * FROM MyTable2; END",
    ]},
    {"name": "create_table", "statements": [
        SRC,
        "CREATE TABLE MyTable (`user_id` BIGINT, `name` STRING, `ts` TIMESTAMP(3)) "
        "PARTITIONED BY (`user_id`) WITH ('connector' = 'blackhole')",
        "CREATE TABLE MyTable2 (uid BIGINT, name STRING) DISTRIBUTED BY HASH(uid) INTO 4 BUCKETS "
        "WITH ('connector' = 'blackhole')",
        "CREATE TABLE MyTable3 (uid BIGINT, name STRING) DISTRIBUTED BY (uid) INTO 4 BUCKETS "
        "WITH ('connector' = 'blackhole')",
        "CREATE TABLE MyTable4 (uid BIGINT, name STRING) DISTRIBUTED INTO 4 BUCKETS "
        "WITH ('connector' = 'blackhole')",
        "CREATE TABLE MyTable5 (uid BIGINT COMMENT 'the user', name STRING) COMMENT 'users' "
        "WITH ('connector' = 'blackhole')",
        "CREATE TABLE my_ctas_table WITH ('connector' = 'blackhole') AS SELECT id, name FROM source_table "
        "WHERE id > 0",
        "DESCRIBE my_ctas_table",
        "CREATE TABLE my_ctas_pk (PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole') "
        "AS SELECT id, name FROM source_table",
        "DESCRIBE my_ctas_pk",
        "CREATE TABLE my_ctas_cols (`desc` STRING, id BIGINT) WITH ('connector' = 'blackhole') "
        "AS SELECT id, name AS `desc` FROM source_table",
        "DESCRIBE my_ctas_cols",
        "CREATE TABLE my_ctas_part PARTITIONED BY (id) WITH ('connector' = 'blackhole') "
        "AS SELECT id, name FROM source_table",
        "CREATE OR REPLACE TABLE my_rtas_table WITH ('connector' = 'blackhole') AS SELECT id, name "
        "FROM source_table",
        "DESCRIBE my_rtas_table",
        "CREATE TABLE Orders_with_watermark (`user` BIGINT, product STRING, order_time TIMESTAMP(3), "
        "WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND) WITH ('connector' = 'datagen') "
        "LIKE source_table (EXCLUDING OPTIONS)",
        "CREATE TABLE Orders_like2 WITH ('connector' = 'blackhole') LIKE source_table",
        "DESCRIBE Orders_like2",
        "CREATE TEMPORARY TABLE tmp1 (a INT) WITH ('connector' = 'datagen')",
        "CREATE TABLE IF NOT EXISTS tmp1x (a INT) WITH ('connector' = 'datagen')",
        "CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS f1 AS 'a.b.C'",
        "CREATE VIEW v_orders AS SELECT id FROM source_table",
        "CREATE TEMPORARY VIEW IF NOT EXISTS tv AS SELECT * FROM source_table",
        "DROP TEMPORARY TABLE IF EXISTS tmp1",
        "DROP TABLE IF EXISTS nosuch",
        "DROP TEMPORARY VIEW IF EXISTS tv",
        "CREATE DATABASE IF NOT EXISTS db9 COMMENT 'x'",
        "DROP DATABASE IF EXISTS db9 CASCADE",
        "TRUNCATE TABLE my_ctas_table",
    ]},
]


def rows_recorded(statement: str) -> bool:
    """Whether a statement's rows are recorded (and compared): SHOW and DESCRIBE, not SHOW CREATE."""
    words = statement.upper().split()
    return words[0] in ("SHOW", "DESCRIBE", "DESC") and words[1] != "CREATE"


def _run(t, statement: str) -> dict:
    return run_step(t, statement, rows_recorded, ("EXPLAIN", "SHOW"))


def main() -> int:
    """Run every scenario on Flink, each in a new session, and write :data:`OUT`."""
    scenarios = []
    for s in SCENARIOS:
        t = table_env()
        scenarios.append({"name": s["name"], "steps": [_run(t, st) for st in s["statements"]]})
    for s in scenarios:
        for st in s["steps"]:
            print(st["statement"][:60], st.get("flink_error", st.get("rows", "ok")), file=sys.stderr)
    OUT.write_text(json.dumps({"scenarios": scenarios}, indent=1, default=str) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
