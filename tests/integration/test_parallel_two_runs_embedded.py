"""Two runs of one parallel job from the embedding API, from two checkpoint folders.

The driver's guard (another driver's workers in the job's group) is ``streamsql run``'s: a
parallel job of the embedding API or the shell runs its tasks in threads of its own process and
joins no group. Its second run from another ``'execution.checkpointing.dir'`` opened its tasks'
transactional producers, fencing the running run's tasks, before its first checkpoint as after
it. Now each task marks its id first (:mod:`streamsql.connectors.kafka.liveness`): the second run
fails naming the first, which counts on to DuckDB's answer (committed by its stop's final
checkpoint).
"""

from __future__ import annotations

import time
import uuid

import pytest
from streamsql.connectors.kafka.liveness import runs_elsewhere, this_run

from streamsql.core.errors import JobRunningError
from tests.integration.test_parallel import PARTITIONS, _duck, _load, _rows, _upserts
from tests.integration.test_parallel_identity import COUNTS, _env


def test_a_second_embedded_parallel_run_from_another_folder_is_refused(kafka_bootstrap, kafka_topic_factory,
                                                                       tmp_path):
    src, out = kafka_topic_factory("r29e_src", PARTITIONS), kafka_topic_factory("r29e_out")
    rows = _rows(29, 2000)
    _load(kafka_bootstrap, src, rows)
    name = f"r29e-{uuid.uuid4().hex[:8]}"
    first = _env(tmp_path / "a", name, kafka_bootstrap, src, out, bounded=False)
    first.execute_sql("SET 'execution.checkpointing.interval' = '20 s'")  # the second starts before it
    job = first.execute_sql(COUNTS).job
    tids = [f"streamsql-{name}-{stage}-{task}" for stage in (0, 1) for task in (0, 1)]
    props = {"bootstrap.servers": kafka_bootstrap}
    started = time.monotonic()  # its tasks opened their transactions (marked), or surely have (10 s in)
    while (time.monotonic() - started < 10
           and not all(runs_elsewhere(props, tids, this_run("/nowhere"), "test", wait_s=0).values())):
        assert not job.done, job.error
        time.sleep(0.2)
    second = _env(tmp_path / "b", name, kafka_bootstrap, src, out, bounded=False)
    try:
        with pytest.raises(JobRunningError, match=f"Job '{name}-[01]' is running from checkpoint folder "
                           f"'{tmp_path / 'a' / 'chk' / name}'"):
            second.execute_sql(COUNTS).job.wait(60)
    finally:
        second.close()
    assert job.status == "RUNNING", job.error
    # the first run counts every row: once its sources read them all, it stops with a final
    # checkpoint, whose commit (of every task's transaction) fails if the second run fenced it (not
    # waited for at its 20 s interval: its two stages' output is committed by their second checkpoint)
    deadline = time.monotonic() + 120
    while sum(t["rows_in"] for t in job.tasks if t["input"] == "sources") < len(rows):
        assert time.monotonic() < deadline and not job.done, job.error
        time.sleep(0.2)
    job.stop()
    assert (job.status, job.metrics["restarts"]) == ("FINISHED", 0), job.error
    expected = _duck("SELECT k, COUNT(*) FROM src GROUP BY k", src=rows)
    assert _upserts(kafka_bootstrap, out, ["k", "x"]) == dict.fromkeys(expected, 1)
    first.close()
