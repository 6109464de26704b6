"""Record Apache Flink 2.3's DESCRIBE output for tables and views with time attributes (and binary strings).

Flink marks a time attribute in DESCRIBE's type column: ``TIMESTAMP(3) *ROWTIME*`` (a
``WATERMARK FOR`` column) and ``TIMESTAMP_LTZ(3) *PROCTIME*`` (a ``PROCTIME()`` attribute, NOT
NULL), also through views. This script runs ``DDL`` on PyFlink (planning only: no job) and writes
each object's DESCRIBE rows to ``tests/e2e/describe_flink.json``, which
``tests/e2e/test_proctime_in_select.py`` compares with StreamSQL's DESCRIBE::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_describe.py
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "e2e" / "describe_flink.json"
DDL = [
    "CREATE TABLE t (k INT NOT NULL, ms BIGINT, ts TIMESTAMP(3), proc AS PROCTIME(), "
    "ltz AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, "
    "PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'datagen')",
    "CREATE TABLE u (k INT, ms BIGINT, ltz AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ltz AS ltz) "
    "WITH ('connector' = 'datagen')",
    "CREATE TABLE pk2 (a INT, b STRING, c INT, PRIMARY KEY (a, b) NOT ENFORCED) "
    "WITH ('connector' = 'datagen')",
    "CREATE TABLE b (bidder BIGINT, price BIGINT, dt TIMESTAMP(3)) WITH ('connector' = 'datagen')",
    "CREATE VIEW v_star AS SELECT *, PROCTIME() AS p FROM b",
    "CREATE VIEW v_ddl AS SELECT ms, proc, ts, ltz FROM t",
    "CREATE VIEW v_subquery AS SELECT * FROM (SELECT bidder, PROCTIME() AS p FROM b) WHERE bidder > 1",
    "CREATE VIEW v_cte AS WITH c AS (SELECT bidder, PROCTIME() AS p FROM b) SELECT p AS q, bidder FROM c",
    "CREATE VIEW v_cast AS SELECT bidder, CAST(PROCTIME() AS TIMESTAMP_LTZ(3)) AS p FROM b",
    # instants of a SELECT list keep their precision (DuckDB's TIMESTAMPTZ has six digits), and a
    # TIMESTAMP literal has its written fraction's
    "CREATE VIEW v_ltz AS SELECT TO_TIMESTAMP_LTZ(price, 3) AS a, CAST(dt AS TIMESTAMP_LTZ(3)) AS b, "
    "CAST(dt AS TIMESTAMP_LTZ(0)) AS c, TO_TIMESTAMP_LTZ(price, 0) AS d, TO_TIMESTAMP_LTZ(price, 6) AS e, "
    "CAST(dt AS TIMESTAMP_LTZ(6)) AS f, TO_TIMESTAMP_LTZ(CAST(price AS STRING)) AS g, "
    "TO_TIMESTAMP_LTZ(price, 3) + INTERVAL '1' HOUR AS h FROM b",
    "CREATE VIEW v_ltz_subquery AS SELECT a FROM (SELECT TO_TIMESTAMP_LTZ(price, 3) AS a FROM b)",
    "CREATE VIEW v_literal AS SELECT TIMESTAMP '2024-01-01 00:00:03' AS t0, "
    "TIMESTAMP '2024-01-01 00:00:03.5' AS t1, TIMESTAMP '2024-01-01 00:00:03.123456' AS t6, "
    "TIMESTAMP '2024-01-01 00:00:03' + INTERVAL '1' SECOND AS s0, bidder FROM b",
    # binary strings keep their lengths (BINARY is BINARY(1), VARBINARY is BYTES)
    "CREATE TABLE bin (b1 BINARY(3), b2 VARBINARY(5), b3 BINARY, b4 VARBINARY, b5 BYTES, "
    "b6 VARBINARY(2147483647), b7 BINARY(2147483647) NOT NULL) WITH ('connector' = 'datagen')",
    "CREATE VIEW v_bin AS SELECT CAST(b5 AS BINARY(2)) AS c2, CAST(b1 AS VARBINARY(2)) AS v2, X'0102' AS l, "
    "CASE WHEN b1 IS NULL THEN X'01' ELSE X'0203' END AS k, COALESCE(b1, b3) AS m, b2 AS p FROM bin",
    "CREATE VIEW v_bin_union AS SELECT X'01' AS u, b1 AS w FROM bin "
    "UNION ALL SELECT CAST(b5 AS BINARY(4)), b1 FROM bin",
]
NAMES = ["t", "u", "pk2", "b", "v_star", "v_ddl", "v_subquery", "v_cte", "v_cast", "v_ltz", "v_ltz_subquery",
         "v_literal", "bin", "v_bin", "v_bin_union"]


def described(ddl: list[str], names: list[str]):
    """A new table environment (session zone UTC) after ``ddl``, and the DESCRIBE rows of ``names``."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("table.local-time-zone", "UTC")
    for statement in ddl:
        tenv.execute_sql(statement)
    rows = {name: [list(row) for row in tenv.execute_sql(f"DESCRIBE {name}").collect()] for name in names}
    return tenv, rows


def main() -> None:
    """Run the DDL on Flink and write every object's DESCRIBE rows."""
    _, describe = described(DDL, NAMES)
    OUT.write_text(json.dumps({"ddl": DDL, "describe": describe}, indent=1) + "\n")


if __name__ == "__main__":
    main()
