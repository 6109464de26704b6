"""A write-behind cache in front of a :class:`~streamsql.state.base.KeyedState`, over a value store.

An operator that reads and rewrites the same keys batch after batch (a ``GROUP BY``) keeps their
decoded values here across batches. :class:`WriteBehindCache` is the one protocol: every cached
key owns a *slot* (an index into the value store), a miss is read with one multi-get (backend
keys sorted), a changed slot is only marked dirty (:meth:`~WriteBehindCache.touch`), and dirty
values are encoded and written in one write batch when they are evicted or at
:meth:`~WriteBehindCache.flush`. The value store decides what a slot holds and how it is
encoded:

- :class:`ObjectValues` (here): one Python object per slot (e.g. a list of accumulators);
- :class:`~streamsql.state.fixed_cache.FixedWidthValues`: fixed-width records as numpy columns,
  so an operator folds and compares the values of a whole batch with array operations.

Exactly-once: the operator must call :meth:`~WriteBehindCache.flush` in its ``snapshot_state()``
hook, which the task runs at the aligned barrier *before* the coordinator snapshots the backend,
so the snapshot holds every change made by the rows before the barrier. A restored operator
starts with an empty cache (its backend holds everything).

State TTL: over a :class:`~streamsql.state.ttl.TtlKeyedState` the cache keeps each slot's last
write time (set by :meth:`~WriteBehindCache.touch`, read with a miss) and writes it back with the
value, so a value written back late still carries the time of its change; a cached key idle for
the TTL is found absent, as in the backend.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Protocol

import numpy as np
import pyarrow as pa

from streamsql.state.base import KeyedState
from streamsql.state.layout import encode_keys, with_key_groups
from streamsql.state.ttl import TtlKeyedState


class ValueStore(Protocol):
    """What a :class:`WriteBehindCache` keeps per slot, and its encoding in the backend."""

    def resize(self, capacity: int) -> None:
        """Make room for slots ``0 .. capacity - 1`` (never shrinks)."""

    def load(self, slots: np.ndarray, raws: list[bytes | None]) -> None:
        """Decode backend values into ``slots`` (None: the key has no value)."""

    def dump(self, slots: np.ndarray) -> list[bytes | None]:
        """Encode the values at ``slots`` (None: absent, the key is deleted)."""

    def release(self, slots: np.ndarray) -> None:
        """``slots`` were evicted: drop what they hold."""


class WriteBehindCache:
    """The values of at most about ``max_entries`` keys in a value store, written back lazily.

    Args:
        state: the keyed state behind the cache.
        store: the value store (what a slot holds, and its encoding).
        max_entries: keys kept after :meth:`evict` (0 disables caching: every :meth:`evict`
            writes back and forgets everything, i.e. read-through / write-per-batch).
        state_keys: encoded keys → backend keys (adds the key group).
    """

    def __init__(self, state: KeyedState, store: ValueStore, max_entries: int,
                 state_keys: Callable[[list[bytes]], list[bytes]] = with_key_groups):
        self.state = state
        self.store = store
        self.max_entries = max(0, int(max_entries))
        self._state_keys = state_keys
        self._slot: dict[bytes, int] = {}  # in load order: the eviction order
        self._keys: list[bytes | None] = []  # slot → key
        self._free: list[int] = []
        self._dirty = np.zeros(1024, bool)
        self._ttl = state.ttl if isinstance(state, TtlKeyedState) else None
        self._written = np.zeros(1024, np.int64)  # under TTL: each slot's last write time (ms)
        store.resize(len(self._dirty))
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._slot)

    def slots(self, keys: list[bytes]) -> np.ndarray:
        """The slots of ``keys`` (int64 array), loading misses with one multi-get."""
        get = self._slot.get
        slots = np.fromiter((get(k, -1) for k in keys), np.int64, len(keys))
        miss = np.flatnonzero(slots < 0)
        if self._ttl is not None:
            self._expire(slots[slots >= 0])
        self.misses += len(miss)
        self.hits += len(keys) - len(miss)
        if len(miss):
            mkeys = [keys[i] for i in miss.tolist()]
            new = self._allocate(mkeys)
            slots[miss] = new
            self._load(mkeys, new)
        return slots

    def key_slots(self, columns: list[pa.Array | pa.ChunkedArray], num_rows: int) -> np.ndarray:
        """The slots of the rows' keys given as key columns (:func:`~streamsql.state.layout.encode_keys`)."""
        return self.slots(encode_keys(columns, num_rows))

    def touch(self, slots: np.ndarray) -> None:
        """Mark ``slots`` changed (written back at the next eviction or flush); under TTL, written now."""
        self._dirty[slots] = True
        if self._ttl is not None:
            self._written[slots] = self._ttl.now()

    def evict(self) -> None:
        """Drop the oldest keys (first loaded first) beyond ``max_entries``, down to 3/4 of it.

        The changed ones are written back in one write batch; evicting well below the bound keeps
        evictions rare and their write batches large.
        """
        if len(self._slot) <= self.max_entries:
            return
        target = self.max_entries * 3 // 4
        victims = list(islice(self._slot, len(self._slot) - target))
        slots = np.fromiter((self._slot[k] for k in victims), np.int64, len(victims))
        self._write(slots[self._dirty[slots]])
        for k in victims:
            del self._slot[k]
        for s in slots.tolist():
            self._keys[s] = None
        self._free.extend(slots.tolist())
        self._dirty[slots] = False
        self.store.release(slots)

    def flush(self) -> None:
        """Write every changed slot to the backend (one write batch); keys stay cached."""
        dirty = np.flatnonzero(self._dirty)
        if len(dirty):
            self._write(dirty)
            self._dirty[dirty] = False

    # -- internals ------------------------------------------------------------------------------

    def _expire(self, slots: np.ndarray) -> None:
        """Cached ``slots`` idle for the TTL hold no value any more (their backend copy expired too)."""
        dead = slots[self._written[slots] + self._ttl.ttl_ms <= self._ttl.now()]
        if len(dead):
            self.store.load(dead, [None] * len(dead))
            self._dirty[dead] = False

    def _allocate(self, keys: list[bytes]) -> np.ndarray:
        n = len(keys)
        reuse = self._free[-n:] if n <= len(self._free) else self._free[:]
        del self._free[len(self._free) - len(reuse):]
        start = len(self._keys)
        fresh = list(range(start, start + n - len(reuse)))
        self._keys.extend([None] * len(fresh))
        needed = len(self._keys)
        if needed > len(self._dirty):
            grown = np.zeros(max(needed, 2 * len(self._dirty)), bool)
            grown[: len(self._dirty)] = self._dirty
            self._dirty = grown
            grown_times = np.zeros(len(grown), np.int64)
            grown_times[: len(self._written)] = self._written
            self._written = grown_times
            self.store.resize(len(grown))
        out = np.array(reuse + fresh, np.int64)
        for k, s in zip(keys, out.tolist()):
            self._slot[k] = s
            self._keys[s] = k
        return out

    def _load(self, keys: list[bytes], slots: np.ndarray) -> None:
        skeys = self._state_keys(keys)
        order = sorted(range(len(skeys)), key=skeys.__getitem__)  # RocksDB reads sorted keys faster
        ordered = slots[np.array(order, np.int64)]
        if self._ttl is not None:
            raws, times = self.state.get_timed([skeys[j] for j in order], cache=False)
            self._written[ordered] = times
        else:
            raws = self.state.get_many([skeys[j] for j in order], cache=False)
        self._dirty[slots] = False
        self.store.load(ordered, raws)

    def _write(self, slots: np.ndarray) -> None:
        if not len(slots):
            return
        skeys = self._state_keys([self._keys[s] for s in slots.tolist()])
        values = self.store.dump(slots)
        if self._ttl is not None:
            live = [i for i, v in enumerate(values) if v is not None]
            self.state.write([(skeys[i], values[i]) for i in live],
                             [k for k, v in zip(skeys, values) if v is None],
                             times=self._written[slots[live]].tolist())
            return
        if None not in values:  # the common case: nothing to delete, one pass
            self.state.write(list(zip(skeys, values)), [])
            return
        puts = [(k, v) for k, v in zip(skeys, values) if v is not None]
        deletes = [k for k, v in zip(skeys, values) if v is None]
        self.state.write(puts, deletes)


class ObjectValues:
    """A value store of one Python object per slot (None: the key has no value).

    Args:
        dumps / loads: the value codec (used only on write-back and on a miss).

    Attributes:
        values: the object of each slot (read with :meth:`get`, set with :meth:`put`).
    """

    def __init__(self, dumps: Callable[[object], bytes], loads: Callable[[bytes], object]):
        self._dumps = dumps
        self._loads = loads
        self.values: list = []

    def get(self, slots: np.ndarray) -> list:
        """The objects at ``slots``, in order."""
        values = self.values
        return [values[s] for s in slots.tolist()]

    def put(self, slots: np.ndarray, objects: list) -> None:
        """Set the objects at ``slots`` (None deletes the key at write-back)."""
        values = self.values
        for s, v in zip(slots.tolist(), objects):
            values[s] = v

    def resize(self, capacity: int) -> None:
        """Grow :attr:`values` to ``capacity``."""
        self.values.extend([None] * (capacity - len(self.values)))

    def load(self, slots: np.ndarray, raws: list[bytes | None]) -> None:
        """Decode ``raws`` into ``slots``."""
        loads, values = self._loads, self.values
        for s, raw in zip(slots.tolist(), raws):
            values[s] = None if raw is None else loads(raw)

    def dump(self, slots: np.ndarray) -> list[bytes | None]:
        """Encode the objects at ``slots``."""
        dumps, values = self._dumps, self.values
        out = []
        for s in slots.tolist():
            v = values[s]
            out.append(None if v is None else dumps(v))
        return out

    def release(self, slots: np.ndarray) -> None:
        """Forget the objects at ``slots``."""
        values = self.values
        for s in slots.tolist():
            values[s] = None
