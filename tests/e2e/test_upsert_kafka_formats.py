"""``upsert-kafka``'s format options are Flink 2.3's: ``'key.format'``, ``'value.format'``, no ``'format'``.

A newcomer's report: ``'format' = 'json'`` on an ``upsert-kafka`` table was read as the value's
format, and ``'key.format'`` could be left out (JSON was assumed). Flink 2.3 (PyFlink, Kafka SQL
connector 5.0.0-2.2, run 2026-12-04) refuses all three, for reading and for writing:

- ``'key.format'`` missing: ``Could not find required scan format 'key.format'.``;
- ``'format'`` instead of ``'value.format'``: ``Could not find required scan format 'value.format'.``;
- ``'format'`` next to ``'value.format'``: ``Unsupported options found for 'upsert-kafka'.
  Unsupported options: format``.

Here the error says the same, at the option in the CREATE TABLE.
"""

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import OptionError
from streamsql.sql.ddl import option_position

UPSERT = "'connector' = 'upsert-kafka', 'topic' = 'x', 'properties.bootstrap.servers' = '127.0.0.1:1'"
CASES = [
    (", 'value.format' = 'json'", "Could not find required format 'key.format'", "connector"),
    (", 'key.format' = 'json', 'format' = 'json'",
     "Could not find required format 'value.format' (upsert-kafka has no option 'format'", "format"),
    (", 'key.format' = 'json', 'value.format' = 'json', 'format' = 'csv'",
     "Unsupported options found for 'upsert-kafka'. Unsupported options: format", "format"),
]


@pytest.fixture
def env(tmp_path):
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    yield e
    e.close()


@pytest.mark.parametrize("use", ["SELECT k, v FROM t",
                                 "INSERT INTO t SELECT k, SUM(v) FROM (VALUES (1, 2)) AS s(k, v) GROUP BY k"])
@pytest.mark.parametrize(("options", "says", "key"), CASES)
def test_a_format_option_flink_refuses_is_refused_at_the_option(env, use, options, says, key):
    ddl = f"CREATE TABLE t (k INT, v INT, PRIMARY KEY (k) NOT ENFORCED)\nWITH ({UPSERT}{options})"
    env.execute_sql(ddl)
    with pytest.raises(OptionError) as ei:
        env.execute_sql(f"EXPLAIN {use}")
    e = ei.value
    assert says in e.message and (e.table, e.option) == ("t", key), str(e)
    assert (e.line, e.col, e.length) == option_position(ddl, key), str(e)


def test_key_format_and_value_format_plan(env):
    env.execute_sql(f"CREATE TABLE t (k INT, v INT, PRIMARY KEY (k) NOT ENFORCED)\nWITH ({UPSERT}, "
                    "'key.format' = 'json', 'value.format' = 'csv')")
    assert "upsert-kafka" in env.execute_sql("EXPLAIN SELECT k, v FROM t").message
