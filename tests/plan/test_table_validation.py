"""CREATE TABLE resolves computed columns and the watermark at once, errors pointing into the DDL.

As Flink resolves a table's schema when it is created. Found by a newcomer run: a typo in a
computed column surfaced only at the INSERT, positioned at a line of the INSERT's text that did
not exist (line 14 of a 12-line file) with an empty excerpt.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError

DDL = """CREATE TABLE orders (
  order_id BIGINT,
  amount DOUBLE,
  ts TIMESTAMP(3),
  {extra}
) WITH ('connector' = 'datagen', 'number-of-rows' = '3')"""


@pytest.fixture
def env(tmp_path):
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    yield e
    e.close()


def test_a_bad_computed_column_fails_at_create_table_in_its_line(env):
    with pytest.raises(SqlError) as ei:
        env.execute_sql(DDL.format(extra="doubled AS amout * 2"))
    err = ei.value
    assert "Column 'amout' not found" in err.message
    assert (err.line, err.col) == (5, 14)
    assert "doubled AS amout * 2" in str(err)
    assert "orders" not in env.catalog  # nothing half-created


def test_a_bad_watermark_expression_fails_at_create_table(env):
    with pytest.raises(SqlError) as ei:
        env.execute_sql(DDL.format(extra="WATERMARK FOR ts AS tss - INTERVAL '1' SECOND"))
    assert "tss" in ei.value.message and ei.value.line == 5


def test_a_good_table_still_plans_and_its_computed_type_is_known(env):
    env.execute_sql(DDL.format(extra="doubled AS amount * 2, WATERMARK FOR ts AS ts"))
    rows = env.execute_sql("DESCRIBE orders").rows
    assert ("doubled", "DOUBLE") in [(r[0], r[1]) for r in rows]
