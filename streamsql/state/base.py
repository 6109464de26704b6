"""The state backend contract.

Key layout (both backends): ``operator_id`` bytes, ``0x00`` (:func:`validate_operator_id`),
then the key the operator wrote — the 2-byte big-endian key group and the encoded key, as laid
out in :mod:`streamsql.state.layout` (Flink's key groups, so that a later multi-process runtime
can split state by key group without rewriting it).

All reads and writes are per batch: ``get_many`` (multi-get) and ``write`` (a write batch of
puts and deletes), so keyed state is touched once per distinct key per batch.

Map state, as Flink's ``MapState``: a key's value can be a map of entries, each its own state
entry, so that changing one entry costs one put or delete whatever the map's size. A map is named
by its prefix (:func:`~streamsql.state.layout.map_prefixes`) and its entries by their entry key;
``get_maps`` reads whole maps (a prefix scan), ``get_map_values`` single entries, ``write_maps``
puts and deletes entries. An entry's whole key is ``prefix + entry key``: ``items()`` lists it so,
and snapshots and rescale hold it so (both backends store the same bytes; RocksDB adds a marker per
map, the prefix itself, which ``items()`` lists too). Entry keys are never empty. An operator that
uses maps writes no plain key shaped like a map entry's (:func:`~streamsql.state.layout.split_map_key`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator

from streamsql.state.exceptions import StateError

#: A map entry: ``(map prefix, entry key)``.
MapEntry = tuple[bytes, bytes]
#: A map entry's put: ``(map prefix, entry key, value)``.
MapPut = tuple[bytes, bytes, bytes]


def validate_operator_id(operator_id: str) -> bytes:
    r"""The namespace prefix of an operator: ``operator_id.encode() + b"\x00"``.

    Raises:
        StateError: if the id is empty, not a string, or contains NUL (it would make one
            operator's range overlap another's).
    """
    if not isinstance(operator_id, str) or not operator_id or "\x00" in operator_id:
        msg = f"Invalid operator id {operator_id!r}: must be a non-empty string without NUL"
        raise StateError(msg)
    return operator_id.encode() + b"\x00"


class KeyedState(ABC):
    """One operator's keyed state: encoded key → value bytes (a namespace of the backend)."""

    @abstractmethod
    def get_many(self, keys: list[bytes], cache: bool = True) -> list[bytes | None]:
        """Values for ``keys`` in order (None where absent).

        ``cache=False``: the caller keeps what it reads decoded (a :class:`~streamsql.state.cache.
        WriteBehindCache`), so the backend need not keep a copy in its own read cache (RocksDB's
        block cache); a hint, which an in-memory backend ignores.
        """

    @abstractmethod
    def write(self, puts: list[tuple[bytes, bytes]], deletes: list[bytes] = ()) -> None:
        """Apply puts and deletes atomically (one write batch)."""

    @abstractmethod
    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """All (key, value) pairs of this operator, in key-group order (map entries included)."""

    @abstractmethod
    def get_maps(self, prefixes: list[bytes]) -> list[list[tuple[bytes, bytes]]]:
        """Per map prefix, its entries ``(entry key, value)`` (in no set order; [] for none)."""

    @abstractmethod
    def get_map_values(self, entries: list[MapEntry]) -> list[bytes | None]:
        """Values of map entries ``(prefix, entry key)`` in order (None where absent)."""

    @abstractmethod
    def write_maps(self, puts: list[MapPut], deletes: list[MapEntry] = ()) -> None:
        """Put entries ``(prefix, entry key, value)`` then delete ``(prefix, entry key)``, atomically."""

    @abstractmethod
    def clear(self) -> None:
        """Remove every entry of this operator."""

    def rewrite_values(self, rewrite: Callable[[bytes], bytes]) -> int:
        """Replace every value by ``rewrite(value)``; how many.

        A restore's upgrade of older state, before the operator reads any
        (:mod:`streamsql.runtime.operators.group_agg_upgrade`).

        Raises:
            whatever ``rewrite`` raises (nothing is written then).
        """
        puts = [(key, rewrite(value)) for key, value in self.items()]
        if puts:
            self.write(puts)
        return len(puts)

    def column_table(self, values):
        """A home for fixed-width values in memory for good, if this backend has one (else None).

        Args:
            values: a :class:`~streamsql.state.fixed_cache.FixedWidthValues` (the slots' columns).

        Returns:
            None here: the operator keeps a :class:`~streamsql.state.cache.WriteBehindCache` over
            this state. The ``hashmap`` backend returns a
            :class:`~streamsql.state.columns.ColumnTable`, which has the cache's interface.
        """
        return None


class StateBackend(ABC):
    """Holds the keyed state of every operator of one job instance.

    One backend per job: each operator takes its namespace with ``keyed_state(operator_id)``
    (a key prefix, so operators never see each other's entries), and ``snapshot``/``restore``
    cover every operator at once (one directory per checkpoint). Operators absent from a
    restored snapshot start empty.

    Lifecycle: ``open(workdir)`` → optionally ``restore(snapshot_dir)`` → ``keyed_state(op)`` ...
    → ``snapshot(dir)`` at each checkpoint → ``close()``.
    """

    name: str

    @abstractmethod
    def open(self, workdir: str) -> None:
        """Start with empty state in ``workdir`` (created if missing)."""

    @abstractmethod
    def keyed_state(self, operator_id: str) -> KeyedState:
        """The state namespace of operator ``operator_id`` (stable across restarts)."""

    @abstractmethod
    def operator_ids(self) -> list[str]:
        """The ids of the operators that have entries (after a restore: the snapshot's), sorted."""

    @abstractmethod
    def snapshot(self, directory: str) -> int:
        """Write a durable, self-contained copy of all state into ``directory`` (must not exist).

        Returns:
            The snapshot's size in bytes.
        """

    @abstractmethod
    def restore(self, directory: str) -> None:
        """Replace all state with the snapshot in ``directory``."""

    @abstractmethod
    def close(self) -> None:
        """Release files and memory."""
