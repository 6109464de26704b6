"""The state backend contract.

Key layout (both backends): ``operator_id`` bytes, ``0x00`` (:func:`validate_operator_id`),
then the key the operator wrote — the 2-byte big-endian key group and the encoded key, as laid
out in :mod:`streamsql.state.layout` (Flink's key groups, so that a later multi-process runtime
can split state by key group without rewriting it).

All reads and writes are per batch: ``get_many`` (multi-get) and ``write`` (a write batch of
puts and deletes), so keyed state is touched once per distinct key per batch.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator

from streamsql.state.exceptions import StateError


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
    def get_many(self, keys: list[bytes]) -> list[bytes | None]:
        """Values for ``keys`` in order (None where absent)."""

    @abstractmethod
    def write(self, puts: list[tuple[bytes, bytes]], deletes: list[bytes] = ()) -> None:
        """Apply puts and deletes atomically (one write batch)."""

    @abstractmethod
    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """All (key, value) pairs of this operator, in key-group order."""

    @abstractmethod
    def clear(self) -> None:
        """Remove every entry of this operator."""

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
