"""The state backend contract.

Key layout (both backends): ``operator_id`` bytes, ``0x00``, 2-byte big-endian key group,
then the encoded key. The key group is ``crc32(key) % MAX_PARALLELISM`` as Flink's key groups,
so that a later multi-process runtime can split state by key group without rewriting it.

All reads and writes are per batch: ``get_many`` (multi-get) and ``write`` (a write batch of
puts and deletes), so keyed state is touched once per distinct key per batch.
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterator

MAX_PARALLELISM = 128  # Flink's default lower bound for max parallelism; fixed for the job's life


def key_group(key: bytes) -> int:
    """The key group of an encoded key, in ``[0, MAX_PARALLELISM)``."""
    return zlib.crc32(key) % MAX_PARALLELISM


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


class StateBackend(ABC):
    """Holds the keyed state of every operator of one job instance.

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


def create_backend(name: str) -> StateBackend:
    """The backend for ``'state.backend.type'``: ``hashmap`` or ``rocksdb``.

    Raises:
        ConfigError: for another name.
    """
    from streamsql.core.errors import ConfigError

    if name == "hashmap":
        from streamsql.state.hashmap import HashMapStateBackend

        return HashMapStateBackend()
    if name in ("rocksdb", "rocksdict"):
        from streamsql.state.rocksdb import RocksDBStateBackend

        return RocksDBStateBackend()
    msg = f"Unknown 'state.backend.type' = '{name}'; use 'hashmap' or 'rocksdb'"
    raise ConfigError(msg)
