"""'execution.checkpointing.storage' = 'jobmanager': checkpoints in the process's memory. A
restart inside the process restores them exactly-once; a new process cannot, and says so."""

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

from streamsql.core.faults import reset_counts
from streamsql.environment import StreamEnvironment
from tests.integration.test_flights import fold_upserts, read_committed
from tests.integration.test_restart import _job, _load


def test_restart_inside_the_process_restores_from_memory(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STREAMSQL_FAULT_RAISE", "after_commit_before_bookkeeping:2")
    reset_counts()
    src, out = kafka_topic_factory("jm_in", partitions=3), kafka_topic_factory("jm_out")
    _load(kafka_bootstrap, src, 3000)
    env = StreamEnvironment({"restart-strategy.type": "fixed-delay",
                             "restart-strategy.fixed-delay.delay": "100 ms",
                             "execution.checkpointing.storage": "jobmanager",
                             "execution.checkpointing.interval": "50 ms",
                             "execution.batch-size": "100",
                             "pipeline.name": f"jm-{uuid.uuid4().hex[:6]}"})
    job = _job(env, kafka_bootstrap, src, out)
    assert job.wait(120) == "FINISHED"
    assert job.metrics["restarts"] == 1 and job.runner.restored_from is not None
    folder = tmp_path / ".streamsql" / "checkpoints" / job.name
    assert not any(n.startswith("chk-") for n in os.listdir(folder))  # snapshots were in memory
    expected = {(k,): {"k": k, "n": 300, "s": sum(range(k, 3000, 10))} for k in range(10)}
    assert fold_upserts(read_committed(kafka_bootstrap, out)) == expected


def test_a_new_process_refuses_to_resume_a_memory_checkpoint(tmp_path):
    script = tmp_path / "job.sql"
    script.write_text(textwrap.dedent("""
        SET 'pipeline.name' = 'jm-job';
        SET 'execution.checkpointing.storage' = 'jobmanager';
        SET 'execution.checkpointing.interval' = '100 ms';
        SET 'restart-strategy.type' = 'none';  -- else exponential-delay (the interval) retries the refusal
        CREATE TABLE ticks (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
        CREATE TABLE out_t (g INT, n BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO out_t SELECT id % 10, COUNT(*) FROM ticks GROUP BY id % 10;
    """))
    cmd = [sys.executable, "-m", "streamsql", "run", str(script)]
    first = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    committed = tmp_path / ".streamsql" / "checkpoints" / "jm-job" / "_committed"
    deadline = time.monotonic() + 60
    while not committed.exists():
        assert time.monotonic() < deadline and first.poll() is None
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    second = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert second.returncode != 0
    assert "'execution.checkpointing.storage' = 'jobmanager'" in second.stderr
    assert "cannot resume exactly-once" in second.stderr
