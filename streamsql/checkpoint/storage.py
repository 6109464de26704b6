"""Checkpoint files: one folder per checkpoint with the state snapshot and ``_metadata``.

Layout: ``<root>/<job>/chk-<n>/state/`` (the job's state backend, all operators) and
``chk-<n>/_metadata``; ``<root>/<job>/_committed`` when no transactional sink commits.
"""

from __future__ import annotations

import json
import os
import shutil


def atomic_write(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a part.

    Temp file, fsync, rename, fsync of the folder.
    """
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class CheckpointStorage:
    """The checkpoint folder of one job: ``<root>/<job_name>/chk-<n>/``.

    Args:
        root: ``'execution.checkpointing.dir'``.
        job_name: ``'pipeline.name'`` (stable across restarts).
    """

    def __init__(self, root: str, job_name: str):
        self.dir = os.path.join(root, _safe(job_name))
        os.makedirs(self.dir, exist_ok=True)

    def chk_dir(self, checkpoint_id: int) -> str:
        """Folder of checkpoint ``checkpoint_id`` (created)."""
        d = os.path.join(self.dir, f"chk-{checkpoint_id}")
        os.makedirs(d, exist_ok=True)
        return d

    def state_dir(self, checkpoint_id: int) -> str:
        """Where the job's state backend snapshots for ``checkpoint_id`` (not created)."""
        return os.path.join(self.chk_dir(checkpoint_id), "state")

    def write_metadata(self, checkpoint_id: int, metadata: dict) -> None:
        """Durably write checkpoint ``checkpoint_id``'s metadata (atomic)."""
        path = os.path.join(self.chk_dir(checkpoint_id), "_metadata")
        atomic_write(path, json.dumps(metadata, sort_keys=True, default=str).encode())

    def read_metadata(self, checkpoint_id: int) -> dict | None:
        """The metadata of ``checkpoint_id``, or None if it was never completed locally."""
        path = os.path.join(self.dir, f"chk-{checkpoint_id}", "_metadata")
        if not os.path.exists(path):
            return None
        with open(path, "rb") as f:
            return json.loads(f.read())

    def checkpoint_ids(self) -> list[int]:
        """Ids of checkpoint folders present, ascending (complete or not)."""
        out = []
        for name in os.listdir(self.dir):
            if name.startswith("chk-") and name[4:].isdigit():
                out.append(int(name[4:]))
        return sorted(out)

    def mark_committed(self, checkpoint_id: int, final: bool = False) -> None:
        """The commit point when no transactional sink exists: ``_committed`` names the id.

        The id is followed by `` final`` for the last checkpoint of a finished job.
        """
        text = f"{checkpoint_id}{' final' if final else ''}"
        atomic_write(os.path.join(self.dir, "_committed"), text.encode())

    def local_committed(self) -> int | None:
        """The id in ``_committed`` to resume from, or None (absent, or final)."""
        path = os.path.join(self.dir, "_committed")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            parts = f.read().split()
        if not parts or not parts[0].isdigit() or "final" in parts[1:]:
            return None
        return int(parts[0])

    def prune(self, committed: int, num_retained: int) -> None:
        """Delete checkpoints older than the newest ``num_retained`` committed ones.

        Checkpoints newer than ``committed`` (never committed) are discarded on restore.
        """
        ids = self.checkpoint_ids()
        older = [i for i in ids if i <= committed]
        keep = set(older[-max(1, num_retained):])
        for i in ids:
            if i not in keep and i <= committed:
                shutil.rmtree(os.path.join(self.dir, f"chk-{i}"), ignore_errors=True)

    def discard_after(self, checkpoint_id: int | None) -> None:
        """Delete every checkpoint newer than ``checkpoint_id`` (restore discards them)."""
        for i in self.checkpoint_ids():
            if checkpoint_id is None or i > checkpoint_id:
                shutil.rmtree(os.path.join(self.dir, f"chk-{i}"), ignore_errors=True)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
