"""Fixed-width values as numpy columns for good: the ``hashmap`` state of a columnar operator.

On the ``hashmap`` backend a value written back to keyed state would only be copied into a dict
of bytes and copied again at the next snapshot, so an operator with fixed-width values (the
columnar GROUP BY) keeps them in :class:`ColumnTable` instead of a
:class:`~streamsql.state.cache.WriteBehindCache`: every key of the operator has a slot in the
:class:`~streamsql.state.fixed_cache.FixedWidthValues` columns, nothing is evicted or written
back, and a snapshot serializes the columns as a whole (the values as one array copy, the keys as
one join) into the backend's usual file format, so snapshots of either path restore into the
other and :func:`~streamsql.state.rescale` reads them unchanged.

The table has the cache's interface (:meth:`key_slots`, :meth:`touch`, :meth:`evict`,
:meth:`flush`), so the operator does not know which one it has. Keys of one integer column are
indexed as int64 by :class:`~streamsql.state.int_index.IntIndex` (no key bytes at all; the
backend keys are built with numpy at a snapshot), other keys by their encoded bytes in a dict.
Entries restored into the backend (a dict of bytes) are taken into the columns at the next
:meth:`key_slots`, which is also
where a value of another format is refused
(:class:`~streamsql.state.layout.StateFormatError`). A key whose value is deleted (a GROUP BY key
whose rows are all retracted) keeps its slot, not present, until a snapshot finds more dead slots
than live ones and compacts the table.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from streamsql.state.fixed_cache import FixedWidthValues
from streamsql.state.int_index import IntIndex
from streamsql.state.layout import (
    MAX_PARALLELISM,
    NULL_INT_KEY,
    StateFormatError,
    crc32_rows,
    encode_keys,
    with_key_groups,
)

_KEY_GROUP_BYTES = 2  # a backend key: the big-endian key group, then the encoded key
_U32 = np.dtype("<u4")
_NULL_STATE_KEY = with_key_groups([NULL_INT_KEY])[0]


class ColumnTable:
    """Every key of one operator and its fixed-width value, by slot (see module docstring).

    Args:
        values: the value store (its columns and ``present`` are the state).
        pending: the backend's dict of entries not yet taken into the columns (backend key →
            value bytes); emptied as they are taken.

    Attributes:
        values: as given; read and write its columns at the slots of :meth:`key_slots`.
    """

    def __init__(self, values: FixedWidthValues, pending: dict[bytes, bytes]):
        self.values = values
        self._pending = pending
        self._keys: _BytesKeys | _IntKeys | None = None  # chosen by the first key columns seen
        self._used = 0  # slots 0 .. _used - 1 belong to keys
        self._capacity = 0
        self._frozen: tuple[dict[bytes, bytes], tuple[int, bytes, bytes, bytes]] | None = None
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return self._used

    def key_slots(self, columns: list[pa.Array | pa.ChunkedArray], num_rows: int) -> np.ndarray:
        """The slots of the rows' keys (int64 array; distinct keys per row, as a GROUP BY's partials).

        A key never seen gets a new, absent (zeroed) slot.

        Raises:
            StateFormatError: a restored value of another format or layout.
        """
        if self._keys is None:
            self._keys = _IntKeys() if _IntKeys.fits(columns) else _BytesKeys()
        if self._pending:
            self._take_pending()
        slots, misses = self._keys.find(columns, num_rows)
        miss = np.flatnonzero(slots < 0)
        self.misses += len(miss)
        self.hits += num_rows - len(miss)
        if len(miss):
            new = self._allocate(len(miss))
            self._keys.add(misses, miss, new)
            slots[miss] = new
        return slots

    def touch(self, slots: np.ndarray) -> None:
        """Nothing to mark: the columns are the state."""

    def evict(self) -> None:
        """Nothing to evict: every key stays in memory (the ``hashmap`` backend's contract)."""

    def flush(self) -> None:
        """Freeze the state as of now (the operator's barrier) for the backend's next snapshot.

        The operator goes on with the next epoch while other tasks align, and the backend is
        snapshotted once all have acknowledged: what it writes must be this image, not the live
        columns (as a cache's writes are held back by the job's deferring state). The image holds
        the restored entries not taken yet as well: the next batch moves them out of the backend's
        dict, and a snapshot after it lost every restored key (crash campaign two-sinks-hashmap).
        """
        self._frozen = (dict(self._pending), self._sections())

    def reset(self) -> None:
        """Forget every key (the backend was restored or reopened: its dict is the state now)."""
        self._keys = None
        self._used = 0
        self._frozen = None
        self.values.present[:] = False
        for col in self.values.columns.values():  # a new key's slot must start at zero
            col[:] = 0

    def live(self) -> int:
        """Keys with a value."""
        return int(np.count_nonzero(self.values.present[: self._used]))

    def entries(self) -> dict[bytes, bytes]:
        """Backend key → value bytes of every key with a value now (not on the hot path)."""
        n, lengths, keys, blob = self._sections()
        ends = np.cumsum(np.frombuffer(lengths, _U32)).tolist()
        w = self.values.width
        return {keys[a:b]: blob[i * w : (i + 1) * w] for i, (a, b) in enumerate(zip([0, *ends], ends))}

    def image(self) -> tuple[dict[bytes, bytes], tuple[int, bytes, bytes, bytes]]:
        """What a snapshot writes: the image :meth:`flush` froze (used once), else the state now.

        Returns:
            ``(restored entries not taken yet, table sections)``: backend key → value bytes, and
            ``(n, u32 little-endian key lengths, keys concatenated, values concatenated)`` of the
            present slots in slot order.
        """
        frozen, self._frozen = self._frozen, None
        return frozen if frozen is not None else (self._pending, self._sections())

    # -- internals ------------------------------------------------------------------------------

    def _sections(self) -> tuple[int, bytes, bytes, bytes]:
        """The present slots now (compacted first when more than half of the slots are dead)."""
        present = self.values.present[: self._used]
        live = np.flatnonzero(present)
        if self._used > 1024 and len(live) < self._used // 2:
            self._compact(live)
            live = np.arange(len(live), dtype=np.int64)
        if self._keys is None or not len(live):
            return 0, b"", b"", b""
        lengths, keys = self._keys.state_keys(live)
        return len(live), lengths, keys, self.values.dump_bytes(live)

    def _allocate(self, n: int) -> np.ndarray:
        start, self._used = self._used, self._used + n
        if self._used > self._capacity:
            self._capacity = max(self._used, 2 * self._capacity, 1024)
            self.values.resize(self._capacity)
        return np.arange(start, self._used, dtype=np.int64)

    def _take_pending(self) -> None:
        """Move the backend's restored entries into new slots (values checked and decoded at once)."""
        state_keys = list(self._pending)
        slots = self._allocate(len(state_keys))
        try:
            self._keys.add_state_keys(state_keys, slots)
            self.values.load(slots, list(self._pending.values()))
        except Exception:  # StateFormatError: the entries stay pending, the table empty
            self.reset()
            raise
        self._pending.clear()

    def _compact(self, live: np.ndarray) -> None:
        kept = FixedWidthValues(self.values.dtype, self.values.format)
        kept.resize(self._capacity)
        n = len(live)
        for name, col in self.values.columns.items():
            kept.columns[name][:n] = col[live]
        kept.present[:n] = True
        self.values.columns, self.values.present = kept.columns, kept.present
        self._keys.compact(live)
        self._used = n


class _BytesKeys:
    """Keys by their encoded bytes (:func:`~streamsql.state.layout.encode_keys`) in a dict."""

    def __init__(self) -> None:
        self._slot: dict[bytes, int] = {}
        self._state_keys: list[bytes] = []  # slot → backend key (key group + encoded key)

    def find(self, columns, num_rows: int) -> tuple[np.ndarray, list[bytes]]:
        keys = encode_keys(columns, num_rows)
        get = self._slot.get
        return np.fromiter((get(k, -1) for k in keys), np.int64, num_rows), keys

    def add(self, keys: list[bytes], rows: np.ndarray, slots: np.ndarray) -> None:
        new = [keys[i] for i in rows.tolist()]
        self._slot.update(zip(new, slots.tolist()))
        self._state_keys.extend(with_key_groups(new))

    def add_state_keys(self, state_keys: list[bytes], slots: np.ndarray) -> None:
        self._slot.update(zip((k[_KEY_GROUP_BYTES:] for k in state_keys), slots.tolist()))
        self._state_keys.extend(state_keys)

    def state_keys(self, slots: np.ndarray) -> tuple[bytes, bytes]:
        keys = (self._state_keys if len(slots) == len(self._state_keys)
                else [self._state_keys[i] for i in slots.tolist()])
        return np.fromiter(map(len, keys), _U32, len(keys)).tobytes(), b"".join(keys)

    def compact(self, live: np.ndarray) -> None:
        self._state_keys = [self._state_keys[i] for i in live.tolist()]
        self._slot = {k[_KEY_GROUP_BYTES:]: i for i, k in enumerate(self._state_keys)}


class _IntKeys:
    """Keys of one integer column as int64 in an :class:`IntIndex`; NULL has a slot of its own.

    The backend key of a value is its encoded key (8 bytes big-endian, ``NULL_INT_KEY`` for
    NULL; :func:`~streamsql.state.layout.int_key_bytes`) after its key group, built at a snapshot.
    """

    def __init__(self) -> None:
        self._index = IntIndex()
        self._ints = np.zeros(0, np.int64)  # slot → key
        self._null_slot = -1

    @staticmethod
    def fits(columns) -> bool:
        return len(columns) == 1 and pa.types.is_integer(columns[0].type) and columns[0].type != pa.uint64()

    def find(self, columns, num_rows: int) -> tuple[np.ndarray, np.ndarray]:
        col = columns[0]
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        ints = col.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        slots = self._index.lookup(ints)
        if col.null_count:
            nulls = col.is_null().to_numpy(zero_copy_only=False)
            slots[nulls] = self._null_slot
            ints = np.where(nulls, np.int64(0), ints)
            return slots, (ints, nulls)
        return slots, (ints, None)

    def add(self, misses, rows: np.ndarray, slots: np.ndarray) -> None:
        ints, nulls = misses
        if nulls is not None and nulls[rows].any():
            at = np.flatnonzero(nulls[rows])
            self._null_slot = int(slots[at[0]])
            keep = np.ones(len(rows), bool)
            keep[at] = False
            rows, slots = rows[keep], slots[keep]
        self._put(ints[rows], slots)

    def add_state_keys(self, state_keys: list[bytes], slots: np.ndarray) -> None:
        keys = [k[_KEY_GROUP_BYTES:] for k in state_keys]
        if any(len(k) != 8 and k != NULL_INT_KEY for k in keys):
            msg = ("Restored GROUP BY state has keys that are not one integer column's: restore from a "
                   "snapshot of this query or start afresh")
            raise StateFormatError(msg)
        null = [i for i, k in enumerate(keys) if k == NULL_INT_KEY]
        if null:
            self._null_slot = int(slots[null[0]])
            del keys[null[0]]
            slots = np.delete(slots, null[0])
        self._put(np.frombuffer(b"".join(keys), ">i8").astype(np.int64), slots)

    def _put(self, ints: np.ndarray, slots: np.ndarray) -> None:
        if len(slots) and slots.max() >= len(self._ints):
            grown = np.zeros(max(int(slots.max()) + 1, 2 * len(self._ints), 1024), np.int64)
            grown[: len(self._ints)] = self._ints
            self._ints = grown
        self._ints[slots] = ints
        self._index.insert(ints, slots)

    def state_keys(self, slots: np.ndarray) -> tuple[bytes, bytes]:
        is_null = slots == self._null_slot
        ints = self._ints[slots[~is_null]]
        data = ints.astype(">i8").view(np.uint8).reshape(len(ints), 8)
        out = np.empty((len(ints), _KEY_GROUP_BYTES + 8), np.uint8)
        kg = (crc32_rows(data) % MAX_PARALLELISM).astype(">u2")
        out[:, :_KEY_GROUP_BYTES] = kg.view(np.uint8).reshape(len(ints), _KEY_GROUP_BYTES)
        out[:, _KEY_GROUP_BYTES:] = data
        if not is_null.any():
            return np.full(len(ints), _KEY_GROUP_BYTES + 8, _U32).tobytes(), out.tobytes()
        at = int(np.flatnonzero(is_null)[0])  # keys in the order of ``slots``, as their values
        lengths = np.insert(np.full(len(ints), _KEY_GROUP_BYTES + 8, _U32), at, len(_NULL_STATE_KEY))
        return lengths.tobytes(), out[:at].tobytes() + _NULL_STATE_KEY + out[at:].tobytes()

    def compact(self, live: np.ndarray) -> None:
        null = np.flatnonzero(live == self._null_slot)
        ints = self._ints[live]
        self.__init__()
        slots = np.arange(len(live), dtype=np.int64)
        if len(null):
            self._null_slot = int(null[0])
            ints, slots = np.delete(ints, null[0]), np.delete(slots, null[0])
        self._put(ints, slots)
