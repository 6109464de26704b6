"""A committed checkpoint that the job's folder does not hold (breaker, attack 1).

Two jobs with the same 'pipeline.name' and 'sink.transactional-id-prefix' but different
checkpoint folders commit under one Kafka transactional id, so each reads the other's last
checkpoint id as its own. Found by running the Ctrl-C campaign twice under the name 'cc': the
second, fresh folder was refused with "checkpoint 591 in <folder> was written by a job of unknown
identity (the folder has no _job file) ... SET 'execution.state-recovery.path' = '<folder>/chk-591'"
— a folder that holds no checkpoint 591, and a way on that cannot work.
"""

import pytest

from streamsql.checkpoint.identity import JobIdentity, JobIdentityError
from streamsql.checkpoint.storage import CheckpointStorage


@pytest.mark.parametrize("has_job_file", [False, True])
def test_a_commit_of_another_folder_is_named_as_such(tmp_path, has_job_file):
    storage = CheckpointStorage(str(tmp_path / "chk"), "cc")
    if has_job_file:  # this folder's own run, with another fingerprint, committed nothing it holds
        JobIdentity("cc", "a" * 64, "INSERT INTO x SELECT 1").restore_point(storage, None)
    with pytest.raises(JobIdentityError) as err:
        JobIdentity("cc", "b" * 64, "INSERT INTO y SELECT 2").restore_point(storage, 591)
    text = str(err.value)
    assert f"checkpoint 591 committed last, but {storage.dir} holds no checkpoint 591" in text
    assert "another job commits under the same Kafka transactional id" in text
    assert "'sink.transactional-id-prefix'" in text and "execution.state-recovery.path" not in text


def test_a_commit_this_folder_holds_still_names_its_writer(tmp_path):
    storage = CheckpointStorage(str(tmp_path / "chk"), "cc")
    JobIdentity("cc", "a" * 64, "INSERT INTO x SELECT 1").restore_point(storage, None)
    storage.write_metadata(3, {"checkpoint_id": 3})
    with pytest.raises(JobIdentityError, match="checkpoint 3 in .* was written by job 'cc'"):
        JobIdentity("cc", "b" * 64, "INSERT INTO y SELECT 2").restore_point(storage, 3)


def test_a_commit_of_another_folders_checkpoint_of_the_same_id_is_refused(tmp_path):
    """break35: the ids agree, the uids do not (tests/integration/test_two_folders_commit.py end to end)."""
    from streamsql.checkpoint.identity import check_commit_is_ours

    storage = CheckpointStorage(str(tmp_path / "chk"), "cc")
    meta = {"checkpoint_id": 1, "uid": "a" * 32}
    check_commit_is_ours("cc", storage, 1, meta, "a" * 32)  # its own commit
    check_commit_is_ours("cc", storage, 1, meta, None)  # a commit without a uid (an older version's)
    check_commit_is_ours("cc", storage, 1, {"checkpoint_id": 1}, "b" * 32)  # a checkpoint before uids
    with pytest.raises(JobIdentityError) as err:
        check_commit_is_ours("cc", storage, 1, meta, "b" * 32)
    text = str(err.value)
    assert f"checkpoint 1 committed last, but that commit is not of the checkpoint 1 in {storage.dir}" in text
    assert f"uid {'b' * 32} committed, {'a' * 32} here" in text
    assert "another 'pipeline.name' or 'sink.transactional-id-prefix'" in text


@pytest.mark.parametrize("final,uid,text", [(False, None, ""), (True, None, "final"),
                                            (False, "ab12", "uid=ab12"), (True, "ab12", "final uid=ab12")])
def test_the_commit_metadata_round_trips_and_reads_an_older_versions(final, uid, text):
    from streamsql.connectors.kafka.transactions import commit_metadata, read_commit_metadata

    assert commit_metadata(final, uid) == text
    assert read_commit_metadata(text) == (final, uid)
    assert read_commit_metadata(None) == (False, None)


@pytest.mark.parametrize("tasks", [["job"], ["job-0-0", "job-0-1"]])
def test_a_folder_copied_from_another_jobs_names_it(tmp_path, tasks):
    """break36: a killed job's folder copied (or renamed) to another 'pipeline.name''s, run under that
    name: refused, as its commits are under the other job's transactional ids; the message said
    "an unfinished run with 1 task ..., this run plans 1: resume it with the 'parallelism.default' it
    had". It now names the other tasks, the copy, and the checkpoint to restore on purpose."""
    from streamsql.checkpoint.identity import TASKS_FILE, check_tasks
    from streamsql.core.errors import ConfigError

    storage = CheckpointStorage(str(tmp_path / "chk"), "job-renamed")
    storage.write_file(TASKS_FILE, "\n".join(tasks).encode())
    storage.write_metadata(3, {"checkpoint_id": 3})
    ours = [t.replace("job", "job-renamed") for t in tasks]
    with pytest.raises(ConfigError) as err:
        check_tasks(storage, "job-renamed", ours)
    text = str(err.value)
    assert f"is of other tasks ({', '.join(tasks)}): the folder was copied or renamed" in text
    assert f"'execution.state-recovery.path' = '{storage.location(3)}'" in text and "plans" not in text
    assert check_tasks(storage, "job", tasks)  # the job it is: resumed
    with pytest.raises(ConfigError, match="this run plans 3"):  # its own, at another parallelism
        check_tasks(storage, "job", ["job-0-0", "job-0-1", "job-0-2"] if len(tasks) > 1 else ["a", "b", "c"])
