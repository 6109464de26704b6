"""A parallel job resumes only its own unfinished run (breaker, attack 1).

A single-process job restores a checkpoint only when its ``_job`` has the job's fingerprint
(docs/checkpointing.md, Job identity); a parallel job's tasks restored their folders unchecked.
So a changed query under the same ``'pipeline.name'`` and parallelism (here SUM(v) instead of
COUNT(*), the same plan shape) resumed the other query's GROUP BY state and source offsets:
its sums started from the old counts and the records read before were never summed — a silent
wrong answer.
"""

from __future__ import annotations

import time
import uuid

import pytest

from streamsql.checkpoint.identity import JobIdentityError
from streamsql.core.errors import ConfigError
from streamsql.environment import StreamEnvironment
from tests.integration.test_parallel import PARTITIONS, _duck, _load, _rows, _upserts


def _env(tmp_path, name: str, bootstrap: str, src: str, out: str, bounded: bool,
         parallelism: int = 2) -> StreamEnvironment:
    env = StreamEnvironment({"parallelism.default": str(parallelism), "pipeline.name": name,
                             "execution.checkpointing.interval": "300 ms",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "state")})
    end = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
        'connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{end})""")
    env.execute_sql(f"""CREATE TABLE out_t (k INT, x BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")
    return env


COUNTS = "INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k"


def _unfinished(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism: int) -> tuple:
    """A GROUP BY at ``parallelism`` that counted its input, then cancelled: (name, src, out, rows)."""
    src, out = kafka_topic_factory("pid_src", PARTITIONS), kafka_topic_factory("pid_out")
    rows = _rows(31, 2000)
    _load(kafka_bootstrap, src, rows)
    name = f"pid-{uuid.uuid4().hex[:8]}"
    env = _env(tmp_path, name, kafka_bootstrap, src, out, bounded=False, parallelism=parallelism)
    job = env.execute_sql(COUNTS).job
    expected = _duck("SELECT k, COUNT(*) FROM src GROUP BY k", src=rows)
    deadline = time.monotonic() + 120
    while _upserts(kafka_bootstrap, out, ["k", "x"]) != dict.fromkeys(expected, 1):
        assert time.monotonic() < deadline and not job.done, "the first job did not count every row"
        time.sleep(0.3)
    job.cancel()  # unfinished: its committed checkpoints stay
    job.wait(60)
    env.close()
    return name, src, out, rows


def test_a_changed_query_does_not_resume_another_querys_unfinished_parallel_run(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    name, src, out, _ = _unfinished(kafka_bootstrap, kafka_topic_factory, tmp_path, 2)

    sums = "INSERT INTO out_t SELECT k, SUM(v) FROM src GROUP BY k"
    env = _env(tmp_path, name, kafka_bootstrap, src, out, bounded=True)
    with env, pytest.raises(JobIdentityError) as err:
        env.execute_sql(sums).job.wait(120)
    text = str(err.value)
    assert f"Job '{name}'" in text and "was written by job" in text
    assert "COUNT(*)" in text  # names the query that wrote the run it refuses to resume
    assert "another 'pipeline.name'" in text
    # the run it refused is left intact: the first query resumes it
    env = _env(tmp_path, name, kafka_bootstrap, src, out, bounded=True)
    with env:
        assert env.execute_sql(COUNTS).job.wait(120) == "FINISHED"


@pytest.mark.parametrize("before, after, tasks", [(2, 1, "4 tasks"), (1, 2, "1 task")])
def test_an_unfinished_run_is_not_started_again_in_one_process_or_in_several(
        kafka_bootstrap, kafka_topic_factory, tmp_path, before, after, tasks):
    """An unfinished parallel run refused another parallelism, but not 1: a run in one process
    (its own transactional id, no task folders) found nothing to resume and read the sources
    from the start again, so an exactly-once append sink got every row twice; the same the
    other way round."""
    name, src, out, _ = _unfinished(kafka_bootstrap, kafka_topic_factory, tmp_path, before)
    env = _env(tmp_path, name, kafka_bootstrap, src, out, bounded=True, parallelism=after)
    with env, pytest.raises(ConfigError, match=f"unfinished run with {tasks} in .* this run plans"):
        env.execute_sql(COUNTS).job.wait(120)
    env = _env(tmp_path, name, kafka_bootstrap, src, out, bounded=True, parallelism=before)
    with env:  # at its own parallelism it resumes, and finishes
        assert env.execute_sql(COUNTS).job.wait(120) == "FINISHED"
    env = _env(tmp_path, name, kafka_bootstrap, src, out, bounded=True, parallelism=after)
    with env:  # a finished run leaves nothing to resume: any parallelism starts afresh
        assert env.execute_sql(COUNTS).job.wait(120) == "FINISHED"
