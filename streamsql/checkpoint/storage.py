"""Checkpoint files: one folder per checkpoint with the state snapshot and ``_metadata``.

Layout: ``<root>/<job>/chk-<n>/state/`` (the job's state backend, all operators) and
``chk-<n>/_metadata``; ``<root>/<job>/_committed`` when no transactional sink commits; ``_job``
(:mod:`streamsql.checkpoint.identity`). ``<root>`` is ``'execution.checkpointing.dir'``: a
path or ``s3://bucket/prefix`` (:mod:`streamsql.checkpoint.stores`). With
``'execution.checkpointing.storage'`` = ``jobmanager`` the ``chk-<n>`` folders are kept in the
process's memory and only ``_job`` and ``_committed`` are written under ``<root>``.

Checkpoint ids continue from the restored one, as Flink's, and each ``chk-<n>`` is written by one
attempt only, so a zombie attempt (replaced, but still running) never overwrites a folder its
successor writes or restores: an attempt starts above every id present
(:meth:`CheckpointStorage.first_id_after`, before the restore discards newer folders) and takes
each id by a claim (:meth:`CheckpointStorage.claim`) that two attempts cannot both win.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping

from streamsql.checkpoint.stores import MemoryStore, Store, atomic_write, local_lock_dir, open_store
from streamsql.core.errors import ConfigError

__all__ = ["CheckpointStorage", "atomic_write"]

#: The file that makes a checkpoint folder a savepoint (never pruned).
SAVEPOINT_MARKER = "_savepoint"
#: ``'execution.checkpointing.storage'`` values (Flink's), the default first.
STORAGE_KINDS = ("filesystem", "jobmanager")


class CheckpointStorage:
    """The checkpoint folder of one job: ``<root>/<job_name>/chk-<n>/``.

    Args:
        root: ``'execution.checkpointing.dir'`` (a path or ``s3://bucket/prefix``).
        job_name: ``'pipeline.name'`` (stable across restarts).
        options: the job's settings: ``'execution.checkpointing.storage'`` and the ``s3.*`` keys.

    Attributes:
        dir: the job folder's location, as shown in messages (a path or ``s3://...``).

    Raises:
        ConfigError: for an unknown storage kind, URI scheme or bad ``s3.*`` settings.
    """

    def __init__(self, root: str, job_name: str, options: Mapping[str, str] | None = None):
        options = options or {}
        kind = (options.get("execution.checkpointing.storage") or "filesystem").strip().lower()
        if kind not in STORAGE_KINDS:
            msg = f"'execution.checkpointing.storage' = '{kind}': use 'filesystem' or 'jobmanager'"
            raise ConfigError(msg)
        self.options = dict(options)
        self.root = root
        self.job_key = _safe(job_name)
        self.files: Store = open_store(root, options)
        self.dir = self.files.uri(self.job_key)
        self.in_memory = kind == "jobmanager"
        self.snapshots: Store = MemoryStore(self.dir) if self.in_memory else self.files
        if self.files.local_root is not None:
            os.makedirs(self.dir, exist_ok=True)

    @property
    def folder(self) -> str:
        """The job folder, the same text from every working folder: an absolute path, or its URI."""
        return os.path.realpath(self.dir) if self.files.local_root is not None else self.dir

    def at(self, location: str) -> CheckpointStorage:
        """The storage of another job folder ``location`` (``<root>/<job>``), with these settings."""
        root, _, job = location.rstrip("/").rpartition("/")
        return CheckpointStorage(root or ".", job, self.options)

    @property
    def lock_dir(self) -> str:
        """The local folder holding the job's writer lock ``_lock``.

        The job folder itself when it is local; for S3, a folder of this machine named after
        the URI: the lock keeps two jobs of one machine apart, while on a shared store the
        transactional fencing and the attempt-unique ids keep writers of other machines apart.
        """
        return self.dir if self.files.local_root is not None else local_lock_dir(self.dir)

    def _chk(self, checkpoint_id: int) -> str:
        return f"{self.job_key}/chk-{checkpoint_id}"

    def location(self, checkpoint_id: int) -> str:
        """Where checkpoint ``checkpoint_id`` is, as ``'execution.savepoint.path'`` takes it."""
        return self.snapshots.uri(self._chk(checkpoint_id))

    def chk_dir(self, checkpoint_id: int) -> str:
        """Location of checkpoint ``checkpoint_id``'s folder (created when local)."""
        if self.snapshots.local_root is not None:
            os.makedirs(self.snapshots.uri(self._chk(checkpoint_id)), exist_ok=True)
        return self.snapshots.uri(self._chk(checkpoint_id))

    def state_dir(self, checkpoint_id: int) -> str:
        """Location of the state snapshot of ``checkpoint_id`` (not created)."""
        return self.snapshots.uri(f"{self._chk(checkpoint_id)}/state")

    def save_state(self, checkpoint_id: int, snapshot: Callable[[str], int]) -> int:
        """Snapshot the state backend for ``checkpoint_id``; returns the size in bytes.

        Args:
            checkpoint_id: n.
            snapshot: writes the snapshot into a local folder that must not exist (the
                backend's ``snapshot``): the final folder when the store is local, else a
                staging folder uploaded and removed afterwards.
        """
        key = f"{self._chk(checkpoint_id)}/state"
        if self.snapshots.local_root is not None:
            self.chk_dir(checkpoint_id)
            return snapshot(self.snapshots.uri(key))
        staging = tempfile.mkdtemp(prefix="streamsql-snapshot-")
        try:
            size = snapshot(os.path.join(staging, "state"))
            self.snapshots.put_dir(os.path.join(staging, "state"), key)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return size

    def restore_state(self, checkpoint_id: int, restore: Callable[[str], None]) -> bool:
        """Restore the state snapshot of ``checkpoint_id`` with ``restore(local_folder)``.

        A remote snapshot is downloaded into a temporary folder first (removed afterwards).

        Returns:
            False when the checkpoint has no state snapshot (a stateless job).
        """
        key = f"{self._chk(checkpoint_id)}/state"
        if self.snapshots.local_root is not None:
            path = self.snapshots.uri(key)
            if not os.path.exists(path):
                return False
            restore(path)
            return True
        staging = tempfile.mkdtemp(prefix="streamsql-restore-")
        try:
            if not self.snapshots.get_dir(key, os.path.join(staging, "state")):
                return False
            restore(os.path.join(staging, "state"))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return True

    def write_metadata(self, checkpoint_id: int, metadata: dict) -> None:
        """Durably write checkpoint ``checkpoint_id``'s metadata (atomic)."""
        data = json.dumps(metadata, sort_keys=True, default=str).encode()
        self.snapshots.write(f"{self._chk(checkpoint_id)}/_metadata", data)

    def read_metadata(self, checkpoint_id: int) -> dict | None:
        """The metadata of ``checkpoint_id``, or None if it was never completed here."""
        data = self.snapshots.read(f"{self._chk(checkpoint_id)}/_metadata")
        return None if data is None else json.loads(data)

    def missing_message(self, checkpoint_id: int) -> str:
        """Why committed checkpoint ``checkpoint_id`` cannot be restored (it has no metadata)."""
        if self.in_memory:
            return (f"checkpoint {checkpoint_id} is committed, but with 'execution.checkpointing.storage'"
                    " = 'jobmanager' checkpoints live in the memory of the process that took them, and "
                    "that process is gone; it cannot resume exactly-once. Use 'filesystem' storage to "
                    "survive a crash; to start afresh, give the job another 'pipeline.name'")
        return (f"checkpoint {checkpoint_id} is committed but its files are missing under {self.dir}; "
                "cannot restore exactly-once")

    def write_file(self, name: str, data: bytes) -> None:
        """Atomically write the job-level file ``name`` (``_job``, ``_committed``, ...)."""
        self.files.write(f"{self.job_key}/{name}", data)

    def read_file(self, name: str) -> bytes | None:
        """The job-level file ``name``, or None when absent."""
        return self.files.read(f"{self.job_key}/{name}")

    def delete_file(self, name: str) -> None:
        """Delete the job-level file ``name`` (absent: no-op)."""
        self.files.delete(f"{self.job_key}/{name}")

    def first_id_after(self, restored: int | None) -> int:
        """The first checkpoint id of a new attempt: above ``restored`` and every id present.

        Called before the restore discards the folders newer than ``restored``: an id a zombie
        attempt wrote (or is writing) is never taken again by its successor.
        """
        return max([restored or 0, *self.checkpoint_ids()]) + 1

    def claim(self, checkpoint_id: int, token: str) -> int:
        """Take the first free id from ``checkpoint_id`` on for the attempt ``token``; return it.

        The claim writes ``chk-<n>/_claim-<token>`` and then lists ``chk-<n>``: the id is ours
        only when our claim is all it holds, else the next id above every present one is
        tried. Of two attempts claiming one id, the one listing last sees the other's claim
        (each writes before it lists; S3 lists are read-after-write consistent), so two never
        both win; both may lose, and then try further up.
        """
        n = checkpoint_id
        mine = f"_claim-{token}"
        while True:
            self.chk_dir(n)
            self.snapshots.write(f"{self._chk(n)}/{mine}", b"")
            if self.snapshots.list(self._chk(n)) == [mine]:
                return n
            n = max([n, *self.checkpoint_ids()]) + 1

    def checkpoint_ids(self) -> list[int]:
        """Ids of checkpoint folders present, ascending (complete or not)."""
        names = self.snapshots.list(self.job_key)
        return sorted(int(n[4:]) for n in names if n.startswith("chk-") and n[4:].isdigit())

    def mark_committed(self, checkpoint_id: int, final: bool = False) -> None:
        """The commit point when no transactional sink exists: ``_committed`` names the id.

        The id is followed by `` final`` for the last checkpoint of a finished job.
        """
        self.write_file("_committed", f"{checkpoint_id}{' final' if final else ''}".encode())

    def local_committed(self) -> int | None:
        """The id in ``_committed`` to resume from, or None (absent, or final)."""
        data = self.read_file("_committed")
        parts = data.decode(errors="replace").split() if data is not None else []
        if not parts or not parts[0].isdigit() or "final" in parts[1:]:
            return None
        return int(parts[0])

    def keep_as_savepoint(self, checkpoint_id: int) -> None:
        """Mark committed checkpoint ``checkpoint_id`` a savepoint: :meth:`prune` never deletes it.

        As Flink's savepoints, it belongs to the user from then on (delete the folder to drop it).
        """
        self.snapshots.write(f"{self._chk(checkpoint_id)}/{SAVEPOINT_MARKER}", b"")

    def prune(self, committed: int, num_retained: int) -> None:
        """Delete checkpoints older than the newest ``num_retained`` committed ones.

        Savepoints (:meth:`keep_as_savepoint`) are kept. Checkpoints newer than ``committed``
        (never committed) are discarded on restore.
        """
        older = [i for i in self.checkpoint_ids() if i <= committed]
        for i in older[:-max(1, num_retained)]:
            if self.snapshots.read(f"{self._chk(i)}/{SAVEPOINT_MARKER}") is None:
                self.snapshots.delete(self._chk(i))

    def discard_after(self, checkpoint_id: int | None) -> None:
        """Delete every checkpoint newer than ``checkpoint_id`` (restore discards them).

        Savepoints (:meth:`keep_as_savepoint`) are kept, as :meth:`prune` keeps them: a fresh start
        of the job (None) left the user's savepoint of an earlier run deleted.
        """
        for i in self.checkpoint_ids():
            if ((checkpoint_id is None or i > checkpoint_id)
                    and self.snapshots.read(f"{self._chk(i)}/{SAVEPOINT_MARKER}") is None):
                self.snapshots.delete(self._chk(i))


def peek_job_file(root: str, job_name: str, name: str, options: Mapping[str, str]) -> bytes | None:
    """Job ``job_name``'s job-level file ``name`` under ``root``, or None when absent.

    Unlike :class:`CheckpointStorage`, creates no folder: a look at a job that may not exist.
    """
    return open_store(root, options).read(f"{_safe(job_name)}/{name}")


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
