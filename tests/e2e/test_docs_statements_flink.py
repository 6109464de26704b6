"""The statement examples of Flink 2.3's SHOW, DESCRIBE, DDL and EXPLAIN pages, as Flink answers them.

``docs_statements_flink.json`` is written by ``scripts/flink_docs_statements.py`` on PyFlink (never
by hand). Each scenario runs here in one session, in order: a statement Flink takes must be taken
(with Flink's rows for a SHOW or DESCRIBE), one Flink refuses must be refused. ``KNOWN`` lists the
statements Flink takes and StreamSQL still refuses (each refused with a positioned error, never
accepted and ignored), with the reason; the scenarios avoid depending on them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StatementError, StreamSQLError

FLINK = json.loads((Path(__file__).parent / "docs_statements_flink.json").read_text())
SCENARIOS = {s["name"]: s["steps"] for s in FLINK["scenarios"]}

#: Statements Flink 2.3 takes that StreamSQL refuses (a clear error at the statement): why.
KNOWN = {
    "SHOW CREATE CATALOG cat2": "SHOW CREATE takes TABLE or VIEW here",
    "SHOW PROCEDURES": "no procedures here (Flink's in-memory catalog refuses it too, at run time)",
    "ALTER DATABASE db2 SET ('k2' = 'v2')": "database properties are not kept here: ALTER DATABASE is "
                                            "refused",
    **dict.fromkeys([
        "CREATE TABLE MyTable2 (uid BIGINT, name STRING) DISTRIBUTED BY HASH(uid) INTO 4 BUCKETS WITH "
        "('connector' = 'blackhole')",
        "CREATE TABLE MyTable3 (uid BIGINT, name STRING) DISTRIBUTED BY (uid) INTO 4 BUCKETS WITH "
        "('connector' = 'blackhole')",
        "CREATE TABLE MyTable4 (uid BIGINT, name STRING) DISTRIBUTED INTO 4 BUCKETS WITH "
        "('connector' = 'blackhole')"],
        "DISTRIBUTED BY / INTO n BUCKETS is refused (no connector here has buckets; Flink's take none "
        "either, failing where the table is used)"),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_docs_statements_as_flink(name):
    with StreamEnvironment({}) as env:
        for step in SCENARIOS[name]:
            statement = step["statement"]
            if step["flink"] == "error" or statement in KNOWN:
                with pytest.raises(StreamSQLError) as e:
                    env.execute_sql(statement)
                assert isinstance(e.value, StatementError) and e.value.line == 1, (statement, str(e.value))
                continue
            result = env.execute_sql(statement)
            if "rows" in step:
                assert [list(r) for r in result.rows] == step["rows"], statement
