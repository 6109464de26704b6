"""The state backend of a job, by name (``'state.backend.type'``)."""

from __future__ import annotations

from streamsql.core.errors import ConfigError
from streamsql.state.base import StateBackend
from streamsql.state.hashmap import HashMapStateBackend
from streamsql.state.rocksdb import RocksDBStateBackend


def create_backend(name: str) -> StateBackend:
    """The backend for ``'state.backend.type'``: ``hashmap`` or ``rocksdb`` (alias ``rocksdict``).

    Raises:
        ConfigError: for another name.
    """
    if name == "hashmap":
        return HashMapStateBackend()
    if name in ("rocksdb", "rocksdict"):
        return RocksDBStateBackend()
    msg = f"Unknown 'state.backend.type' = '{name}'; use 'hashmap' or 'rocksdb'"
    raise ConfigError(msg)
