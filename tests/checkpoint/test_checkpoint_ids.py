"""Checkpoint ids after a restore (issue 10's finding: they jumped to the time in microseconds):
they continue above the restored id, as Flink's, and two attempts of a job (a successor and a
zombie still running) never take one id, on every store."""

import threading

import pytest

from streamsql.checkpoint.storage import CheckpointStorage


@pytest.fixture(params=["local", "s3", "memory"])
def storage(request, tmp_path):
    if request.param == "local":
        return CheckpointStorage(str(tmp_path / "chk"), "job")
    if request.param == "memory":
        settings = {"execution.checkpointing.storage": "jobmanager"}
        return CheckpointStorage(str(tmp_path / "chk"), "job", settings)
    settings = request.getfixturevalue("s3_settings")
    return CheckpointStorage(settings["execution.checkpointing.dir"], "job", settings)


def test_ids_continue_after_the_restored_one(storage):
    assert storage.first_id_after(None) == 1
    storage.write_metadata(7, {"checkpoint_id": 7})
    assert storage.first_id_after(7) == 8
    assert storage.claim(8, "successor") == 8


def test_ids_a_zombie_wrote_are_never_taken_again(storage):
    """A zombie's folders above the restored id (about to be discarded) push the first id up."""
    storage.write_metadata(7, {"checkpoint_id": 7})
    assert storage.claim(9, "zombie") == 9
    assert storage.first_id_after(7) == 10


def test_two_attempts_never_claim_one_id(storage):
    assert storage.claim(5, "zombie") == 5
    assert storage.claim(5, "successor") == 6
    assert storage.claim(6, "zombie") == 7
    storage.write_metadata(8, {"checkpoint_id": 8})  # a folder without a claim is taken too
    assert storage.claim(8, "successor") == 9


def test_concurrent_claims_are_disjoint(tmp_path):
    storage = CheckpointStorage(str(tmp_path / "chk"), "job")
    won: dict[str, list[int]] = {"a": [], "b": []}
    start = threading.Barrier(2)

    def attempt(token):
        start.wait()
        n = 1
        for _ in range(30):
            n = storage.claim(n, token) + 1
            won[token].append(n - 1)

    threads = [threading.Thread(target=attempt, args=(t,)) for t in won]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won["a"]) == len(won["b"]) == 30
    assert not set(won["a"]) & set(won["b"])
