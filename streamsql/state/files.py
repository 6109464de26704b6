"""Durable-file helpers shared by the state backends' snapshots."""

from __future__ import annotations

import os

from streamsql.core.errors import os_error_text
from streamsql.state.exceptions import SnapshotError


def create_snapshot_dir(directory: str) -> None:
    """Create a snapshot's directory, and missing parents; it must not exist yet.

    Raises:
        SnapshotError: if ``directory`` exists or cannot be created.
    """
    try:
        os.makedirs(directory)
    except FileExistsError as e:
        msg = f"Cannot snapshot state: '{directory}' already exists"
        raise SnapshotError(msg) from e
    except OSError as e:
        msg = f"Cannot create snapshot directory '{directory}': {os_error_text(e)}"
        raise SnapshotError(msg) from e


def fsync_dir(path: str) -> None:
    """Fsync a directory so that renames and new entries in it survive a crash.

    Raises:
        OSError: if the directory cannot be opened (platforms that cannot fsync a directory,
            such as Windows, are silently skipped).
    """
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
