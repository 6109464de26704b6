"""Java Kafka client keys in ``'properties.*'`` (issue 10's finding: ``'properties.max.poll.records'``
failed with "Internal error" at parallelism 2): each is translated to librdkafka's meaning or
ignored with one warning naming it; a job using them gives the right answer at parallelism 1 and 2
(``streamsql run``, worker processes at 2)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import uuid

import orjson
import pytest
from confluent_kafka import Consumer, Producer
from streamsql.connectors.kafka import client_keys
from streamsql.connectors.kafka.client_keys import translate
from streamsql.connectors.kafka.options import metadata_timeout_s

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError
from tests.integration.test_flights import fold_upserts, read_committed

#: The Java consumer and producer keys of Flink's Kafka connector examples and docs.
JAVA_KEYS = {
    "properties.max.poll.records": "500",
    "properties.auto.offset.reset": "none",
    "properties.isolation.level": "read_committed",
    "properties.fetch.max.wait.ms": "200",
    "properties.key.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
    "properties.partition.discovery.interval.ms": "10000",
    "properties.partition.assignment.strategy": "org.apache.kafka.clients.consumer.RangeAssignor",
    "properties.receive.buffer.bytes": "-1",
    "properties.commit.offsets.on.checkpoint": "true",
    "properties.default.api.timeout.ms": "60000",
}
SINK_KEYS = {
    "properties.max.request.size": "2097152",
    "properties.buffer.memory": "33554432",
    "properties.value.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
    "properties.acks": "all",
    "properties.max.block.ms": "60000",
}


@pytest.fixture(autouse=True)
def _fresh_warnings():
    client_keys._warned.clear()
    yield
    client_keys._warned.clear()


def test_java_keys_translate_to_librdkafka_meanings():
    props = translate({k.removeprefix("properties."): v for k, v in {**JAVA_KEYS, **SINK_KEYS}.items()})
    assert props == {
        "auto.offset.reset": "error", "isolation.level": "read_committed", "fetch.wait.max.ms": "200",
        "socket.receive.buffer.bytes": 0, "message.max.bytes": "2097152",
        "queue.buffering.max.kbytes": 32768, "acks": "all"}


def test_a_librdkafka_key_wins_over_its_java_name():
    assert translate({"fetch.max.wait.ms": "200", "fetch.wait.max.ms": "50"}) == {"fetch.wait.max.ms": "50"}


def test_each_ignored_key_warns_once_naming_it(caplog):
    with caplog.at_level(logging.WARNING, logger=client_keys.__name__):
        for _ in range(3):
            translate({"max.poll.records": "10", "value.deserializer": "x"}, "Table 't': ")
    texts = [r.getMessage() for r in caplog.records]
    assert len(texts) == 2
    assert "Table 't': 'properties.max.poll.records' is a Java Kafka client key; ignored" in texts[0]
    assert "'properties.value.deserializer'" in texts[1]


def test_the_java_clients_wait_bounds_are_the_metadata_wait_of_their_role(caplog):
    """``max.block.ms`` (the Java producer's) and ``default.api.timeout.ms`` (the Java consumer's)
    bound how long a sink or source waits for the brokers at open (the unreachable-broker tests
    time it); a value the Java client refuses (not a long, below 0) is refused; the other role's
    key is left out with the other-role warning, as the Java client ignores it."""
    keys = {"max.block.ms": " 1500", "default.api.timeout.ms": "+2500"}
    with caplog.at_level(logging.WARNING, logger=client_keys.__name__):
        assert translate(keys) == {}
        assert translate(keys, "Table 't': ", "producer") == {}
    said = [r.getMessage() for r in caplog.records]
    assert said == ["Table 't': 'properties.default.api.timeout.ms' is a Kafka consumer key; a sink table's "
                    "writes ignore it (as Flink's Java producer does)"]
    t = TableDef("t", [], {f"properties.{k}": v for k, v in keys.items()})
    assert (metadata_timeout_s(t, "producer"), metadata_timeout_s(t, "consumer")) == (1.5, 2.5)
    for bad in ("-1", "1.5", "10 s", ""):
        with pytest.raises(ConfigError, match=f"'properties.max.block.ms' = '{bad}' is not a number of ms"):
            translate({"max.block.ms": bad}, "Table 't': ")


def test_keystore_and_truststore_types_are_java_keys():
    """``ssl.keystore.type`` / ``ssl.truststore.type`` failed the job as librdkafka's "No such
    configuration property": a PKCS12 keystore is what librdkafka reads, a truststore is never read."""
    assert translate({"ssl.keystore.type": "PKCS12", "ssl.truststore.type": "JKS",
                      "ssl.keystore.location": "/k.p12"}) == {"ssl.keystore.location": "/k.p12"}
    with pytest.raises(ConfigError, match="'properties.ssl.keystore.type' = 'JKS': librdkafka reads PKCS12"):
        translate({"ssl.keystore.type": "JKS"}, "Table 't': ")


def test_plain_jaas_config_becomes_username_and_password():
    jaas = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
            'username="alice" password="s3cr\\"t";')
    assert translate({"sasl.jaas.config": jaas, "sasl.mechanism": "PLAIN"}) == {
        "sasl.username": "alice", "sasl.password": 's3cr\\"t', "sasl.mechanism": "PLAIN"}


def test_unreadable_security_keys_fail_naming_what_to_use():
    with pytest.raises(ConfigError, match="'properties.ssl.ca.location'"):
        translate({"ssl.truststore.location": "/etc/kafka/truststore.jks"}, "Table 't': ")
    with pytest.raises(ConfigError, match="PLAIN and SCRAM") as e:
        translate({"sasl.jaas.config": 'com.sun.security.auth.module.Krb5LoginModule required keyTab="x";'})
    assert "keyTab" not in str(e.value)


def _options(opts: dict[str, str]) -> str:
    return "".join(f", '{k}' = '{v}'" for k, v in opts.items())


def _script(tmp_path, bootstrap, src, out, parallelism, extra_source, extra_sink) -> str:
    path = tmp_path / f"job{parallelism}.sql"
    path.write_text(f"""
SET 'pipeline.name' = 'jk-{uuid.uuid4().hex[:8]}';
SET 'parallelism.default' = '{parallelism}';
SET 'execution.checkpointing.interval' = '500 ms';
CREATE TABLE src (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{src}',
    'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'{_options(extra_source)});
CREATE TABLE out_t (k INT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
    'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
    'key.format' = 'json', 'value.format' = 'json'{_options(extra_sink)});
INSERT INTO out_t SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
""")
    return str(path)


@pytest.mark.parametrize("parallelism", [1, 2])
def test_job_with_java_client_keys_runs_and_warns(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                  parallelism):
    """The finding: ``streamsql run`` of a job with Java client keys ends with the right result."""
    src, out = kafka_topic_factory("jk_src", 4), kafka_topic_factory("jk_out")
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i in range(2000):
        p.produce(src, orjson.dumps({"k": i % 7, "v": i}), partition=i % 4)
    p.flush(30)
    script = _script(tmp_path, kafka_bootstrap, src, out, parallelism, JAVA_KEYS, SINK_KEYS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-m", "streamsql", "run", script], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Internal error" not in run.stdout + run.stderr
    assert "'properties.max.poll.records' is a Java Kafka client key; ignored" in run.stderr
    got = {key[0]: (v["n"], v["s"]) for key, v in fold_upserts(read_committed(kafka_bootstrap, out)).items()}
    assert got == {k: (len(range(k, 2000, 7)), sum(range(k, 2000, 7))) for k in range(7)}


def test_unknown_key_is_warned_at_its_key_and_the_job_runs(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """A key neither client knows (a typo) is ignored as Flink's Java client ignores it ("supplied but
    isn't a known config") and the job runs, also in worker processes; never in silence: the CREATE
    TABLE answers a warning at the key's line:column with the key it was likely meant to be."""
    src, out = kafka_topic_factory("jk_src", 2), kafka_topic_factory("jk_out")
    p = Producer({"bootstrap.servers": kafka_bootstrap})
    for i in range(100):
        p.produce(src, orjson.dumps({"k": i % 3, "v": i}), partition=i % 2)
    p.flush(30)
    script = _script(tmp_path, kafka_bootstrap, src, out, 2, {"properties.sasl.passwd": "secret"}, {})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-m", "streamsql", "run", script], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout + run.stderr
    line = next(n for n, text in enumerate(open(script).read().splitlines(), 1) if "sasl.passwd" in text)
    col = open(script).read().splitlines()[line - 1].index("'properties.sasl.passwd'") + 1
    assert (f"[WARNING] {script}: 'properties.sasl.passwd' is not a Kafka client property" in run.stdout
            and f"did you mean 'sasl.password'? (line {line}, column {col})" in run.stdout), run.stdout
    assert "No such configuration property" not in run.stdout + run.stderr
    got = {key[0]: (v["n"], v["s"]) for key, v in fold_upserts(read_committed(kafka_bootstrap, out)).items()}
    assert got == {k: (len(range(k, 100, 3)), sum(range(k, 100, 3))) for k in range(3)}


def test_create_table_warns_at_an_unknown_key_and_the_client_never_gets_it(tmp_path, caplog):
    """The warning is CREATE TABLE's answer, at the key (Python and shell: the statement's line);
    a translated Java key (``fetch.max.wait.ms``) and a librdkafka key are no warning; the client
    is given the known keys only (librdkafka would refuse the whole configuration)."""
    from streamsql import StreamEnvironment

    env = StreamEnvironment()
    try:
        res = env.execute_sql("""CREATE TABLE t (a INT) WITH (
  'connector' = 'kafka', 'topic' = 'x', 'format' = 'json',
  'properties.fetch.max.wait.ms' = '100', 'properties.linger.ms' = '5',
    'properties.fetch.min.bytez' = '1')""")
    finally:
        env.close()
    assert [(w.line, w.col, w.length) for w in res.warnings] == [(4, 5, len("'properties.fetch.min.bytez'"))]
    assert res.message.startswith("[WARNING] 'properties.fetch.min.bytez' is not a Kafka client property")
    assert "did you mean 'fetch.min.bytes'?" in res.message
    assert res.message.endswith("[INFO] Execute statement succeeded.")
    with caplog.at_level(logging.WARNING, logger=client_keys.__name__):
        props = translate({"fetch.max.wait.ms": "100", "fetch.min.bytez": "1", "sasl.passwd": "x"},
                          "Table 't': ")
    assert props == {"fetch.wait.max.ms": "100"}
    assert [r.getMessage() for r in caplog.records] == [  # not warned at CREATE TABLE: once here
        "Table 't': 'properties.sasl.passwd' is not a Kafka client property; ignored"]


def test_the_warning_never_prints_an_option_value(tmp_path):
    """A misspelt secret key (``'properties.sasl.passwd' = 'hunter2'``) is warned at, but the
    excerpt masks its value and the sensitive options' values with a fixed-width mask (the caret
    moved to stay under the key), not the other options' values ('connector', 'topic'), also once
    re-positioned in a script as ``streamsql run`` does; the CLI's whole output too."""
    from streamsql import StreamEnvironment
    from streamsql.sql.parser import error_in_script, parse_script

    sql = """CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'topic' = 'x', 'format' = 'json',
  'properties.sasl.passwd' = 'hunter2', 'properties.ssl.key.passwrd'='it''s-hunter3',
  'properties.sasl.jaas.confg' = 'PlainLoginModule required username="u" password="hunter4";')
  """
    one_line = ("CREATE TABLE t1 (a INT) WITH ('connector' = 'kafka', "
                "'properties.sasl.password' = 'hunter5', "
                "'properties.sasl.passwd' = 'hunter2', 'topic' = 'x', 'format' = 'json')")
    env = StreamEnvironment()
    try:
        res = env.execute_sql(sql)
        one = env.execute_sql(one_line)
    finally:
        env.close()
    assert [(w.line, w.col) for w in res.warnings] == [(2, 3), (2, 41), (3, 3)]
    assert "hunter" not in res.message, res.message
    assert "'properties.sasl.passwd' = '******', 'properties.ssl.key.passwrd'='******'" in res.message
    assert "\n    ^^^^^^^^^^^^^^^^^^^^^^^^\n" in f"{res.warnings[0]}\n"
    line, caret = str(res.warnings[1]).splitlines()[1:3]  # the caret moved with the masks before it
    assert line[caret.index("^"):].startswith("'properties.ssl.key.passwrd'") and caret.count("^") == 28
    shown = str(one.warnings[0])
    assert "hunter" not in shown, shown
    assert ("('connector' = 'kafka', 'properties.sasl.password' = '******', 'properties.sasl.passwd' = "
            "'******', 'topic' = 'x', 'format' = 'json')") in shown
    line, caret = shown.splitlines()[1:3]
    assert line[caret.index("^"):].startswith("'properties.sasl.passwd'") and caret.count("^") == 24
    script = f"SET 'parallelism.default' = '1';\n{sql};\n"
    stmt = parse_script(script)[1][0]
    assert all("hunter" not in str(error_in_script(w, stmt, script, "job.sql")) for w in res.warnings)
    path = tmp_path / "job.sql"
    path.write_text(script)
    env_vars = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-m", "streamsql", "run", str(path)], cwd=tmp_path, env=env_vars,
                         capture_output=True, text=True, timeout=120)
    assert "'properties.sasl.passwd' is not a Kafka client property" in run.stdout, run.stdout + run.stderr
    assert "hunter" not in run.stdout + run.stderr


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def _client_warnings(cls, props: dict) -> list[str]:
    """librdkafka's own CONFWARN lines for a client created with ``props`` (no broker needed)."""
    logger = logging.getLogger(f"test.confwarn.{uuid.uuid4().hex}")
    logger.propagate, handler = False, _Lines()
    logger.addHandler(handler)
    client = cls({"bootstrap.servers": "127.0.0.1:1", "group.id": "g", **props, "logger": logger}
                 if cls is Consumer else {"bootstrap.servers": "127.0.0.1:1", **props, "logger": logger})
    client.close() if cls is Consumer else client.flush(0)
    return [line for line in handler.lines if "CONFWARN" in line]


def test_the_other_clients_keys_are_left_out_with_one_warning_each(caplog):
    """A producer key on a source reached librdkafka's consumer, which printed a CONFWARN line
    ("is a producer property and will be ignored by this consumer instance"): librdkafka itself is
    the oracle of which keys a consumer or a producer reads."""
    java = {k[len("properties."):]: v for k, v in SINK_KEYS.items()}
    java.update({"linger.ms": "5", "batch.size": "16384", "compression.type": "lz4", "retries": "3"})
    assert _client_warnings(Consumer, translate(java)), "the oracle: these keys warn on a consumer"
    with caplog.at_level(logging.WARNING):
        consumer_props = translate(java, "Table 's': ", "consumer")
        translate(java, "Table 's': ", "consumer")
    assert _client_warnings(Consumer, consumer_props) == []
    assert "queue.buffering.max.kbytes" not in consumer_props and "linger.ms" not in consumer_props
    assert consumer_props["message.max.bytes"] == "2097152"  # a key both clients read stays
    said = [r.getMessage() for r in caplog.records if "is a Kafka producer key" in r.getMessage()]
    assert len([m for m in said if "'properties.buffer.memory'" in m]) == 1
    assert "Table 's': 'properties.linger.ms' is a Kafka producer key; a source table's reads ignore it " \
           "(as Flink's Java consumer does)" in said

    consumer_keys = {"fetch.min.bytes": "1", "session.timeout.ms": "45000", "auto.offset.reset": "earliest",
                     "isolation.level": "read_committed", "max.partition.fetch.bytes": "1048576"}
    assert _client_warnings(Producer, consumer_keys), "the oracle: these keys warn on a producer"
    producer_props = translate({**consumer_keys, "acks": "all"}, "", "producer")
    assert producer_props == {"acks": "all"}
    assert _client_warnings(Producer, producer_props) == []


def test_show_create_table_hides_a_misspelt_secret_keys_value():
    """SHOW CREATE TABLE follows the warning's rule (streamsql.core.secrets.hidden): the value of
    a key no Kafka client knows ('properties.sasl.passwd') is masked as a sensitive key's is; the
    other values are shown. (Flink 2.3 prints every value in clear, 'properties.sasl.password'
    included: scripts/flink_statements.py's probe; never printing a secret is on purpose.)"""
    from streamsql import StreamEnvironment

    env = StreamEnvironment()
    try:
        env.execute_sql("CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 't', "
                        "'format' = 'json', "
                        "'properties.sasl.passwd' = 'hunter2', 'properties.sasl.password' = 'hunter3', "
                        "'properties.bootstrap.servers' = 'x:9092')")
        text = env.execute_sql("SHOW CREATE TABLE k").message
    finally:
        env.close()
    assert "hunter" not in text, text
    assert "  'properties.sasl.passwd' = '******',\n  'properties.sasl.password' = '******',\n" in text
    assert "  'topic' = 't'\n" in text and "'properties.bootstrap.servers' = 'x:9092'" in text
