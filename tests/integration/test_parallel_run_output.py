"""What ``streamsql run`` of a parallel job (2 worker processes) prints, line by line.

A failure was printed twice, under two job ids (the driver's and the failing worker's, each
worker running the script under ids of its own), with an ``[INFO] Interrupted`` line from the
worker the driver then stopped, and the driver's line said only "its error is above". Now it is
printed once, under the job id ``streamsql run`` printed, naming the failing task and worker
with the cause. A finished job's summary printed each worker's counts unlabelled
(``0 rows in, 14 rows out``); it now says the job's rows in and out, as a single-process run,
then each task's, labelled by what it reads and writes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid

import orjson
import pytest
from confluent_kafka import Consumer, Producer
from streamsql.connectors.kafka.assignment import flink_start, owner

PARTITIONS = 4
RECORDS = 1000


def _run(tmp_path, script: str) -> subprocess.CompletedProcess:
    path = tmp_path / "job.sql"
    path.write_text(script)
    return subprocess.run([sys.executable, "-m", "streamsql", "run", str(path)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def _script(bootstrap: str, src: str, sink: str, name: str, value: str) -> str:
    return f"""
SET 'pipeline.name' = '{name}';
SET 'parallelism.default' = '2';
SET 'restart-strategy.type' = 'none';
SET 'execution.checkpointing.interval' = '300 ms';
CREATE TABLE src (k INT, v INT, s STRING) WITH ('connector' = 'kafka', 'topic' = '{src}',
    'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE agg (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
    'connector' = 'upsert-kafka', 'topic' = '{sink}', 'properties.bootstrap.servers' = '{bootstrap}',
    'key.format' = 'json', 'value.format' = 'json');
INSERT INTO agg SELECT k, {value} FROM src GROUP BY k;
"""


@pytest.fixture
def source(kafka_bootstrap, kafka_topic_factory) -> str:
    """1000 records over 4 partitions (250 each); record 500 (partition 0, offset 125) has s = 'x'."""
    src = kafka_topic_factory("pro_src", PARTITIONS)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 20, "enable.idempotence": True})
    for i in range(RECORDS):
        s = "x" if i == 500 else str(i)
        p.produce(src, orjson.dumps({"k": i % 101, "v": i, "s": s}), partition=i % PARTITIONS)
    p.flush(60)
    return src


def _job_id(stdout: str) -> str:
    """The one job id the run printed."""
    ids = re.findall(r"^Job ID: (\w+)$", stdout, re.M)
    assert len(ids) == 1, stdout
    return ids[0]


def test_a_missing_sink_topic_fails_once_under_the_jobs_id(kafka_bootstrap, source, tmp_path):
    """The upsert sink's topic does not exist: the stage-1 task that opens it first fails the job."""
    name, missing = f"pro-{uuid.uuid4().hex[:8]}", f"missing-{uuid.uuid4().hex[:10]}"
    run = _run(tmp_path, _script(kafka_bootstrap, source, missing, name, "COUNT(*)"))
    assert run.returncode == 1, run.stderr
    job = _job_id(run.stdout)
    worker = r"\S+-w[01]"
    assert re.fullmatch(
        rf"\[ERROR\] Job '{name}' \(id {job}\) FAILED: task 1-[01] \(on worker {worker}\): Table 'agg': "
        rf"topic '{missing}' does not exist on {re.escape(kafka_bootstrap)}; create it first, or set "
        r"'sink.topic.auto-create' = 'true' \(with 'sink.topic.auto-create.partitions'\)\n",
        run.stderr), run.stderr


def test_a_failing_cast_fails_once_naming_the_task_and_the_record(kafka_bootstrap, kafka_topic_factory,
                                                                  source, tmp_path):
    """CAST('x' AS INT) fails in stage 0 on the task that reads partition 0: which one that is
    depends on the topic's name (Flink's getSplitOwner), so the test asks the same rule."""
    name = f"pro-{uuid.uuid4().hex[:8]}"
    run = _run(tmp_path, _script(kafka_bootstrap, source, kafka_topic_factory("pro_out"), name,
                                 "SUM(CAST(s AS INT))"))
    assert run.returncode == 1, run.stderr
    job = _job_id(run.stdout)
    task = owner(flink_start(source), 0, 2)
    assert re.fullmatch(
        rf"\[ERROR\] Job '{name}' \(id {job}\) FAILED: task 0-{task} \(on worker \S+-w[01]\): "
        r"CAST\('x' AS INT\) failed: the value is not a valid INT \(Flink fails the job too\); "
        r"use TRY_CAST to get NULL instead "
        rf"\(record {source}\[0\]@125\)\n", run.stderr), run.stderr


def test_a_finished_job_says_its_rows_and_each_tasks(kafka_bootstrap, kafka_topic_factory, source, tmp_path):
    """The job's line counts what the source stage read and what reached the table; each task's
    line says where its rows came from and went to, and the numbers add up."""
    name = f"pro-{uuid.uuid4().hex[:8]}"
    run = _run(tmp_path, _script(kafka_bootstrap, source, kafka_topic_factory("pro_out"), name, "COUNT(*)"))
    assert run.returncode == 0, run.stderr
    _job_id(run.stdout)
    lines = run.stderr.splitlines()
    assert len(lines) == 5, run.stderr
    head = re.fullmatch(rf"\[INFO\] Job '{name}' FINISHED: 1000 rows in, (\d+) rows out; 4 tasks on 2 worker "
                        r"processes:", lines[0])
    assert head, run.stderr
    worker = r"\S+-w[01]"
    for t, line in zip((0, 1), lines[1:3]):  # each task reads every other partition: 500 rows
        assert re.fullmatch(rf"\[INFO\]   task 0-{t} \(worker {worker}\): 500 rows in from the sources, "
                            r"500 rows out to the exchange", line), run.stderr
    stage1 = [re.fullmatch(rf"\[INFO\]   task 1-{t} \(worker {worker}\): (\d+) rows in from the exchange, "
                           r"(\d+) rows out to tables", line) for t, line in zip((0, 1), lines[3:5])]
    assert all(stage1), run.stderr
    assert sum(int(m.group(1)) for m in stage1) == RECORDS
    assert sum(int(m.group(2)) for m in stage1) == int(head.group(1))
    assert int(head.group(1)) >= 101  # a row per key at least (upserts)


@pytest.mark.parametrize("parallelism", [1, 2])
def test_a_restore_from_a_savepoint_says_so_as_a_single_process_run_does(kafka_bootstrap, kafka_topic_factory,
                                                                          source, tmp_path, parallelism):
    """Stopped WITH SAVEPOINT (in this process), then run with ``'execution.savepoint.path'``: the
    summary says ``resumed from checkpoint #n`` of the savepoint, at parallelism 1 and with worker
    processes alike (these said nothing: only their log at INFO told the savepoint was applied)."""
    from streamsql.environment import StreamEnvironment

    name, sink = f"pro-{uuid.uuid4().hex[:8]}", kafka_topic_factory("pro_out")
    chk = tmp_path / "chk"
    script = _script(kafka_bootstrap, source, sink, name, "COUNT(*)").replace(
        "SET 'parallelism.default' = '2';", f"SET 'parallelism.default' = '{parallelism}';\n"
                                            f"SET 'execution.checkpointing.dir' = '{chk}';")
    env = StreamEnvironment({"sql-client.execution.result-mode": "tableau"})
    try:
        for statement in script.replace(", 'scan.bounded.mode' = 'latest-offset'", "").split(";\n")[:-1]:
            result = env.execute_sql(statement)
        job = result.job
        deadline = time.monotonic() + 120
        while job.metrics["rows_in"] < RECORDS:  # the job read everything, then stops
            assert time.monotonic() < deadline and not job.done, job.error
            time.sleep(0.3)
        savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
    finally:
        env.close()
    n = int(re.fullmatch(r".*/(?:chk|savepoint)-(\d+)", savepoint).group(1))
    run = _run(tmp_path, f"SET 'execution.savepoint.path' = '{savepoint}';\n" + script)
    assert run.returncode == 0, run.stderr
    head = run.stderr.splitlines()[0]
    said = rf"\[INFO\] Job '{name}' FINISHED: 0 rows in, 0 rows out, resumed from checkpoint #{n}"
    tail = r"(, last checkpoint #\d+ .*|; 4 tasks on 2 worker processes:)"
    assert re.fullmatch(said + tail, head), run.stderr


def test_a_run_resuming_its_own_checkpoint_after_a_crash_says_so(kafka_bootstrap, kafka_topic_factory, source,
                                                                   tmp_path):
    """The unbounded job (2 worker processes) is killed (SIGKILL to the driver and its workers) once
    a checkpoint committed output; the same script run again, bounded, resumes the tasks'
    checkpoints: its summary says ``resumed from checkpoint #n``, as a single-process run's (it
    said nothing: the tasks resumed in the workers, which did not report it)."""
    name, sink = f"pro-{uuid.uuid4().hex[:8]}", kafka_topic_factory("pro_out")
    script = _script(kafka_bootstrap, source, sink, name, "COUNT(*)")
    path = tmp_path / "unbounded.sql"
    path.write_text(script.replace(", 'scan.bounded.mode' = 'latest-offset'", ""))
    with open(tmp_path / "first.log", "w") as log:
        first = subprocess.Popen([sys.executable, "-m", "streamsql", "run", str(path)], cwd=tmp_path,
                                 stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    consumer = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": f"g-{uuid.uuid4().hex[:8]}",
                         "auto.offset.reset": "earliest", "isolation.level": "read_committed"})
    try:
        consumer.subscribe([sink])
        deadline = time.monotonic() + 120
        while True:  # committed output: a checkpoint completed
            assert time.monotonic() < deadline and first.poll() is None, (tmp_path / "first.log").read_text()
            msg = consumer.poll(0.5)
            if msg is not None and not msg.error():
                break
    finally:
        consumer.close()
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(30)
    run = _run(tmp_path, script)
    assert run.returncode == 0, run.stderr
    head = run.stderr.splitlines()[0]
    said = re.fullmatch(rf"\[INFO\] Job '{name}' FINISHED: \d+ rows in, \d+ rows out, resumed from "
                        r"checkpoint #(\d+); 4 tasks on 2 worker processes:", head)
    assert said and int(said.group(1)) >= 1, run.stderr


def test_a_cancelled_run_does_not_claim_zero_rows(kafka_bootstrap, kafka_topic_factory, source, tmp_path):
    """Ctrl-C of an unbounded parallel run once a checkpoint committed output: the workers report a
    task's counts only when it finishes, so the summary said ``CANCELED: 0 rows in, 0 rows out``
    of a job that had read every record and written its result (a newcomer's walkthrough); it
    now says the counts are not known here."""
    name, sink = f"pro-{uuid.uuid4().hex[:8]}", kafka_topic_factory("pro_out")
    script = _script(kafka_bootstrap, source, sink, name, "COUNT(*)")
    path = tmp_path / "unbounded.sql"
    path.write_text(script.replace(", 'scan.bounded.mode' = 'latest-offset'", ""))
    run = subprocess.Popen([sys.executable, "-m", "streamsql", "run", str(path)], cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    consumer = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": f"g-{uuid.uuid4().hex[:8]}",
                         "auto.offset.reset": "earliest", "isolation.level": "read_committed"})
    try:
        consumer.subscribe([sink])
        deadline = time.monotonic() + 120
        while True:  # committed output: the tasks read and wrote rows
            assert time.monotonic() < deadline and run.poll() is None, run.stderr
            msg = consumer.poll(0.5)
            if msg is not None and not msg.error():
                break
    finally:
        consumer.close()
        os.killpg(run.pid, signal.SIGINT)  # Ctrl-C reaches the terminal's whole process group
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    summary = [line for line in err.splitlines() if line.startswith(f"[INFO] Job '{name}' CANCELED")]
    assert len(summary) == 1, err
    assert "0 rows in" not in summary[0] and "rows in and out not known here" in summary[0], err
