"""Record Apache Flink 2.3's DESCRIBE and SHOW CREATE output of computed, metadata and view columns.

What Flink derives for a column it is not told the type of: a computed column's type and
nullability (``c AS k + 1`` of ``k INT NOT NULL`` is ``INT``, null ``FALSE``), a view's columns
(a NOT NULL column stays NOT NULL through a projection, ``COALESCE(ms, 0)`` is NOT NULL, an outer
join's other side is nullable), a metadata column's declared type, and a CTAS table's columns
(``ct``: NOT NULL where the query's column is). This script runs ``DDL`` on PyFlink (planning
only but for the CTAS's one-row job; no connector jar) and writes each object's DESCRIBE rows and the
SHOW CREATE TABLE / VIEW texts to ``tests/e2e/describe_columns_flink.json``, which
``tests/e2e/test_describe_columns.py`` compares with StreamSQL's::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_describe_columns.py
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "e2e" / "describe_columns_flink.json"
KAFKA = ("'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:9092', "
         "'format' = 'json', 'scan.startup.mode' = 'earliest-offset'")
DDL = [
    "CREATE TABLE cc (k INT NOT NULL, ms BIGINT, s STRING NOT NULL, d DECIMAL(10, 2) NOT NULL, n STRING, "
    "c1 AS k + 1, c2 AS ms * 2, c3 AS COALESCE(ms, 0), c4 AS UPPER(s), c5 AS CAST(k AS STRING), "
    "c6 AS k / 2, c7 AS s || 'x', c8 AS CASE WHEN k > 0 THEN s END, "
    "c9 AS CASE WHEN k > 0 THEN s ELSE 'n' END, c10 AS k IS NULL, c11 AS TO_TIMESTAMP_LTZ(k, 3), "
    "c12 AS SUBSTRING(s, 2), c13 AS CHAR_LENGTH(s), c14 AS d * 2, c15 AS NULLIF(k, 0), "
    "c16 AS TRY_CAST(s AS INT), c17 AS 'lit', c18 AS ABS(k), c19 AS k = 1, c20 AS IF(k > 0, k, 0), "
    "c21 AS UPPER(n), c22 AS COALESCE(n, s), c23 AS k + ms, c24 AS CAST(ms AS INT), c25 AS 1.5, "
    "c26 AS CONCAT(s, n), c27 AS CONCAT(s, 'a'), c28 AS k > 0 AND ms > 0, c29 AS n IS NOT NULL, "
    "c30 AS CAST(s AS INT), PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'datagen')",
    f"CREATE TABLE km (a INT NOT NULL, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', "
    f"part INT METADATA FROM 'partition' VIRTUAL, off BIGINT NOT NULL METADATA FROM 'offset' VIRTUAL, "
    f"tp STRING METADATA FROM 'topic' VIRTUAL, a2 AS a * 2) WITH ({KAFKA})",
    "CREATE VIEW vc AS SELECT k, ms, s, k + 1 AS a, COALESCE(ms, 0) AS b, 'x' AS l, UPPER(s) AS u, c1, c3, "
    "c8, CAST(k AS BIGINT) AS kb, n FROM cc",
    "CREATE VIEW vf AS SELECT k, s, ms FROM cc WHERE ms > 0",
    "CREATE VIEW va AS SELECT k, COUNT(*) AS cnt, SUM(ms) AS sm, MAX(s) AS mx, COUNT(n) AS cn FROM cc "
    "GROUP BY k",
    "CREATE VIEW vj AS SELECT a.k, a.s, b.k AS k2, b.s AS s2 FROM cc a LEFT JOIN cc b ON a.k = b.k",
    "CREATE TABLE bs (k INT NOT NULL, ms BIGINT, s STRING NOT NULL, n STRING) WITH ('connector' = 'datagen', "
    "'number-of-rows' = '1')",
    "CREATE TABLE ct WITH ('connector' = 'blackhole') AS SELECT k, ms, COALESCE(ms, 0) AS a, "
    "CASE WHEN k > 0 THEN s ELSE UPPER(s) END AS b, n IS NULL AS c, CAST(k AS BIGINT) AS d, k + 1 AS e, "
    "IF(k > 0, ms, 0) AS f, n IS NOT NULL OR k > 0 AS g, n FROM bs",
]
NAMES = ["cc", "km", "vc", "vf", "va", "vj", "bs", "ct"]


def main() -> None:
    """Run the DDL on Flink and write every object's DESCRIBE rows and SHOW CREATE text."""
    from flink_describe import described  # this script's folder is sys.path[0]

    tenv, describe = described(DDL, NAMES)
    show = {}
    for name in NAMES:
        kind = "VIEW" if name.startswith("v") else "TABLE"
        show[name] = [list(row) for row in tenv.execute_sql(f"SHOW CREATE {kind} {name}").collect()][0][0]
    OUT.write_text(json.dumps({"ddl": DDL, "describe": describe, "show_create": show}, indent=1) + "\n")


if __name__ == "__main__":
    main()
