"""The mysql-cdc source against a real MariaDB: snapshot, binlog, types, errors."""

from __future__ import annotations

import time
import uuid

import pytest

from streamsql.core.errors import ConfigError
from streamsql.environment import StreamEnvironment
from tests.cdc.helpers import cdc_options, execute, kafka_table, upsert_kafka_options, wait_for

TYPES_DDL = """CREATE TABLE items (
  id INT PRIMARY KEY, price DECIMAL(10, 2), at DATETIME(6), ts TIMESTAMP(3) NULL, doc JSON,
  colour ENUM('red', 'green'), flag BIT(1), mask BIT(10), data BLOB, name VARCHAR(20), big BIGINT UNSIGNED,
  yes TINYINT(1), tm TIME(3))"""
COLUMNS = """id INT, price DECIMAL(10, 2), `at` TIMESTAMP(6), ts TIMESTAMP(3), doc STRING, colour STRING,
  flag BOOLEAN, mask BYTES, data BYTES, name STRING, big DECIMAL(20, 0), yes BOOLEAN, tm TIME(3)"""


def _env(tmp_path, name):
    # the interval makes Flink's default restart strategy exponential-delay, which would retry a
    # failing job for ever (docs/checkpointing.md#restarts): these tests want the failure itself
    return StreamEnvironment({"execution.checkpointing.interval": "300 ms", "restart-strategy.type": "none",
                              "pipeline.name": f"{name}-{uuid.uuid4().hex[:6]}",
                              "execution.checkpointing.dir": str(tmp_path / "chk")})


def test_snapshot_then_binlog_map_types_as_flink_cdc(mariadb_db, kafka_bootstrap, kafka_topic_factory,
                                                      tmp_path):
    execute(mariadb_db, TYPES_DDL)
    execute(mariadb_db, "SET time_zone = '+00:00'",
            "INSERT INTO items VALUES (1, 12.34, '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.500', "
            "'{\"a\": [1, 2]}', 'green', b'1', b'1000000011', x'00ff', 'héllo', 18446744073709551615, 1, "
            "'12:34:56.5'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
    topic = kafka_topic_factory("cdc_types")
    env = _env(tmp_path, "cdc-types")
    env.execute_sql(f"CREATE TABLE src ({COLUMNS}, db STRING METADATA FROM 'database_name' VIRTUAL, "
                    f"tbl STRING METADATA FROM 'table_name' VIRTUAL, PRIMARY KEY (id) NOT ENFORCED) "
                    f"WITH ({cdc_options(mariadb_db, 'items', **{'server-time-zone': 'Asia/Tokyo'})})")
    env.execute_sql(f"CREATE TABLE out_t ({COLUMNS}, db STRING, tbl STRING, PRIMARY KEY (id) NOT ENFORCED) "
                    f"WITH ({upsert_kafka_options(kafka_bootstrap, topic)})")
    job = env.execute_sql("INSERT INTO out_t SELECT * FROM src").job
    try:
        snap = wait_for(lambda: (t := kafka_table(kafka_bootstrap, topic)) and len(t) == 2 and t,
                        what="the snapshot's 2 rows")
        execute(mariadb_db, "SET time_zone = '+00:00'",
                "INSERT INTO items VALUES (3, -0.5, '1999-12-31 23:59:59.999999', '2000-01-01 00:00:00', "
                "'[]', 'red', b'0', b'0000000001', x'', '', 0, 0, '23:59:59.999')",
                "UPDATE items SET price = 99.99, name = 'two' WHERE id = 2", "DELETE FROM items WHERE id = 1")
        out = wait_for(lambda: (t := kafka_table(kafka_bootstrap, topic)) and set(t) == {(2,), (3,)}
                       and t[(2,)]["price"] is not None and t, what="the binlog's changes")
    finally:
        job.cancel()
    # Read by the snapshot (a SELECT) and by the binlog: the same mapping. TIMESTAMP in
    # 'server-time-zone' (UTC+9), BIT(10) little-endian bytes (base64 in JSON), BIGINT UNSIGNED exact;
    # the json format writes a timestamp's fraction without trailing zeros, as Flink 2.3.
    assert snap[(1,)] == {"id": 1, "price": 12.34, "at": "2024-01-02 03:04:05.123456",
                          "ts": "2024-01-02 12:04:05.5", "doc": '{"a": [1, 2]}', "colour": "green",
                          "flag": True, "mask": "AwI=", "data": "AP8=", "name": "héllo",
                          "big": 18446744073709551615, "yes": True, "tm": "12:34:56.5",
                          "db": mariadb_db.database, "tbl": "items"}
    assert out[(3,)] == {"id": 3, "price": -0.5, "at": "1999-12-31 23:59:59.999999",
                         "ts": "2000-01-01 09:00:00", "doc": "[]", "colour": "red", "flag": False,
                         "mask": "AQA=", "data": "", "name": "", "big": 0, "yes": False, "tm": "23:59:59.999",
                         "db": mariadb_db.database, "tbl": "items"}
    assert out[(2,)]["price"] == 99.99 and out[(2,)]["name"] == "two" and out[(2,)]["at"] is None


def _failure(env, db, table, cols="id INT, v INT", pk="id", **extra) -> str:
    env.execute_sql(f"CREATE TABLE src ({cols}, PRIMARY KEY ({pk}) NOT ENFORCED) "
                    f"WITH ({cdc_options(db, table, **extra)})")
    env.execute_sql(f"CREATE TABLE out_t ({cols}) WITH ('connector' = 'blackhole')")
    job = env.execute_sql("INSERT INTO out_t SELECT * FROM src").job
    with pytest.raises(Exception) as info:  # noqa: PT011 -- the message is what is checked
        job.wait(60)
    return str(info.value)


@pytest.mark.parametrize(("case", "fix"), [
    ("password", "check the options 'username' and 'password'"),
    ("table", "check the options 'database-name' and 'table-name'"),
    ("key", "has PRIMARY KEY (id), but the table declares PRIMARY KEY (v)"),
    ("column", "has no column 'missing'"),
    ("type", "maps to DECIMAL(6, 2); declare it as DECIMAL(6, 2) instead of INT"),
])
def test_a_wrong_setting_fails_the_job_naming_what_to_fix(mariadb_db, tmp_path, case, fix):
    execute(mariadb_db, "CREATE TABLE k (id INT PRIMARY KEY, v INT, d DECIMAL(6, 2))")
    env = _env(tmp_path, f"cdc-err-{case}")
    kw = {"password": {"password": "not-the-password-42"}, "table": {}, "key": {}, "column": {},
          "type": {}}[case]
    cols = {"column": "id INT, missing INT", "type": "id INT, d INT"}.get(case, "id INT, v INT")
    message = _failure(env, mariadb_db, "nope" if case == "table" else "k", cols=cols,
                       pk="v" if case == "key" else "id", **kw)
    assert fix in message
    assert "not-the-password-42" not in message


def test_a_server_without_row_based_binlog_is_refused(mariadb_db, tmp_path):
    execute(mariadb_db, "CREATE TABLE k (id INT PRIMARY KEY, v INT)")
    with mariadb_db.mysql() as c, c.cursor() as cur:
        cur.execute("SET GLOBAL binlog_format = 'STATEMENT'")
        try:
            message = _failure(_env(tmp_path, "cdc-stmt"), mariadb_db, "k")
        finally:
            cur.execute("SET GLOBAL binlog_format = 'ROW'")
    assert "has binlog_format = STATEMENT; mysql-cdc reads a row-based binlog: set the server's " \
           "binlog_format = ROW" in message


def test_the_password_is_masked_in_show_create_table(mariadb_db):
    env = StreamEnvironment()
    env.execute_sql(f"CREATE TABLE src (id INT, PRIMARY KEY (id) NOT ENFORCED) "
                    f"WITH ({cdc_options(mariadb_db, 'k')})")
    shown = env.execute_sql("SHOW CREATE TABLE src").message
    assert "'password' = '******'" in shown and "streamsql-test-password" not in shown


def test_a_table_without_primary_key_declared_is_refused_at_planning(mariadb_db):
    env = StreamEnvironment()
    env.execute_sql(f"CREATE TABLE src (id INT) WITH ({cdc_options(mariadb_db, 'k')})")
    env.execute_sql("CREATE TABLE out_t (id INT) WITH ('connector' = 'blackhole')")
    with pytest.raises(ConfigError, match=r"needs PRIMARY KEY \(\.\.\.\) NOT ENFORCED"):
        env.execute_sql("INSERT INTO out_t SELECT * FROM src")


def test_latest_offset_reads_only_new_changes(mariadb_db, kafka_bootstrap, kafka_topic_factory, tmp_path):
    execute(mariadb_db, "CREATE TABLE k (id INT PRIMARY KEY, v INT)", "INSERT INTO k VALUES (1, 1), (2, 2)")
    topic = kafka_topic_factory("cdc_latest")
    env = _env(tmp_path, "cdc-latest")
    env.execute_sql(f"CREATE TABLE src (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) "
                    f"WITH ({cdc_options(mariadb_db, 'k', **{'scan.startup.mode': 'latest-offset'})})")
    env.execute_sql(f"CREATE TABLE out_t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) "
                    f"WITH ({upsert_kafka_options(kafka_bootstrap, topic)})")
    job = env.execute_sql("INSERT INTO out_t SELECT * FROM src").job
    try:
        time.sleep(2)  # the job has read the binlog's end position before the change
        execute(mariadb_db, "UPDATE k SET v = 20 WHERE id = 2", "INSERT INTO k VALUES (3, 3)")
        out = wait_for(lambda: (t := kafka_table(kafka_bootstrap, topic)) and len(t) == 2 and t)
    finally:
        job.cancel()
    assert out == {(2,): {"id": 2, "v": 20}, (3,): {"id": 3, "v": 3}}
