"""A statement set is one plan (d03f713): its INSERTs share the sub-plans that are equal, and each
sink still gets what its INSERT alone would, against DuckDB over the same Kafka records.

The INSERTs differ from each other in the subtle ways a shared sub-plan could blur: another WHERE
constant, another column order, a view read twice, and one GROUP BY feeding an upsert sink (no -U
rows needed) and, in another INSERT, an outer GROUP BY (that needs them) at once; at parallelism
1 and 2 (the shared scan's stage feeds several exchanges).
"""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from streamsql.environment import StreamEnvironment
from tests.integration.test_parallel import PARTITIONS, _appends, _duck, _load, _rows, _upserts

INSERTS = {  # sink: (columns, primary key or None, INSERT's query, DuckDB's)
    "a": ("id INT, k INT", None, "SELECT id, k FROM src WHERE v > 100", None),
    "b": ("k INT, id INT", None, "SELECT k, id FROM src WHERE v > 101", None),
    "c": ("id INT, k INT", None, "SELECT id, k FROM big", "SELECT id, k FROM src WHERE v > 100"),
    "d": ("k INT, n BIGINT, s BIGINT", "k", "SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k", None),
    "e": ("n BIGINT, m BIGINT, t BIGINT", "n",
          "SELECT n, COUNT(*), SUM(s) FROM (SELECT k, COUNT(*) AS n, SUM(v) AS s FROM src GROUP BY k) "
          "GROUP BY n",
          None),
    "f": ("id INT, v INT", None, "SELECT id, v FROM big WHERE k < 20",
          "SELECT id, v FROM src WHERE v > 100 AND k < 20"),
}


def _env(tmp_path, parallelism: int, bootstrap: str, src: str, topics: dict[str, str]) -> StreamEnvironment:
    env = StreamEnvironment({
        "parallelism.default": str(parallelism), "pipeline.name": f"set-{uuid.uuid4().hex[:8]}",
        "execution.checkpointing.interval": "1 s",
        "execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "state")})
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
        'connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')""")
    env.execute_sql("CREATE VIEW big AS SELECT * FROM src WHERE v > 100")
    for sink, (columns, key, _, _) in INSERTS.items():
        if key:
            env.execute_sql(f"""CREATE TABLE {sink} ({columns}, PRIMARY KEY ({key}) NOT ENFORCED) WITH (
                'connector' = 'upsert-kafka', 'topic' = '{topics[sink]}',
                'properties.bootstrap.servers' = '{bootstrap}',
                'key.format' = 'json', 'value.format' = 'json')""")
        else:
            env.execute_sql(f"""CREATE TABLE {sink} ({columns}) WITH ('connector' = 'kafka',
                'topic' = '{topics[sink]}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
                'sink.delivery-guarantee' = 'exactly-once')""")
    return env


@pytest.mark.parametrize("parallelism", [1, 2])
def test_each_sink_of_a_statement_set_gets_its_inserts_answer(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                             parallelism):
    src = kafka_topic_factory("set_src", PARTITIONS)
    topics = {sink: kafka_topic_factory(f"set_{sink}") for sink in INSERTS}
    rows = _rows(41, 3000)
    _load(kafka_bootstrap, src, rows)
    env = _env(tmp_path, parallelism, kafka_bootstrap, src, topics)
    statement_set = ("EXECUTE STATEMENT SET BEGIN\n"
                     + "".join(f"INSERT INTO {sink} {query};\n" for sink, (_, _, query, _) in INSERTS.items())
                     + "END")
    plan = env.execute_sql(f"EXPLAIN {statement_set}").message
    assert plan.count("TableSourceScan(table=[src]") == 1, plan
    # the GROUP BY k of d (upsert, no -U) and of e (read by an aggregate: -U) are not one operator
    assert plan.count("GroupAggregate(groupBy=[k]") == 2, plan
    assert env.execute_sql(statement_set).job.wait(180) == "FINISHED"
    for sink, (columns, key, query, duck) in INSERTS.items():
        names = [c.split()[0] for c in columns.split(", ")]
        expected = Counter(_duck(duck or query, src=rows))
        got = (_upserts if key else _appends)(kafka_bootstrap, topics[sink], names)
        assert got == expected, sink
