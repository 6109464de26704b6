"""Finding 2 of issue 12 with a transactional sink: two INSERTs into one exactly-once Kafka sink
table are two jobs with two transactional ids (the second used to fence the first)."""

import json

from streamsql import StreamEnvironment
from tests.integration.test_flights import read_committed


def test_finding_2_two_inserts_into_one_transactional_sink(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Finding 2: both INSERTs commit their rows ('producer fenced', nothing committed, before)."""
    topic = kafka_topic_factory("identity_out")
    progress = kafka_topic_factory("identity_progress", config={"cleanup.policy": "compact"})
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "checkpoints"),
                             "state.dir": str(tmp_path / "state"),
                             "execution.checkpointing.interval": "100 ms"})
    with env:
        env.execute_sql("CREATE TABLE nums (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '200', "
                        "'rows-per-second' = '400', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                        "'fields.id.end' = '200')")
        env.execute_sql(f"CREATE TABLE `out` (id INT, src STRING) WITH ('connector' = 'kafka', "
                        f"'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                        "'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', "
                        f"'sink.transactional-id-prefix' = 'ident', 'sink.progress-topic' = '{progress}')")
        a = env.execute_sql("INSERT INTO `out` SELECT id, 'a' FROM nums").job
        b = env.execute_sql("INSERT INTO `out` SELECT id, 'b' FROM nums").job
        assert a.name != b.name
        assert a.wait(120) == "FINISHED" and b.wait(120) == "FINISHED"
    rows = [json.loads(value) for *_, value in read_committed(kafka_bootstrap, topic)]
    assert sorted((r["src"], r["id"]) for r in rows) == sorted(
        (s, i) for s in "ab" for i in range(1, 201))
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == sorted([a.name, b.name])
