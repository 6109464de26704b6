"""The ``hashmap`` state backend: one Python dict per operator, snapshot by serialization.

Fast and simple; state must fit in memory and each snapshot writes all of it (not incremental).
An operator with fixed-width values keeps them in numpy columns instead of the dict
(:meth:`HashMapKeyedState.column_table`, :class:`~streamsql.state.columns.ColumnTable`);
map state (:meth:`~streamsql.state.base.KeyedState.get_maps`) is a dict of dicts, prefix →
entry key → value. A snapshot writes all three in the one format below, a map entry under its
whole key (prefix + entry key, as RocksDB holds it); a restore puts every entry in the flat dict,
and the first map call takes the map entries out of it (:func:`~streamsql.state.layout.split_map_key`).

Snapshot format (one file, ``hashmap.state``, little-endian)::

    magic  b"SSQLHM01"
    u32    number of operators
    per operator:
        u16 id length, id (UTF-8)
        u64 n entries
        u32[n] key lengths, u32[n] value lengths   (dict order, not sorted)
        keys concatenated, values concatenated
    u32    crc32 of everything above

No pickle: restoring a snapshot never runs code, and a torn or corrupt file is detected by the
checksum. The file is written as ``hashmap.state.tmp``, fsynced, renamed into place, and the
directory fsynced, so a crash leaves either no snapshot file or a complete one.
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from array import array
from collections.abc import Iterator
from itertools import accumulate

from streamsql.core.errors import os_error_text
from streamsql.state.base import KeyedState, MapEntry, MapPut, StateBackend, validate_operator_id
from streamsql.state.columns import ColumnTable
from streamsql.state.exceptions import SnapshotError, StateClosedError, StateError
from streamsql.state.files import create_snapshot_dir, fsync_dir
from streamsql.state.layout import split_map_key

SNAPSHOT_FILE = "hashmap.state"
MAGIC = b"SSQLHM01"
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
assert array("I").itemsize == 4, "the snapshot format needs a 4-byte array('I')"


def _lengths(items: list[bytes]) -> array:
    lens = array("I", map(len, items))  # OverflowError for 4 GiB or more
    if sys.byteorder == "big":  # pragma: no cover
        lens.byteswap()
    return lens


def _split(raw: bytes, pos: int, lens: array) -> tuple[list[bytes], int]:
    """Cut ``len(lens)`` consecutive byte strings out of ``raw`` from ``pos``; returns the end."""
    offsets = list(accumulate(lens, initial=pos))
    return [raw[a:b] for a, b in zip(offsets, offsets[1:])], offsets[-1]


def _sorted_items(data: dict[bytes, bytes], keys: list[bytes]) -> Iterator[tuple[bytes, bytes]]:
    # Lazily: building a million tuples up front costs more in GC passes than the sort itself.
    for key in keys:
        value = data.get(key)
        if value is not None:
            yield key, value


class HashMapKeyedState(KeyedState):
    """One operator's keyed state in a dict (encoded key → value bytes), or in a column table.

    With a :class:`~streamsql.state.columns.ColumnTable` attached (:meth:`column_table`) the
    state is the table plus the dict's entries it has not taken yet (restored ones); the operator
    then reads and writes the table only, and :meth:`get_many` / :meth:`write` refuse.
    """

    def __init__(self, operator_id: str, data: dict[bytes, bytes]):
        self.operator_id = operator_id
        self._data: dict[bytes, bytes] | None = data
        self.table: ColumnTable | None = None
        self._maps: dict[bytes, dict[bytes, bytes]] | None = None  # None: not used since (re)filled

    def column_table(self, values) -> ColumnTable:
        """The operator's values as numpy columns for good (no cache, no write-back; see module).

        A table attached before (an operator opened again on this backend) hands its entries
        to the new one.

        Raises:
            StateClosedError: after the backend was closed.
        """
        data = self._dict()
        if self.table is not None:
            data.update(self.table.entries())
        self.table = ColumnTable(values, data)
        return self.table

    def _dict(self) -> dict[bytes, bytes]:
        data = self._data
        if data is None:
            msg = f"Cannot use the state of operator '{self.operator_id}': the state backend is closed"
            raise StateClosedError(msg)
        return data

    def _map_dict(self) -> dict[bytes, dict[bytes, bytes]]:
        """The maps, prefix → entry key → value; the first call takes them out of the flat dict."""
        maps = self._maps
        if maps is None:
            data = self._plain()
            maps = self._maps = {}
            for key in [k for k in data if split_map_key(k) is not None]:
                prefix, entry = split_map_key(key)
                value = data.pop(key)
                if entry:  # not a marker of the rocksdb backend (rescaled or copied state)
                    maps.setdefault(prefix, {})[entry] = value
        return maps

    def _flat_maps(self) -> tuple[list[bytes], list[bytes]]:
        """The map entries as whole keys (prefix + entry key) and their values."""
        maps = self._maps or {}
        keys = [p + k for p, m in maps.items() for k in m]
        return keys, [v for m in maps.values() for v in m.values()]

    def _plain(self) -> dict[bytes, bytes]:
        if self.table is not None:
            msg = f"The state of operator '{self.operator_id}' is held in its column table"
            raise StateError(msg)
        return self._dict()

    def sections(self) -> tuple[int, list[bytes], list[bytes], tuple[int, bytes, bytes, bytes]]:
        """The operator's part of a snapshot: the dict's entries, then the table's.

        Returns:
            ``(n, dict keys, dict values, table sections)`` where the table's are
            :meth:`~streamsql.state.columns.ColumnTable.image` (empty without a table).

        Raises:
            StateClosedError: after the backend was closed.
        """
        data = self._dict()
        table = (0, b"", b"", b"")
        if self.table is not None:  # its image as of the operator's barrier (ColumnTable.flush)
            data, table = self.table.image()
        map_keys, map_values = self._flat_maps()
        n = len(data) + len(map_keys) + table[0]
        return n, list(data) + map_keys, list(data.values()) + map_values, table

    def get_many(self, keys: list[bytes], cache: bool = True) -> list[bytes | None]:
        """Values for ``keys`` in order (None where absent; ``cache`` does not apply).

        Raises:
            StateClosedError: after the backend was closed.
            StateError: the state is held in a column table.
        """
        return list(map(self._plain().get, keys))

    def write(self, puts: list[tuple[bytes, bytes]], deletes: list[bytes] = ()) -> None:
        """Apply ``puts`` then ``deletes`` (a key in both ends up deleted, as in RocksDB).

        Not checked for type: keys and values must be ``bytes`` (the snapshot fails otherwise).

        Raises:
            StateClosedError: after the backend was closed.
            StateError: the state is held in a column table.
        """
        data = self._plain()
        data.update(puts)
        for key in deletes:
            data.pop(key, None)

    def get_maps(self, prefixes: list[bytes]) -> list[list[tuple[bytes, bytes]]]:
        """Per map prefix, its entries ``(entry key, value)`` (in write order).

        Raises:
            StateClosedError: after the backend was closed.
            StateError: the state is held in a column table.
        """
        maps = self._map_dict()
        empty: dict[bytes, bytes] = {}
        return [list(maps.get(p, empty).items()) for p in prefixes]

    def get_map_values(self, entries: list[MapEntry]) -> list[bytes | None]:
        """Values of map entries ``(prefix, entry key)`` in order (None where absent).

        Raises:
            StateClosedError: after the backend was closed.
            StateError: the state is held in a column table.
        """
        maps = self._map_dict()
        out: list[bytes | None] = []
        for prefix, key in entries:
            m = maps.get(prefix)
            out.append(m.get(key) if m is not None else None)
        return out

    def write_maps(self, puts: list[MapPut], deletes: list[MapEntry] = ()) -> None:
        """Put then delete map entries (a map left without entries is dropped).

        Raises:
            StateClosedError: after the backend was closed.
            StateError: the state is held in a column table.
        """
        maps = self._map_dict()
        for prefix, key, value in puts:
            m = maps.get(prefix)
            if m is None:
                m = maps[prefix] = {}
            m[key] = value
        for prefix, key in deletes:
            m = maps.get(prefix)
            if m is not None and m.pop(key, None) is not None and not m:
                del maps[prefix]

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """All (key, value) pairs in key order (hence key-group order), map entries by whole key.

        The key set is taken at the call; a write made while iterating may or may not be seen.

        Raises:
            StateClosedError: after the backend was closed.
        """
        data = self._dict()
        if self.table is not None or self._maps:
            data = {**data, **(self.table.entries() if self.table is not None else {})}
            data.update(zip(*self._flat_maps()))
        return _sorted_items(data, sorted(data))

    def rewrite_values(self, rewrite) -> int:
        """See :meth:`KeyedState.rewrite_values`; restored entries a column table has not taken yet too.

        Raises:
            StateError: a column table that holds keys already (the operator read its state).
        """
        if self.table is None or self._maps:
            return super().rewrite_values(rewrite)
        if self.table.live():
            msg = f"The state of operator '{self.operator_id}' is in use: it cannot be rewritten"
            raise StateError(msg)
        data = self._dict()
        done = {key: rewrite(value) for key, value in data.items()}
        data.update(done)
        return len(done)

    def clear(self) -> None:
        """Remove every entry of this operator.

        Raises:
            StateClosedError: after the backend was closed.
        """
        self._dict().clear()
        if self.table is not None:
            self.table.reset()
        if self._maps is not None:
            self._maps.clear()

    def __len__(self) -> int:
        data = self._dict()
        maps = sum(map(len, self._maps.values())) if self._maps else 0
        return len(data) + maps + (self.table.live() if self.table is not None else 0)


class HashMapStateBackend(StateBackend):
    """Keyed state of every operator in memory; snapshots are one checksummed binary file.

    ``KeyedState`` handles stay valid across ``restore()`` (the dicts are refilled in place).
    """

    name = "hashmap"

    def __init__(self) -> None:
        self._workdir: str | None = None
        self._states: dict[str, HashMapKeyedState] = {}

    def _check_open(self, action: str) -> None:
        if self._workdir is None:
            msg = f"Cannot {action}: the hashmap state backend is not open"
            raise StateClosedError(msg)

    def open(self, workdir: str) -> None:
        """Start with empty state; ``workdir`` is created if missing (nothing is stored there).

        Raises:
            StateError: if ``workdir`` cannot be created.
        """
        try:
            os.makedirs(workdir, exist_ok=True)
        except OSError as e:
            msg = f"Cannot create state directory '{workdir}': {os_error_text(e)}"
            raise StateError(msg) from e
        self._workdir = workdir
        for state in self._states.values():
            state._data, state.table, state._maps = {}, None, None

    def keyed_state(self, operator_id: str) -> KeyedState:
        """The state of operator ``operator_id`` (the same object on every call).

        Raises:
            StateError: for an empty id or one containing NUL.
            StateClosedError: if the backend is not open.
        """
        self._check_open(f"get the state of operator {operator_id!r}")
        state = self._states.get(operator_id)
        if state is None:
            validate_operator_id(operator_id)
            state = self._states[operator_id] = HashMapKeyedState(operator_id, {})
        return state

    def operator_ids(self) -> list[str]:
        """The operators with entries, sorted.

        Raises:
            StateClosedError: if the backend is not open.
        """
        self._check_open("list operators")
        return sorted(op for op, state in self._states.items() if len(state))

    def snapshot(self, directory: str) -> int:
        """Write all state to ``directory/hashmap.state`` (temp file, fsync, rename, fsync dir).

        Args:
            directory: must not exist; created along with missing parents.

        Returns:
            The snapshot's size in bytes.

        Raises:
            SnapshotError: if ``directory`` exists, cannot be written, or a key or value is not
                ``bytes`` (or is 4 GiB or longer).
            StateClosedError: if the backend is not open.
        """
        self._check_open("snapshot state")
        create_snapshot_dir(directory)
        final = os.path.join(directory, SNAPSHOT_FILE)
        tmp = final + ".tmp"
        try:
            with open(tmp, "wb") as f:
                size = self._write_to(f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
            fsync_dir(directory)
            fsync_dir(os.path.dirname(os.path.abspath(directory)))
        except (OSError, TypeError, OverflowError, struct.error) as e:
            msg = f"Cannot write state snapshot '{final}': {os_error_text(e)}"
            raise SnapshotError(msg) from e
        return size

    def _write_to(self, f) -> int:
        crc = 0
        size = 0

        def out(chunk) -> None:
            nonlocal crc, size
            crc = zlib.crc32(chunk, crc)
            size += len(chunk)
            f.write(chunk)

        out(MAGIC)
        out(_U32.pack(len(self._states)))
        for op, state in self._states.items():
            # dict order (sequential, far cheaper than sorting), then the table's slot order
            n, keys, values, (tn, tkey_lengths, tkeys, tvalues) = state.sections()
            op_bytes = op.encode()
            out(_U16.pack(len(op_bytes)) + op_bytes + _U64.pack(n))
            out(_lengths(keys).tobytes() + tkey_lengths)
            out(_lengths(values).tobytes())
            if tn:  # the table's values: all of one width
                out(_U32.pack(state.table.values.width) * tn)
            out(b"".join(keys) + tkeys)
            out(b"".join(values) + tvalues)
        f.write(_U32.pack(crc))
        return size + _U32.size

    def restore(self, directory: str) -> None:
        """Replace all state with the snapshot in ``directory``.

        Operators absent from the snapshot end up empty; existing handles stay valid.

        Raises:
            SnapshotError: if the snapshot is missing, truncated, corrupt (checksum) or not a
                hashmap snapshot.
            StateClosedError: if the backend is not open.
        """
        self._check_open("restore state")
        path = os.path.join(directory, SNAPSHOT_FILE)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            msg = (f"Cannot restore state: '{directory}' holds no hashmap snapshot ({SNAPSHOT_FILE})"
                   if isinstance(e, FileNotFoundError)
                   else f"Cannot read state snapshot '{path}': {os_error_text(e)}")
            raise SnapshotError(msg) from e
        try:
            loaded = _decode(raw)
        except (ValueError, struct.error, UnicodeDecodeError) as e:
            msg = f"Corrupt state snapshot '{path}': {os_error_text(e)}"
            raise SnapshotError(msg) from e
        for op, state in self._states.items():
            data = state._dict()
            data.clear()
            data.update(loaded.pop(op, ()))
            state._maps = None  # the next map call takes the restored map entries
            if state.table is not None:  # it takes the restored entries at its next use
                state.table.reset()
        for op, data in loaded.items():
            self._states[op] = HashMapKeyedState(op, data)

    def close(self) -> None:
        """Drop all state; handles raise :class:`StateClosedError` afterwards."""
        for state in self._states.values():
            state._data, state.table, state._maps = None, None, None
        self._states.clear()
        self._workdir = None


def _decode(raw: bytes) -> dict[str, dict[bytes, bytes]]:
    if len(raw) < len(MAGIC) + _U32.size * 2 or not raw.startswith(MAGIC):
        msg = "not a hashmap state snapshot (bad magic or too short)"
        raise ValueError(msg)
    body = memoryview(raw)[: -_U32.size]
    (crc,) = _U32.unpack_from(raw, len(raw) - _U32.size)
    if zlib.crc32(body) != crc:
        msg = "checksum mismatch (truncated or corrupt file)"
        raise ValueError(msg)
    pos = len(MAGIC)
    (n_ops,) = _U32.unpack_from(body, pos)
    pos += _U32.size
    result: dict[str, dict[bytes, bytes]] = {}
    for _ in range(n_ops):
        (id_len,) = _U16.unpack_from(body, pos)
        pos += _U16.size
        op = bytes(body[pos : pos + id_len]).decode()
        pos += id_len
        (n,) = _U64.unpack_from(body, pos)
        pos += _U64.size
        lens = []
        for _part in range(2):
            arr = array("I")
            arr.frombytes(body[pos : pos + 4 * n])
            if sys.byteorder == "big":  # pragma: no cover
                arr.byteswap()
            lens.append(arr)
            pos += 4 * n
        keys, pos = _split(raw, pos, lens[0])
        values, pos = _split(raw, pos, lens[1])
        if pos > len(body):
            msg = "truncated operator section"
            raise ValueError(msg)
        result[op] = dict(zip(keys, values))
    if pos != len(body):
        msg = "trailing bytes after the last operator"
        raise ValueError(msg)
    return result
