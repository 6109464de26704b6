"""Checkpoint stores against real backends: a folder, the local S3-compatible server, memory.

The same checks run over each store; S3 ones talk to scripts/s3-local.sh's S3Proxy.
"""

import os
import tempfile

import pytest

from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.checkpoint.stores import LocalStore, MemoryStore, S3Store, open_store
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.state.factory import create_backend


def _staging():
    prefixes = ("streamsql-snapshot-", "streamsql-restore-")
    return {p for p in os.listdir(tempfile.gettempdir()) if p.startswith(prefixes)}


@pytest.fixture(params=["local", "s3", "memory"])
def store(request, tmp_path):
    if request.param == "local":
        return LocalStore(str(tmp_path / "root"))
    if request.param == "memory":
        return MemoryStore(str(tmp_path))
    settings = request.getfixturevalue("s3_settings")
    return open_store(settings["execution.checkpointing.dir"], settings)


def test_write_read_list_delete(store):
    assert store.read("job/_job") is None
    assert store.list("job") == []
    store.write("job/_job", b"one")
    store.write("job/chk-1/_metadata", b"{}")
    store.write("job/chk-1/state/a.sst", b"x" * 100_000)
    store.write("job/_job", b"two")  # replaced whole
    assert store.read("job/_job") == b"two"
    assert sorted(store.list("job")) == ["_job", "chk-1"]
    assert sorted(store.list("job/chk-1")) == ["_metadata", "state"]
    assert store.read("job/chk-1") is None  # a folder is no file
    store.delete("job/chk-1")
    assert store.list("job") == ["_job"]
    store.delete("job/absent")


def test_put_dir_and_get_dir_round_trip(store, tmp_path):
    src = tmp_path / "snap"
    (src / "sub").mkdir(parents=True)
    (src / "CURRENT").write_bytes(b"MANIFEST-1\n")
    (src / "sub" / "000001.sst").write_bytes(bytes(range(256)) * 50)
    store.put_dir(str(src), "job/chk-2/state")
    out = tmp_path / "back"
    assert store.get_dir("job/chk-2/state", str(out))
    assert (out / "CURRENT").read_bytes() == b"MANIFEST-1\n"
    assert (out / "sub" / "000001.sst").read_bytes() == bytes(range(256)) * 50
    assert not store.get_dir("job/chk-3/state", str(tmp_path / "none"))


@pytest.mark.parametrize("backend_name", ["rocksdb", "hashmap"])
def test_backend_snapshot_saved_and_restored_through_s3(s3_settings, tmp_path, backend_name, monkeypatch):
    # a temp folder of its own: under -n 2 the other backend's case stages in the shared one at the
    # same time (a clean-clone CI saw the other case's folder)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    staged = _staging()
    storage = CheckpointStorage(s3_settings["execution.checkpointing.dir"], "job", s3_settings)
    backend = create_backend(backend_name)
    backend.open(str(tmp_path / "w1"))
    entries = [(i.to_bytes(4, "big"), b"v%d" % i) for i in range(2000)]
    backend.keyed_state("agg").write(entries)
    size = storage.save_state(7, backend.snapshot)
    storage.write_metadata(7, {"checkpoint_id": 7})
    assert size > 0 and storage.checkpoint_ids() == [7]
    backend.close()
    again = create_backend(backend_name)
    again.open(str(tmp_path / "w2"))
    assert storage.restore_state(7, again.restore)
    assert list(again.keyed_state("agg").items()) == entries
    assert not storage.restore_state(8, again.restore)  # no snapshot: a stateless checkpoint
    again.close()
    assert _staging() == staged  # staging folders removed


def test_checkpoint_storage_on_s3_commits_prunes_and_discards(s3_settings):
    storage = CheckpointStorage(s3_settings["execution.checkpointing.dir"], "my job", s3_settings)
    assert storage.dir == s3_settings["execution.checkpointing.dir"] + "/my_job"
    for n in (1, 2, 3, 4):
        storage.write_metadata(n, {"checkpoint_id": n})
    storage.mark_committed(3)
    assert storage.local_committed() == 3
    storage.discard_after(3)
    storage.prune(3, 2)
    assert storage.checkpoint_ids() == [2, 3]
    assert storage.read_metadata(3) == {"checkpoint_id": 3}
    assert os.path.isdir(storage.lock_dir)  # the lock of a remote folder is local


def test_s3_error_names_the_file_never_the_secret(s3_settings):
    bad = dict(s3_settings, **{"s3.secret-key": "wrong-secret-value"})
    storage = CheckpointStorage(bad["execution.checkpointing.dir"], "job", bad)
    with pytest.raises(ExecutionError) as err:
        storage.write_metadata(1, {})
    assert "chk-1/_metadata" in str(err.value)
    assert "wrong-secret-value" not in str(err.value)


def test_jobmanager_storage_keeps_snapshots_in_memory_and_job_files_on_disk(tmp_path):
    opts = {"execution.checkpointing.storage": "jobmanager"}
    storage = CheckpointStorage(str(tmp_path), "job", opts)
    storage.write_metadata(5, {"checkpoint_id": 5})
    storage.mark_committed(5)
    assert sorted(os.listdir(tmp_path / "job")) == ["_committed"]
    again = CheckpointStorage(str(tmp_path), "job", opts)  # a restart inside the process
    assert again.read_metadata(5) == {"checkpoint_id": 5} and again.local_committed() == 5
    MemoryStore._roots.pop(storage.dir)  # the process is gone
    gone = CheckpointStorage(str(tmp_path), "job", opts)
    assert gone.read_metadata(5) is None
    assert "'jobmanager'" in gone.missing_message(5)


@pytest.mark.parametrize("root,settings,error", [
    ("hdfs://nn/x", {}, "'hdfs://' is not supported"),
    ("s3://", {}, "names no bucket"),
    ("s3://b/p", {"s3.access-key": "a"}, "both 's3.access-key' and 's3.secret-key'"),
    ("/tmp/x", {"execution.checkpointing.storage": "rocksdb"}, "use 'filesystem' or 'jobmanager'"),
])
def test_bad_settings_are_refused(root, settings, error):
    with pytest.raises(ConfigError, match=error):
        CheckpointStorage(root, "job", settings)


def test_s3_store_is_chosen_for_s3_uris(s3_settings):
    assert isinstance(open_store(s3_settings["execution.checkpointing.dir"], s3_settings), S3Store)
