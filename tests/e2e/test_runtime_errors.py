"""An expression failing on a value fails the job in our words, as Flink fails it (never DuckDB's).

Found by a newcomer run: ``k / 0`` failed with DuckDB's "Use TRY(...) ... or SET
error_on_division_by_zero=false", advice about settings StreamSQL does not have.
"""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError


@pytest.fixture
def env(tmp_path):
    (tmp_path / "in.json").write_text(json.dumps({"id": 1, "s": "1@"}) + "\n")
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql(f"CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tmp_path}/in.json', 'format' = 'json')")
    e.execute_sql("CREATE TABLE o (a INT) WITH ('connector' = 'blackhole')")
    yield e
    e.close()


@pytest.mark.parametrize(("expr", "says"), [
    ("id / 0", "Division by zero: an integer or DECIMAL divided by 0 fails the job, as in Flink"),
    ("CAST(s AS INT)", "CAST('1@' AS INT) failed: the value is not a valid INT (Flink fails the job too)"),
])
def test_a_failing_expression_says_what_failed_in_flinks_terms(env, expr, says):
    with pytest.raises(StreamSQLError) as ei:
        env.execute_sql(f"INSERT INTO o SELECT {expr} FROM t").wait(60)
    text = str(ei.value)
    assert says in text
    assert "Error:" not in text and "error_on_division_by_zero" not in text and "INT32" not in text
