"""The job fingerprint (issue 12, finding 1): what changes it and what does not."""

import pytest

from streamsql.environment import StreamEnvironment
from streamsql.plan.fingerprint import changes, job_fingerprint
from streamsql.sql.parser import parse_statement

SRC = ("CREATE TABLE src (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
       "WITH ('connector' = 'datagen', 'rows-per-second' = '{rate}'{extra})")
OUT = "CREATE TABLE `out` (id INT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole')"
INSERT = "INSERT INTO `out` SELECT id, COUNT(*) FROM v GROUP BY id"


def fingerprint(insert=INSERT, src=SRC.format(rate=10, extra=""), view="CREATE VIEW v AS SELECT id FROM src"):
    env = StreamEnvironment()
    for ddl in (src, OUT, view):
        env.execute_sql(ddl)
    return job_fingerprint([parse_statement(insert)], env.catalog)


def test_same_job_same_fingerprint_whatever_the_layout_of_the_text():
    """Finding 1: whitespace, comments, keyword case and backquotes around a reserved word do not
    make another job."""
    base = fingerprint()
    rewritten = "insert into `out` /* counts */ select id,\n  count(*) -- per id\n from v group by id"
    assert fingerprint(rewritten) == base
    assert len(base.digest) == 64 and base.short == base.digest[:8]
    assert base.tables == ("out", "src", "v")  # the view and the table behind it
    assert base.sql == "INSERT INTO `out` SELECT id, COUNT(*) FROM v GROUP BY id"
    # hashed with reserved words unquoted, as StreamSQL took `out` before refusing it: old checkpoints resume
    assert base.described["inserts"] == ["INSERT INTO out SELECT id, COUNT(*) FROM v GROUP BY id"]


@pytest.mark.parametrize("change", [
    {"insert": "INSERT INTO `out` SELECT id, COUNT(*) FROM v WHERE id > 0 GROUP BY id"},
    {"src": SRC.format(rate=10, extra=", 'seed' = '3'")},  # a connector option of a table read through a view
    {"src": SRC.format(rate=10, extra="").replace("INTERVAL '1'", "INTERVAL '2'")},  # the watermark
    {"src": SRC.format(rate=10, extra="").replace("id INT", "id BIGINT")},  # the schema
    {"view": "CREATE VIEW v AS SELECT id + 1 AS id FROM src"},  # the view's query
])
def test_what_the_job_computes_changes_the_fingerprint(change):
    """Finding 1: another query, schema, watermark, option or view is another job."""
    assert fingerprint(**change).digest != fingerprint().digest


def test_credentials_and_tuning_options_are_left_out():
    """Rotating a password, tuning a buffer or draining to the end does not make another job."""
    kafka = ("CREATE TABLE src (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'kafka', 'topic' = 't', "
             "'properties.bootstrap.servers' = 'b:9092', 'format' = 'json', "
             "'properties.sasl.password' = '{}', 'properties.linger.ms' = '{}'{})")
    assert (fingerprint(src=kafka.format("a", 1, "")).digest
            == fingerprint(src=kafka.format("b", 2, ", 'scan.bounded.mode' = 'latest-offset'")).digest)
    other_topic = kafka.replace("'t'", "'u'")
    assert fingerprint(src=kafka.format("a", 1, "")).digest != (
        fingerprint(src=other_topic.format("a", 1, "")).digest)


def test_client_side_options_are_left_out_and_what_is_read_stays_in():
    """Options that only tune speed or the Kafka clients (rate, parallelism, discovery interval,
    transaction naming, timeouts, client ids) are not another job; what decides the rows is."""
    kafka = ("CREATE TABLE src (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'kafka', 'topic' = 't', "
             "'properties.bootstrap.servers' = 'b:9092', 'format' = 'json'{})")
    base = fingerprint(src=kafka.format("")).digest
    for tuning in (", 'scan.parallelism' = '4'", ", 'scan.topic-partition-discovery.interval' = '1 s'",
                   ", 'sink.transaction-naming-strategy' = 'POOLING'", ", 'properties.client.id' = 'me'",
                   ", 'properties.request.timeout.ms' = '5000'"):
        assert fingerprint(src=kafka.format(tuning)).digest == base, tuning
    assert fingerprint(src=SRC.format(rate=20, extra="")).digest == fingerprint().digest
    for identity in (", 'properties.isolation.level' = 'read_uncommitted'", ", 'properties.group.id' = 'g'",
                     ", 'scan.startup.mode' = 'latest-offset'", ", 'scan.watermark.idle-timeout' = '5 s'"):
        assert fingerprint(src=kafka.format(identity)).digest != base, identity


def test_changes_name_what_differs():
    """What a job that does not resume another says: the options, schema and statement changed."""
    base = fingerprint().described
    assert changes(base, base) == []
    seeded = fingerprint(src=SRC.format(rate=10, extra=", 'seed' = '3'")).described
    assert changes(base, seeded) == ["table 'src': option 'seed' = '3' was added"]
    assert changes(seeded, base) == ["table 'src': option 'seed' = '3' was removed"]
    json_csv = (fingerprint(src=SRC.format(rate=10, extra=", 'seed' = '1'")).described,
                fingerprint(src=SRC.format(rate=10, extra=", 'seed' = '2'")).described)
    assert changes(*json_csv) == ["table 'src': option 'seed' changed from '1' to '2'"]
    typed = fingerprint(src=SRC.format(rate=10, extra="").replace("id INT", "id BIGINT")).described
    assert changes(base, typed) == ["table 'src': its columns changed"]
    other = fingerprint("INSERT INTO `out` SELECT id, COUNT(*) FROM v WHERE id > 0 GROUP BY id").described
    assert changes(base, other) == ["the INSERT statement changed"]
    view = fingerprint(view="CREATE VIEW v AS SELECT id + 1 AS id FROM src").described
    assert changes(base, view) == ["view 'v' changed"]
