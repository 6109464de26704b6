"""``streamsql run`` of a parallel job starts worker processes that share its tasks through Kafka's
group protocol; a worker killed with SIGKILL mid-job is restarted and the output has 0 lost and
0 duplicated records (GROUP BY into upsert-kafka, a filter into an exactly-once kafka sink). Two
workers with separate working folders and S3 checkpoint storage: one killed for good, the other
finishes the job."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter

import orjson
from confluent_kafka import Producer

from streamsql.checkpoint.storage import CheckpointStorage
from tests.integration.driver_fixtures import children
from tests.integration.test_flights import fold_upserts, read_committed

PARTITIONS = 8


def _script(tmp_path, bootstrap, src, agg, flt, parallelism, name) -> str:
    path = tmp_path / "job.sql"
    path.write_text(f"""
SET 'pipeline.name' = '{name}';
SET 'parallelism.default' = '{parallelism}';
SET 'execution.checkpointing.interval' = '300 ms';
CREATE TABLE src (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{src}',
    'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE agg (k INT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
    'connector' = 'upsert-kafka', 'topic' = '{agg}', 'properties.bootstrap.servers' = '{bootstrap}',
    'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE flt (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{flt}',
    'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'sink.delivery-guarantee' = 'exactly-once');
EXECUTE STATEMENT SET BEGIN
INSERT INTO agg SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
INSERT INTO flt SELECT k, v FROM src WHERE v % 3 = 0;
END;
""")
    return str(path)


def _topics(bootstrap: str, topic_factory, records: int) -> tuple[str, str, str]:
    """The input (fed ``records`` rows over 8 partitions) and the two output topics."""
    src = topic_factory("pw_src", PARTITIONS)
    agg, flt = topic_factory("pw_agg"), topic_factory("pw_flt", 2)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "enable.idempotence": True})
    for i in range(records):
        p.produce(src, orjson.dumps({"k": i % 101, "v": i}), partition=i % PARTITIONS)
    p.flush(60)
    return src, agg, flt


def _check_output(bootstrap: str, agg: str, flt: str, records: int) -> None:
    """Each output equals DuckDB's answer: 0 lost, 0 duplicated."""
    got = {key[0]: (v["n"], v["s"]) for key, v in fold_upserts(read_committed(bootstrap, agg)).items()}
    assert got == {k: (len(range(k, records, 101)), sum(range(k, records, 101))) for k in range(101)}
    rows = Counter((r["k"], r["v"]) for r in (orjson.loads(v) for _, v in read_committed(bootstrap, flt)))
    expected = Counter((i % 101, i) for i in range(records) if i % 3 == 0)
    assert rows - expected == Counter(), "duplicated rows"
    assert expected - rows == Counter(), "lost rows"


def test_workers_run_the_job_exactly_once(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """A worker killed mid-job is restarted by ``streamsql run``; the output is exactly once.

    (A run without a kill checks nothing more: tests/integration/test_java_client_keys.py runs
    ``streamsql run`` at parallelism 2 without one.)
    """
    records = 60_000
    src, agg, flt = _topics(kafka_bootstrap, kafka_topic_factory, records)
    script = _script(tmp_path, kafka_bootstrap, src, agg, flt, 2, f"pw-{uuid.uuid4().hex[:8]}")
    env = {**os.environ, "STREAMSQL_LOG": "WARNING"}
    driver = subprocess.Popen([sys.executable, "-m", "streamsql", "run", script], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(children(driver.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    # Mid-job: as soon as a task has written a checkpoint (at most 4 s: on a quiet machine the
    # whole job can finish sooner than a fixed sleep, and then nothing is left to kill).
    until = time.monotonic() + 4
    while not any(tmp_path.rglob("chk-*")) and time.monotonic() < until and driver.poll() is None:
        time.sleep(0.1)
    workers = children(driver.pid)
    killed = bool(workers) and driver.poll() is None
    if killed:
        os.kill(workers[0], signal.SIGKILL)
    out, err = driver.communicate(timeout=600)
    assert driver.returncode == 0, err[-3000:]
    assert killed
    assert "killed by signal 9" in err
    assert "; 4 tasks on 2 worker processes:" in err, err  # 2 stages: the one scan with flt, the agg
    _check_output(kafka_bootstrap, agg, flt, records)


class _StderrLines:
    """A worker's stderr read on a thread: its lines; ``assigned`` is set at its first task."""

    def __init__(self, proc: subprocess.Popen, assigned: threading.Event):
        self.lines: list[str] = []
        self.runs_a_task = False
        self.assigned = assigned
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stderr:
            self.lines.append(line.rstrip("\n"))
            if line.rstrip().endswith(" assigned"):
                self.runs_a_task = True
                self.assigned.set()

    def text(self) -> str:
        """Everything read, once the stream ended."""
        self._thread.join(30)
        return "\n".join(self.lines)


def test_a_worker_killed_for_good_leaves_its_tasks_to_the_other(kafka_bootstrap, kafka_topic_factory,
                                                                 kafka_admin, s3_settings, tmp_path):
    """Two workers in their own folders, checkpoints on S3: the survivor finishes the job alone."""
    records = 60_000
    src, agg, flt = _topics(kafka_bootstrap, kafka_topic_factory, records)
    name = f"pw-{uuid.uuid4().hex[:8]}"
    script = _script(tmp_path, kafka_bootstrap, src, agg, flt, 2, name)
    shared = [arg for key, value in s3_settings.items() for arg in ("--set", f"{key}={value}")]
    job_files = CheckpointStorage(s3_settings["execution.checkpointing.dir"], name, s3_settings)
    procs = {}
    for w in ("a", "b"):
        (tmp_path / w).mkdir()
        cmd = [sys.executable, "-m", "streamsql", "worker", script, *shared, "--worker-id", f"{name}-{w}"]
        procs[w] = subprocess.Popen(cmd, cwd=tmp_path / w, env={**os.environ, "STREAMSQL_LOG": "INFO"},
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assigned = threading.Event()
    logs = {w: _StderrLines(p, assigned) for w, p in procs.items()}
    try:
        # Kill the first worker to run a task as soon as it does (not after a fixed sleep: on a
        # quiet machine the whole job can finish first); its tasks move to the other one after
        # the session timeout.
        assert assigned.wait(120), "no worker was assigned a task"
        victim = next(w for w in procs if logs[w].runs_a_task)
        survivor = "b" if victim == "a" else "a"
        assert procs["a"].poll() is None and procs["b"].poll() is None
        procs[victim].send_signal(signal.SIGKILL)
        procs[survivor].wait(timeout=600)
        err = logs[survivor].text()
        assert procs[survivor].returncode == 0, err[-3000:]
        tasks = job_files.read_file("_tasks").decode().split()
        ran = {line.split(" task ")[1].split()[0] for line in err.splitlines() if line.endswith(" assigned")}
        assert ran == set(tasks)  # the survivor ran every task, its own and the killed worker's
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
    _check_output(kafka_bootstrap, agg, flt, records)
    assert job_files.read_file("_finished") is not None
    internal = [t for t in kafka_admin.list_topics(timeout=10).topics if t.startswith(f"_streamsql-{name}-")]
    for f in kafka_admin.delete_topics(internal, operation_timeout=30).values():
        f.result(timeout=60)
