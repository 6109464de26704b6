"""Finding 9 of issue 12 (the smaller items) and Deliver 8: offsets committed back to the group,
a clear error for a non-UTF-8 init file, an honest INSERT ... VALUES error, no raw Python
exception names, no checkpoint folder left by a query, walkthrough scripts that honour
``STREAMSQL_KAFKA_BOOTSTRAP``, and ``streamsql --version``."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from streamsql import StreamEnvironment, __version__
from streamsql.core.errors import ExecutionError
from tests.cli_runner import run_streamsql

REPO = Path(__file__).resolve().parents[2]
FIVE = ("CREATE TABLE nums (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
        "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5')")


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def test_finding_9_offsets_committed_to_the_group_at_checkpoints(kafka_bootstrap, kafka_topic_factory,
                                                                 tmp_path):
    """Finding 9 / Deliver 8: with 'properties.group.id' the checkpoint's offsets are committed
    to the group (lag monitoring; 'group-offsets' after a restart without a checkpoint)."""
    from confluent_kafka import Consumer, Producer, TopicPartition

    topic = kafka_topic_factory("offsets", partitions=2)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i in range(30):
        p.produce(topic, b'{"id": %d}' % i, partition=i % 2)
    assert p.flush(30) == 0
    group = f"lag-{uuid.uuid4().hex[:8]}"
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                            "execution.checkpointing.interval": "100 ms"}) as env:
        env.execute_sql(f"CREATE TABLE src (id INT) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                        f"'properties.group.id' = '{group}', "
                        "'format' = 'json', 'scan.startup.mode' = 'earliest-offset', "
                        "'scan.bounded.mode' = 'latest-offset')")
        env.execute_sql("CREATE TABLE `out` (id INT) WITH ('connector' = 'blackhole')")
        assert env.execute_sql("INSERT INTO `out` SELECT id FROM src").job.wait(60) == "FINISHED"
    c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": group})
    try:
        committed = c.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=20)
    finally:
        c.close()
    assert sorted((tp.partition, tp.offset) for tp in committed) == [(0, 15), (1, 15)]


def test_finding_9_init_file_not_utf8_is_a_clear_error(tmp_path):
    """Finding 9: ``shell -i`` with a non-UTF-8 file printed a bare traceback."""
    init = tmp_path / "init.sql"
    init.write_bytes("SET 'pipeline.name' = 'caf\u00e9';".encode("latin-1"))
    proc = run_streamsql(["shell", "-i", str(init)], tmp_path, env=_env(), timeout=60)  # stdin: /dev/null
    text = proc.stdout + proc.stderr
    assert proc.returncode == 1
    assert f"{init} is not UTF-8 text (byte 26: invalid continuation byte); save it as UTF-8" in text, text
    assert "Traceback" not in text and "UnicodeDecodeError" not in text


def test_finding_9_insert_values_runs():
    """Finding 9: 'VALUES is supported only as INSERT INTO t VALUES (...)' was the error of
    INSERT INTO t VALUES (...); it now runs (a bounded job that finishes)."""
    with StreamEnvironment() as env:
        env.execute_sql("CREATE TABLE `out` (id INT) WITH ('connector' = 'blackhole')")
        assert env.execute_sql("INSERT INTO `out` VALUES (1)").wait(60) == "FINISHED"


@pytest.mark.parametrize("setting", ["execution.checkpointing.dir", "state.dir"])
def test_finding_9_no_python_exception_names_reach_users(setting, tmp_path):
    """Finding 9: 'FileNotFoundError', 'OSError: [Errno 30]' reached users."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "c"),
                            setting: str(blocker / "below")}) as env:
        env.execute_sql(FIVE)
        env.execute_sql("CREATE TABLE `out` (g INT, n BIGINT) WITH ('connector' = 'blackhole')")
        job = env.execute_sql("INSERT INTO `out` SELECT id % 2, COUNT(*) FROM nums GROUP BY id % 2").job
        with pytest.raises(ExecutionError) as e:
            job.wait(60)
    text = str(e.value)
    assert f"Not a directory: '{blocker}" in text, text
    for name in ("Error:", "Errno", "NotADirectoryError", "FileNotFoundError", "OSError"):
        assert name not in text, text


def test_finding_9_queries_leave_no_checkpoint_folder(tmp_path, monkeypatch):
    """Finding 9: every shell SELECT left a checkpoint folder behind (./.streamsql/...)."""
    monkeypatch.chdir(tmp_path)
    with StreamEnvironment() as env:
        env.execute_sql(FIVE)
        rows = list(env.execute_sql("SELECT id % 2 AS g, COUNT(*) AS n FROM nums GROUP BY id % 2").collect())
        assert len(rows) >= 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script", ["examples/flights/replay.py", "examples/embedded_app.py"])
def test_finding_9_walkthrough_scripts_honour_the_bootstrap_variable(script):
    """Finding 9: the walkthrough scripts ignored STREAMSQL_KAFKA_BOOTSTRAP."""
    env = {**_env(), "STREAMSQL_KAFKA_BOOTSTRAP": "kafka.example:19092", "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, str(REPO / script), "--help"], capture_output=True, text=True,
                          env=env, timeout=60, check=True)
    assert "now kafka.example:19092" in proc.stdout


def test_finding_9_version():
    """Finding 9: ``streamsql --version``."""
    proc = subprocess.run([sys.executable, "-m", "streamsql", "--version"], capture_output=True, text=True,
                          env=_env(), timeout=60, check=True)
    assert proc.stdout.strip() == f"streamsql {__version__}"


def test_shell_f_runs_a_script_as_flinks_sql_client(tmp_path):
    """``streamsql shell -f FILE`` runs the script and exits, as Flink's ``sql-client.sh -f`` (newcomer)."""
    script = tmp_path / "s.sql"
    script.write_text("CREATE TABLE g (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3', "
                      "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');\n"
                      "CREATE TABLE p (id INT) WITH ('connector' = 'print');\n"
                      "INSERT INTO p SELECT id * 10 FROM g;\n")
    proc = run_streamsql(["shell", "-f", str(script)], tmp_path, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sorted(line for line in proc.stdout.splitlines() if line.startswith("+I")) == [
        "+I[10]", "+I[20]", "+I[30]"]
