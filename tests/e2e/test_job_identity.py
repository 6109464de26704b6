"""Job identity (issue 12, findings 1 and 2): checkpoints are bound to a fingerprint of what the
job computes, default job names are unique per INSERT, and one job at a time writes a folder."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError, LostCheckpointError, StreamSQLError
from tests.e2e.test_embedding_api import until

TICKS = "CREATE TABLE ticks (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '{rate}')"
FIVE = ("CREATE TABLE ticks (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
        "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5')")
OUT = "CREATE TABLE `out` (g INT, n BIGINT) WITH ('connector' = 'blackhole')"
COUNTS = "INSERT INTO `out` SELECT id % 10, COUNT(*) FROM ticks GROUP BY id % 10"


@pytest.fixture
def script(tmp_path):
    """``script(*statements, **settings)``: a fresh environment (a new run of a script) sharing
    one checkpoint root; returns (env, the last statement's job)."""
    envs = []

    def run(*statements, **settings):
        env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "checkpoints"),
                                 "state.dir": str(tmp_path / "state"),
                                 "execution.checkpointing.interval": "100 ms", **settings})
        envs.append(env)
        results = [env.execute_sql(s) for s in statements]
        return env, results[-1].job

    yield run
    for env in envs:
        env.close()


def stopped_after_checkpoint(job):
    """Let ``job`` commit a checkpoint, then stop it (a committed, resumable checkpoint)."""
    until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 2)
    job.stop()
    assert job.status == "FINISHED"
    return job.last_checkpoint["checkpoint_id"]


def test_finding_1_another_script_with_the_same_sink_runs_fresh(script, tmp_path):
    """Finding 1: a different script whose sink has the same name does not restore the first
    job's checkpoint (it printed '0 rows in, 0 rows out, resumed from checkpoint #1114')."""
    _, first = script(TICKS.format(rate=500), OUT, COUNTS)
    stopped_after_checkpoint(first)
    _, second = script(FIVE, OUT, "INSERT INTO `out` SELECT id, COUNT(*) FROM ticks GROUP BY id")
    assert second.wait(60) == "FINISHED"
    assert second.runner.restored_from is None
    assert second.metrics["rows_in"] == 5
    assert second.name != first.name
    assert second.name.startswith("insert-into_out-") and first.name.startswith("insert-into_out-")
    folders = sorted(os.listdir(tmp_path / "checkpoints"))
    assert folders == sorted([first.name, second.name])
    record = json.loads((tmp_path / "checkpoints" / first.name / "_job").read_text())
    assert record["name"] == first.name and record["sql"].startswith("INSERT INTO `out` SELECT")


def test_finding_1_same_explicit_name_refuses_with_one_clear_message(script, tmp_path):
    """Finding 1: with the same explicit 'pipeline.name', a different job refuses to restore and
    says which job wrote the checkpoint and the two ways on."""
    _, first = script(TICKS.format(rate=500), OUT, COUNTS, **{"pipeline.name": "nightly"})
    n = stopped_after_checkpoint(first)
    _, second = script(FIVE, OUT, "INSERT INTO `out` SELECT id, COUNT(*) FROM ticks GROUP BY id",
                       **{"pipeline.name": "nightly", "restart-strategy.type": "fixed-delay"})
    folder = str(tmp_path / "checkpoints" / "nightly")
    with pytest.raises(ExecutionError) as err:
        second.wait(60)
    text = str(err.value)
    assert f"checkpoint {n} in {folder} was written by job 'nightly'" in text
    assert "INSERT INTO `out` SELECT id % 10" in text  # the SQL of the job that wrote it
    assert "another 'pipeline.name'" in text and f"remove the folder {folder}" in text
    assert f"'execution.state-recovery.path' = '{folder}/chk-{n}'" in text
    assert second.metrics["rows_in"] == 0
    assert second.metrics["restarts"] == 0  # restarting cannot make it the same job
    _, again = script(TICKS.format(rate=500), OUT, COUNTS, **{"pipeline.name": "nightly"})
    until(lambda: again.runner.restored_from is not None)  # the refusal left the checkpoint intact
    assert again.runner.restored_from == n
    again.cancel()


def test_same_script_restarted_resumes(script):
    """Finding 1's other side: the same INSERT run again (whitespace, comments and keyword case
    aside) gets the same default name and resumes its checkpoint (crash recovery)."""
    _, first = script(TICKS.format(rate=500), OUT, COUNTS)
    n = stopped_after_checkpoint(first)
    rewritten = "insert into `out` -- the same job\n  select id % 10, count(*)\n  from ticks group by id % 10"
    _, second = script(TICKS.format(rate=500), OUT, rewritten)
    assert second.name == first.name
    until(lambda: second.runner.restored_from is not None)
    assert second.runner.restored_from == n
    second.cancel()


def test_state_recovery_path_restores_on_purpose(script, tmp_path):
    """Finding 1: 'execution.state-recovery.path' (or 'execution.savepoint.path') restores
    another job's checkpoint on purpose, with a warning; the job then owns its folder.

    The warning is a ``[WARNING]`` line of the INSERT's result (as the superseded-job notice), naming
    the setting the user gave; it was a raw log line that always said 'execution.state-recovery.path'."""
    _, first = script(TICKS.format(rate=500), OUT, COUNTS, **{"pipeline.name": "old"})
    n = stopped_after_checkpoint(first)
    path = str(tmp_path / "checkpoints" / "old" / f"chk-{n}")
    # another source option (the values' seed; not the rate, which only tunes speed): another
    # fingerprint, the same plan
    changed = TICKS.format(rate=500).replace("'500'", "'500', 'seed' = '7'")
    for key in ("execution.state-recovery.path", "execution.savepoint.path"):
        env, _ = script(changed, OUT, **{"pipeline.name": f"new-{key[10:14]}", key: path})
        result = env.execute_sql(COUNTS)
        moved = result.job
        m = stopped_after_checkpoint(moved)
        assert moved.runner.restored_from == n
        assert m > n  # its own checkpoints continue after the restored one
        warning = next(line for line in result.message.splitlines() if line.startswith("[WARNING]"))
        assert f"restores checkpoint {path} ('{key}'), written by job 'old'" in warning, warning
        record = json.loads((tmp_path / "checkpoints" / moved.name / "_job").read_text())
        assert record["recovered_from"] == path
        # Run again with the same settings: it resumes its own checkpoint, not the path again, and
        # says nothing about restoring.
        env, _ = script(changed, OUT, **{"pipeline.name": moved.name, key: path})
        result = env.execute_sql(COUNTS)
        rerun = result.job
        until(lambda: rerun.runner.restored_from is not None)  # noqa: B023
        assert rerun.runner.restored_from == m
        assert "[WARNING]" not in result.message
        rerun.cancel()


def test_recovery_path_that_is_not_a_checkpoint(script, tmp_path):
    """Finding 1: a recovery path must name a completed chk-<n> folder."""
    _, job = script(FIVE, OUT, COUNTS, **{"execution.state-recovery.path": str(tmp_path)})
    with pytest.raises(ExecutionError, match="is not a chk-<n> checkpoint folder"):
        job.wait(60)


def test_the_same_insert_twice_in_one_process_runs_twice(script, tmp_path):
    """Finding 2: two jobs never write one checkpoint folder. The same INSERT submitted again under
    one 'pipeline.name' while the first runs failed ("in use by job 'shared'"); Flink runs both,
    and so does this session: the second is named 'shared-2', with a folder of its own."""
    env, first = script(TICKS.format(rate=200), OUT, COUNTS, **{"pipeline.name": "shared"})
    until(lambda: first.last_checkpoint.get("checkpoint_id", 0) >= 1)
    result = env.execute_sql(COUNTS)
    second = result.job
    assert second.name == "shared-2"
    assert "this job is named 'shared-2'" in result.message
    until(lambda: second.last_checkpoint.get("checkpoint_id", 0) >= 1)
    assert first.status == second.status == "RUNNING"
    assert (tmp_path / "checkpoints" / "shared-2" / "_job").exists()
    first.cancel()
    second.cancel()


def test_two_processes_on_one_folder(script, tmp_path):
    """Finding 2: two runs side by side (they failed with "Cannot snapshot state: ... already
    exists"): the second gets a clear error naming the first process."""
    code = textwrap.dedent(f"""
        from streamsql import StreamEnvironment
        env = StreamEnvironment({{"execution.checkpointing.dir": {str(tmp_path / "checkpoints")!r},
                                 "state.dir": {str(tmp_path / "state")!r}, "pipeline.name": "side"}})
        env.execute_sql({TICKS.format(rate=100)!r})
        env.execute_sql({OUT!r})
        env.execute_sql({COUNTS!r}).job.wait(120)
    """)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path)
    try:
        lock = tmp_path / "checkpoints" / "side" / "_lock"
        until(lambda: lock.exists() and f'"pid": {child.pid}' in lock.read_text(), timeout=60)
        _, job = script(TICKS.format(rate=100), OUT, COUNTS, **{"pipeline.name": "side"})
        with pytest.raises(ExecutionError, match=rf"in use by job 'side', pid {child.pid} on host"):
            job.wait(30)
    finally:
        child.kill()
        child.wait(30)
    _, after = script(TICKS.format(rate=100), OUT, COUNTS, **{"pipeline.name": "side"})
    until(lambda: after.last_checkpoint.get("checkpoint_id", 0) >= 1)  # the lock died with it
    after.cancel()


def test_statement_set_stays_one_job(script):
    """Finding 2: INSERTs written as one statement set are one job under one name."""
    env, job = script(FIVE, OUT, "EXECUTE STATEMENT SET BEGIN INSERT INTO `out` SELECT id, 1 FROM ticks; "
                      "INSERT INTO `out` SELECT id, 2 FROM ticks; END")
    assert job.wait(60) == "FINISHED"
    assert list(env.jobs) == [job.job_id]
    assert job.name.startswith("insert-into_out_out-")
    assert job.metrics["rows_out"] == 10


def test_changed_option_starts_from_scratch_and_says_so(script, tmp_path):
    """A changed table option (default names) makes another job, which does not resume the older
    job's unfinished run: its submission warns, naming that job's checkpoint and what changed,
    never silently (an append sink writes again what the older job wrote)."""
    _, first = script(TICKS.format(rate=500), OUT, COUNTS)
    until(lambda: first.last_checkpoint.get("checkpoint_id", 0) >= 2)
    first.cancel()  # an unfinished run, resumable
    changed = TICKS.format(rate=500).replace("'500'", "'500', 'seed' = '7'")
    env, _ = script(changed, OUT)
    result = env.execute_sql(COUNTS)
    folder = tmp_path / "checkpoints" / first.name
    assert result.job.name != first.name
    warning = next(line for line in result.message.splitlines() if line.startswith("[WARNING]"))
    assert (f"Job '{result.job.name}' starts from scratch: it does not resume checkpoint {folder}/chk-"
            in warning)
    assert f"the unfinished job '{first.name}'" in warning
    assert "(table 'ticks': option 'seed' = '7' was added)" in warning
    assert f"SET 'execution.state-recovery.path' = '{folder}/chk-" in warning
    assert f"remove {folder}." in warning
    result.job.cancel()
    shutil.rmtree(tmp_path / "checkpoints" / result.job.name)  # as the warning says, to drop a job
    # options that only tune speed or the clients are not part of the identity: it resumes, no warning
    env, _ = script(TICKS.format(rate=50).replace("'50'", "'50', 'scan.parallelism' = '2'"), OUT)
    resumed = env.execute_sql(COUNTS)
    assert resumed.job.name == first.name and "[WARNING]" not in resumed.message
    until(lambda: resumed.job.runner.restored_from is not None)
    resumed.job.cancel()


def test_job_resuming_its_own_run_does_not_warn(script):
    """A changed job that ran, stopped and runs again resumes its own checkpoint: no warning that
    it starts from scratch, though the older version's unfinished run is still there (it said
    'starts from scratch: it does not resume ...' while it resumed its own savepoint)."""
    _, first = script(TICKS.format(rate=500), OUT, COUNTS)
    until(lambda: first.last_checkpoint.get("checkpoint_id", 0) >= 2)
    first.cancel()  # an unfinished run of the older version
    changed = TICKS.format(rate=500).replace("'500'", "'500', 'seed' = '7'")
    env, _ = script(changed, OUT)
    second = env.execute_sql(COUNTS)
    assert "starts from scratch" in second.message
    stopped_after_checkpoint(second.job)  # STOP JOB ... WITH SAVEPOINT
    env, _ = script(changed, OUT)
    again = env.execute_sql(COUNTS)
    assert again.job.name == second.job.name and "[WARNING]" not in again.message
    until(lambda: again.job.runner.restored_from is not None)
    assert again.job.runner.restored_from >= 2
    again.job.cancel()


def test_finished_older_job_is_not_named(script):
    """A finished job's rerun starts afresh anyway: a changed version of it warns of nothing."""
    _, first = script(FIVE, OUT, COUNTS)
    assert first.wait(60) == "FINISHED"
    env, _ = script(FIVE.replace("'5')", "'4')"), OUT)
    result = env.execute_sql(COUNTS)
    assert "[WARNING]" not in result.message
    assert result.job.wait(60) == "FINISHED"


def test_same_explicit_name_refusal_names_the_changed_option(script, tmp_path):
    """With 'pipeline.name', the refusal of another job's checkpoint says what changed."""
    _, first = script(TICKS.format(rate=500), OUT, COUNTS, **{"pipeline.name": "named"})
    stopped_after_checkpoint(first)
    changed = TICKS.format(rate=500).replace("'datagen'", "'datagen', 'seed' = '3'")
    _, second = script(changed, OUT, COUNTS, **{"pipeline.name": "named"})
    with pytest.raises(ExecutionError) as err:
        second.wait(60)
    assert ("not by this job (table 'ticks': option 'seed' = '3' was added), so it is not restored"
            in str(err.value))


def test_stop_job_without_savepoint_cancels_as_flink(script):
    """STOP JOB without a savepoint cancels the job (Flink's gateway calls ClusterClient.cancel):
    CANCELED, no final checkpoint; the same job started again resumes its last checkpoint."""
    env, job = script(TICKS.format(rate=500), OUT, COUNTS)
    until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 2)
    result = env.execute_sql(f"STOP JOB '{job.job_id}'")
    assert result.message == f"[INFO] Job {job.job_id} stopped (CANCELED)."
    assert job.status == "CANCELED"
    assert not job.runner._finished  # no final checkpoint
    rows = {r[0]: r for r in env.execute_sql("SHOW JOBS").rows}
    assert rows[job.job_id][2] == "CANCELED"
    _, again = script(TICKS.format(rate=500), OUT, COUNTS)
    until(lambda: again.runner.restored_from is not None)
    assert again.runner.restored_from >= 2
    again.cancel()


def test_stop_with_savepoint_of_a_job_that_failed_at_start_says_it_is_not_running(script, kafka_bootstrap):
    """A job whose Kafka sink topic is missing fails before its checkpoint coordinator exists;
    STOP JOB ... WITH SAVEPOINT then said "Internal error: 'NoneType' object has no attribute
    'last_completed'" (found walking the shell). Flink stops only a running job."""
    topic = f"nc24-missing-{os.getpid()}"
    sink = (f"CREATE TABLE `out` (g INT, n BIGINT, PRIMARY KEY (g) NOT ENFORCED) WITH ('connector' = "
            f"'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
            "'key.format' = 'json', 'value.format' = 'json')")
    env, job = script(TICKS.format(rate=50), sink, COUNTS, **{"restart-strategy.type": "none"})
    with pytest.raises(StreamSQLError, match="does not exist"):
        job.wait(30)
    with pytest.raises(ExecutionError) as err:
        env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT")
    assert str(err.value) == (f"Job '{job.name}' (id {job.job_id}) is not running (FAILED): there is "
                              "nothing to stop and no savepoint to take")


def test_stop_job_of_a_finished_job_says_it_had_ended(script):
    """A finished job has nothing to stop: WITH SAVEPOINT is refused (it gave its last checkpoint's
    path), without it the answer says the job had already ended (it said "stopped (FINISHED)")."""
    env, job = script(FIVE, OUT, COUNTS)
    assert job.wait(30) == "FINISHED"
    with pytest.raises(ExecutionError, match=r"is not running \(FINISHED\)"):
        env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT")
    result = env.execute_sql(f"STOP JOB '{job.job_id}'")
    assert result.message == f"[INFO] Job {job.job_id} had already ended (FINISHED); nothing to stop."
    assert job.status == "FINISHED"


def test_own_savepoint_restored_by_its_printed_relative_path(tmp_path, monkeypatch):
    """The path STOP JOB ... WITH SAVEPOINT prints, set as 'execution.state-recovery.path' for the
    same job, with the default (relative) 'execution.checkpointing.dir': the job restores it and the
    savepoint is still there. Found walking the README: the folder's own dir (relative) was compared
    with the recovery path (absolute), so the restore took the savepoint for another folder's,
    discarded every checkpoint of its own folder, the savepoint too, and the job failed with
    'checkpoint 2 is committed but its files are missing'."""
    monkeypatch.chdir(tmp_path)
    settings = {"execution.checkpointing.dir": ".streamsql/checkpoints", "state.dir": ".streamsql/state",
                "execution.checkpointing.interval": "100 ms"}
    env = StreamEnvironment(dict(settings))
    try:
        for s in (TICKS.format(rate=500), OUT):
            env.execute_sql(s)
        job = env.execute_sql(COUNTS).job
        until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 2)
        (path,) = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0]
    finally:
        env.close()
    assert os.path.isabs(path) and os.path.isdir(path), path  # printed absolute, as Flink prints it
    path = os.path.relpath(path)  # ... and given back relative, as the path printed before was
    n = int(path.rpartition("chk-")[2])
    env = StreamEnvironment({**settings, "execution.state-recovery.path": path})
    try:
        for s in (TICKS.format(rate=500), OUT):
            env.execute_sql(s)
        again = env.execute_sql(COUNTS).job
        until(lambda: again.runner.restored_from is not None or again.status == "FAILED")
        assert again.status != "FAILED", again.error
        assert again.name == job.name and again.runner.restored_from == n
        assert os.path.isdir(path)  # the savepoint is the user's: never discarded by the restore
        again.cancel()
    finally:
        env.close()


def test_a_committed_checkpoint_whose_files_are_gone_fails_the_job_at_once(script, tmp_path):
    """The job's last committed checkpoint lost its ``_metadata`` (deleted by hand, a disk cleaned):
    the resume fails with the reason, once. It restarted for ever under the default restart strategy
    ('restarting in 8 s ...'): found by deleting a task's ``_metadata`` before a parallel job's
    restore from its folder (breaker26), whose drain then never ended."""
    _, job = script(TICKS.format(rate=500), OUT, COUNTS)
    until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 2)
    job.cancel()
    (meta,) = [p for p in (tmp_path / "checkpoints").glob(f"{job.name}/chk-*/_metadata")]
    meta.unlink()
    with pytest.raises(LostCheckpointError, match="checkpoint 2 is committed but its files are missing"):
        _, again = script(TICKS.format(rate=500), OUT, COUNTS)
        again.wait(60)  # (it restarted on: RESTARTING after 60 s, nothing raised)
