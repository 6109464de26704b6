"""Fixed-width records as numpy columns: a value store of :class:`~streamsql.state.cache.WriteBehindCache`.

For values that are a fixed set of numeric fields (e.g. GROUP BY accumulators: a count, a sum, a
max): a slot is a row index into one numpy array per field, so an operator reads, folds and
compares the values of a whole batch with array operations instead of per-key Python objects.
A value is stored in the backend as the record's bytes (a packed little-endian numpy structured
dtype), encoded and decoded for many keys at once.

A slot is *present* when its key has a value; writing back an absent slot deletes the key.
"""

from __future__ import annotations

import numpy as np


class FixedWidthValues:
    """Fixed-width records by slot (see module docstring).

    Args:
        dtype: the record layout, a numpy structured dtype (packed, explicit byte order).

    Attributes:
        columns: field name → the numpy array of that field, indexed by slot (read and write
            these directly; mark changed slots with the cache's ``touch``).
        present: bool array by slot, False where the key has no value.
    """

    def __init__(self, dtype: np.dtype):
        self.dtype = np.dtype(dtype)
        self.columns = {name: np.zeros(0, self.dtype[name]) for name in self.dtype.names}
        self.present = np.zeros(0, bool)

    def resize(self, capacity: int) -> None:
        """Grow every column (and :attr:`present`) to ``capacity`` slots, zero-filled."""
        for name, col in self.columns.items():
            grown = np.zeros(capacity, col.dtype)
            grown[: len(col)] = col
            self.columns[name] = grown
        grown = np.zeros(capacity, bool)
        grown[: len(self.present)] = self.present
        self.present = grown

    def load(self, slots: np.ndarray, raws: list[bytes | None]) -> None:
        """Zeroed, absent slots, then the records of the keys the backend holds."""
        for col in self.columns.values():
            col[slots] = 0
        self.present[slots] = False
        found = [j for j, raw in enumerate(raws) if raw is not None]
        if not found:
            return
        records = np.frombuffer(b"".join(raws[j] for j in found), self.dtype)
        target = slots[np.array(found, np.int64)]
        for name, col in self.columns.items():
            col[target] = records[name]
        self.present[target] = True

    def dump(self, slots: np.ndarray) -> list[bytes | None]:
        """The records at ``slots`` as bytes (None where absent)."""
        records = np.empty(len(slots), self.dtype)
        for name, col in self.columns.items():
            records[name] = col[slots]
        values = records.view(f"V{self.dtype.itemsize}").tolist()
        return [v if p else None for v, p in zip(values, self.present[slots].tolist())]

    def release(self, slots: np.ndarray) -> None:
        """Nothing to drop: an evicted slot is zeroed when it is reused."""
