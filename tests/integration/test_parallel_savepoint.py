"""Rescale through a savepoint (issue 10): a parallel job at parallelism 2 stops WITH SAVEPOINT,
more records arrive, and the job restarts from the savepoint at parallelism 3. The GROUP BY's
upserts and the filter's exactly-once rows equal DuckDB's answer over every record: the keyed
state was split by key-group range and the source offsets by partition, nothing read twice."""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections import Counter

import orjson
import pytest
from confluent_kafka import KafkaException, Producer
from streamsql.connectors.kafka.transactions import DEFAULT_PREFIX

from streamsql.checkpoint.identity import JobIdentityError
from streamsql.environment import StreamEnvironment
from tests.integration.test_parallel import PARTITIONS, _appends, _duck, _load, _rows, _upserts

JOB = """EXECUTE STATEMENT SET BEGIN
INSERT INTO agg SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
INSERT INTO flt SELECT id, k, v FROM src WHERE MOD(v, 3) = 0;
END"""


def savepoint_settings(tmp_path, name: str, parallelism: int, savepoint: str | None, **more: str) -> dict:
    """A parallel job's settings: checkpoints every 500 ms under ``tmp_path``, restored from ``savepoint``."""
    settings = {"parallelism.default": str(parallelism), "pipeline.name": name,
                "execution.checkpointing.interval": "500 ms",
                "execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "state"),
                **more}
    if savepoint:
        settings["execution.savepoint.path"] = savepoint
    return settings


def _env(tmp_path, name: str, parallelism: int, bootstrap: str, topics: dict, bounded: bool,
         savepoint: str | None = None, state: str = "state") -> StreamEnvironment:
    env = StreamEnvironment(savepoint_settings(tmp_path, name, parallelism, savepoint,
                                               **{"state.dir": str(tmp_path / state)}))
    end = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
        'connector' = 'kafka', 'topic' = '{topics["src"]}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{end})""")
    env.execute_sql(f"""CREATE TABLE agg (k INT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{topics["agg"]}',
        'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")
    env.execute_sql(f"""CREATE TABLE flt (id INT, k INT, v INT) WITH (
        'connector' = 'kafka', 'topic' = '{topics["flt"]}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')""")
    return env


def _expect(rows: list[dict]) -> tuple[Counter, Counter]:
    agg = Counter(_duck("SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k", src=rows))
    flt = Counter(_duck("SELECT id, k, v FROM src WHERE v % 3 = 0", src=rows))
    return agg, flt


def _topics(topic_factory) -> dict[str, str]:
    return {"src": topic_factory("sp_src", PARTITIONS), "agg": topic_factory("sp_agg"),
            "flt": topic_factory("sp_flt")}


def _first_half(tmp_path, name: str, bootstrap: str, topics: dict, first: list[dict], parallelism: int = 2):
    """``first`` loaded, JOB running unbounded at ``parallelism`` until its upserts are first's:
    (env, job)."""
    _load(bootstrap, topics["src"], first)
    env = _env(tmp_path, name, parallelism, bootstrap, topics, bounded=False)
    job = env.execute_sql(JOB).job
    agg_first, _ = _expect(first)
    deadline = time.monotonic() + 120
    while _upserts(bootstrap, topics["agg"], ["k", "c", "s"]) != agg_first:  # the first half is in
        assert time.monotonic() < deadline and not job.done, "the job did not produce the first half"
        time.sleep(0.5)
    return env, job


def _restore_second_half(tmp_path, name: str, bootstrap: str, topics: dict, rows: list[dict],
                         second: list[dict], savepoint: str | None, parallelism: int, state: str,
                         times: int = 1) -> None:
    """``second`` loaded, JOB restored from ``savepoint`` at ``parallelism`` (on ``state``), bounded:
    its outputs are DuckDB's over ``rows`` (none lost, none twice; the filter's rows ``times`` over:
    a fresh run, ``savepoint`` None, after a finished one reads everything again)."""
    _load(bootstrap, topics["src"], second)
    env = _env(tmp_path, name, parallelism, bootstrap, topics, bounded=True, savepoint=savepoint, state=state)
    job = env.execute_sql(JOB).job
    assert job.wait(180) == "FINISHED", job.error
    agg, flt = _expect(rows)
    assert _upserts(bootstrap, topics["agg"], ["k", "c", "s"]) == agg
    written = _appends(bootstrap, topics["flt"], ["id", "k", "v"])
    assert written == Counter({r: c * times for r, c in flt.items()})


def test_rescale_from_two_to_three_tasks_through_a_savepoint(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topics = _topics(kafka_topic_factory)
    rows = _rows(21, 6000)
    first, second = rows[:3000], rows[3000:]
    name = f"sp-{uuid.uuid4().hex[:8]}"
    env, job = _first_half(tmp_path, name, kafka_bootstrap, topics, first)
    _check_task_rows(env, job, 3000 + sum(_expect(first)[1].values()))
    savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
    assert savepoint.startswith(str(tmp_path / "chk" / name / "savepoint-"))

    # restored on a 'state.dir' that does not exist yet, as on another machine (the rescale's
    # working folder inside it failed: "No such file or directory", found by query_fuzz --rescale)
    _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, second, savepoint, 3, "fresh")


def _check_task_rows(env, job, rows_out: int) -> None:
    """SHOW JOBS has a row per task after the job's: its worker, rows in/out, checkpoint, input lag.

    The job's row shows the lowest of its tasks' last checkpoints (each task checkpoints on its own).

    The statement set's one scan of ``src`` (stage 0) sends every row to the GROUP BY's exchange
    and the filtered ones to ``flt``: ``rows_out`` in all.
    """
    rows = env.execute_sql("SHOW JOBS").rows
    assert rows[0][0] == job.job_id
    tasks = {row[0]: row for row in rows[1:]}
    # the job's own row: the newest checkpoint every task completed (it showed "-")
    # (taken first: a task may complete another one before its own row is taken)
    assert rows[0][6].startswith("#")
    assert int(rows[0][6][1:].split(" ")[0]) <= min(int(row[6][1:].split(" ")[0]) for row in tasks.values())
    stages = {t["task"].split("-")[0] for t in job.tasks}
    assert set(tasks) == {f"{job.job_id}/{s}-{t}" for s in stages for t in range(2)}
    for row in tasks.values():
        assert row[2] == "RUNNING" and row[3].endswith(f"pid {os.getpid()}")
        assert "; input lag 0" in row[6] and row[6].startswith("#")  # everything fed was read
    source = [t for t in job.tasks if t["task"].startswith("0-")]
    assert sum(t["rows_in"] for t in source) == 3000 and sum(t["rows_out"] for t in source) == rows_out


@pytest.mark.parametrize("folder, marker, message", [
    ("elsewhere", None, "is not a savepoint \\(no _savepoint marker\\)"),
    # a single-process savepoint's marker (empty) in a folder that is no chk-<n>
    ("elsewhere", b"", "holds a single-process savepoint marker but is not a chk-<n> folder"),
])
def test_a_savepoint_path_that_is_not_a_parallel_savepoint_is_refused(kafka_bootstrap, kafka_topic_factory,
                                                                      tmp_path, folder, marker, message):
    topics = _topics(kafka_topic_factory)
    (tmp_path / folder).mkdir()
    if marker is not None:
        (tmp_path / folder / "_savepoint").write_bytes(marker)
    env = _env(tmp_path, f"sp-{uuid.uuid4().hex[:8]}", 2, kafka_bootstrap, topics, bounded=True,
               savepoint=str(tmp_path / folder))
    with pytest.raises(JobIdentityError, match=message):
        env.execute_sql(JOB).job.wait(60)


@pytest.mark.parametrize("key", ["execution.state-recovery.path", "execution.savepoint.path"])
def test_a_refused_savepoint_path_is_named_by_the_key_that_set_it(kafka_bootstrap, kafka_topic_factory,
                                                                   tmp_path, key):
    """Flink 2.3's key is 'execution.state-recovery.path' (the other, the older name, is read too):
    a refusal names the one the job set, not always the older one."""
    topics = _topics(kafka_topic_factory)
    (tmp_path / "elsewhere").mkdir()
    env = _env(tmp_path, f"sp-{uuid.uuid4().hex[:8]}", 2, kafka_bootstrap, topics, bounded=True)
    env.execute_sql(f"SET '{key}' = '{tmp_path / 'elsewhere'}'")
    with pytest.raises(JobIdentityError, match=f"^'{key}' = '.*' is not a savepoint"):
        env.execute_sql(JOB).job.wait(60)


def test_a_parallel_savepoint_restores_in_one_task(kafka_bootstrap, kafka_admin, kafka_topic_factory,
                                                   tmp_path):
    """2 -> 1: the savepoint's stages merged into one task's checkpoint (every key group, the
    sources' offsets together). Under the same job name, the stopped parallel run is reset first
    (its exchange topics deleted): it was refused as "an unfinished run with 4 tasks", and before
    that as "restoring it at 'parallelism.default' = '1' is not supported yet"."""
    topics = _topics(kafka_topic_factory)
    rows = _rows(22, 4000)
    first, second = rows[:2000], rows[2000:]
    name = f"sp-{uuid.uuid4().hex[:8]}"
    env, job = _first_half(tmp_path, name, kafka_bootstrap, topics, first)
    savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]

    _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, second, savepoint, 1, "one")
    left = [t for t in kafka_admin.list_topics(timeout=10).topics if t.startswith(f"_streamsql-{name}-")]
    assert left == [], "the stopped parallel run's exchange topics are left"


@pytest.mark.parametrize("before, after", [(1, 3), (3, 2)])
def test_a_restore_at_another_parallelism_replaces_the_stopped_run(kafka_bootstrap, kafka_topic_factory,
                                                                   tmp_path, before, after):
    """Stopped WITH SAVEPOINT at ``before``, restored at ``after`` and finished, then run again at
    ``before`` under the same name without a savepoint: that run starts afresh (as after any
    finished run) and reads everything again.

    1 -> 3 was refused ("restoring it at a parallelism > 1 is not supported yet"): now the one
    checkpoint's state is split by key group into each stage's tasks (each stage its own
    operators) and the source offsets cut by partition as Flink assigns them at 3. The run at 1
    afterwards resumed the superseded single-process run's savepoint, silently (its progress group
    still named it): the second half's filter rows were written once more, the first half's not.
    The savepoint is kept (a fresh start deleted it).

    3 -> 2: the restore's reset deleted the progress groups of the new run's 2 tasks only; the
    old task 2's kept its last committed id, and the run at 3 afterwards took it for its own
    task 2's: it failed, restarting on "checkpoint 4 is committed but its files are missing".
    """
    topics = _topics(kafka_topic_factory)
    rows = _rows(20 + before + after, 3000)
    first, second = rows[:1500], rows[1500:]
    name = f"sp-{uuid.uuid4().hex[:8]}"
    env, job = _first_half(tmp_path, name, kafka_bootstrap, topics, first, parallelism=before)
    savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
    if before == 1:
        assert savepoint.startswith(str(tmp_path / "chk" / name / "chk-"))

    _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, second, savepoint, after, "restored")
    _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, [], None, before, "again", times=2)
    assert os.path.exists(os.path.join(savepoint, "_savepoint")), "the savepoint was deleted"


@pytest.mark.parametrize("after", [2, 1])
def test_a_restore_at_a_lower_parallelism_aborts_the_old_tasks_open_transactions(
        kafka_bootstrap, kafka_topic_factory, tmp_path, after):
    """3 -> 2 (or 1) while an old task beyond it still has a transaction open on the filter's topic (its
    process hung, or was killed after a later checkpoint began; here a producer under the task's
    transactional id that wrote a row and never committed). Nobody of the new run fences that id,
    so the open transaction held back every read_committed reader of the partition for
    'transaction.timeout.ms' (15 min): the restored run's rows stayed invisible. Flink's KafkaSink
    aborts the lingering transactions of subtasks beyond the new parallelism on restore; the
    restore's reset now fences those ids (3 -> 1: the reset of the parallel run that the
    single-process restore replaces fences every old task's)."""
    topics = _topics(kafka_topic_factory)
    rows = _rows(25, 3000)
    first, second = rows[:1500], rows[1500:]
    name = f"sp-{uuid.uuid4().hex[:8]}"
    env, job = _first_half(tmp_path, name, kafka_bootstrap, topics, first, parallelism=3)
    savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
    zombie = Producer({"bootstrap.servers": kafka_bootstrap, "transaction.timeout.ms": 900_000,
                       "transactional.id": f"{DEFAULT_PREFIX}-{name}-0-2"})
    zombie.init_transactions(60)
    zombie.begin_transaction()
    zombie.produce(topics["flt"], orjson.dumps({"id": -1, "k": -1, "v": -3}))
    assert zombie.flush(30) == 0
    try:
        _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, second, savepoint, after, "low")
    finally:
        with contextlib.suppress(KafkaException):
            zombie.abort_transaction(30)  # fenced by the restore: nothing left to abort
