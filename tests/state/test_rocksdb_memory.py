"""RocksDB's bounded memory: Flink's keys reach RocksDB (checked through RocksDB's own properties
and OPTIONS file), budgets are shared as Flink shares them, bad values name their key.
"""

from __future__ import annotations

import glob
import os

import pytest

from streamsql.core.config import check_setting
from streamsql.core.errors import ConfigError
from streamsql.state.factory import create_backend
from streamsql.state.rocksdb_memory import RocksDBMemory
from tests.state.fixtures import encode_key as k

MIB = 1 << 20


@pytest.fixture()
def backends(tmp_path):
    """A factory of open RocksDB backends built from a job's settings (closed at teardown)."""
    opened = []

    def factory(**settings):
        backend = create_backend("rocksdb", settings)
        backend.open(str(tmp_path / f"work{len(opened)}"))
        opened.append(backend)
        return backend

    yield factory
    for backend in opened:
        backend.close()


def prop(backend, name: str) -> int:
    return backend._db.property_int_value(f"rocksdb.{name}")


def rocksdb_option(backend, name: str) -> str:
    """An option as RocksDB itself wrote it into the database's newest OPTIONS file."""
    newest = max(glob.glob(os.path.join(backend._path, "OPTIONS-*")), key=lambda p: int(p.rsplit("-", 1)[1]))
    with open(newest, encoding="utf-8") as f:
        return next(line.split("=", 1)[1].strip() for line in f if line.strip().startswith(f"{name}="))


def fill(backend, n: int, size: int = 100, op: str = "agg") -> list[bytes]:
    keys = [k(b"key-%07d" % i) for i in range(n)]
    backend.keyed_state(op).write([(key, os.urandom(size)) for key in keys])
    return keys


def test_fixed_per_slot_is_split_as_flink_between_cache_and_memtables(backends):
    backend = backends(**{"state.backend.rocksdb.memory.fixed-per-slot": "30 mb"})
    assert prop(backend, "block-cache-capacity") == 25 * MIB  # (3 - 0.5) / 3 of 30 MiB
    assert backend.resources.write_buffer_manager.get_buffer_size() == 10 * MIB  # 2 * 0.5 / 3
    fill(backend, 40_000)  # about 5 MiB in the memtable
    memtables = prop(backend, "cur-size-all-mem-tables")
    assert memtables > 4 * MIB
    # The write-buffer manager charges the memtables to the block cache.
    assert prop(backend, "block-cache-usage") >= memtables * 0.9
    other = backends(**{"state.backend.rocksdb.memory.fixed-per-slot": "30 mb"})
    assert other.resources is not backend.resources  # one budget per slot (per backend)


def test_write_buffer_ratio_moves_the_split(backends):
    backend = backends(**{"state.backend.rocksdb.memory.fixed-per-slot": "30 mb",
                          "state.backend.rocksdb.memory.write-buffer-ratio": "0.25"})
    assert prop(backend, "block-cache-capacity") == int(2.75 * 30 * MIB / 3)
    assert backend.resources.write_buffer_manager.get_buffer_size() == 5 * MIB


def test_managed_memory_is_one_cache_for_all_backends_of_the_process(backends):
    a = backends(**{"taskmanager.memory.managed.size": "48 mb"})
    b = backends(**{"taskmanager.memory.managed.size": "48 mb"})
    assert a.resources is b.resources
    assert prop(a, "block-cache-capacity") == prop(b, "block-cache-capacity") == 40 * MIB
    before = prop(b, "block-cache-usage")
    fill(a, 40_000)  # a's memtable, charged to the cache b reads through too
    assert prop(b, "block-cache-usage") >= before + 4 * MIB
    default = backends()
    assert prop(default, "block-cache-capacity") == int(2.5 * 128 * MIB / 3)  # 128 mb managed


def test_fixed_per_tm_applies_only_without_managed_memory(backends):
    managed = backends(**{"state.backend.rocksdb.memory.fixed-per-tm": "24 mb",
                          "taskmanager.memory.managed.size": "36 mb"})
    assert prop(managed, "block-cache-capacity") == 30 * MIB  # managed wins, as in Flink
    a = backends(**{"state.backend.rocksdb.memory.managed": "false",
                    "state.backend.rocksdb.memory.fixed-per-tm": "24 mb"})
    b = backends(**{"state.backend.rocksdb.memory.managed": "false",
                    "state.backend.rocksdb.memory.fixed-per-tm": "24 mb"})
    assert a.resources is b.resources and prop(a, "block-cache-capacity") == 20 * MIB


def test_without_memory_control_each_backend_has_its_block_cache_size(backends):
    backend = backends(**{"state.backend.rocksdb.memory.managed": "false"})
    assert prop(backend, "block-cache-capacity") == 8 * MIB  # Flink's block.cache-size default
    sized = backends(**{"state.backend.rocksdb.memory.managed": "false",
                        "state.backend.rocksdb.block.cache-size": "3mb"})
    assert prop(sized, "block-cache-capacity") == 3 * MIB
    assert sized.resources.write_buffer_manager is None
    fill(sized, 40_000)
    assert prop(sized, "cur-size-all-mem-tables") > 4 * MIB
    assert prop(sized, "block-cache-usage") < MIB  # memtables are not charged to the cache


def test_write_buffer_size_and_uncaching_reach_rocksdb(backends):
    backend = backends(**{"state.backend.rocksdb.writebuffer.size": "3 mb"})
    assert rocksdb_option(backend, "write_buffer_size") == str(3 * MIB)
    assert rocksdb_option(backend, "uncache_aggressiveness") == "300"
    assert rocksdb_option(backends(), "write_buffer_size") == str(16 * MIB)


@pytest.mark.parametrize("aggressiveness", [300, 0])
def test_blocks_of_files_compacted_away_leave_the_cache(tmp_path, aggressiveness):
    from streamsql.state.rocksdb import RocksDBOptions, RocksDBStateBackend

    memory = RocksDBMemory(budget=None, block_cache_size=64 * MIB)
    backend = RocksDBStateBackend(RocksDBOptions(memory=memory, uncache_aggressiveness=aggressiveness))
    backend.open(str(tmp_path / "work"))
    try:
        state = backend.keyed_state("agg")
        for _ in range(3):  # three SST files, as checkpoints flush them (4 would start a compaction)
            keys = fill(backend, 30_000)
            backend._db.flush(True)
        state.get_many(keys)  # the data blocks of the newest file, every file's index and filter
        cached = prop(backend, "block-cache-usage")
        backend._db.compact_range(None, None)  # the three files are replaced by one
        after = prop(backend, "block-cache-usage")
    finally:
        backend.close()
    assert cached > 3 * MIB
    if aggressiveness:
        assert after < cached * 0.1  # erased with the files
    else:
        assert after >= cached * 0.9  # they stay until the LRU evicts them


def test_reads_for_a_decoding_cache_leave_the_block_cache_alone(tmp_path):
    """``get_many(cache=False)`` (a WriteBehindCache's loads) reads the same values without
    filling the block cache; a snapshot, restore and reopen still work after such reads (the
    uncached handle must not hold the database open)."""
    from streamsql.state.rocksdb import RocksDBOptions, RocksDBStateBackend

    memory = RocksDBMemory(budget=None, block_cache_size=64 * MIB)
    backend = RocksDBStateBackend(RocksDBOptions(memory=memory))
    backend.open(str(tmp_path / "work"))
    try:
        state = backend.keyed_state("agg")
        keys = fill(backend, 30_000)
        backend._db.flush(True)
        before = prop(backend, "block-cache-usage")
        uncached = state.get_many(keys, cache=False)
        after_uncached = prop(backend, "block-cache-usage")
        cached = state.get_many(keys)
        after_cached = prop(backend, "block-cache-usage")
        assert uncached == cached and all(v is not None and len(v) == 100 for v in cached)
        assert after_uncached - before < MIB  # index and filter blocks at most
        assert after_cached - after_uncached > 2 * MIB  # the data blocks (30,000 × ~110 bytes)

        backend.snapshot(str(tmp_path / "snap"))
        state.write([(keys[0], b"changed")])
        assert state.get_many([keys[0]], cache=False) == [b"changed"]
        backend.restore(str(tmp_path / "snap"))
        assert backend.keyed_state("agg").get_many([keys[0], keys[1]], cache=False) == cached[:2]
    finally:
        backend.close()
    backend.open(str(tmp_path / "work"))  # the lock was released with the uncached handle
    backend.close()


@pytest.mark.parametrize(("key", "value", "message"), [
    ("state.backend.rocksdb.memory.fixed-per-slot", "lots", "is not a memory size"),
    ("state.backend.rocksdb.memory.fixed-per-slot", "0 mb", "above 0 bytes"),
    ("state.backend.rocksdb.memory.fixed-per-tm", "12 parsecs", "is not a memory size"),
    ("taskmanager.memory.managed.size", "-1", "is not a memory size"),
    ("state.backend.rocksdb.memory.write-buffer-ratio", "1.5", "between 0 and 1"),
    ("state.backend.rocksdb.memory.managed", "yes", "'true' or 'false'"),
    ("state.backend.rocksdb.block.cache-size", "big", "is not a memory size"),
    ("state.backend.rocksdb.writebuffer.size", "64 megs", "is not a memory size"),
])
def test_a_bad_value_is_an_error_naming_the_key(key, value, message):
    with pytest.raises(ConfigError, match=message) as info:
        settings = {key: value, "state.backend.rocksdb.memory.managed": "false"} if key.endswith(
            ("fixed-per-tm", "cache-size")) else {key: value}
        create_backend("rocksdb", settings)
    assert f"'{key}' = '{value}'" in str(info.value)
    if message != "above 0 bytes":  # SET checks the form; a zero budget fails at job start
        with pytest.raises(ConfigError, match=message):
            check_setting(key, value)


def test_a_failed_uncached_read_kept_as_an_error_does_not_hold_the_database(tmp_path):
    """A failed job keeps its error, and the error's traceback the frames of the failed read: the
    uncached handle in one of them kept the database locked after close (a reopen in the same
    process, a restart, timed out on RocksDB's LOCK) and read the closed database's data. Closing
    the backend closes the handle too."""
    from streamsql.state.exceptions import StateError
    from streamsql.state.rocksdb import RocksDBOptions, RocksDBStateBackend

    backend = RocksDBStateBackend(RocksDBOptions(open_timeout=0.5))
    backend.open(str(tmp_path / "work"))
    state = backend.keyed_state("agg")
    state.write([(b"k", b"v")])
    assert state.get_many([b"k"], cache=False) == [b"v"]
    with pytest.raises(StateError) as kept:  # a str key: the multi-get fails inside the read
        state.get_many(["not bytes"], cache=False)
    backend.close()
    backend.open(str(tmp_path / "work"))  # was: StateLockedError after open_timeout
    try:
        assert backend.keyed_state("agg").get_many([b"k"], cache=False) == [None]  # open() starts empty
    finally:
        backend.close()
    assert kept.value is not None
