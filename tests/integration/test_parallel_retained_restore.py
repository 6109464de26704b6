"""A parallel job restores from retained checkpoints, not only from a savepoint, as Flink does.

Flink's ``'execution.state-recovery.path'`` takes a savepoint or a retained (externalized)
checkpoint, and either restores at another parallelism. Here a job cancelled without a savepoint
keeps its retained checkpoints: each task's last one, and the records its exchanges hold that no
downstream task has read yet. The job's folder as the path restores them at another parallelism
(the run is drained into a savepoint first, so nothing in flight is lost), and a single-process
job's retained ``chk-<n>`` restores at parallelism 3. The GROUP BY's upserts and the exactly-once
filter's rows must be DuckDB's over every record: none lost, none twice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pytest

from streamsql.checkpoint.identity import JobIdentityError
from tests.integration.test_parallel import _load, _rows, _upserts
from tests.integration.test_parallel_savepoint import (
    JOB,
    _appends,
    _env,
    _expect,
    _first_half,
    _restore_second_half,
    _topics,
)


def _cancel_mid_run(tmp_path, name: str, bootstrap: str, topics: dict, first: list[dict],
                    parallelism: int) -> None:
    """``first`` loaded, JOB running unbounded at ``parallelism`` until some of its upserts are out
    (a checkpoint committed, likely with records still in flight in its exchange), then cancelled."""
    _load(bootstrap, topics["src"], first)
    with _env(tmp_path, name, parallelism, bootstrap, topics, bounded=False) as env:
        job = env.execute_sql(JOB).job
        deadline = time.monotonic() + 120
        while not _upserts(bootstrap, topics["agg"], ["k", "c", "s"]):
            assert time.monotonic() < deadline and not job.done, "the job committed nothing"
            time.sleep(0.2)
        job.cancel()
    assert (tmp_path / "chk" / name / "_tasks").exists()  # an unfinished run: its retained checkpoints


# 3 -> 2 under -m slow: 2 -> 3 drains into a savepoint and restores it at another parallelism as 3 -> 2
# does, and tests/integration/test_parallel_savepoint.py restores a savepoint 3 -> 2 by default.
@pytest.mark.parametrize(("before", "after"), [(2, 3), pytest.param(3, 2, marks=pytest.mark.slow), (2, 2)])
def test_a_parallel_job_restores_its_retained_checkpoints_at_another_parallelism(
        kafka_bootstrap, kafka_topic_factory, tmp_path, before, after):
    topics = _topics(kafka_topic_factory)
    rows = _rows(23, 6000)
    name = f"rt-{uuid.uuid4().hex[:8]}"
    _cancel_mid_run(tmp_path, name, kafka_bootstrap, topics, rows[:3000], before)
    retained = str(tmp_path / "chk" / name)
    _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, rows[3000:], retained, after, "state")
    # drained into a savepoint (the user's), at another parallelism only: at its own the run resumed
    savepoints = list((tmp_path / "chk" / name).glob("savepoint-*/_savepoint"))
    assert len(savepoints) == (before != after)
    assert not (tmp_path / "chk" / name / "_drained_into").exists()  # the restore completed


def test_a_single_process_jobs_retained_checkpoint_restores_at_three_tasks(kafka_bootstrap,
                                                                            kafka_topic_factory, tmp_path):
    topics = _topics(kafka_topic_factory)
    rows = _rows(29, 6000)
    name = f"rt1-{uuid.uuid4().hex[:8]}"
    env, job = _first_half(tmp_path, name, kafka_bootstrap, topics, rows[:3000], parallelism=1)
    job.cancel()
    env.close()
    folder = tmp_path / "chk" / name
    done = [p for p in folder.glob("chk-*") if (p / "_metadata").exists()]
    newest = max(done, key=lambda p: int(p.name[4:]))
    assert not (newest / "_savepoint").exists()  # a checkpoint, not a savepoint
    _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, rows[3000:], str(newest), 3, "state")


def test_a_job_folder_without_an_unfinished_run_is_refused(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topics = _topics(kafka_topic_factory)
    name = f"rt0-{uuid.uuid4().hex[:8]}"
    (tmp_path / "chk" / name).mkdir(parents=True)
    with _env(tmp_path, name, 2, kafka_bootstrap, topics, bounded=True,
              savepoint=str(tmp_path / "chk" / name)) as env:
        with pytest.raises(JobIdentityError, match="holds no unfinished run .no _tasks.: there is no"):
            env.execute_sql(JOB).job.wait(60)


_RESTORE = """
import os, sys, json
if os.environ.get("KILL_AT_SECOND_CHECK_TASKS"):  # kill -9 there: the drain's run checks first
    import streamsql.runtime.parallel as par
    calls, check = [], par.ParallelJobRunner._check_tasks
    def _check(self):
        calls.append(1)
        if len(calls) == 2:
            os._exit(137)
        return check(self)
    par.ParallelJobRunner._check_tasks = _check
from pathlib import Path
from tests.integration.test_parallel_savepoint import JOB, _env
tmp, name, topics = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
with _env(tmp, name, 3, topics["bootstrap"], topics, bounded=True, savepoint=str(tmp / "chk" / name)) as env:
    env.execute_sql(JOB).job.wait(300)
"""


@pytest.mark.parametrize("kill", [{"STREAMSQL_FAULT": "after_commit_before_bookkeeping:2"},
                                  {"KILL_AT_SECOND_CHECK_TASKS": "1"}])
def test_a_restore_killed_in_its_drain_after_a_commit_restores_again(kafka_bootstrap, kafka_topic_factory,
                                                                       tmp_path, kill):
    """The restore's process dies (``kill -9``) inside the drain, after a task committed its final
    checkpoint: the partitions of the exchange hold stop records of that task, and a second restore
    drains the run again, its tasks reading on (rows that came meanwhile) past them. The second
    drain's downstream tasks took those stale stop records for the upstream tasks' last, stopped
    before the rows after them, and the savepoint dropped them: the GROUP BY's counts came out
    short, with no error (breaker26). Stop records now carry their stop's token.

    Killed after the seeds were written, before the new run's ``_tasks``: ``_drained_into`` was
    gone already, and the second restore refused the folder ("holds no unfinished run")."""
    topics = _topics(kafka_topic_factory)
    rows = _rows(31, 6000)
    name = f"rtk-{uuid.uuid4().hex[:8]}"
    _cancel_mid_run(tmp_path, name, kafka_bootstrap, topics, rows[:3000], 2)
    _load(kafka_bootstrap, topics["src"], rows[3000:])
    killed = subprocess.run([sys.executable, "-c", _RESTORE, str(tmp_path), name,
                             json.dumps({**topics, "bootstrap": kafka_bootstrap})],
                            capture_output=True, text=True, timeout=300, check=False,
                            cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            env={**os.environ, **kill})
    assert killed.returncode == 137, killed.stderr[-2000:]  # died in the restore, as kill -9 leaves it
    drained = list((tmp_path / "chk" / name).glob("savepoint-*/_savepoint"))
    assert len(drained) == ("STREAMSQL_FAULT" not in kill)  # in the drain: before its savepoint
    _restore_second_half(tmp_path, name, kafka_bootstrap, topics, rows, [], str(tmp_path / "chk" / name), 3,
                         "state2")


def _fail_once(monkeypatch, stage: int) -> list[str]:
    """Task ``<stage>-0``'s first final checkpoint fails (an operator failure, inside the drain); the
    tasks that failed so, by name."""
    from streamsql.core.errors import ExecutionError
    from streamsql.runtime.parallel import TaskRunner

    failed: list[str] = []
    original = TaskRunner._final_checkpoint

    def _final(self, graph, final):
        if (self.slot.stage, self.slot.index) == (stage, 0) and self.stop_token is not None and not failed:
            failed.append(self.name)
            msg = "injected failure in the final checkpoint"
            raise ExecutionError(msg)
        return original(self, graph, final=final)

    monkeypatch.setattr(TaskRunner, "_final_checkpoint", _final)
    return failed


@pytest.mark.parametrize("fault", ["source-task", "downstream-task", "first-snapshot"])
def test_a_task_restarted_inside_the_drain_stops_again(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                        monkeypatch, fault):
    """A task of the drain fails once (its restart strategy restarts it) while the restore at another
    parallelism drains the unfinished run: the first restore succeeds, DuckDB's answer.

    A task waiting to restart while stopping ended as cancelled, as a single-process job stopped
    while it waits: a source task's downstream tasks then waited for its stop records for good (the
    restore hung), and a downstream task's missing final checkpoint failed the restore ("took no
    final checkpoint"), which only a second restore got past. ``first-snapshot``: the process's
    first checkpoint snapshot fails (``STREAMSQL_FAULT_RAISE``), the drain's first task to take one.
    """
    from streamsql.core import faults

    topics = _topics(kafka_topic_factory)
    rows = _rows(37, 6000)
    name = f"rtr-{uuid.uuid4().hex[:8]}"
    _cancel_mid_run(tmp_path, name, kafka_bootstrap, topics, rows[:3000], 2)
    _load(kafka_bootstrap, topics["src"], rows[3000:])
    failed: list[str] = []
    if fault == "first-snapshot":
        faults.reset_counts()
        monkeypatch.setenv("STREAMSQL_FAULT_RAISE", "after_snapshot_before_commit:1")
    else:
        failed = _fail_once(monkeypatch, 0 if fault == "source-task" else 1)
    retained = str(tmp_path / "chk" / name)
    with _env(tmp_path, name, 3, kafka_bootstrap, topics, bounded=True, savepoint=retained,
              state="state2") as env:
        env.execute_sql("SET 'restart-strategy.type' = 'fixed-delay'")
        env.execute_sql("SET 'restart-strategy.fixed-delay.delay' = '100 ms'")
        job = env.execute_sql(JOB).job
        assert job.wait(180) == "FINISHED", job.error
    if fault != "first-snapshot":
        assert failed == [f"{name}-{0 if fault == 'source-task' else 1}-0"]  # it failed in the drain
    agg, flt = _expect(rows)
    assert _upserts(kafka_bootstrap, topics["agg"], ["k", "c", "s"]) == agg
    assert _appends(kafka_bootstrap, topics["flt"], ["id", "k", "v"]) == flt
