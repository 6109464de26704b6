"""STOP JOB 'id' WITH SAVEPOINT prints the final checkpoint's path (Flink's 'savepoint path'
row); SET 'execution.savepoint.path' starts another job from it, on a folder and on S3; the job
that wrote it never prunes it."""

import os

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError, StreamSQLError
from tests.e2e.test_embedding_api import until
from tests.e2e.test_job_identity import COUNTS, OUT, TICKS


def _env(tmp_path, **settings):
    return StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "checkpoints"),
                              "state.dir": str(tmp_path / "state"),
                              "execution.checkpointing.interval": "100 ms", **settings})


@pytest.mark.parametrize("where", ["folder", "s3"])
def test_stop_with_savepoint_then_start_from_it(tmp_path, request, where):
    settings = request.getfixturevalue("s3_settings") if where == "s3" else {}
    with _env(tmp_path, **settings, **{"pipeline.name": "first"}) as env:
        for ddl in (TICKS.format(rate=500), OUT):
            env.execute_sql(ddl)
        job = env.execute_sql(COUNTS).job
        until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 1)
        result = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT")
        assert job.status == "FINISHED"
        assert result.columns == ["savepoint path"]
        (path,) = result.rows[0]
        n = job.last_checkpoint["checkpoint_id"]
        assert path.endswith(f"/first/chk-{n}")
        if where == "folder":
            assert os.path.isfile(os.path.join(path, "_metadata"))
            assert os.path.isdir(os.path.join(path, "state"))
    with _env(tmp_path, **settings, **{"pipeline.name": "second", "execution.savepoint.path": path}) as env:
        assert _counts_restored_from(env) == n
    with _env(tmp_path, **settings, **{"pipeline.name": "first"}) as env:  # the job that wrote it
        for ddl in (TICKS.format(rate=500), OUT):
            env.execute_sql(ddl)
        resumed = env.execute_sql(COUNTS).job
        until(lambda: len([c for c in resumed.runner.coordinator.history if c.status == "committed"]) >= 3
              if resumed.runner.coordinator else False)
        assert resumed.runner.restored_from == n
        storage = resumed.runner.coordinator.storage
        resumed.stop()
    assert storage.read_metadata(n) is not None  # newer commits pruned around the savepoint
    assert len(storage.checkpoint_ids()) == 2  # the savepoint and the one retained checkpoint


def test_the_savepoint_path_is_absolute_so_another_folder_restores_it(tmp_path, monkeypatch):
    """Flink prints a savepoint's absolute path; here it was relative to the session's folder
    (the default '.streamsql/checkpoints'), so a script run elsewhere could not restore it."""
    monkeypatch.chdir(tmp_path)
    settings = {"execution.checkpointing.interval": "100 ms"}
    with StreamEnvironment({**settings, "pipeline.name": "here"}) as env:
        for ddl in (TICKS.format(rate=500), OUT):
            env.execute_sql(ddl)
        job = env.execute_sql(COUNTS).job
        until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 1)
        (path,) = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0]
        n = job.last_checkpoint["checkpoint_id"]
    assert path == str(tmp_path / ".streamsql" / "checkpoints" / "here" / f"chk-{n}")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with StreamEnvironment({**settings, "pipeline.name": "there", "execution.savepoint.path": path}) as env:
        assert _counts_restored_from(env) == n


def _counts_restored_from(env: StreamEnvironment) -> int | None:
    """Start the COUNTS job in ``env``; the checkpoint it restored (None: none), then cancel it."""
    for ddl in (TICKS.format(rate=500), OUT):
        env.execute_sql(ddl)
    job = env.execute_sql(COUNTS).job
    until(lambda: job.runner.restored_from is not None or job.done)
    job.cancel()
    return job.runner.restored_from


def test_stop_with_drain_is_refused(tmp_path):
    with _env(tmp_path) as env:
        env.execute_sql(TICKS.format(rate=100))
        env.execute_sql(OUT)
        job = env.execute_sql(COUNTS).job
        with pytest.raises(SqlError, match="WITH DRAIN is not supported"):
            env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT WITH DRAIN")
        job.cancel()


def test_a_parallel_savepoint_without_tasks_is_refused_as_such(tmp_path):
    """A ``savepoint-<n>`` folder of a parallel job restored at parallelism 1 says what it is (it said
    only "is not a chk-<n> checkpoint folder"; breaker). A real one is merged into the one task
    (tests/integration/test_parallel_savepoint.py); one whose manifest lists no tasks is refused."""
    savepoint = tmp_path / "checkpoints" / "first" / "savepoint-3"
    savepoint.mkdir(parents=True)
    (savepoint / "_savepoint").write_text('{"job": "first", "stages": []}')
    with _env(tmp_path, **{"pipeline.name": "second", "execution.savepoint.path": str(savepoint)}) as env:
        for ddl in (TICKS.format(rate=500), OUT):
            env.execute_sql(ddl)
        with pytest.raises(StreamSQLError, match="is the savepoint of a parallel job, but its manifest "
                                                 r"\(_savepoint\) lists no tasks' checkpoints"):
            env.execute_sql(COUNTS).job.wait(30)
