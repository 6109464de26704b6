r"""The ``rocksdb`` state backend: one RocksDB database (via rocksdict) per job instance.

One backend serves the keyed state of every operator of the job (``keyed_state(op)`` per
operator id) and snapshots and restores all of them at once. Its memory is bounded as Flink's
managed memory for RocksDB (:mod:`streamsql.state.rocksdb_memory`): by default every backend of
the process reads through one LRU block cache whose write-buffer manager charges the memtables to
it, index and filter blocks cached in it too. The resources are taken with the backend and kept
across ``open()``/``restore()`` (RocksDB keys cached blocks by file, so a reopened database never
hits a stale block). The blocks of an SST file that compaction has made obsolete are erased from
the cache at once (``uncache_aggressiveness``), so the cache holds the live files' blocks, not
those of the hundreds of files a job with frequent checkpoints flushes and compacts away.

Layout: ``workdir/db`` is the live database, opened in rocksdict's *raw mode*
(``Options(raw_mode=True)``): keys and values are plain ``bytes`` passed straight to RocksDB, with
no pickling and no rocksdict type tag, and any other type raises. Every operator is a key prefix,
``operator_id.encode() + b"\x00"``, followed by the caller's encoded key (2-byte key group, key),
so one operator's state is the contiguous range ``[id + 0x00, id + 0x01)``; the NUL separator
keeps ``op1`` apart from ``op10``.

Map state (:meth:`~streamsql.state.base.KeyedState.get_maps`): an entry is the key ``prefix +
entry key``; besides, each map that was put to has a *marker*, the key ``prefix`` itself (entry
key ``b""``, never an entry's, value :data:`MAP_MARKER`), so that reading a map that does not
exist — most probes of a join — is a point read the Bloom filters answer, not a seek (a seek is
slower, and the slower the more SST files a growing database has). A marker outlives its map's
last entry until a read finds the map empty and deletes it. Markers are state like any entry:
``items()``, snapshots and rescale carry them.

Durability comes from snapshots only. ``open()`` wipes ``workdir/db``; ``snapshot(dir)`` flushes
the memtables and creates a RocksDB checkpoint (SST files hard-linked, so consecutive snapshots
share unchanged files); ``restore(dir)`` replaces ``workdir/db`` with a copy of the snapshot whose
SST files are again hard links (copies across filesystems).
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import rocksdict

from streamsql.core.errors import os_error_text
from streamsql.core.values import positive_bytes
from streamsql.state.base import KeyedState, MapEntry, MapPut, StateBackend, validate_operator_id
from streamsql.state.exceptions import (
    SnapshotError,
    StateClosedError,
    StateError,
    is_lock_error,
    translate,
)
from streamsql.state.files import fsync_dir
from streamsql.state.rocksdb_memory import RocksDBMemory, RocksDBResources, acquire

T = TypeVar("T")

DB_DIR = "db"
ITER_CHUNK = 4096  # entries read per iterator in items(); no iterator outlives a chunk
_IMMUTABLE_SUFFIXES = (".sst", ".blob")  # never modified once written: safe to hard-link
_COMPRESSIONS = {
    "none": rocksdict.DBCompressionType.none,
    "snappy": rocksdict.DBCompressionType.snappy,
    "lz4": rocksdict.DBCompressionType.lz4,
    "lz4hc": rocksdict.DBCompressionType.lz4hc,
    "zstd": rocksdict.DBCompressionType.zstd,
    "zlib": rocksdict.DBCompressionType.zlib,
}
WRITE_BUFFER_SIZE = "state.backend.rocksdb.writebuffer.size"
MAP_MARKER = b"\x01"  #: the value of a map's marker (module docstring)


@dataclass(frozen=True)
class RocksDBOptions:
    """RocksDB tuning, with defaults for a small (2-core) machine.

    Attributes:
        write_buffer_size: bytes per memtable (16 MiB; Flink's
            ``'state.backend.rocksdb.writebuffer.size'``, whose default is 64 MiB).
        max_write_buffer_number: memtables kept before writes stall.
        target_file_size_base: bytes per SST file at level 1.
        memory: the block cache and memtable budget (:class:`RocksDBMemory`: by default 128 MiB
            shared by every backend of the process).
        uncache_aggressiveness: RocksDB's effort to erase an obsolete SST file's blocks from
            the cache when compaction deletes the file (300, the value RocksDB's own docs
            expect to make its default; 0 leaves them to age out of the LRU).
        block_size: bytes per data block (16 KiB).
        bloom_bits_per_key: Bloom filter bits per key (10 ≈ 1 % false positives); 0 disables.
        memtable_bloom_ratio: share of each memtable's size given to a whole-key Bloom filter
            (0.1), so a lookup of a key that was never written (every new GROUP BY key) skips
            the memtable search: measured 2.4 → 1.3 µs per absent key in a multi-get; 0 disables.
        compression: ``lz4`` (default), ``zstd``, ``snappy``, ``zlib``, ``lz4hc`` or ``none``.
        max_background_jobs: threads for flushes and compactions (the core count).
        keep_log_file_num: RocksDB info ``LOG`` files kept.
        disable_wal: skip the write-ahead log. Safe here: the live database is never recovered
            after a crash — ``open()`` wipes it and the job restores its last checkpoint, and
            ``snapshot()`` flushes the memtables before the checkpoint, so every acknowledged
            snapshot is complete in its SST files without a WAL. Saves one write of every byte.
        open_timeout: seconds to keep retrying while the database lock is held.
        open_backoff: seconds of the first retry pause (doubles, at most 0.5 s).
    """

    write_buffer_size: int = 16 * 1024 * 1024
    max_write_buffer_number: int = 3
    target_file_size_base: int = 32 * 1024 * 1024
    memory: RocksDBMemory = RocksDBMemory()
    uncache_aggressiveness: int = 300
    block_size: int = 16 * 1024
    bloom_bits_per_key: float = 10.0
    memtable_bloom_ratio: float = 0.1
    compression: str = "lz4"
    max_background_jobs: int = 2
    keep_log_file_num: int = 2
    disable_wal: bool = True
    open_timeout: float = 5.0
    open_backoff: float = 0.02

    @classmethod
    def from_config(cls, settings: dict[str, str]) -> RocksDBOptions:
        """The options of a job's configuration: Flink's RocksDB keys, defaults for the rest.

        Raises:
            ConfigError: naming the key, for a value that does not parse.
        """
        memory = RocksDBMemory.from_config(settings)
        size = settings.get(WRITE_BUFFER_SIZE)
        if size is None:
            return cls(memory=memory)
        return cls(write_buffer_size=positive_bytes(size, WRITE_BUFFER_SIZE), memory=memory)

    def to_options(self, resources: RocksDBResources) -> rocksdict.Options:
        """The ``rocksdict.Options`` (raw mode, create if missing) for these settings.

        Args:
            resources: the block cache the database reads through and the write-buffer
                manager its memtables are charged to (the backend's).

        Raises:
            ConfigError: for an unknown compression name.
        """
        from streamsql.core.errors import ConfigError

        compression = _COMPRESSIONS.get(self.compression)
        if compression is None:
            msg = f"Unknown RocksDB compression '{self.compression}'; use one of {sorted(_COMPRESSIONS)}"
            raise ConfigError(msg)
        opts = rocksdict.Options(raw_mode=True)
        opts.create_if_missing(True)
        opts.set_write_buffer_size(self.write_buffer_size)
        opts.set_max_write_buffer_number(self.max_write_buffer_number)
        opts.set_target_file_size_base(self.target_file_size_base)
        opts.set_max_background_jobs(self.max_background_jobs)
        opts.set_keep_log_file_num(self.keep_log_file_num)
        opts.set_compression_type(compression())
        if resources.write_buffer_manager is not None:
            opts.set_write_buffer_manager(resources.write_buffer_manager)
        if self.memtable_bloom_ratio > 0:
            opts.set_memtable_prefix_bloom_ratio(self.memtable_bloom_ratio)
            opts.set_memtable_whole_key_filtering(True)
        table = rocksdict.BlockBasedOptions()
        table.set_block_cache(resources.cache)
        table.set_block_size(self.block_size)
        if self.bloom_bits_per_key > 0:
            table.set_bloom_filter(self.bloom_bits_per_key, False)
        table.set_cache_index_and_filter_blocks(True)
        table.set_pin_l0_filter_and_index_blocks_in_cache(True)
        opts.set_block_based_table_factory(table)
        return opts

    def write_options(self) -> rocksdict.WriteOptions:
        """The ``rocksdict.WriteOptions`` for every write (WAL off unless ``disable_wal=False``)."""
        wo = rocksdict.WriteOptions()
        wo.disable_wal = self.disable_wal  # a property in rocksdict 0.3.x, not a method
        return wo


class RocksDBKeyedState(KeyedState):
    """One operator's keyed state: the key range ``operator_id + 0x00 ...`` of the database."""

    def __init__(self, backend: RocksDBStateBackend, operator_id: str, prefix: bytes):
        self._backend = backend
        self.operator_id = operator_id
        self._prefix = prefix
        self._upper = prefix[:-1] + b"\x01"  # first key after the operator's range

    def get_many(self, keys: list[bytes], cache: bool = True) -> list[bytes | None]:
        """Values for ``keys`` in order (None where absent), with one RocksDB multi-get.

        ``cache=False`` reads through a handle whose reads do not fill the block cache: the
        caller keeps the values decoded, and a second copy of their blocks in the cache was
        most of the cache's memory (AGG over 1M keys: peak RSS 400–441 → 336–339 MiB at the same
        events/s, benchmarks/README.md). The blocks are then read from the OS page cache.

        Raises:
            StateError: if a key is not bytes or RocksDB fails.
            StateClosedError: if the backend is closed.
        """
        if not keys:
            return []
        db = self._backend._live_db() if cache else self._backend._uncached_db()
        p = self._prefix
        try:
            return db.get([p + k for k in keys])
        except Exception as e:
            raise translate(e, f"read the state of operator '{self.operator_id}'") from e

    def write(self, puts: list[tuple[bytes, bytes]], deletes: list[bytes] = ()) -> None:
        """Apply ``puts`` then ``deletes`` atomically in one ``WriteBatch``.

        A key in both ends up deleted.

        Raises:
            StateError: if a key or value is not bytes or RocksDB fails (nothing is applied).
            StateClosedError: if the backend is closed.
        """
        if not puts and not deletes:
            return
        db = self._backend._live_db()
        p = self._prefix
        try:
            batch = rocksdict.WriteBatch(raw_mode=True)
            for key, value in puts:
                batch.put(p + key, value)
            for key in deletes:
                batch.delete(p + key)
            db.write(batch)
        except Exception as e:
            raise translate(e, f"write the state of operator '{self.operator_id}'") from e

    def get_maps(self, prefixes: list[bytes]) -> list[list[tuple[bytes, bytes]]]:
        """Per map prefix, its entries ``(entry key, value)`` in key order.

        One multi-get of the maps' markers (module docstring), then one iterator seeking to each
        map that has one. A marker whose map turns out empty is deleted.

        Raises:
            StateError: if RocksDB fails.
            StateClosedError: if the backend is closed.
        """
        if not prefixes:
            return []
        db = self._backend._live_db()
        p = self._prefix
        out: list[list[tuple[bytes, bytes]]] = [[] for _ in prefixes]
        try:
            marked = [i for i, v in enumerate(db.get([p + prefix for prefix in prefixes])) if v is not None]
            if not marked:
                return out
            stale = []
            it = db.iter()
            try:
                for i in marked:
                    full = p + prefixes[i]
                    cut = len(full)
                    entries = out[i]
                    it.seek(full)
                    it.next()  # past the marker
                    while it.valid():
                        key = it.key()
                        if not key.startswith(full):
                            break
                        entries.append((key[cut:], it.value()))
                        it.next()
                    if not entries:
                        stale.append(full)
            finally:
                del it  # it holds a reference to the database
            if stale:
                batch = rocksdict.WriteBatch(raw_mode=True)
                for key in stale:
                    batch.delete(key)
                db.write(batch)
        except Exception as e:
            raise translate(e, f"read the state of operator '{self.operator_id}'") from e
        return out

    def get_map_values(self, entries: list[MapEntry]) -> list[bytes | None]:
        """Values of map entries ``(prefix, entry key)`` in order (None where absent): one multi-get.

        Raises:
            StateError: if RocksDB fails.
            StateClosedError: if the backend is closed.
        """
        return self.get_many([prefix + key for prefix, key in entries])

    def write_maps(self, puts: list[MapPut], deletes: list[MapEntry] = ()) -> None:
        """Put then delete map entries (an entry is the key ``prefix + entry key``) through :meth:`write`.

        Each map put to gets its marker (module docstring) in the same ``WriteBatch``.

        Raises:
            StateError: if a key or value is not bytes or RocksDB fails (nothing is applied).
            StateClosedError: if the backend is closed.
        """
        markers = [(prefix, MAP_MARKER) for prefix in dict.fromkeys(prefix for prefix, _, _ in puts)]
        self.write(markers + [(prefix + key, value) for prefix, key, value in puts],
                   [prefix + key for prefix, key in deletes])

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """All (key, value) pairs of this operator in key order (hence key-group order).

        Keys are returned as the caller wrote them (without the operator prefix). Reads in
        chunks of ``ITER_CHUNK`` entries, each with a fresh iterator, so an abandoned generator
        never keeps the database open; a write made while iterating may or may not be seen.

        Raises:
            StateError: if RocksDB fails.
            StateClosedError: if the backend is closed.
        """
        start = self._prefix
        cut = len(self._prefix)
        while True:
            chunk = self._read_chunk(start)
            for key, value in chunk:
                yield key[cut:], value
            if len(chunk) < ITER_CHUNK:
                return
            start = chunk[-1][0] + b"\x00"  # the smallest key after the last one read

    def _read_chunk(self, start: bytes) -> list[tuple[bytes, bytes]]:
        # A separate frame, so that the suspended items() generator holds no database reference.
        db = self._backend._live_db()
        read_opt = rocksdict.ReadOptions()
        # items(from_key=...) seeks to the lower bound itself; only the upper bound is enforced.
        read_opt.set_iterate_upper_bound(self._upper)
        chunk: list[tuple[bytes, bytes]] = []
        try:
            for kv in db.items(from_key=start, read_opt=read_opt):
                chunk.append(kv)
                if len(chunk) == ITER_CHUNK:
                    break
        except Exception as e:
            raise translate(e, f"iterate the state of operator '{self.operator_id}'") from e
        return chunk

    def clear(self) -> None:
        """Remove every entry of this operator (one ``delete_range`` tombstone).

        Raises:
            StateError: if RocksDB fails.
            StateClosedError: if the backend is closed.
        """
        db = self._backend._live_db()
        try:
            db.delete_range(self._prefix, self._upper)
        except Exception as e:
            raise translate(e, f"clear the state of operator '{self.operator_id}'") from e


class RocksDBStateBackend(StateBackend):
    """Keyed state of every operator in one RocksDB database at ``workdir/db``.

    ``KeyedState`` handles stay valid across ``restore()`` (they look the database up per call).

    Args:
        options: tuning; defaults to :class:`RocksDBOptions` ().

    Attributes:
        resources: the block cache and write-buffer manager of every database this backend
            opens (shared with the process's other backends unless the memory is per slot).
    """

    name = "rocksdb"

    def __init__(self, options: RocksDBOptions | None = None):
        self.options = options or RocksDBOptions()
        self.resources = acquire(self.options.memory)
        self._db: rocksdict.Rdict | None = None
        self._uncached: rocksdict.Rdict | None = None  # _db's reads that skip the block cache
        self._path: str | None = None
        self._states: dict[str, RocksDBKeyedState] = {}

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self, workdir: str) -> None:
        """Start with empty state: wipe ``workdir/db`` (left by an earlier run) and create it.

        Raises:
            StateLockedError: if another handle still holds the database after
                ``options.open_timeout`` seconds.
            StateError: if the directory or database cannot be created.
        """
        if self._db is not None:
            self.close()
        try:
            os.makedirs(workdir, exist_ok=True)
        except OSError as e:
            msg = f"Cannot create state directory '{workdir}': {os_error_text(e)}"
            raise StateError(msg) from e
        path = os.path.join(workdir, DB_DIR)
        self._remove_db(path)
        self._path = path
        self._db = self._open_db(path)

    def keyed_state(self, operator_id: str) -> KeyedState:
        """The state of operator ``operator_id`` (the same object on every call).

        Raises:
            StateError: for an empty id or one containing NUL.
        """
        state = self._states.get(operator_id)
        if state is None:
            prefix = validate_operator_id(operator_id)
            state = self._states[operator_id] = RocksDBKeyedState(self, operator_id, prefix)
        return state

    def operator_ids(self) -> list[str]:
        """The operators with entries, sorted: one seek per operator (to the end of its range).

        Raises:
            StateClosedError: if the backend is not open.
        """
        db = self._live_db()
        found: list[str] = []
        start = b""
        while True:
            first = next(iter(db.keys(from_key=start)), None)
            if first is None:
                return found
            cut = first.index(b"\x00")
            found.append(first[:cut].decode())
            start = first[:cut] + b"\x01"  # past every key of that operator

    def snapshot(self, directory: str) -> int:
        """Flush the memtables and create a RocksDB checkpoint in ``directory``.

        SST files are hard links to the live database's (immutable) files, so a snapshot costs
        little more than the data written since the previous one.

        Args:
            directory: must not exist; missing parents are created.

        Returns:
            The total size in bytes of the files in the snapshot, counting hard-linked files
            in full (the disk space newly used is smaller when files are shared).

        Raises:
            SnapshotError: if ``directory`` exists or the checkpoint fails.
            StateClosedError: if the backend is not open.
        """
        db = self._live_db()
        if os.path.lexists(directory):
            msg = f"Cannot snapshot state: '{directory}' already exists"
            raise SnapshotError(msg)
        parent = os.path.dirname(os.path.abspath(directory))
        try:
            os.makedirs(parent, exist_ok=True)
            db.flush(True)
            checkpoint = rocksdict.Checkpoint(db)
            try:
                checkpoint.create_checkpoint(directory)
            finally:
                del checkpoint  # it holds a reference to the database
            size = _fsync_files(directory)  # RocksDB syncs what it writes; this is cheap insurance
            fsync_dir(directory)
            fsync_dir(parent)
        except Exception as e:
            err = translate(e, f"snapshot state into '{directory}'")
            raise SnapshotError(str(err)) from e
        return size

    def restore(self, directory: str) -> None:
        """Replace all state with the snapshot in ``directory`` (which is left unchanged).

        Closes the database, replaces ``workdir/db`` with a copy of the snapshot (SST files
        hard-linked, other files copied, since RocksDB rewrites those) and reopens it.

        Raises:
            SnapshotError: if ``directory`` holds no RocksDB checkpoint or it cannot be opened;
                the backend is then closed.
            StateLockedError: if the database stays locked beyond ``options.open_timeout``.
            StateClosedError: if the backend is not open.
        """
        self._live_db()
        path = self._path
        if not os.path.isfile(os.path.join(directory, "CURRENT")):
            msg = f"Cannot restore state: '{directory}' holds no RocksDB snapshot (no CURRENT file)"
            raise SnapshotError(msg)
        self._close_db()
        self._remove_db(path)
        try:
            shutil.copytree(directory, path, copy_function=_link_or_copy)
        except OSError as e:
            self._path = None
            msg = f"Cannot copy state snapshot '{directory}' to '{path}': {os_error_text(e)}"
            raise SnapshotError(msg) from e
        try:
            self._db = self._open_db(path)
        except StateError as e:
            if type(e) is StateError:  # not a lock timeout: the snapshot itself is bad
                self._path = None
                msg = f"Cannot restore state snapshot '{directory}': {os_error_text(e)}"
                raise SnapshotError(msg) from e
            raise

    def close(self) -> None:
        """Close the database (its files stay in ``workdir/db`` until the next ``open()``)."""
        self._close_db()
        self._path = None

    # -- internals ---------------------------------------------------------------------------

    def _live_db(self) -> rocksdict.Rdict:
        db = self._db
        if db is None:
            msg = "The RocksDB state backend is not open"
            raise StateClosedError(msg)
        return db

    def _uncached_db(self) -> rocksdict.Rdict:
        """A second handle on the live database whose reads do not fill the block cache.

        A handle of its own because rocksdict 0.3 ignores a ``read_opt`` passed to a multi-get
        (it honours the handle's preset read options).
        """
        handle = self._uncached
        if handle is None:
            handle = self._live_db().get_column_family("default")
            no_fill = rocksdict.ReadOptions()
            no_fill.fill_cache(False)
            handle.set_read_options(no_fill)
            self._uncached = handle
        return handle

    def _close_db(self) -> None:
        # The uncached handle holds the database open: close it, not only forget it (a reference
        # kept elsewhere, e.g. by the traceback of a failed read in a job's error, kept the LOCK).
        handles = [self._uncached, self._db]
        self._uncached = self._db = None
        for handle in handles:
            if handle is not None:
                try:
                    handle.close()
                except Exception as e:
                    raise translate(e, f"close RocksDB state '{self._path}'") from e
        del handles

    def _retry_locked(self, action: str, fn: Callable[[], T]) -> T:
        """Run ``fn``, retrying with backoff while RocksDB reports the database lock is held."""
        deadline = time.monotonic() + self.options.open_timeout
        pause = self.options.open_backoff
        while True:
            try:
                return fn()
            except Exception as e:
                remaining = deadline - time.monotonic()
                if not is_lock_error(e) or remaining <= 0:
                    err = translate(e, action)
                    if is_lock_error(e):
                        err.args = (f"{err} — still locked after {self.options.open_timeout:g} s",)
                    raise err from e
            time.sleep(min(pause, remaining))
            pause = min(pause * 2, 0.5)

    def _open_db(self, path: str) -> rocksdict.Rdict:
        opts = self.options.to_options(self.resources)
        db = self._retry_locked(f"open RocksDB state '{path}'", lambda: rocksdict.Rdict(path, opts))
        db.set_write_options(self.options.write_options())
        # Not settable through rocksdict's Options: a mutable column-family option of RocksDB 9.
        db.set_options({"uncache_aggressiveness": str(self.options.uncache_aggressiveness)})
        return db

    def _remove_db(self, path: str) -> None:
        """Delete a database directory, waiting for its lock (never deletes a database in use)."""
        if not os.path.lexists(path):
            return
        if os.path.isfile(os.path.join(path, "CURRENT")):
            opts = rocksdict.Options(raw_mode=True)
            self._retry_locked(f"delete RocksDB state '{path}'", lambda: rocksdict.Rdict.destroy(path, opts))
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.remove(path)
        except OSError as e:
            msg = f"Cannot delete RocksDB state '{path}': {os_error_text(e)}"
            raise StateError(msg) from e


def _link_or_copy(src: str, dst: str) -> str:
    """Hard-link immutable RocksDB files (SST, blob); copy the rest, and across filesystems."""
    if src.endswith(_IMMUTABLE_SUFFIXES):
        try:
            os.link(src, dst)
            return dst
        except OSError as e:
            if e.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EACCES):
                raise
    return shutil.copy2(src, dst)


def _fsync_files(directory: str) -> int:
    """Fsync every file of a checkpoint (no-ops for already synced SSTs); returns total bytes."""
    total = 0
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            total += os.fstat(fd).st_size
        finally:
            os.close(fd)
    return total
