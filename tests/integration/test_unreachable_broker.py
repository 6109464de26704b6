"""Finding 8 of issue 12: an unreachable broker fails quietly, within bounds, with one message.

It flooded ~194 librdkafka ERROR lines (the shell's PRINT TOPIC filled the screen) before the
final message, and a transactional sink took 61 s to give up.
"""

import logging
import socket
import time

import pytest
from streamsql.connectors.kafka.errors import RDKAFKA_LOG, OncePerCause

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError

FIVE = ("CREATE TABLE nums (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
        "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5')")


@pytest.fixture
def dead_bootstrap():
    """host:port where nothing listens (a port the OS just handed out, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"127.0.0.1:{port}"


CASES = {
    "kafka source": ("CREATE TABLE k (id INT) WITH ('connector' = 'kafka', 'topic' = 't', "
                     "'properties.bootstrap.servers' = '{b}', 'format' = 'json', "
                     "'scan.startup.mode' = 'earliest-offset')",
                     "CREATE TABLE o (id INT) WITH ('connector' = 'blackhole')",
                     "INSERT INTO o SELECT id FROM k"),
    "at-least-once sink": (FIVE, "CREATE TABLE k (id INT) WITH ('connector' = 'kafka', 'topic' = 't', "
                           "'properties.bootstrap.servers' = '{b}', 'format' = 'json')",
                           "INSERT INTO k SELECT id FROM nums"),
    "exactly-once sink": (FIVE, "CREATE TABLE k (id INT) WITH ('connector' = 'kafka', 'topic' = 't', "
                          "'properties.bootstrap.servers' = '{b}', 'format' = 'json', "
                          "'sink.delivery-guarantee' = 'exactly-once')",
                          "INSERT INTO k SELECT id FROM nums"),
    "upsert-kafka source": ("CREATE TABLE k (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                            "'connector' = 'upsert-kafka', 'topic' = 't', "
                            "'properties.bootstrap.servers' = '{b}', 'key.format' = 'json', "
                            "'value.format' = 'json')",
                            "CREATE TABLE o (id INT) WITH ('connector' = 'blackhole')",
                            "INSERT INTO o SELECT id FROM k"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_finding_8_unreachable_broker_fails_within_15_s_with_one_message(case, dead_bootstrap, tmp_path,
                                                                         caplog):
    """Finding 8: the job fails within 15 s saying it cannot reach Kafka; librdkafka's lines
    stay below WARNING, each cause once."""
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")}) as env:
        *ddl, insert = CASES[case]
        for st in ddl:
            env.execute_sql(st.format(b=dead_bootstrap))
        with caplog.at_level(logging.INFO, logger="streamsql"):
            job = env.execute_sql(insert).job
            start = time.monotonic()
            with pytest.raises(ExecutionError) as e:
                job.wait(60)
            took = time.monotonic() - start
    assert f"cannot reach Kafka at {dead_bootstrap}" in str(e.value)
    assert took < 15, f"{case} took {took:.1f} s to fail"
    rd = [r for r in caplog.records if r.name == RDKAFKA_LOG.name]
    assert all(r.levelno < logging.WARNING for r in rd), [r.getMessage() for r in rd]
    causes = [OncePerCause.cause(r.getMessage()) for r in rd]
    assert len(causes) == len(set(causes)), causes  # once per cause, not once per retry


def test_finding_8_once_per_cause_filter():
    """Finding 8: retries of one cause pass once (INFO); a new cause passes; other lines keep
    their level up to WARNING."""
    f = OncePerCause()
    logger = logging.getLogger("streamsql.kafka.librdkafka")
    old = logger.level
    logger.setLevel(logging.INFO)
    try:
        def rec(fac, text, level=logging.ERROR):
            return logging.LogRecord(logger.name, level, __file__, 1, "%s [%s] %s",
                                     (fac, "rdkafka#producer-3", text), None)
        refused = ("[thrd:127.0.0.1:1/bootstrap]: 127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 "
                   "failed: Connection refused (after 0ms in state CONNECT{})")
        first = rec("FAIL", refused.format(""))
        assert f.filter(first) and first.levelno == logging.INFO
        for n in range(1, 50):
            assert not f.filter(rec("FAIL", refused.format(f", {n} identical error(s) suppressed")))
        other = rec("FAIL", refused.format("").replace("127.0.0.1:1", "10.0.0.9:9092"))
        assert f.filter(other)
        config = rec("CONFWARN", "Configuration property x is a producer property and will be ignored",
                     logging.WARNING)
        assert f.filter(config) and config.levelno == logging.WARNING
        assert not f.filter(rec("CONFWARN", "Configuration property x is a producer property and will be "
                                            "ignored", logging.WARNING))
    finally:
        logger.setLevel(old)


def test_exchange_topic_metadata_timeout_is_an_execution_error(dead_bootstrap):
    """A parallel job's exchange/task topic metadata that times out is an ExecutionError (restarted
    by the restart strategy), never the raw KafkaException the job reported as an internal error
    (seen in CI: a worker frozen past its session timeout, the other's list_topics timed out)."""
    from streamsql.connectors.kafka.exchange import ensure_topic

    with pytest.raises(ExecutionError, match="cannot reach Kafka at"):
        ensure_topic({"bootstrap.servers": dead_bootstrap}, "_streamsql-x-tasks", 2, "Job 'x' task topic")
