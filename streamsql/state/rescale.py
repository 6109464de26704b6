"""Rescale: split and merge state snapshots by key-group range (both backends).

A job's keyed state is laid out by key group (:mod:`streamsql.state.layout`): every keyed
entry starts with its 2-byte key group ``kg`` in ``[0, MAX_PARALLELISM)``. Task ``p`` of a stage
with ``P`` tasks owns the key groups the run's assignment gives it
(:func:`~streamsql.state.layout.task_of_key_groups`, :func:`key_group_range`: a new run's, the
bit-reversed ranges). So a snapshot taken at parallelism ``P`` restores at ``P'`` by routing each
entry to the new task that owns its key group, whatever assignment the old run had (the entry's
key group is the same under every assignment):

    rescale_snapshots("rocksdb", ["chk-9/task0", "chk-9/task1"], ["new/0", "new/1", "new/2"], tmp)

reads every source snapshot (any number: the tasks of the old parallelism) and writes one
snapshot per target (the tasks of the new one); one source and several targets splits, several
sources and one target merges. Each target snapshot is the same format as the backend's own
(``restore`` reads it) and holds, for every operator, exactly the keyed entries of its key groups.

Operator-wide entries (key group ``OPERATOR_KG``, e.g. a watermark or a watermark assigner's
split maxima) are copied to every target. When two sources hold one such key with different
values: for ``WATERMARK_KEY`` the smallest watermark is kept (its value's last 8 bytes, signed
big-endian: a lower watermark never fires or drops early; Flink restores no watermark at all);
for a watermark assigner's split maximum (``SPLIT_KEY_PREFIX`` + the split's name) the largest:
a rescale gives every new task a copy of every split's maximum, only the task that reads the
split moves its copy on, and the others keep the copy they were given, older and so never larger
(a second rescale, 1 -> 2 -> 3 or 2 -> 3 -> 2, refused the job: "its operator-wide entry
... differs between the snapshots", the entry of split "0"). Any other conflict raises
:class:`RescaleError` rather than pick one silently.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Sequence

from streamsql.state.base import StateBackend
from streamsql.state.exceptions import StateError
from streamsql.state.factory import create_backend
from streamsql.state.layout import (
    KG_ASSIGNMENT,
    MAX_PARALLELISM,
    OPERATOR_KG,
    SPLIT_KEY_PREFIX,
    WATERMARK_KEY,
    task_of_key_groups,
)

_CHUNK = 10_000  # entries written per write batch


class RescaleError(StateError):
    """Snapshots that cannot be split or merged (conflicting operator-wide entries)."""


def task_of_key_group(key_group: int, parallelism: int, assignment: int = KG_ASSIGNMENT) -> int:
    """The task (of ``parallelism``) that owns ``key_group`` (see :func:`key_group_range`)."""
    return int(task_of_key_groups([key_group], parallelism, assignment)[0])


def key_group_range(task: int, parallelism: int, assignment: int = KG_ASSIGNMENT) -> list[int]:
    """The key groups task ``task`` of ``parallelism`` owns, ascending (contiguous under Flink's ranges)."""
    owners = task_of_key_groups(range(MAX_PARALLELISM), parallelism, assignment)
    return [kg for kg in range(MAX_PARALLELISM) if owners[kg] == task]


def rescale_snapshots(backend: str, sources: Sequence[str], targets: Sequence[str], workdir: str,
                      operators: Collection[str] | None = None, assignment: int = KG_ASSIGNMENT) -> None:
    """Write ``len(targets)`` snapshots holding the state of ``sources``, split by key group.

    Args:
        backend: ``'state.backend.type'`` of the snapshots (``rocksdb`` or ``hashmap``).
        sources: snapshot folders (written by ``backend.snapshot``) of the old tasks.
        targets: folders (must not exist) for the new tasks' snapshots; target ``p`` gets the
            key groups :func:`key_group_range` ``(p, len(targets))``.
        workdir: a scratch folder for the backends' working files (removed at the end).
        operators: only these operators' state goes into the targets (None: every operator's);
            a single-process job's snapshot restored into the stages of a parallel job holds
            every stage's operators, and each stage takes its own.
        assignment: the key-group assignment of the run the targets seed (a new run's by default).

    Raises:
        RescaleError: for conflicting operator-wide entries, or no target.
        SnapshotError: for a source that is not a snapshot of ``backend``.
    """
    if not targets:
        msg = "Rescale needs at least one target snapshot"
        raise RescaleError(msg)
    parallelism = len(targets)
    route = task_of_key_groups(range(MAX_PARALLELISM), parallelism, assignment).tolist()
    outs = [_opened(backend, os.path.join(workdir, f"target-{p}")) for p in range(parallelism)]
    try:
        for i, source in enumerate(sources):
            reader = _opened(backend, os.path.join(workdir, f"source-{i}"))
            try:
                reader.restore(source)
                for op in reader.operator_ids():
                    if operators is not None and op not in operators:
                        continue
                    _route_operator(op, reader, outs, route)
            finally:
                reader.close()
        for out, target in zip(outs, targets):
            out.snapshot(target)
    finally:
        for out in outs:
            out.close()
        shutil.rmtree(workdir, ignore_errors=True)


def _opened(backend: str, workdir: str) -> StateBackend:
    b = create_backend(backend)
    b.open(workdir)
    return b


def _route_operator(op: str, reader: StateBackend, outs: list[StateBackend], route: list[int]) -> None:
    """Copy operator ``op``'s entries from ``reader`` to the targets owning their key groups."""
    batches: list[list[tuple[bytes, bytes]]] = [[] for _ in outs]
    wide: list[tuple[bytes, bytes]] = []
    for key, value in reader.keyed_state(op).items():
        if key[:2] == OPERATOR_KG:
            wide.append((key, value))
            continue
        p = route[int.from_bytes(key[:2], "big")]
        batches[p].append((key, value))
        if len(batches[p]) >= _CHUNK:
            outs[p].keyed_state(op).write(batches[p])
            batches[p] = []
    for out, batch in zip(outs, batches):
        if batch:
            out.keyed_state(op).write(batch)
    if wide:
        for out in outs:
            _merge_wide(op, out, wide)


def _merge_wide(op: str, out: StateBackend, entries: list[tuple[bytes, bytes]]) -> None:
    state = out.keyed_state(op)
    present = state.get_many([k for k, _ in entries])
    puts = []
    for (key, value), old in zip(entries, present):
        if old is None or old == value:
            puts.append((key, value))
        elif key == WATERMARK_KEY:
            if _signed_tail(value) < _signed_tail(old):
                puts.append((key, value))
        elif key.startswith(SPLIT_KEY_PREFIX):  # a split's largest rowtime: the owner's is the largest
            if _signed_tail(value) > _signed_tail(old):
                puts.append((key, value))
        else:
            msg = (f"Cannot rescale the state of operator '{op}': its operator-wide entry {key!r} "
                   "differs between the snapshots")
            raise RescaleError(msg)
    state.write(puts)


def _signed_tail(value: bytes) -> int:
    return int.from_bytes(value[-8:], "big", signed=True)
