"""RocksDB backend specifics: key layout, checkpoints as hard links, lock retry, options."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
import time

import pytest
import rocksdict

from streamsql.core.errors import ConfigError
from streamsql.state import rocksdb as rocksdb_module
from streamsql.state.exceptions import SnapshotError, StateError, StateLockedError, translate
from streamsql.state.rocksdb import RocksDBOptions, RocksDBStateBackend
from streamsql.state.rocksdb_memory import RocksDBMemory, RocksDBResources
from tests.state.fixtures import encode_key as k


@pytest.fixture()
def rocks(tmp_path):
    """A factory of open RocksDB backends (closed at teardown)."""
    opened = []

    def factory(workdir=None, **options) -> RocksDBStateBackend:
        backend = RocksDBStateBackend(RocksDBOptions(**options))
        backend.open(str(workdir or tmp_path / f"work{len(opened)}"))
        opened.append(backend)
        return backend

    yield factory
    for backend in opened:
        backend.close()


def _hashes(directory) -> dict[str, str]:
    return {
        name: hashlib.sha256((directory / name).read_bytes()).hexdigest()
        for name in sorted(os.listdir(directory))
    }


def test_raw_key_layout_is_operator_nul_keygroup_key(rocks):
    backend = rocks()
    backend.keyed_state("op1").write([(k(b"user"), b"v")])
    raw = list(backend._db.items())
    assert raw == [(b"op1\x00" + k(b"user"), b"v")]
    assert backend._db.get(b"op1\x00" + k(b"user")) == b"v"  # raw mode: bytes in, bytes out


def test_prefix_operator_ids_do_not_leak_into_each_other(rocks):
    backend = rocks()
    op1, op10 = backend.keyed_state("op1"), backend.keyed_state("op10")
    op1.write([(k(b"a"), b"1"), (b"\xff\xff", b"last")])
    op10.write([(k(b"a"), b"10"), (b"\x00\x00", b"first")])
    assert list(op1.items()) == sorted([(k(b"a"), b"1"), (b"\xff\xff", b"last")])
    assert list(op10.items()) == sorted([(k(b"a"), b"10"), (b"\x00\x00", b"first")])
    op1.clear()
    assert list(op1.items()) == []
    assert op10.get_many([k(b"a"), b"\x00\x00"]) == [b"10", b"first"]


def test_items_across_chunks(rocks, monkeypatch):
    monkeypatch.setattr(rocksdb_module, "ITER_CHUNK", 3)
    backend = rocks()
    ks = backend.keyed_state("agg")
    pairs = sorted((k(b"%d" % i), b"%d" % i) for i in range(10))
    ks.write(pairs)
    backend.keyed_state("agg2").write([(k(b"x"), b"other")])
    assert list(ks.items()) == pairs
    ks.write([], [key for key, _ in pairs[:9]])
    assert list(ks.items()) == pairs[9:]


def test_abandoned_items_generator_does_not_block_restore(rocks, tmp_path, monkeypatch):
    monkeypatch.setattr(rocksdb_module, "ITER_CHUNK", 2)
    backend = rocks(open_timeout=1.0)
    ks = backend.keyed_state("agg")
    ks.write([(k(b"%d" % i), b"v") for i in range(10)])
    backend.snapshot(str(tmp_path / "s"))
    it = ks.items()
    next(it)
    t0 = time.monotonic()
    backend.restore(str(tmp_path / "s"))
    assert time.monotonic() - t0 < 0.9
    assert len(list(it)) == 9  # the old generator continues on the restored database


def test_restore_hard_links_sst_files_and_never_modifies_the_snapshot(rocks, tmp_path):
    backend = rocks()
    ks = backend.keyed_state("agg")
    ks.write([(k(b"%d" % i), os.urandom(50)) for i in range(5000)])
    snap = tmp_path / "chk-1"
    backend.snapshot(str(snap))
    before = _hashes(snap)
    ssts = [name for name in before if name.endswith(".sst")]
    assert ssts

    backend.restore(str(snap))
    for name in ssts:
        assert os.stat(snap / name).st_nlink >= 2
        assert os.path.samefile(snap / name, tmp_path / "work0" / "db" / name)
    for i in range(3):
        ks.write([(k(b"%d" % j), b"x%d" % i) for j in range(5000)])
        backend.snapshot(str(tmp_path / f"later-{i}"))
    backend._db.compact_range(None, None)
    backend.close()
    assert _hashes(snap) == before


def test_consecutive_snapshots_share_sst_files(rocks, tmp_path):
    backend = rocks()
    ks = backend.keyed_state("agg")
    ks.write([(k(b"a%d" % i), b"v") for i in range(1000)])
    backend.snapshot(str(tmp_path / "s1"))
    ks.write([(k(b"b"), b"v")])
    backend.snapshot(str(tmp_path / "s2"))
    shared = [
        name
        for name in os.listdir(tmp_path / "s1")
        if name.endswith(".sst") and (tmp_path / "s2" / name).exists()
    ]
    assert shared
    assert all(os.path.samefile(tmp_path / "s1" / n, tmp_path / "s2" / n) for n in shared)


def test_wal_is_disabled_by_default_and_snapshot_is_still_complete(rocks, tmp_path):
    assert RocksDBOptions().write_options().disable_wal is True
    backend = rocks()
    backend.keyed_state("agg").write([(k(b"a"), b"1")])  # only in the memtable
    backend.snapshot(str(tmp_path / "s"))
    other = rocks()
    other.restore(str(tmp_path / "s"))
    assert other.keyed_state("agg").get_many([k(b"a")]) == [b"1"]


def test_open_times_out_with_typed_error_while_locked(rocks, tmp_path):
    rocks(tmp_path / "w")
    t0 = time.monotonic()
    with pytest.raises(StateLockedError, match="locked"):
        rocks(tmp_path / "w", open_timeout=0.3)
    assert 0.2 < time.monotonic() - t0 < 3


def test_open_retries_until_the_lock_is_released(rocks, tmp_path):
    holder = rocks(tmp_path / "w")
    holder.keyed_state("agg").write([(k(b"a"), b"1")])
    timer = threading.Timer(0.3, holder.close)
    timer.start()
    try:
        second = rocks(tmp_path / "w", open_timeout=5.0)
    finally:
        timer.join()
    assert list(second.keyed_state("agg").items()) == []  # open() starts empty


def test_rocksdict_errors_become_state_errors(rocks):
    backend = rocks()
    ks = backend.keyed_state("agg")
    with pytest.raises(StateError):
        ks.write([(k(b"a"), "not bytes")])
    with pytest.raises(StateError):
        ks.get_many(["not bytes"])
    err = translate(Exception("Corruption: bad block"), "read state")
    assert type(err) is StateError and "Corruption: bad block" in str(err)
    err = translate(Exception("IO error: lock hold by current process ... /LOCK: x"), "open")
    assert isinstance(err, StateLockedError)


def test_restore_of_a_corrupt_snapshot_raises_snapshot_error(rocks, tmp_path):
    backend = rocks()
    backend.keyed_state("agg").write([(k(b"a"), b"1")])
    backend.snapshot(str(tmp_path / "s"))
    manifest = next(p for p in (tmp_path / "s").iterdir() if p.name.startswith("MANIFEST"))
    manifest.write_bytes(b"garbage")
    with pytest.raises(SnapshotError):
        backend.restore(str(tmp_path / "s"))


def test_options_are_frozen_and_validated():
    opts = RocksDBOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.write_buffer_size = 1  # type: ignore[misc]
    resources = RocksDBResources(RocksDBMemory(budget=None))
    assert isinstance(opts.to_options(resources), rocksdict.Options)
    assert opts.memory == RocksDBMemory(budget=128 << 20, per_process=True)
    with pytest.raises(ConfigError, match="compression"):
        RocksDBOptions(compression="brotli").to_options(resources)


def test_one_block_cache_serves_every_operator_across_restores(rocks, tmp_path):
    backend = rocks(memory=RocksDBMemory(budget=12 << 20, per_process=False))
    cache = backend.resources.cache
    ops = [backend.keyed_state(f"op{i}") for i in range(3)]
    for i, ks in enumerate(ops):
        ks.write([(k(b"%d-%d" % (i, j)), os.urandom(100)) for j in range(7000)])  # many blocks
    backend.snapshot(str(tmp_path / "s"))  # flushed: reads now come from SST blocks
    usage = [cache.get_usage()]
    for i, ks in enumerate(ops):  # reads of every operator go through the one cache
        assert None not in ks.get_many([k(b"%d-%d" % (i, j)) for j in range(0, 7000, 7)])
        usage.append(cache.get_usage())
    assert usage == sorted(usage) and usage[-1] > usage[0]
    backend.restore(str(tmp_path / "s"))
    assert backend.resources.cache is cache


def test_custom_options_open(rocks, tmp_path):
    backend = rocks(compression="zstd", disable_wal=False, bloom_bits_per_key=0,
                    memory=RocksDBMemory(budget=None, block_cache_size=1 << 20))
    backend.keyed_state("agg").write([(k(b"a"), b"1")])
    assert backend.snapshot(str(tmp_path / "s")) > 0
