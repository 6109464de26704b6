"""A parallel run started with Flink's key-group ranges resumes with them after the upgrade.

Today a new parallel run spreads key groups over its tasks bit-reversed
(:func:`streamsql.state.layout.task_of_key_groups`); a StreamSQL before it used the ranges
``kg * P // 128`` and recorded nothing. An unfinished run of that version (cancelled here, with
its committed state per task and records in its exchange topic routed by the ranges) must be
resumed with the ranges: its state and its in-flight records say where each key lives. The
second test shows what the record decides: the same run told it had the new assignment routes
half of the 16 keys to a task without their counts, and the answer is wrong. That is the hole that
checkpoints recording their assignment close: a run whose checkpoints record it (today's) resumes
with it whatever ``_key_groups`` says (the third test).
"""

from __future__ import annotations

import time
import uuid
from collections import Counter

import pytest

from streamsql.environment import StreamEnvironment
from streamsql.runtime import parallel
from streamsql.state.layout import KG_ASSIGNMENT_BIT_REVERSED, KG_ASSIGNMENT_RANGES
from tests.integration.test_parallel import PARTITIONS, _duck, _load, _upsert_sink, _upserts

QUERY = "SELECT k, COUNT(*) AS c, SUM(v) AS s FROM src GROUP BY k"


def _rows(first: int, n: int) -> list[dict]:
    """Rows ``first .. first + n - 1`` over 16 keys (the set the ranges put on one task of 2)."""
    return [{"id": i, "k": i % 16, "v": i % 7, "ts": "2026-01-01 00:00:00.000"}
            for i in range(first, first + n)]


def _env(tmp_path, name: str, bounded: bool, bootstrap: str, src: str, out: str) -> StreamEnvironment:
    env = StreamEnvironment({
        "parallelism.default": "2", "pipeline.name": name, "execution.checkpointing.interval": "300 ms",
        "execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "state")})
    bound = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
        'connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{bound})""")
    _upsert_sink(env, out, bootstrap, "k INT, c BIGINT, s BIGINT", "k")
    return env


def _old_run_then_resume(tmp_path, monkeypatch, bootstrap, topic_factory, recorded: int | None,
                         in_checkpoints: bool = False) -> tuple:
    """Run the job under the ranges until it committed counts for all 16 keys, cancel it, record
    ``recorded`` as its assignment (None: no record, as the StreamSQL before it), add rows and
    resume it bounded; (what the sink holds, DuckDB's answer). ``in_checkpoints``: the first run's
    checkpoints record its assignment, as today's do (else none, as the StreamSQL before it)."""
    src, out = topic_factory("kgup_src", PARTITIONS), topic_factory("kgup_out")
    name = f"kgup-{uuid.uuid4().hex[:8]}"
    first, second = _rows(0, 1600), _rows(1600, 1600)
    _load(bootstrap, src, first)
    with monkeypatch.context() as m:
        m.setattr(parallel, "KG_ASSIGNMENT", KG_ASSIGNMENT_RANGES)  # the older StreamSQL's routing
        if not in_checkpoints:  # nor did its checkpoints record an assignment
            build = parallel.TaskRunner._build

            def unrecorded(self, workdir):
                graph = build(self, workdir)
                graph.coordinator.key_groups = None
                return graph
            m.setattr(parallel.TaskRunner, "_build", unrecorded)
        with _env(tmp_path, name, False, bootstrap, src, out) as env:
            job = env.execute_sql(f"INSERT INTO out_t {QUERY}").job
            deadline = time.monotonic() + 120
            while _upserts(bootstrap, out, ["k", "c"]) != Counter(_duck(
                    "SELECT k, COUNT(*) FROM src GROUP BY k", src=first)):
                assert time.monotonic() < deadline, "the first run did not count its rows"
                time.sleep(0.3)
            job.cancel()
    marker = tmp_path / "chk" / name / parallel.ASSIGNMENT_FILE
    assert marker.read_text() == str(KG_ASSIGNMENT_RANGES)
    if recorded is None:
        marker.unlink()
    else:
        marker.write_text(str(recorded))
    _load(bootstrap, src, second)
    with _env(tmp_path, name, True, bootstrap, src, out) as env:
        job = env.execute_sql(f"INSERT INTO out_t {QUERY}").job
        assert job.wait(180) == "FINISHED"
        assert job.runner.restored_from is not None
    return _upserts(bootstrap, out, ["k", "c", "s"]), Counter(_duck(QUERY, src=first + second))


def test_an_unfinished_run_of_the_ranges_resumes_with_them(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                            monkeypatch):
    got, expected = _old_run_then_resume(tmp_path, monkeypatch, kafka_bootstrap, kafka_topic_factory, None)
    assert got == expected


@pytest.mark.parametrize("recorded", [KG_ASSIGNMENT_BIT_REVERSED])
def test_the_recorded_assignment_decides_the_routing(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                     monkeypatch, recorded):
    got, expected = _old_run_then_resume(tmp_path, monkeypatch, kafka_bootstrap, kafka_topic_factory,
                                         recorded)
    assert got != expected  # keys routed away from their counts: what the record prevents


@pytest.mark.parametrize("recorded", [KG_ASSIGNMENT_BIT_REVERSED, None])
def test_checkpoints_that_record_the_assignment_decide_it(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                          monkeypatch, recorded):
    """The same run, its checkpoints recording the ranges (as today's record their run's): ``_key_groups``
    rewritten to the other assignment, or deleted, changes nothing: DuckDB's answer."""
    got, expected = _old_run_then_resume(tmp_path, monkeypatch, kafka_bootstrap, kafka_topic_factory,
                                         recorded, in_checkpoints=True)
    assert got == expected


@pytest.mark.parametrize("parallelism", [2, 3])
def test_a_savepoint_of_the_ranges_restores_into_the_new_assignment(kafka_bootstrap, kafka_topic_factory,
                                                                     tmp_path, monkeypatch, parallelism):
    """A savepoint taken under the ranges (every task's state placed by them) restored today, at the
    same parallelism or another: the rescale routes each entry by its key group to the task the new
    run's exchange sends the key to; DuckDB's answer over both halves, nothing lost or twice."""
    from tests.integration.test_parallel_savepoint import _first_half, _restore_second_half, _topics

    topics = _topics(kafka_topic_factory)
    rows = _rows(0, 3200)  # 16 keys: all on task 1 of 2 under the ranges
    name = f"kgsp-{uuid.uuid4().hex[:8]}"
    with monkeypatch.context() as m:
        m.setattr(parallel, "KG_ASSIGNMENT", KG_ASSIGNMENT_RANGES)
        env, job = _first_half(tmp_path, name, kafka_bootstrap, topics, rows[:1600])
        assert (tmp_path / "chk" / name / parallel.ASSIGNMENT_FILE).read_text() == str(KG_ASSIGNMENT_RANGES)
        savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
        env.close()
    _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, rows[1600:], savepoint, parallelism,
                         "after")
    marker = tmp_path / "chk" / name / parallel.ASSIGNMENT_FILE
    assert not marker.exists() or marker.read_text() == str(KG_ASSIGNMENT_BIT_REVERSED)
