"""A 'kafka' table with a PRIMARY KEY over an append-only format is refused, as Flink 2.3.

Flink's KafkaDynamicTableFactory.validatePKConstraints refuses, for its source and its sink alike:
"The Kafka table '...' with 'json' format doesn't support defining PRIMARY KEY constraint on the
table, because it can't guarantee the semantic of primary key." (PyFlink 2.3.0 with
flink-sql-connector-kafka 5.0.0-2.2: explain_sql of an INSERT into such a table fails with
"Unable to create a sink for writing table"). StreamSQL wrote the rows and ignored the key, and
took the key as a source's unique key. A changelog format (debezium-json) may have a key, and so
may upsert-kafka.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ConfigError

REFUSED = ("The Kafka table '{}' with '{}' format doesn't support defining PRIMARY KEY constraint on the "
           "table, because it can't guarantee the semantic of primary key.")


@pytest.fixture
def env(tmp_path):
    e = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                           "execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql("CREATE TABLE gen (id INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5')")
    e.execute_sql("CREATE TABLE bh (id INT, v INT) WITH ('connector' = 'blackhole')")
    yield e
    e.close()


def kafka(env, name: str, fmt: str, key: str = ", PRIMARY KEY (id) NOT ENFORCED") -> None:
    env.execute_sql(f"CREATE TABLE {name} (id INT, v INT{key}) WITH ('connector' = 'kafka', 'topic' = 't', "
                    f"'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = '{fmt}')")


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_kafka_sink_with_a_key_over_an_append_only_format_is_refused(env, fmt):
    kafka(env, "snk", fmt)
    with pytest.raises(ConfigError) as ei:
        env.execute_sql("EXPLAIN INSERT INTO snk SELECT id, v FROM gen")
    assert str(ei.value).startswith(REFUSED.format("snk", fmt))


def test_a_kafka_source_with_a_key_over_json_is_refused(env):
    kafka(env, "src", "json")
    with pytest.raises(ConfigError, match="doesn't support defining PRIMARY KEY constraint"):
        env.execute_sql("EXPLAIN INSERT INTO bh SELECT id, v FROM src")


def test_a_changelog_format_or_no_key_is_accepted(env):
    kafka(env, "cdc", "debezium-json")
    env.execute_sql("EXPLAIN INSERT INTO bh SELECT id, v FROM cdc")
    kafka(env, "plain", "json", key="")
    env.execute_sql("EXPLAIN INSERT INTO plain SELECT id, v FROM gen")
