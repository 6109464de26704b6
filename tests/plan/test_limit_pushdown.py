"""A LIMIT pushed into the scan as Flink 2.3 pushes it (``SupportsLimitPushDown``), so that
``SELECT * FROM g LIMIT 3`` over an unbounded datagen table ends, as on Flink.

The queries, and where Flink's optimized plan puts the limit (``TableSourceScan(table=[[...,
g, limit=[3]]])`` or nowhere in the scan), are Flink's answers recorded by
``scripts/flink_limit_pushdown.py`` in ``limit_pushdown_flink.json``, with the rows of each query
Flink pushed the limit of and ran to its end.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.elements import RowKind

FLINK = json.loads((Path(__file__).parent / "limit_pushdown_flink.json").read_text())
#: The table of our EXPLAIN's scan and its pushed limit (``table=[g, limit=[3]]``).
SCAN = re.compile(r"TableSourceScan\(table=\[(\w+)(?:, limit=\[(\d+)\])?\]")


@pytest.fixture
def env(tmp_path):
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    for ddl in FLINK["ddl"]:
        e.execute_sql(ddl)
    yield e
    e.close()


@pytest.mark.parametrize("query", list(FLINK["cases"]))
def test_the_limit_is_pushed_into_the_scan_where_flink_pushes_it(env, query):
    expected = FLINK["cases"][query]["scan_limit"]
    scans = SCAN.findall(env.execute_sql("EXPLAIN " + query).message)
    assert len(scans) == 1, scans
    assert scans[0][1] == ("" if expected is None else str(expected)), (query, FLINK["cases"][query]["plan"])


@pytest.mark.parametrize("query", [q for q, case in FLINK["cases"].items() if case["rows"] is not None])
def test_a_query_over_an_unbounded_datagen_table_ends_after_its_limit(env, query):
    result = env.execute_sql(query)
    rows = list(result.collect(timeout=30))
    assert result.job.done and result.job.status == "FINISHED", result.job.status
    assert all(kind == RowKind.INSERT for kind, _ in rows)
    assert [list(r) for _, r in rows] == FLINK["cases"][query]["rows"]


def test_an_insert_of_a_pushed_limit_finishes_and_a_filtered_one_keeps_running(env):
    env.execute_sql("CREATE TABLE sink (id INT) WITH ('connector' = 'blackhole')")
    pushed = env.execute_sql("INSERT INTO sink SELECT id FROM g LIMIT 3 OFFSET 1")
    assert pushed.wait(60) == "FINISHED"
    assert pushed.job.metrics["rows_in"] == 4 and pushed.job.metrics["rows_out"] == 3
    filtered = env.execute_sql("INSERT INTO sink SELECT id FROM g WHERE v > 0 LIMIT 3")
    try:
        assert filtered.wait(2) == "RUNNING"  # as Flink's: the scan stays unlimited under a WHERE
    finally:
        filtered.job.cancel()


def test_a_limit_of_zero_reads_no_row_and_ends(env):
    result = env.execute_sql("SELECT id FROM g LIMIT 0")
    assert list(result.collect(timeout=30)) == []
    assert result.job.status == "FINISHED"
