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
