"""CheckpointStorage and atomic_write on a real folder: layout, metadata, `_committed`, pruning."""

import json
import os
from decimal import Decimal

import pytest

from streamsql.checkpoint.storage import CheckpointStorage, atomic_write


@pytest.fixture
def storage(tmp_path):
    return CheckpointStorage(str(tmp_path), "job")


def make_checkpoints(storage, ids):
    for n in ids:
        storage.write_metadata(n, {"checkpoint_id": n})


# -- atomic_write ------------------------------------------------------------------------------

def test_atomic_write_writes_and_replaces_without_leftovers(tmp_path):
    path = tmp_path / "f"
    atomic_write(str(path), b"old")
    assert path.read_bytes() == b"old"
    atomic_write(str(path), b"new contents")
    assert path.read_bytes() == b"new contents"
    assert os.listdir(tmp_path) == ["f"]  # the temp file was renamed, not left behind


def test_atomic_write_failure_keeps_the_old_file(tmp_path):
    path = tmp_path / "f"
    atomic_write(str(path), b"old")
    with pytest.raises(TypeError):
        atomic_write(str(path), "not bytes")  # fails while writing the temp file
    assert path.read_bytes() == b"old"


def test_atomic_write_into_a_missing_folder_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write(str(tmp_path / "missing" / "f"), b"x")
    assert not (tmp_path / "missing").exists()


# -- layout ------------------------------------------------------------------------------------

def test_layout_job_folder_checkpoint_folder_state_folder(tmp_path):
    s = CheckpointStorage(str(tmp_path), "my job/v1")
    assert s.dir == str(tmp_path / "my_job_v1")  # unsafe characters replaced
    assert os.path.isdir(s.dir)
    assert s.chk_dir(3) == str(tmp_path / "my_job_v1" / "chk-3")
    assert os.path.isdir(s.chk_dir(3))
    state = s.state_dir(3)
    assert state == str(tmp_path / "my_job_v1" / "chk-3" / "state")
    assert not os.path.exists(state)  # the state backend creates its own snapshot folder


def test_same_job_name_same_folder(tmp_path):
    a = CheckpointStorage(str(tmp_path), "job")
    a.write_metadata(1, {"checkpoint_id": 1})
    b = CheckpointStorage(str(tmp_path), "job")
    assert b.read_metadata(1) == {"checkpoint_id": 1}
    assert CheckpointStorage(str(tmp_path), "other").read_metadata(1) is None


def test_checkpoint_ids_numeric_order_and_only_checkpoint_folders(storage):
    make_checkpoints(storage, [10, 2, 9])
    for name in ("chk-x", "chk-", "tmp", "chk-3.tmp"):
        os.makedirs(os.path.join(storage.dir, name))
    storage.mark_committed(9)
    assert storage.checkpoint_ids() == [2, 9, 10]


# -- metadata ----------------------------------------------------------------------------------

def test_metadata_round_trip(storage):
    meta = {"checkpoint_id": 4, "trigger_time": 1_700_000_000_000,
            "positions": {"orders": {"0": 17, "1": 3}, "files": ["a.csv", 12]},
            "state_bytes": {"agg": 4096}}
    storage.write_metadata(4, meta)
    assert storage.read_metadata(4) == meta
    path = os.path.join(storage.chk_dir(4), "_metadata")
    assert json.loads(open(path).read()) == meta  # plain JSON on disk
    assert os.listdir(storage.chk_dir(4)) == ["_metadata"]


def test_metadata_values_json_cannot_encode_are_written_as_text(storage):
    storage.write_metadata(1, {"positions": {"s": Decimal("1.50")}})
    assert storage.read_metadata(1) == {"positions": {"s": "1.50"}}


def test_metadata_rewrite_replaces(storage):
    storage.write_metadata(1, {"a": 1})
    storage.write_metadata(1, {"b": 2})
    assert storage.read_metadata(1) == {"b": 2}


def test_missing_metadata_is_none_and_creates_nothing(storage):
    assert storage.read_metadata(7) is None
    assert storage.checkpoint_ids() == []
    os.makedirs(os.path.join(storage.dir, "chk-8"))  # snapshots written, never completed
    assert storage.read_metadata(8) is None


# -- _committed --------------------------------------------------------------------------------

def test_committed_marker_absent(storage):
    assert storage.local_committed() is None
    assert not os.path.exists(os.path.join(storage.dir, "_committed"))


def test_committed_marker_names_the_last_commit(storage):
    storage.mark_committed(3)
    assert storage.local_committed() == 3
    storage.mark_committed(12)
    assert storage.local_committed() == 12
    assert open(os.path.join(storage.dir, "_committed")).read() == "12"


def test_final_committed_marker_starts_afresh(storage):
    storage.mark_committed(5, final=True)
    assert open(os.path.join(storage.dir, "_committed")).read() == "5 final"
    assert storage.local_committed() is None
    storage.mark_committed(6)  # a later run commits again
    assert storage.local_committed() == 6


@pytest.mark.parametrize("text", ["", "abc", "-1", "3 final extra", " \n"])
def test_unreadable_committed_marker_is_none(storage, text):
    with open(os.path.join(storage.dir, "_committed"), "w") as f:
        f.write(text)
    assert storage.local_committed() is None


# -- prune / discard_after ---------------------------------------------------------------------

def test_prune_keeps_the_newest_retained_committed(storage):
    make_checkpoints(storage, [1, 2, 3, 4])
    storage.prune(4, 2)
    assert storage.checkpoint_ids() == [3, 4]
    assert storage.read_metadata(4) == {"checkpoint_id": 4}


def test_prune_keeps_at_least_one(storage):
    make_checkpoints(storage, [1, 2])
    storage.prune(2, 0)
    assert storage.checkpoint_ids() == [2]


def test_prune_removes_snapshot_folders_with_their_files(storage):
    make_checkpoints(storage, [1, 2])
    op = storage.state_dir(1)
    os.makedirs(op)
    with open(os.path.join(op, "state"), "wb") as f:
        f.write(b"x" * 100)
    storage.prune(2, 1)
    assert not os.path.exists(op)
    assert not os.path.exists(os.path.join(storage.dir, "chk-1"))
    assert storage.checkpoint_ids() == [2]


def test_prune_keeps_savepoints(storage):
    make_checkpoints(storage, [1, 2, 3, 4])
    storage.keep_as_savepoint(2)
    storage.prune(4, 1)
    assert storage.checkpoint_ids() == [2, 4]
    assert storage.read_metadata(2) == {"checkpoint_id": 2}


def test_prune_with_fewer_checkpoints_than_retained(storage):
    make_checkpoints(storage, [1, 2])
    storage.prune(2, 5)
    assert storage.checkpoint_ids() == [1, 2]


def test_prune_and_discard_on_an_empty_folder(storage):
    storage.prune(3, 1)
    storage.discard_after(None)
    storage.discard_after(3)
    assert storage.checkpoint_ids() == []


def test_discard_after_deletes_newer_only(storage):
    make_checkpoints(storage, [1, 2, 3, 4, 5])
    storage.mark_committed(3)
    storage.discard_after(3)
    assert storage.checkpoint_ids() == [1, 2, 3]
    assert storage.local_committed() == 3  # the marker is not a checkpoint folder


def test_discard_after_none_deletes_every_checkpoint(storage):
    make_checkpoints(storage, [1, 2])
    storage.discard_after(None)
    assert storage.checkpoint_ids() == []
    assert os.path.isdir(storage.dir)
