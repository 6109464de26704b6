"""A write-behind cache of fixed-width records (numpy columns) in front of a keyed state.

The columnar sibling of :class:`~streamsql.state.cache.WriteBehindCache`, for values that are a
fixed set of numeric fields (e.g. GROUP BY accumulators: a count, a sum, a max): every cached
key owns a *slot*, a row index into one numpy array per field, so an operator reads, folds and
compares the values of a whole batch with array operations instead of per-key Python objects.
A value is stored in the backend as the record's bytes (a packed little-endian numpy structured
dtype), encoded and decoded for many keys at once.

Exactly-once: as the other cache, the operator calls :meth:`FixedWidthCache.flush` in its
``snapshot_state()``, before the backend snapshot; a restored operator starts empty.

A slot is *present* when its key has a value; writing back an absent slot deletes the key.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice

import numpy as np

from streamsql.state.base import KeyedState
from streamsql.state.layout import with_key_groups


class FixedWidthCache:
    """Fixed-width records of at most about ``max_entries`` keys, written back lazily.

    Args:
        state: the keyed state behind the cache.
        dtype: the record layout, a numpy structured dtype (packed, explicit byte order).
        max_entries: keys kept after :meth:`evict` (0: every :meth:`evict` writes back and
            forgets everything).
        state_keys: encoded keys → backend keys (adds the key group).

    Attributes:
        columns: field name → the numpy array of that field, indexed by slot (read and write
            these directly; mark the slots with :meth:`touch`).
        present: bool array by slot, False where the key has no value.
    """

    def __init__(self, state: KeyedState, dtype: np.dtype, max_entries: int,
                 state_keys: Callable[[list[bytes]], list[bytes]] = with_key_groups):
        self.state = state
        self.dtype = np.dtype(dtype)
        self.max_entries = max(0, int(max_entries))
        self._state_keys = state_keys
        self._slot: dict[bytes, int] = {}
        self._keys: list[bytes | None] = []  # slot → key
        self._free: list[int] = []
        cap = 1024
        self.columns = {name: np.zeros(cap, self.dtype[name]) for name in self.dtype.names}
        self.present = np.zeros(cap, bool)
        self._dirty = np.zeros(cap, bool)
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._slot)

    def slots(self, keys: list[bytes]) -> np.ndarray:
        """The slots of ``keys`` (int64 array), loading misses with one multi-get.

        A key the backend does not hold gets a zeroed, absent slot.
        """
        get = self._slot.get
        slots = np.fromiter((get(k, -1) for k in keys), np.int64, len(keys))
        miss = np.flatnonzero(slots < 0)
        self.misses += len(miss)
        self.hits += len(keys) - len(miss)
        if len(miss):
            mkeys = [keys[i] for i in miss.tolist()]
            new = self._allocate(mkeys)
            slots[miss] = new
            self._load(mkeys, new)
        return slots

    def touch(self, slots: np.ndarray) -> None:
        """Mark ``slots`` changed (written back at the next eviction or flush)."""
        self._dirty[slots] = True

    def evict(self) -> None:
        """Drop the oldest keys (first loaded first) beyond ``max_entries``, down to 3/4 of it.

        The changed ones are written back in one write batch.
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

    def flush(self) -> None:
        """Write every changed slot to the backend (one write batch); keys stay cached."""
        dirty = np.flatnonzero(self._dirty)
        if len(dirty):
            self._write(dirty)
            self._dirty[dirty] = False

    # -- internals ------------------------------------------------------------------------------

    def _allocate(self, keys: list[bytes]) -> np.ndarray:
        n = len(keys)
        reuse = self._free[-n:] if n <= len(self._free) else self._free[:]
        del self._free[len(self._free) - len(reuse):]
        start = len(self._keys)
        fresh = list(range(start, start + n - len(reuse)))
        self._keys.extend([None] * len(fresh))
        self._grow(len(self._keys))
        out = np.array(reuse + fresh, np.int64)
        for k, s in zip(keys, out.tolist()):
            self._slot[k] = s
            self._keys[s] = k
        return out

    def _grow(self, needed: int) -> None:
        cap = len(self.present)
        if needed <= cap:
            return
        cap = max(needed, cap * 2)
        for name, col in self.columns.items():
            grown = np.zeros(cap, col.dtype)
            grown[: len(col)] = col
            self.columns[name] = grown
        for attr in ("present", "_dirty"):
            old = getattr(self, attr)
            grown = np.zeros(cap, bool)
            grown[: len(old)] = old
            setattr(self, attr, grown)

    def _load(self, keys: list[bytes], slots: np.ndarray) -> None:
        skeys = self._state_keys(keys)
        order = sorted(range(len(skeys)), key=skeys.__getitem__)  # RocksDB reads sorted keys faster
        raws = self.state.get_many([skeys[j] for j in order])
        for col in self.columns.values():
            col[slots] = 0
        self.present[slots] = False
        self._dirty[slots] = False
        found = [j for j, raw in zip(order, raws) if raw is not None]
        if not found:
            return
        records = np.frombuffer(b"".join(raw for raw in raws if raw is not None), self.dtype)
        target = slots[np.array(found, np.int64)]
        for name, col in self.columns.items():
            col[target] = records[name]
        self.present[target] = True

    def _write(self, slots: np.ndarray) -> None:
        if not len(slots):
            return
        keys = [self._keys[s] for s in slots.tolist()]
        skeys = self._state_keys(keys)
        records = np.empty(len(slots), self.dtype)
        for name, col in self.columns.items():
            records[name] = col[slots]
        values = records.view(f"V{self.dtype.itemsize}").tolist()
        present = self.present[slots].tolist()
        puts = [(k, v) for k, v, p in zip(skeys, values, present) if p]
        deletes = [k for k, p in zip(skeys, present) if not p]
        self.state.write(puts, deletes)
