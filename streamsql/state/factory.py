"""The state backend of a job, by name (``'state.backend.type'``)."""

from __future__ import annotations

from streamsql.core.errors import ConfigError
from streamsql.state.base import StateBackend
from streamsql.state.hashmap import HashMapStateBackend
from streamsql.state.rocksdb import RocksDBOptions, RocksDBStateBackend


def create_backend(name: str, settings: dict[str, str] | None = None) -> StateBackend:
    """The backend for ``'state.backend.type'``: ``hashmap`` or ``rocksdb`` (alias ``rocksdict``).

    Args:
        name: the backend's name.
        settings: the job's configuration, for the ``state.backend.rocksdb.*`` keys (None:
            defaults).

    Raises:
        ConfigError: for another name, or a RocksDB key with a bad value (naming the key).
    """
    if name == "hashmap":
        return HashMapStateBackend()
    if name in ("rocksdb", "rocksdict"):
        return RocksDBStateBackend(RocksDBOptions.from_config(settings or {}))
    msg = f"Unknown 'state.backend.type' = '{name}'; use 'hashmap' or 'rocksdb'"
    raise ConfigError(msg)
