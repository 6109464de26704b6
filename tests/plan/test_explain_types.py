"""EXPLAIN names types as Flink does, not as DuckDB (the SQL engine under the operators) does."""

from __future__ import annotations

import re

import pytest

from streamsql import StreamEnvironment
from streamsql.plan.explain_types import flink_type

DUCKDB_NAMES = re.compile(r"\b(TEXT|INTEGER|TIMESTAMP_MS|TIMESTAMPTZ|HUGEINT|INT128|STRUCT|BLOB|VARBINARY)\b")


@pytest.fixture
def env(tmp_path):
    e = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                           "execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql("CREATE TABLE t (x INT, s STRING, b BYTES, ts TIMESTAMP_LTZ(3)) "
                  "WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
    e.execute_sql("CREATE TABLE out_rows (v VARCHAR(5), c CHAR(3), i INT, t TIMESTAMP(3), d DECIMAL(10, 2), "
                  "r ROW<a INT, q STRING>, y BYTES, z TIMESTAMP_LTZ(3)) WITH ('connector' = 'print')")
    yield e
    e.close()


def test_explain_shows_flink_types_in_casts(env):
    text = env.execute_sql(
        "EXPLAIN INSERT INTO out_rows SELECT CAST(x AS VARCHAR(5)), CAST(s AS CHAR(4)), CAST(s AS INT), "
        "CAST(s AS TIMESTAMP(3)), x, ROW(x, s), CAST(s AS BYTES), ts FROM t").message
    assert not DUCKDB_NAMES.search(text), text
    for flink in ("AS VARCHAR(5))", "AS INT)", "AS DECIMAL(10, 2))", "AS TIMESTAMP_LTZ(6))", "AS BYTES)"):
        assert flink in text, f"{flink} not in:\n{text}"


@pytest.mark.parametrize(("duck", "flink"), [
    ("TEXT(5)", "VARCHAR(5)"), ("VARCHAR", "STRING"), ("INTEGER", "INT"), ("TIMESTAMP_MS", "TIMESTAMP(3)"),
    ("TIMESTAMP", "TIMESTAMP(6)"), ("TIMESTAMPTZ", "TIMESTAMP_LTZ(6)"), ("HUGEINT", "DECIMAL(38, 0)"),
    ("BLOB", "BYTES"), ("DECIMAL(3,1)", "DECIMAL(3, 1)"), ("INTEGER[]", "ARRAY<INT>"),
    ('STRUCT("a b" INTEGER, c TIMESTAMP_MS[])', "ROW<`a b` INT, `c` ARRAY<TIMESTAMP(3)>>"),
    ("MAP(VARCHAR, BIGINT)", "MAP<STRING, BIGINT>"),
    # Flink's own spelling, from a plan line's Flink SQL: kept (was TIMESTAMP(6))
    ("TIMESTAMP(3)", "TIMESTAMP(3)"), ("TIMESTAMP(0)", "TIMESTAMP(0)"),
    ("TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)"),
])
def test_flink_type_names(duck, flink):
    assert flink_type(duck) == flink


def test_explain_shows_the_precision_the_user_wrote(env):
    """EXPLAIN SELECT CAST(s AS TIMESTAMP(3)) said CAST(s AS TIMESTAMP(6))."""
    text = env.execute_sql("EXPLAIN SELECT CAST(s AS TIMESTAMP(3)) AS a, CAST(s AS TIMESTAMP(0)) AS b, "
                           "CAST(s AS TIMESTAMP) AS c FROM t").message
    written = "CAST(s AS TIMESTAMP(3)) AS a, CAST(s AS TIMESTAMP(0)) AS b, CAST(s AS TIMESTAMP(6)) AS c"
    assert written in text, text
