"""Typed errors of the state backends.

rocksdict raises a bare ``Exception`` whose message is RocksDB's status string
(``"IO error: lock hold by current process ..."``, ``"Invalid argument: Directory exists"``);
:func:`translate` turns those into the classes below so callers never match on strings.
"""

from __future__ import annotations

from streamsql.core.errors import ExecutionError


class StateError(ExecutionError):
    """A state backend failed (disk, corrupt snapshot, closed backend, RocksDB error)."""


class StateLockedError(StateError):
    """The RocksDB database is still locked by another handle after the open timeout."""


class StateClosedError(StateError):
    """The backend was used before ``open()`` or after ``close()``."""


class SnapshotError(StateError):
    """A snapshot cannot be written (directory exists) or read (missing, corrupt, wrong format)."""


def is_lock_error(error: BaseException) -> bool:
    """Whether a rocksdict error says the database's LOCK file is held."""
    text = str(error)
    return "lock" in text.lower() and ("IO error" in text or "LOCK" in text)


def translate(error: BaseException, action: str) -> StateError:
    """A typed :class:`StateError` for a rocksdict error raised while doing ``action``.

    Args:
        error: the exception rocksdict raised (usually a bare ``Exception`` with a status string).
        action: what we were doing, e.g. ``"open RocksDB state in '/tmp/x/db'"``.

    Returns:
        The error to raise (``raise translate(e, ...) from e``).
    """
    if isinstance(error, StateError):
        return error
    name = type(error).__name__
    text = str(error) or name
    if name == "DbClosedError":
        return StateClosedError(f"Cannot {action}: the state backend is closed")
    if is_lock_error(error):
        return StateLockedError(f"Cannot {action}: the database is locked ({text})")
    return StateError(f"Cannot {action}: {text}")
