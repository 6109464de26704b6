"""A write-behind cache of decoded values in front of a :class:`~streamsql.state.base.KeyedState`.

An operator that reads and rewrites the same keys batch after batch (a ``GROUP BY``) keeps the
decoded values (accumulators) here across batches: a hit costs a dict lookup, with no multi-get
and no unpickling; a changed value is only marked dirty, and is serialized and written to the
backend (in one write batch) when it is evicted or at :meth:`WriteBehindCache.flush`.

Exactly-once: the operator must call :meth:`flush` in its ``snapshot_state()`` hook, which the
task runs at the aligned barrier *before* the coordinator snapshots the backend, so the snapshot
holds every change made by the rows before the barrier. A restored operator starts with an
empty cache (its backend holds everything).

Values are mutable objects owned by the cache: a caller that mutates a value it got must
:meth:`put` it (mark it dirty) before the next :meth:`evict` or :meth:`flush`. ``None`` is a
cached "absent" (a delete, once flushed).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from itertools import islice

from streamsql.state.base import KeyedState
from streamsql.state.layout import key_group

_MISS = object()


def default_state_keys(keys: list[bytes]) -> list[bytes]:
    """The backend keys (2-byte key group + key) of encoded keys."""
    return [key_group(k).to_bytes(2, "big") + k for k in keys]


class WriteBehindCache:
    """Decoded values of at most about ``max_entries`` keys, written back lazily.

    Args:
        state: the keyed state behind the cache.
        max_entries: entries kept after :meth:`evict` (0 disables caching: every :meth:`evict`
            writes back and drops everything, i.e. read-through/write-per-batch).
        state_keys: encoded keys → backend keys (adds the key group).
        dumps / loads: value (de)serialization, only on write-back and on a miss.
    """

    def __init__(self, state: KeyedState, max_entries: int,
                 state_keys: Callable[[list[bytes]], list[bytes]] = default_state_keys,
                 dumps: Callable[[object], bytes] | None = None,
                 loads: Callable[[bytes], object] = pickle.loads):
        self.state = state
        self.max_entries = max(0, int(max_entries))
        self._state_keys = state_keys
        self._dumps = dumps or (lambda v: pickle.dumps(v, protocol=5))
        self._loads = loads
        self._entries: dict[bytes, object] = {}
        self._dirty: set[bytes] = set()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get_many(self, keys: list[bytes]) -> list:
        """Values of ``keys`` in order (None where absent).

        Misses are read with one multi-get (keys sorted) and cached.
        """
        entries = self._entries
        vals = [entries.get(k, _MISS) for k in keys]
        missing = [i for i, v in enumerate(vals) if v is _MISS]
        self.misses += len(missing)
        self.hits += len(keys) - len(missing)
        if missing:
            mkeys = [keys[i] for i in missing]
            skeys = self._state_keys(mkeys)
            order = sorted(range(len(skeys)), key=skeys.__getitem__)  # RocksDB reads sorted keys faster
            missing = [missing[j] for j in order]
            mkeys = [mkeys[j] for j in order]
            loads = self._loads
            for i, k, raw in zip(missing, mkeys, self.state.get_many([skeys[j] for j in order])):
                v = None if raw is None else loads(raw)
                vals[i] = v
                entries[k] = v
        return vals

    def put_many(self, keys: list[bytes], values: list) -> None:
        """Set (and mark dirty) ``keys``; a None value deletes the key."""
        entries = self._entries
        for k, v in zip(keys, values):
            entries[k] = v
        self._dirty.update(keys)

    def evict(self) -> None:
        """Drop the oldest entries (insertion order) beyond ``max_entries``.

        The dirty ones are written back in one write batch. Evicts down to 3/4 of the bound,
        so that evictions are rare and their write batches large.
        """
        entries = self._entries
        if len(entries) <= self.max_entries:
            return
        target = self.max_entries * 3 // 4
        victims = list(islice(entries, len(entries) - target))
        dirty = self._dirty
        self._write([k for k in victims if k in dirty])
        for k in victims:
            del entries[k]
            dirty.discard(k)

    def flush(self) -> None:
        """Write every dirty entry to the backend (one write batch); entries stay cached."""
        if self._dirty:
            self._write(list(self._dirty))
            self._dirty.clear()

    def clear(self) -> None:
        """Forget everything, dirty entries included (the backend is left as is)."""
        self._entries.clear()
        self._dirty.clear()

    def _write(self, keys: list[bytes]) -> None:
        if not keys:
            return
        entries, dumps = self._entries, self._dumps
        skeys = self._state_keys(keys)
        puts, deletes = [], []
        for k, sk in zip(keys, skeys):
            v = entries[k]
            if v is None:
                deletes.append(sk)
            else:
                puts.append((sk, dumps(v)))
        self.state.write(puts, deletes)
