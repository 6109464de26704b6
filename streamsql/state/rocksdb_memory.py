r"""RocksDB's memory, bounded by design as Flink's managed memory for RocksDB.

Flink caps the three big users of RocksDB memory — block cache, memtables, index and filter
blocks — with one number: all RocksDB instances that share a budget read through one LRU block
cache, a write-buffer manager charges their memtables to that same cache, and index and filter
blocks live in it too (``cache_index_and_filter_blocks``, L0's pinned). We do the same, with
Flink's keys and Flink's split of a budget ``M`` (``RocksDBMemoryControllerUtils``):

- cache capacity ``(3 - r) * M / 3`` and write-buffer-manager limit ``2 * r * M / 3``, with
  ``r`` = ``'state.backend.rocksdb.memory.write-buffer-ratio'`` (0.5): the manager flushes a
  memtable once the mutable ones pass 7/8 of its limit, and a memtable being flushed may still
  grow, so the cache keeps a margin beyond the charged limit;
- where ``M`` comes from, in Flink's order of precedence:

  1. ``'state.backend.rocksdb.memory.fixed-per-slot'``: ``M`` for each slot. A slot here is one
     state backend (one task of a job: all its operators share one database);
  2. ``'state.backend.rocksdb.memory.managed'`` (``true``, the default): the TaskManager's
     managed memory ``'taskmanager.memory.managed.size'`` (128 mb, Flink's default for a local
     execution). The process is the TaskManager and its backends share that one budget (Flink
     gives each slot a fixed share of it; the bound on the process is the same);
  3. ``'state.backend.rocksdb.memory.fixed-per-tm'`` (when ``managed`` is ``false``): ``M``
     shared by every backend of the process;
  4. none of them: memory is not controlled; each backend has its own block cache of
     ``'state.backend.rocksdb.block.cache-size'`` (8 mb, Flink's default) and its memtables are
     bounded only per database (``writebuffer.size`` × ``max_write_buffer_number``).

A budget shared by the process lives as long as a backend uses it (a weak registry), so a
process that closes all its jobs gives the cache back.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import rocksdict

from streamsql.core.config import ratio
from streamsql.core.values import parse_bool, positive_bytes

MANAGED = "state.backend.rocksdb.memory.managed"
FIXED_PER_SLOT = "state.backend.rocksdb.memory.fixed-per-slot"
FIXED_PER_TM = "state.backend.rocksdb.memory.fixed-per-tm"
WRITE_BUFFER_RATIO = "state.backend.rocksdb.memory.write-buffer-ratio"
MANAGED_SIZE = "taskmanager.memory.managed.size"
BLOCK_CACHE_SIZE = "state.backend.rocksdb.block.cache-size"

MIB = 1024 * 1024


@dataclass(frozen=True)
class RocksDBMemory:
    """Where a backend's RocksDB memory comes from (see the module docstring).

    Attributes:
        budget: bytes of the bounded total ``M``; None when memory is not controlled.
        per_process: True when every backend of the process shares the budget (``managed``,
            ``fixed-per-tm``); False for one budget per backend (``fixed-per-slot``).
        write_buffer_ratio: the share of ``M`` memtables may take, in (0, 1).
        block_cache_size: bytes of each backend's own cache when ``budget`` is None.
    """

    budget: int | None = 128 * MIB
    per_process: bool = True
    write_buffer_ratio: float = 0.5
    block_cache_size: int = 8 * MIB

    @classmethod
    def from_config(cls, settings: dict[str, str]) -> RocksDBMemory:
        """The memory settings of a job's configuration (Flink's keys; absent keys: defaults).

        Raises:
            ConfigError: naming the key, for a size, ratio or boolean that does not parse,
                or a budget of 0 bytes.
        """
        ratio_value = cls.write_buffer_ratio
        if settings.get(WRITE_BUFFER_RATIO) is not None:
            ratio_value = ratio(settings[WRITE_BUFFER_RATIO], WRITE_BUFFER_RATIO)
        cache_size = cls.block_cache_size
        if settings.get(BLOCK_CACHE_SIZE) is not None:
            cache_size = _positive(settings, BLOCK_CACHE_SIZE)
        managed = parse_bool(settings.get(MANAGED) or "true", MANAGED)
        if settings.get(FIXED_PER_SLOT) is not None:
            budget, per_process = _positive(settings, FIXED_PER_SLOT), False
        elif managed:
            budget = cls.budget if settings.get(MANAGED_SIZE) is None else _positive(settings, MANAGED_SIZE)
            per_process = True
        elif settings.get(FIXED_PER_TM) is not None:
            budget, per_process = _positive(settings, FIXED_PER_TM), True
        else:
            budget, per_process = None, False
        return cls(budget, per_process, ratio_value, cache_size)

    @property
    def cache_capacity(self) -> int:
        """Bytes of the block cache: ``(3 - r) * M / 3``, or ``block_cache_size`` uncontrolled."""
        if self.budget is None:
            return self.block_cache_size
        return int((3 - self.write_buffer_ratio) * self.budget / 3)

    @property
    def write_buffer_limit(self) -> int | None:
        """Bytes of memtables charged to the cache (``2 * r * M / 3``); None uncontrolled."""
        if self.budget is None:
            return None
        return int(2 * self.budget * self.write_buffer_ratio / 3)


class RocksDBResources:
    """One block cache and (with a budget) the write-buffer manager charging memtables to it.

    Attributes:
        cache: the LRU block cache every database of these resources reads through.
        write_buffer_manager: None when memory is not controlled.
    """

    def __init__(self, memory: RocksDBMemory):
        self.memory = memory
        self.cache = rocksdict.Cache(memory.cache_capacity)
        limit = memory.write_buffer_limit
        # allow_stall=False, as Flink's: past the limit the writing database flushes, writes never stall.
        self.write_buffer_manager = (
            None if limit is None
            else rocksdict.WriteBufferManager.new_write_buffer_manager_with_cache(limit, False, self.cache))

    def usage(self) -> dict[str, int]:
        """Bytes in use now, by the cache's and the write-buffer manager's own counters.

        ``cache``: everything charged to the cache, memtables included; ``pinned``: entries in
        use, the pinned L0 index and filter blocks among them; ``memtables``: the write-buffer
        manager's count (0 without one).
        """
        wbm = self.write_buffer_manager
        return {"cache": self.cache.get_usage(), "pinned": self.cache.get_pinned_usage(),
                "memtables": wbm.get_usage() if wbm is not None else 0}


_shared: weakref.WeakValueDictionary[RocksDBMemory, RocksDBResources] = weakref.WeakValueDictionary()
_live: weakref.WeakSet[RocksDBResources] = weakref.WeakSet()  # every budget in use, shared or not
_shared_lock = threading.Lock()


def acquire(memory: RocksDBMemory) -> RocksDBResources:
    """The resources a backend with these settings uses.

    A per-process budget is the process's one (created on first use); a per-slot or
    uncontrolled one is the backend's own.
    """
    with _shared_lock:
        resources = _shared.get(memory) if memory.per_process else None
        if resources is None:
            resources = RocksDBResources(memory)
            _live.add(resources)
            if memory.per_process:
                _shared[memory] = resources
        return resources


def process_usage() -> list[dict[str, int]]:
    """The :meth:`RocksDBResources.usage` of each block cache the process's backends use now."""
    with _shared_lock:
        live = list(_live)
    return [r.usage() for r in live]


def _positive(settings: dict[str, str], key: str) -> int:
    return positive_bytes(settings[key], key)
