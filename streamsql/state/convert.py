"""Restoring a snapshot written by the other state backend (``'state.backend.type'`` changed).

A job whose ``'state.backend.type'`` changed between a checkpoint and its restore (the script
edited and started again, or a savepoint restored into a job of the other backend) finds a
snapshot its backend cannot read: a ``hashmap`` snapshot is one file, a ``rocksdb`` one a RocksDB
checkpoint. Both hold the same bytes (keys and values, :mod:`streamsql.state.layout`), so, as
Flink restores a savepoint into another state backend (its canonical savepoint format),
:func:`restore_snapshot` converts it in a scratch folder: the writing backend opens the snapshot,
every operator's entries are copied into a fresh backend of the job's kind, which snapshots them,
and the job's backend restores that snapshot as its own.

Map state (:meth:`~streamsql.state.base.KeyedState.get_maps`) differs in one thing: RocksDB keeps a
*marker* per map (:data:`~streamsql.state.rocksdb.MAP_MARKER`), the hashmap backend none. Into a
hashmap backend markers are skipped when the maps are first read, as after a rescale; into RocksDB
a marker is written for every map of an operator that uses maps (a join: its state holds
:data:`~streamsql.state.layout.LAYOUT_KEY`), else its maps would read as absent.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from streamsql.state.base import StateBackend
from streamsql.state.hashmap import SNAPSHOT_FILE
from streamsql.state.layout import LAYOUT_KEY, split_map_key
from streamsql.state.rocksdb import MAP_MARKER

_CHUNK = 10_000  # entries per write batch


def snapshot_backend(directory: str) -> str | None:
    """The backend that wrote the snapshot in ``directory``: ``"rocksdb"``, ``"hashmap"`` or None."""
    if os.path.isfile(os.path.join(directory, "CURRENT")):
        return "rocksdb"
    if os.path.isfile(os.path.join(directory, SNAPSHOT_FILE)):
        return "hashmap"
    return None


def restore_snapshot(backend: StateBackend, directory: str) -> None:
    """Replace ``backend``'s state with the snapshot in ``directory``, whichever backend wrote it.

    Raises:
        SnapshotError: a snapshot neither backend can read (from the backend's own ``restore``).
    """
    written_by = snapshot_backend(directory)
    if written_by is None or written_by == backend.name:
        backend.restore(directory)
        return
    from streamsql.state.factory import create_backend

    scratch = tempfile.mkdtemp(prefix="streamsql-convert-")
    source, copy = create_backend(written_by), create_backend(backend.name)
    try:
        source.open(os.path.join(scratch, "source"))
        source.restore(directory)
        copy.open(os.path.join(scratch, "copy"))
        for op in source.operator_ids():
            _copy(source, copy, op)
        copy.snapshot(os.path.join(scratch, "snapshot"))
        copy.close()
        source.close()
        backend.restore(os.path.join(scratch, "snapshot"))
    finally:
        source.close()
        copy.close()
        shutil.rmtree(scratch, ignore_errors=True)


def _copy(source: StateBackend, target: StateBackend, op: str) -> None:
    """Every entry of operator ``op`` from ``source`` into ``target`` (markers as the module says)."""
    entries = source.keyed_state(op).items()
    state = target.keyed_state(op)
    markers = target.name == "rocksdb" and source.keyed_state(op).get_many([LAYOUT_KEY])[0] is not None
    batch: list[tuple[bytes, bytes]] = []
    marked: set[bytes] = set()
    for key, value in entries:
        batch.append((key, value))
        if markers:
            split = split_map_key(key)
            if split is not None and split[1] and split[0] not in marked:
                marked.add(split[0])
                batch.append((split[0], MAP_MARKER))
        if len(batch) >= _CHUNK:
            state.write(batch)
            batch = []
    if batch:
        state.write(batch)
