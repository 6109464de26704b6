"""break32: today's savepoint of a pruned GROUP BY restored into queries that differ only in which
calls they read or the order of the calls: refused, or restored with every call's own state (the
changes of both runs folded equal DuckDB's answer over all the input)."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from streamsql.checkpoint.operators import StateMappingError
from tests.checkpoint.test_pruned_calls_savepoint import FIXTURE, JOB, _ddl, _run
from tests.runtime import query_fuzz_savepoint as fuzz
from tests.runtime.oracle import fold, make_env

VIEWS = [
    "CREATE VIEW va AS SELECT k, COUNT(*) AS c, SUM(v) AS sv, MIN(v) AS mn, MAX(g) AS mg FROM t GROUP BY k",
    "CREATE VIEW vb AS SELECT k, MIN(v) AS mn, SUM(v) AS sv, COUNT(*) AS c, MAX(g) AS mg FROM t GROUP BY k",
    "CREATE TABLE out3 (q STRING, k STRING, x BIGINT, y BIGINT) WITH ('connector' = '{sink}')",
]
FIRST = "INSERT INTO out3 SELECT 'q', k, c, CAST(mn AS BIGINT) FROM va"
DUCK = "SELECT 'q', k, {x}, {y} FROM t GROUP BY k"


def _restore(tmp_path: Path, saved: str, insert: str):
    copy = tmp_path / "copy"
    shutil.copytree(saved, copy / "savepoint" / Path(saved).name)
    with fuzz.connectors():
        fuzz.WRITTEN.clear()
        fuzz.GATES.clear()
        with make_env(tmp_path / "second", "hashmap", None, {
                "pipeline.name": "break32-second",
                "execution.savepoint.path": str(copy / "savepoint" / Path(saved).name)}) as env:
            for statement in JOB["ddl"][:1] + VIEWS:
                env.execute_sql(_ddl(statement))
            job = env.execute_sql(insert).job
            job.wait(120)
            assert job.status == "FINISHED", job.status
        return list(fuzz.WRITTEN)


@pytest.mark.parametrize("insert, x, y, refused", [
    # the same calls in another order (another view): refused or restored call by call
    ("INSERT INTO out3 SELECT 'q', k, c, CAST(mn AS BIGINT) FROM vb", "count(*)", "min(v)", None),
    # a call the savepoint pruned read now, with or instead of a kept one: never started from zero
    ("INSERT INTO out3 SELECT 'q', k, c, CAST(mg AS BIGINT) FROM va", "count(*)", "max(g)", True),
    ("INSERT INTO out3 SELECT 'q', k, sv, CAST(mn AS BIGINT) FROM va", "sum(v)", "min(v)", True),
    # a filter above the same calls: restored
    ("INSERT INTO out3 SELECT 'q', k, c, CAST(mn AS BIGINT) FROM va WHERE c > 0", "count(*)", "min(v)",
     False),
])
def test_a_pruned_savepoint_into_a_query_reading_other_calls(tmp_path, insert, x, y, refused):
    _, before, saved = _run(tmp_path / "first", "hashmap", {"q": FIRST}, None,
                            ddl=JOB["ddl"][:1] + VIEWS, gate=JOB["cut"])
    assert saved
    try:
        after = _restore(tmp_path, saved, insert)
    except StateMappingError as e:
        assert refused is not False, e
        return
    assert refused is not True, "restored"
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_json('{FIXTURE / 't.json'}', columns = "
                "{'k': 'VARCHAR', 'g': 'INTEGER', 'v': 'INTEGER', 'ts': 'TIMESTAMP'})")
    want = Counter(tuple(r) for r in con.execute(DUCK.format(x=x, y=y)).fetchall())
    assert fold(before + after) == want
