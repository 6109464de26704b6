"""A hash index from int64 keys to slots, looked up and grown a whole batch at a time with numpy.

For a state table keyed by one integer column (the common ``GROUP BY id``): no per-key Python
object, no encoded key bytes, on the hot path. Open addressing with linear probing over two
arrays (int64 key, int32 slot; -1 = empty: 12 bytes a position), Fibonacci hashing, load
factor at most 0.6 (the arrays double and every key is re-inserted when it would pass). Each
probing round handles every key still unresolved at once; a batch's new keys that want the
same empty position in one round are settled by :func:`numpy.unique` (the first takes it, the
others probe on).
"""

from __future__ import annotations

import numpy as np

_FIB = np.uint64(0x9E3779B97F4A7C15)


class IntIndex:
    """int64 key → slot (see module docstring); keys are added with :meth:`insert`, never removed."""

    def __init__(self) -> None:
        self._bits = 10
        self._keys = np.zeros(1 << self._bits, np.int64)
        self._slots = np.full(1 << self._bits, -1, np.int32)
        self.size = 0

    def _home(self, keys: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return ((keys.view(np.uint64) * _FIB) >> np.uint64(64 - self._bits)).astype(np.int64)

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """The slot of each key (int64 array), -1 where the key is not in the index."""
        out = np.full(len(keys), -1, np.int64)
        todo = np.arange(len(keys))
        pos = self._home(keys)
        mask = len(self._slots) - 1
        while len(todo):
            slot = self._slots[pos]
            hit = (slot >= 0) & (self._keys[pos] == keys[todo])
            out[todo[hit]] = slot[hit]
            probe = (slot >= 0) & ~hit
            todo, pos = todo[probe], (pos[probe] + 1) & mask
        return out

    def insert(self, keys: np.ndarray, slots: np.ndarray) -> None:
        """Add ``keys`` (distinct, none in the index yet) with their ``slots``."""
        if 5 * (self.size + len(keys)) > 3 * len(self._slots):
            self._grow(self.size + len(keys))
        self._place(keys, slots)
        self.size += len(keys)

    def _place(self, keys: np.ndarray, slots: np.ndarray) -> None:
        mask = len(self._slots) - 1
        todo = np.arange(len(keys))
        pos = self._home(keys)
        while len(todo):
            free = self._slots[pos] < 0
            # among the keys at a free position, the first for each position takes it
            cand = np.flatnonzero(free)
            _, first = np.unique(pos[cand], return_index=True)
            won = cand[first]
            self._keys[pos[won]] = keys[todo[won]]
            self._slots[pos[won]] = slots[todo[won]]
            lost = np.ones(len(todo), bool)
            lost[won] = False
            todo, pos = todo[lost], (pos[lost] + 1) & mask

    def _grow(self, needed: int) -> None:
        live = self._slots >= 0
        keys, slots = self._keys[live], self._slots[live]
        while 3 * (1 << self._bits) < 5 * needed:
            self._bits += 1
        self._keys = np.zeros(1 << self._bits, np.int64)
        self._slots = np.full(1 << self._bits, -1, np.int32)
        self._place(keys, slots)
