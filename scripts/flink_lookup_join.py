"""Record Apache Flink 2.3's answers to lookup joins against a static PostgreSQL table.

Writes ``tests/connectors/lookup_join_flink.json``: the dimension rows, the probe rows and, per
query, the rows Flink's JDBC lookup join returned (``tests/connectors/test_jdbc_lookup.py`` runs
the same queries here over the same rows and must give the same multiset).

Needs the local PostgreSQL (``scripts/postgres-local.sh start``; ``psql`` seeds a scratch
database, dropped at the end) and Flink's JDBC connector for Flink 2.x with the PostgreSQL
driver in Maven's local repository (fetched with ``mvn dependency:get`` when missing):
``org.apache.flink:flink-connector-jdbc-core`` and ``-postgres`` 4.0.0-2.0,
``org.postgresql:postgresql`` 42.7.7. Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_lookup_join.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from flink_session import ROOT, collect, maven_jar, table_env

OUT = ROOT / "tests" / "connectors" / "lookup_join_flink.json"
HOST, PORT, USER, PASSWORD = "127.0.0.1", 5432, "streamsql", "streamsql-test-password"
JARS = [("org.apache.flink", "flink-connector-jdbc-core", "4.0.0-2.0"),
        ("org.apache.flink", "flink-connector-jdbc-postgres", "4.0.0-2.0"),
        ("org.postgresql", "postgresql", "42.7.7")]

DIM = [[1, "red", 10, True], [2, "green", 20, False], [3, "blue", 30, True], [4, "red", 40, True],
       [5, None, 50, True], [6, "pink", None, None]]
ORDERS = [{"oid": i, "k": None if i % 9 == 0 else i % 8, "color": ["red", "blue", None, "pink"][i % 4]}
          for i in range(40)]
JOIN = "FROM orders AS o {kind} JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d ON {on}"
QUERIES = [
    "SELECT o.oid, d.id, d.color, d.w " + JOIN.format(kind="", on="o.k = d.id"),
    "SELECT o.oid, d.id, d.w " + JOIN.format(kind="LEFT", on="o.k = d.id AND d.active AND d.w > 10"),
    "SELECT o.oid, d.id " + JOIN.format(kind="LEFT", on="o.color = d.color AND d.w > o.oid"),
    "SELECT o.oid, d.w " + JOIN.format(kind="", on="o.k = d.id AND o.color = d.color"),
    "SELECT o.oid, o.k, d.active " + JOIN.format(kind="LEFT", on="o.k = d.id AND d.color IS NOT NULL"),
]
DIM_DDL = "CREATE TABLE dim (id INT PRIMARY KEY, color VARCHAR(20), w INT, active BOOLEAN)"


def _psql(database: str, sql: str) -> None:
    subprocess.run(["psql", "-h", HOST, "-p", str(PORT), "-U", USER, "-d", database, "-v", "ON_ERROR_STOP=1",
                    "-q", "-c", sql], check=True, env={**os.environ, "PGPASSWORD": PASSWORD})


def _literal(v) -> str:
    """A PostgreSQL literal of a DIM value."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    return "'" + v.replace("'", "''") + "'" if isinstance(v, str) else str(v)


def main() -> int:
    """Seed the scratch database, run every query on Flink, write the JSON; the exit code."""
    database = f"flink_lookup_{uuid.uuid4().hex[:8]}"
    _psql("streamsql", f"CREATE DATABASE {database}")
    try:
        _psql(database, DIM_DDL)
        values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in DIM)
        _psql(database, f"INSERT INTO dim VALUES {values}")
        with tempfile.TemporaryDirectory() as tmp:
            orders = Path(tmp) / "orders.json"
            orders.write_text("".join(json.dumps(o) + "\n" for o in ORDERS))
            tenv = table_env(*(maven_jar(*j) for j in JARS), utc=True)
            tenv.execute_sql("CREATE TABLE orders (oid INT, k INT, color STRING, proc AS PROCTIME()) WITH ("
                             f"'connector' = 'filesystem', 'path' = '{orders}', 'format' = 'json')")
            tenv.execute_sql("CREATE TABLE dim (id INT, color STRING, w INT, active BOOLEAN, "
                             f"PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = "
                             f"'jdbc:postgresql://{HOST}:{PORT}/{database}', 'table-name' = 'dim', "
                             f"'username' = '{USER}', 'password' = '{PASSWORD}')")
            cases = []
            for sql in QUERIES:
                got = collect(tenv, sql)
                cases.append({"sql": sql, "rows": sorted(got, key=repr)})
                print(f"{len(got)} rows: {sql}", file=sys.stderr)
    finally:
        _psql("streamsql", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    doc = {"about": "Apache Flink 2.3's lookup-join answers, written by scripts/flink_lookup_join.py",
           "dim_ddl": DIM_DDL, "dim": DIM, "orders": ORDERS, "cases": cases}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
