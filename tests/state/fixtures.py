"""Factory fixtures for the state backends: every backend test runs against both."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from streamsql.state.base import StateBackend
from streamsql.state.factory import create_backend
from streamsql.state.layout import key_group

BACKENDS = ["hashmap", "rocksdb"]


def encode_key(key: bytes) -> bytes:
    """A caller-side encoded key: 2-byte big-endian key group, then the key."""
    return key_group(key).to_bytes(2, "big") + key


@pytest.fixture()
def backend_factory(tmp_path) -> Iterator[Callable[..., StateBackend]]:
    """Open backends by name (each in its own work dir); all closed at teardown."""
    opened: list[StateBackend] = []

    def factory(name: str, workdir: str | None = None) -> StateBackend:
        backend = create_backend(name)
        backend.open(workdir or os.path.join(tmp_path, f"work-{name}-{len(opened)}"))
        opened.append(backend)
        return backend

    yield factory
    for backend in opened:
        backend.close()


@pytest.fixture(params=BACKENDS)
def backend_name(request) -> str:
    """Each backend name in turn."""
    return request.param


@pytest.fixture()
def backend(backend_factory, backend_name) -> StateBackend:
    """An open backend, once per backend type."""
    return backend_factory(backend_name)
