"""Fixed-width records as numpy columns: a value store of :class:`~streamsql.state.cache.WriteBehindCache`.

For values that are a fixed set of numeric fields (e.g. GROUP BY accumulators: a count, a sum, a
max): a slot is a row index into one numpy array per field, so an operator reads, folds and
compares the values of a whole batch with array operations instead of per-key Python objects.
A value is stored in the backend as its format's tag (:class:`~streamsql.state.layout.ValueFormat`)
and the record's bytes (a packed little-endian numpy structured dtype), encoded, decoded and
checked for many keys at once.

A slot is *present* when its key has a value; writing back an absent slot deletes the key.
"""

from __future__ import annotations

import numpy as np

from streamsql.state.layout import StateFormatError, ValueFormat


class FixedWidthValues:
    """Fixed-width records by slot (see module docstring).

    Args:
        dtype: the record layout, a numpy structured dtype (packed, explicit byte order).
        fmt: the value format whose tag precedes every record.

    Attributes:
        columns: field name → the numpy array of that field, indexed by slot (read and write
            these directly; mark changed slots with the cache's ``touch``).
        present: bool array by slot, False where the key has no value.
    """

    def __init__(self, dtype: np.dtype, fmt: ValueFormat):
        self.dtype = np.dtype(dtype)
        self.format = fmt
        self._tag = np.frombuffer(fmt.tag, np.uint8)
        # A stored value: the tag, then the record's fields.
        fields = [(n, self.dtype[n]) for n in self.dtype.names]
        self._tagged = np.dtype([("__tag", f"V{len(fmt.tag)}"), *fields])
        self._width = self._tagged.itemsize
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
        """Zeroed, absent slots, then the records of the keys the backend holds.

        Raises:
            StateFormatError: a value of another format, or a record of another layout.
        """
        for col in self.columns.values():
            col[slots] = 0
        self.present[slots] = False
        found = [j for j, raw in enumerate(raws) if raw is not None]
        if not found:
            return
        values = [raws[j] for j in found]
        data = np.frombuffer(b"".join(values), np.uint8)
        if len(data) != len(values) * self._width:
            self._refuse(values)
        if not (data.reshape(len(values), self._width)[:, : len(self._tag)] == self._tag).all():
            self._refuse(values)
        records = data.view(self._tagged)
        target = slots[np.array(found, np.int64)]
        for name, col in self.columns.items():
            col[target] = records[name]
        self.present[target] = True

    def _records(self, slots: np.ndarray) -> np.ndarray:
        records = np.empty(len(slots), self._tagged)
        records[self._tagged.names[0]] = self.format.tag
        for name, col in self.columns.items():
            records[name] = col[slots]
        return records

    def dump_bytes(self, slots: np.ndarray) -> bytes:
        """The tagged records at ``slots`` concatenated (each :attr:`width` bytes; present or not)."""
        return self._records(slots).tobytes()

    @property
    def width(self) -> int:
        """Bytes of one stored value (the tag and the record)."""
        return self._width

    def dump(self, slots: np.ndarray) -> list[bytes | None]:
        """The tagged records at ``slots`` as bytes (None where absent)."""
        values = self._records(slots).view(f"V{self._width}").tolist()
        present = self.present[slots]
        if present.all():  # the common case: no per-slot pass
            return values
        return [v if p else None for v, p in zip(values, present.tolist())]

    def release(self, slots: np.ndarray) -> None:
        """Nothing to drop: an evicted slot is zeroed when it is reused."""

    def _refuse(self, values: list[bytes]) -> None:
        for v in values:
            self.format.unwrap(v)
            if len(v) != self._width:
                msg = (f"State written by another layout of '{self.format.name}' v{self.format.version}: "
                       f"a record of {len(v) - len(self._tag)} bytes, expected {self.dtype.itemsize} "
                       f"(other aggregate calls); restore from a snapshot of this query or start afresh")
                raise StateFormatError(msg)
