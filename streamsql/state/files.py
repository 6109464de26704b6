"""Durable-file helpers shared by the state backends' snapshots."""

from __future__ import annotations

import os


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
