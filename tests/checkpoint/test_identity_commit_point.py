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
