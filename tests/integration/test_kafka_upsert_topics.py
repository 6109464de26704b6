"""An ``upsert-kafka`` sink whose rows name their topics: each topic is an upsert table of its own.

Flink writes every row (no buffer by default), so a key written to topic a and then to topic b
is in both topics (``kafka_topics_flink.json``, scenario ``upsert_same_key_two_topics``). The sink
here compacted an epoch's changes per key before writing them by default, and topic a never got
its row; it now writes every change unless both ``'sink.buffer-flush.*'`` options are set (then,
as Flink's ReducingUpsertWriter, whose buffer is keyed by the PRIMARY KEY alone, a key's change
to b replaces its change to a within a flush).
"""

from __future__ import annotations

from streamsql import StreamEnvironment
from streamsql.testing.chaos import read_committed
from streamsql.testing.chaos_queries import fold_upsert


def _final(bootstrap: str, topic: str) -> dict[int, str]:
    """The upsert table a topic ends with: each key's last value (committed records only)."""
    return dict(fold_upsert(read_committed(bootstrap, topic), lambda k: k["id"], lambda r: (r["id"], r["v"])))


def test_a_key_written_to_two_topics_is_in_both(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """20,000 rows in one epoch, keys 0..9999 to topic a and again to topic b (staged early)."""
    a, b = kafka_topic_factory("upsert-topics-a"), kafka_topic_factory("upsert-topics-b")
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                             "restart-strategy.type": "none", "execution.batch-size": "2048"})
    try:
        env.execute_sql("CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', "
                        "'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '19999')")
        env.execute_sql(f"""CREATE TABLE snk (id BIGINT, tp STRING METADATA FROM 'topic', v STRING,
            PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '{a};{b}',
            'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json',
            'value.format' = 'json')""")
        result = env.execute_sql(f"""INSERT INTO snk SELECT MOD(id, 10000),
            CASE WHEN id < 10000 THEN '{a}' ELSE '{b}' END, CAST(id AS STRING) FROM src
            ON CONFLICT DO DEDUPLICATE""")
        assert result.job.wait(120) == "FINISHED", result.job.error
    finally:
        env.close()
    assert _final(kafka_bootstrap, a) == {i: str(i) for i in range(10000)}
    assert _final(kafka_bootstrap, b) == {i: str(i + 10000) for i in range(10000)}
