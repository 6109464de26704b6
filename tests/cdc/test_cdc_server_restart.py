"""The MariaDB server going away mid-job: the restart strategy retries and nothing is lost.

A private MariaDB (scripts/mariadb-local.sh on its own port and folder) is stopped while the job
reads its binlog, changed after it is started again, and the job's output must equal the table.
"""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from pathlib import Path

import pytest

from streamsql.core.errors import ExecutionError
from streamsql.environment import StreamEnvironment
from tests.cdc.helpers import cdc_options, execute, kafka_table, upsert_kafka_options, wait_for
from tests.db_fixtures import DbServer

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "mariadb-local.sh"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def private_mariadb(tmp_path):
    env = dict(os.environ, MARIADB_PORT=str(_free_port()), MARIADB_HOME_DIR=str(tmp_path / "mariadb"))

    def run(cmd):
        subprocess.run(["bash", str(SCRIPT), cmd], env=env, check=True, capture_output=True, timeout=120)

    run("start")
    server = DbServer("127.0.0.1", int(env["MARIADB_PORT"]))
    with server.mysql() as c, c.cursor() as cur:
        cur.execute("CREATE DATABASE shop")
    yield DbServer(server.host, server.port, "shop"), run
    run("stop")


def test_a_server_restart_is_retried_by_the_restart_strategy_and_loses_nothing(
        private_mariadb, kafka_bootstrap, kafka_topic_factory, tmp_path):
    db, run = private_mariadb
    execute(db, "CREATE TABLE k (id INT PRIMARY KEY, v INT)", "INSERT INTO k VALUES (1, 1), (2, 2)")
    topic = kafka_topic_factory("cdc_restart")
    env = StreamEnvironment({"execution.checkpointing.interval": "200 ms",
                             "restart-strategy.type": "fixed-delay",
                             "restart-strategy.fixed-delay.attempts": "60",
                             "restart-strategy.fixed-delay.delay": "500 ms",
                             "pipeline.name": f"cdc-restart-{uuid.uuid4().hex[:6]}",
                             "execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql(f"CREATE TABLE src (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) "
                    f"WITH ({cdc_options(db, 'k', **{'connect.timeout': '2s'})})")
    env.execute_sql(f"CREATE TABLE out_t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) "
                    f"WITH ({upsert_kafka_options(kafka_bootstrap, topic)})")
    job = env.execute_sql("INSERT INTO out_t SELECT * FROM src").job
    try:
        wait_for(lambda: len(kafka_table(kafka_bootstrap, topic)) == 2, 60, "the snapshot")
        execute(db, "UPDATE k SET v = 10 WHERE id = 1")
        run("stop")
        run("start")
        execute(db, "INSERT INTO k VALUES (3, 3)", "DELETE FROM k WHERE id = 2")
        out = wait_for(lambda: (t := kafka_table(kafka_bootstrap, topic)) and set(t) == {(1,), (3,)} and t,
                       90, "the changes after the restart")
    finally:
        job.cancel()
    assert out == {(1,): {"id": 1, "v": 10}, (3,): {"id": 3, "v": 3}}
    assert job.metrics["restarts"] >= 1


def test_without_a_restart_strategy_an_unreachable_server_fails_the_job(tmp_path):
    db = DbServer("127.0.0.1", _free_port(), "shop")  # nothing listens there
    env = StreamEnvironment({"pipeline.name": f"cdc-gone-{uuid.uuid4().hex[:6]}",
                             "execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql(f"CREATE TABLE src (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ({cdc_options(db, 'k')})")
    env.execute_sql("CREATE TABLE out_t (id INT) WITH ('connector' = 'blackhole')")
    job = env.execute_sql("INSERT INTO out_t SELECT * FROM src").job
    with pytest.raises(ExecutionError, match="cannot be reached .*check the options 'hostname' and 'port'"):
        job.wait(60)
