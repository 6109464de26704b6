"""HashMap backend specifics: the snapshot file format and its integrity checks."""

from __future__ import annotations

import pytest

from streamsql.state.exceptions import SnapshotError
from streamsql.state.hashmap import MAGIC, SNAPSHOT_FILE, HashMapStateBackend
from tests.state.fixtures import encode_key as k


@pytest.fixture()
def hashmap(tmp_path):
    """An open hashmap backend with a little state in two operators."""
    backend = HashMapStateBackend()
    backend.open(str(tmp_path / "work"))
    backend.keyed_state("a").write([(k(b"%d" % i), b"v" * i) for i in range(100)])
    backend.keyed_state("b\u00e9").write([(k(b""), b"")])
    yield backend
    backend.close()


def test_snapshot_is_one_file_whose_size_is_returned(hashmap, tmp_path):
    size = hashmap.snapshot(str(tmp_path / "s"))
    files = list((tmp_path / "s").iterdir())
    assert [f.name for f in files] == [SNAPSHOT_FILE]
    assert files[0].stat().st_size == size
    assert files[0].read_bytes().startswith(MAGIC)


def test_unicode_operator_ids_and_empty_values_round_trip(hashmap, tmp_path):
    hashmap.snapshot(str(tmp_path / "s"))
    other = HashMapStateBackend()
    other.open(str(tmp_path / "w2"))
    other.restore(str(tmp_path / "s"))
    assert list(other.keyed_state("b\u00e9").items()) == [(k(b""), b"")]
    assert list(other.keyed_state("a").items()) == list(hashmap.keyed_state("a").items())


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[:-10],  # truncated
        lambda raw: raw[:40] + bytes([raw[40] ^ 1]) + raw[41:],  # bit flip
        lambda raw: b"NOTMAGIC" + raw[8:],
        lambda raw: b"",
    ],
)
def test_damaged_snapshot_is_rejected_and_state_kept(hashmap, tmp_path, damage):
    hashmap.snapshot(str(tmp_path / "s"))
    path = tmp_path / "s" / SNAPSHOT_FILE
    path.write_bytes(damage(path.read_bytes()))
    before = list(hashmap.keyed_state("a").items())
    with pytest.raises(SnapshotError):
        hashmap.restore(str(tmp_path / "s"))
    assert list(hashmap.keyed_state("a").items()) == before


def test_non_bytes_value_fails_the_snapshot_with_a_typed_error(hashmap, tmp_path):
    hashmap.keyed_state("a").write([(k(b"x"), "not bytes")])
    with pytest.raises(SnapshotError):
        hashmap.snapshot(str(tmp_path / "s"))


def test_rocksdb_snapshot_is_not_a_hashmap_snapshot(hashmap, tmp_path):
    from streamsql.state.rocksdb import RocksDBStateBackend

    rocks = RocksDBStateBackend()
    rocks.open(str(tmp_path / "rw"))
    rocks.snapshot(str(tmp_path / "rs"))
    rocks.close()
    with pytest.raises(SnapshotError, match="no hashmap snapshot"):
        hashmap.restore(str(tmp_path / "rs"))
