"""PARTITIONED BY into a sink: only a sink with Flink's SupportsPartitioning takes it (filesystem,
print, blackhole); another fails at planning with Flink 2.3's message (DynamicSinkUtils), where
CREATE TABLE refused the clause for every connector before."""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import PlanError


@pytest.fixture
def env(tmp_path):
    config = {"state.dir": str(tmp_path / "s"), "execution.checkpointing.dir": str(tmp_path / "c")}
    with StreamEnvironment(config) as e:
        yield e


def test_kafka_sink_refuses_a_partitioned_table(env):
    env.execute_sql("CREATE TABLE kp (a INT, k STRING) PARTITIONED BY (k) WITH ('connector' = 'kafka', "
                    "'topic' = 'fs31-kp', 'properties.bootstrap.servers' = '127.0.0.1:9092', "
                    "'format' = 'json')")
    with pytest.raises(PlanError) as e:
        env.execute_sql("EXPLAIN INSERT INTO kp VALUES (1, 'a')")
    assert ("Table 'default_catalog.default_database.kp' is a partitioned table, but the underlying "
            "DynamicTableSink doesn't implement the SupportsPartitioning interface.") in str(e.value)


@pytest.mark.parametrize("connector", ["print", "blackhole"])
def test_print_and_blackhole_take_a_partitioned_table(env, connector):
    env.execute_sql(f"CREATE TABLE p (a INT, k STRING) PARTITIONED BY (k) WITH ('connector' = '{connector}')")
    assert "Sink" in env.execute_sql("EXPLAIN INSERT INTO p VALUES (1, 'a')").message
