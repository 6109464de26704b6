"""Savepoints of parallel jobs: every task's final checkpoint, restorable at another parallelism.

``STOP JOB 'id' WITH SAVEPOINT`` drains a parallel job stage by stage (docs/parallelism.md): the
source stage's tasks stop first, each after a final checkpoint whose transaction also carries a
stop record into every partition of its exchange; a downstream task stops after a final
checkpoint once it read the stop record (or the end) of every upstream task, that is once it
consumed everything they committed. Nothing is in flight in the exchanges then, so the savepoint
is the tasks' final checkpoints alone. :func:`write_savepoint` copies them into
``<dir>/<job>/savepoint-<n>/stage<s>-task<t>/chk-<id>/`` and writes the manifest
``savepoint-<n>/_savepoint`` (JSON: ``job``, ``fingerprint``, ``backend``, ``stages``: each
stage's tasks' checkpoint ids, in task order). It belongs to the user: nothing deletes it.

``SET 'execution.savepoint.path' = '<dir>/<job>/savepoint-<n>'`` starts the job from it, at any
parallelism: :func:`seed_tasks` gives each task of the new run a seed checkpoint in
``<job>/stage<s>-task<t>-seed/``, written before any task starts:

- state: the stage's snapshots split or merged by key group
  (:func:`~streamsql.state.rescale.rescale_snapshots`), so each task gets exactly the keys the new
  run's key-group assignment gives it (whatever the savepoint's run had: a new run's routing);
- positions: for each source, the union of the old tasks' partition offsets, cut to the new
  task's share as the Kafka reader assigns partitions (:mod:`~streamsql.connectors.kafka.assignment`:
  partition ``p`` of topic ``t`` to task ``(start(t) + p) % P``, each topic's start recorded in the
  positions; a savepoint without starts numbered all partitions in one sequence, ``i % P == t``).
  Exchange positions are dropped: the exchanges start afresh, empty.

A single-process job's savepoint (its ``chk-<n>`` folder) seeds the tasks the same way: its one
checkpoint serves every stage, each stage taking its own operators' state and its own sources'
positions, with each topic's start (Flink's) recorded, since a single task records none.

A task restores its seed while it has no committed checkpoint of its own
(:class:`~streamsql.runtime.parallel.TaskRunner`); the job's reset deletes the seeds with the
task folders.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from typing import Any

from streamsql.checkpoint.identity import RECOVERY_KEYS, JobIdentityError, read_job_file
from streamsql.checkpoint.operators import ASSIGNMENT_KEY, claim_state, mark_layouts, unmarked
from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.connectors.kafka.assignment import (
    START_PREFIX,
    STOP_PREFIX,
    flink_start,
    owner,
    position_starts,
)
from streamsql.core.connector import SINK_STATE_PREFIX
from streamsql.core.errors import ExecutionError
from streamsql.plan.nodes import walk
from streamsql.plan.stages import ExchangeSourceNode, Stage
from streamsql.plan.state_signature import recorded_signatures
from streamsql.runtime.builder import TaskSlot
from streamsql.state.convert import snapshot_backend
from streamsql.state.layout import KG_ASSIGNMENT
from streamsql.state.rescale import rescale_snapshots

log = logging.getLogger(__name__)

MANIFEST = "_savepoint"
#: the setting messages name when the caller does not say which one named the savepoint
SAVEPOINT_KEY = RECOVERY_KEYS[1]


def task_key(stage: int, task: int) -> str:
    """The folder name of a task's checkpoints inside a job (or savepoint) folder."""
    return f"stage{stage}-task{task}"


def seed_storage(slot: TaskSlot, root: str, options: dict[str, str]) -> CheckpointStorage:
    """The folder of task ``slot``'s seed checkpoint: ``<root>/<job>/stage<s>-task<t>-seed/``."""
    job_dir = CheckpointStorage(root, slot.job, options).dir
    return CheckpointStorage(job_dir, f"{task_key(slot.stage, slot.index)}-seed", options)


def write_savepoint(files: CheckpointStorage, tasks: list, fingerprint: str, backend: str) -> str:
    """Copy every task's last completed checkpoint into a new savepoint folder; its location.

    Args:
        files: the job's checkpoint folder.
        tasks: the job's task runners (each stopped after a final checkpoint).
        fingerprint: the job's fingerprint (recorded; a restore by another job warns).
        backend: ``'state.backend.type'`` of the snapshots.

    Raises:
        ExecutionError: a task has no completed checkpoint, or did not stop (nor finish) after one.
    """
    # A task that did not stop (cancelled while stopping) has a last completed checkpoint that is
    # not its final one: the rows it read after it, in flight no more, were not in the savepoint.
    done = {(t.slot.stage, t.slot.index): t.coordinator.last_completed
            if t.coordinator and t.status in ("STOPPED", "FINISHED") else None for t in tasks}
    missing = [task_key(*k) for k, c in done.items() if c is None]
    if missing:
        msg = (f"Job '{files.job_key}' stopped without a savepoint: tasks {', '.join(missing)} took no "
               "final checkpoint")
        raise ExecutionError(msg)
    n = max(c.checkpoint_id for c in done.values())
    folder = f"{files.dir}/savepoint-{n}"
    stages: dict[str, list[int]] = {}
    for t in tasks:
        cid = done[(t.slot.stage, t.slot.index)].checkpoint_id
        target = CheckpointStorage(folder, task_key(t.slot.stage, t.slot.index), files.options)
        _copy_checkpoint(t.coordinator.storage, cid, target)
        stages.setdefault(str(t.slot.stage), []).append(cid)
    manifest = {"job": files.job_key, "fingerprint": fingerprint, "backend": backend, "stages": stages}
    files.at(folder).write_file(MANIFEST, json.dumps(manifest, indent=1).encode())
    return folder


def _copy_checkpoint(source: CheckpointStorage, checkpoint_id: int, target: CheckpointStorage) -> None:
    """Copy a task's checkpoint into a savepoint, its signatures' layouts without the assignment.

    A savepoint restores by key group into a new run, whatever assignment it was taken under, so it
    is readable by a StreamSQL that knows only the ranges (the way back: docs/parallelism.md); its
    ``_metadata`` keeps the assignment for the record.
    """
    source.restore_state(checkpoint_id, lambda local: target.save_state(checkpoint_id, _copier(local)))
    meta = source.read_metadata(checkpoint_id) or {}
    if isinstance(meta.get("operators"), dict):
        meta["operators"] = {op: unmarked(sig) for op, sig in meta["operators"].items()}
    target.write_metadata(checkpoint_id, meta)


def _copier(local: str):
    def copy(destination: str) -> int:
        shutil.copytree(local, destination)
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(destination) for f in fs)
    return copy


def read_manifest(path: str, like: CheckpointStorage, key: str = SAVEPOINT_KEY) -> dict:
    """The manifest of the savepoint at ``path`` (``key``: the setting that named it, for messages).

    A single-process job's savepoint (its ``chk-<n>`` folder, marked by an empty ``_savepoint``)
    has no manifest of its own; it reads as ``{"job", "fingerprint", "single": n, "backend": None}``:
    its one checkpoint holds the state and the source positions of every stage.

    Raises:
        JobIdentityError: ``path`` is not a savepoint.
    """
    data = like.at(path.rstrip("/")).read_file(MANIFEST)
    if data is None and _retained_checkpoint(path, like):
        data = b""  # a single-process job's retained checkpoint: restored as its savepoint would be
    if data is None:
        msg = (f"'{key}' = '{path}' is not a savepoint (no _savepoint marker): use the "
               "path that STOP JOB ... WITH SAVEPOINT returned, a single-process job's checkpoint "
               "(<folder>/chk-<n>), or this job's own folder (its retained checkpoints)")
        raise JobIdentityError(msg)
    if not data.strip():  # a single-process job's savepoint: an empty marker in its chk-<n> folder
        job_dir, _, base = path.rstrip("/").rpartition("/")
        if not (base.startswith("chk-") and base[4:].isdigit()):
            msg = (f"'{key}' = '{path}' holds a single-process savepoint marker but "
                   "is not a chk-<n> folder: use the path that STOP JOB ... WITH SAVEPOINT returned")
            raise JobIdentityError(msg)
        writer = read_job_file(like.at(job_dir)) or {}
        return {"job": like.at(job_dir).job_key, "fingerprint": writer.get("fingerprint"),
                "single": int(base[4:]), "backend": None}
    return json.loads(data)


def _retained_checkpoint(path: str, like: CheckpointStorage) -> bool:
    """``path`` is a completed ``chk-<n>`` of a job's own folder (a single-process job's, retained).

    Flink restores a retained checkpoint as it restores a savepoint (``'execution.state-recovery.path'``
    takes either), at any parallelism. A parallel job's tasks keep theirs in folders of their own:
    its retained checkpoints are restored through the job's folder (``ParallelJobRunner``).
    """
    job_dir, _, base = path.rstrip("/").rpartition("/")
    if not (base.startswith("chk-") and base[4:].isdigit()):
        return False
    folder = like.at(job_dir)
    return folder.read_metadata(int(base[4:])) is not None and folder.read_file("_job") is not None


def _stage_checkpoints(path: str, manifest: dict, stage: int,
                       like: CheckpointStorage) -> list[tuple[CheckpointStorage, int]]:
    """The savepoint's checkpoints of stage ``stage``, in task order (a single-process one: its only)."""
    if manifest.get("single") is not None:
        return [(like.at(path.rstrip("/").rpartition("/")[0]), manifest["single"])]
    return [(CheckpointStorage(path.rstrip("/"), task_key(stage, t), like.options), cid)
            for t, cid in enumerate(manifest.get("stages", {})[str(stage)])]


def seed_tasks(path: str, files: CheckpointStorage, stages: list[Stage], fingerprint: str,
               scratch: str, key: str = SAVEPOINT_KEY, assignment: int = KG_ASSIGNMENT) -> int:
    """Write the seed checkpoint of every task of ``stages`` from the savepoint at ``path``.

    Args:
        path: the savepoint folder (``'execution.savepoint.path'``).
        files: the job's checkpoint folder (the seeds go into it).
        stages: the new run's stages.
        fingerprint: the new run's fingerprint (another job's savepoint is restored with a warning).
        scratch: a local folder for the rescale's working files (made when missing: a restore on
            a fresh ``'state.dir'``, another machine's, has none yet).
        key: the setting that named ``path`` (:data:`~streamsql.checkpoint.identity.RECOVERY_KEYS`),
            for messages.
        assignment: the new run's key-group assignment: the seeds are split by it and record it.

    Returns:
        The seeds' highest checkpoint id: what the tasks resume from (a stage's seed has its
        old tasks' highest id).

    Raises:
        JobIdentityError: not a savepoint, or one of a job with other stages.
    """
    manifest = read_manifest(path, files, key)
    seeded = 0
    single = manifest.get("single") is not None
    old = manifest.get("stages", {})
    if not single and sorted(old) != sorted(str(s.id) for s in stages):
        msg = (f"'{key}' = '{path}' is a savepoint of a job with stages {sorted(old)}, "
               f"this job has {sorted(str(s.id) for s in stages)}: it cannot be restored into it")
        raise JobIdentityError(msg)
    if manifest.get("fingerprint") != fingerprint:
        log.info("job %s restores savepoint %s of job '%s', on purpose (the user was told: "
                 "JobIdentity.restore_notice)", files.job_key, path, manifest.get("job"))
    options = files.options
    os.makedirs(scratch, exist_ok=True)
    for stage in stages:
        sources = _stage_checkpoints(path, manifest, stage.id, files)
        ids = [cid for _, cid in sources]
        exchanges = {n.id for n in walk(stage.roots) if isinstance(n, ExchangeSourceNode)}
        # a single-process checkpoint holds every stage's state and sources: each stage takes its own
        mine = {n.id for n in walk(stage.roots)} if single else None
        metas = [s.read_metadata(cid) or {} for s, cid in sources]
        targets = [seed_storage(TaskSlot(files.job_key, stage.id, t, stage.parallelism), files.root, options)
                   for t in range(stage.parallelism)]
        n = max(ids)
        seeded = max(seeded, n)
        operators = recorded_signatures(metas[0].get("operators")) if metas else None
        if mine is not None and operators is not None:
            operators = {k: v for k, v in operators.items() if k in mine}
        if operators is not None:  # the seeds are the new run's: its assignment, as its checkpoints
            operators = mark_layouts(operators, assignment)
        work = tempfile.mkdtemp(prefix="streamsql-rescale-", dir=scratch)
        try:
            states = _rescaled(manifest["backend"], sources, stage.parallelism, work, mine, assignment)
            for t, target in enumerate(targets):
                target.discard_after(None)
                if states:
                    target.save_state(n, _copier(states[t]))
                positions = _share(metas, exchanges, t, stage.parallelism, one_task=single)
                if mine is not None:
                    positions = {k: v for k, v in positions.items()
                                 if k.removeprefix(SINK_STATE_PREFIX) in mine}
                target.write_metadata(n, {"checkpoint_id": n, "positions": positions, "savepoint": path,
                                          "operators": operators, ASSIGNMENT_KEY: assignment})
        finally:
            shutil.rmtree(work, ignore_errors=True)
        log.info("job %s: stage %d restored from savepoint %s, %d -> %d tasks", files.job_key, stage.id, path,
                 len(ids), stage.parallelism)
    return seeded


def merge_savepoint(path: str, files: CheckpointStorage, sources: set[str],
                    scratch: str, key: str = SAVEPOINT_KEY) -> tuple[CheckpointStorage, int]:
    """The savepoint at ``path`` merged into one checkpoint, for the job restoring it in one task.

    Every stage's snapshots are merged (:func:`~streamsql.state.rescale.rescale_snapshots`
    into one target: every key group; an operator-wide watermark the lowest), the source
    positions are the old tasks' offsets together (each partition once: its owner's), exchange
    positions dropped (no exchange in one task), and the operators' signatures are the stages'
    together. Written into ``<job>/from-savepoint/chk-<n>`` of the restoring job (replaced at
    each restore from a savepoint); the savepoint itself is left as it is.

    Args:
        path: the savepoint folder.
        files: the restoring job's checkpoint folder.
        sources: the restoring job's source ids (positions of other ids are the old exchanges').
        scratch: a local folder for the working files (made when missing).
        key: the setting that named ``path``, for messages.

    Returns:
        The merged checkpoint's folder and id (the savepoint's highest).

    Raises:
        JobIdentityError: ``path`` is not a parallel job's savepoint.
    """
    manifest = read_manifest(path, files, key)
    stages = manifest.get("stages")
    if not (isinstance(stages, dict) and stages
            and all(isinstance(ids, list) and ids for ids in stages.values())):
        msg = (f"'{key}' = '{path}' is the savepoint of a parallel job, but its manifest "
               f"({MANIFEST}) lists no tasks' checkpoints: use the path that STOP JOB ... WITH SAVEPOINT "
               "returned")
        raise JobIdentityError(msg)
    n = max(cid for ids in stages.values() for cid in ids)
    target = CheckpointStorage(files.dir, "from-savepoint", files.options)
    target.discard_after(None)
    os.makedirs(scratch, exist_ok=True)
    work = tempfile.mkdtemp(prefix="streamsql-merge-", dir=scratch)
    try:
        metas, merged = [], []
        for stage, ids in sorted(stages.items()):
            olds = [(CheckpointStorage(path.rstrip("/"), task_key(int(stage), t), files.options), cid)
                    for t, cid in enumerate(ids)]
            metas += [s.read_metadata(cid) or {} for s, cid in olds]
            os.makedirs(os.path.join(work, f"stage{stage}"))
            merged += _rescaled(manifest["backend"], olds, 1, os.path.join(work, f"stage{stage}"))
        if merged:
            one = os.path.join(work, "merged")
            rescale_snapshots(manifest["backend"], merged, [one], os.path.join(work, "backends"))
            target.save_state(n, _copier(one))
        exchanges = {k for m in metas for k in (m.get("positions") or {})} - sources
        operators: dict[str, Any] = {}
        for m in metas:
            operators.update({op: unmarked(sig) for op, sig in (m.get("operators") or {}).items()})
        target.write_metadata(n, {"checkpoint_id": n, "positions": _share(metas, exchanges, 0, 1),
                                  "savepoint": path, "operators": operators})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log.info("job %s: savepoint %s merged into one task (%s)", files.job_key, path, target.location(n))
    return target, n


def claim_savepoint(path: str, files: CheckpointStorage, stages: list[Stage], operators: dict[str, dict],
                    ignore: bool, key: str = SAVEPOINT_KEY) -> None:
    """Check that the new plan claims the state of every stage of the savepoint at ``path``.

    Called before the job is reset for the savepoint, so a refusal leaves everything as it was;
    each task checks its seed again when it restores it (and drops what is to be dropped).

    Args:
        path: the savepoint folder.
        files: the job's checkpoint folder (its settings reach the savepoint).
        stages: the new run's stages.
        operators: the new plan's state signatures (:mod:`streamsql.plan.state_signature`).
        ignore: ``'execution.state-recovery.ignore-unclaimed-state'``.
        key: the setting that named ``path``, for messages.

    Raises:
        StateMappingError: a stage's state that the new plan does not claim
            (:func:`~streamsql.checkpoint.operators.claim_state`).
    """
    manifest = read_manifest(path, files, key)
    if manifest.get("single") is not None:  # one checkpoint of every stage's operators
        [(storage, cid)] = _stage_checkpoints(path, manifest, 0, files)
        mine = {n.id for s in stages for n in walk(s.roots)}
        claim_state(recorded_signatures((storage.read_metadata(cid) or {}).get("operators")),
                    {k: v for k, v in operators.items() if k in mine}, location=path, job=files.job_key,
                    ignore=ignore)
        return
    old = manifest.get("stages", {})
    for stage in stages:
        ids = old.get(str(stage.id)) or []
        if not ids:
            continue
        first = CheckpointStorage(path.rstrip("/"), task_key(stage.id, 0), files.options)
        meta = first.read_metadata(ids[0]) or {}
        mine = {n.id for n in walk(stage.roots)}
        claim_state(recorded_signatures(meta.get("operators")),
                    {k: v for k, v in operators.items() if k in mine},
                    location=path, job=files.job_key, ignore=ignore)


def _rescaled(backend: str | None, sources: list[tuple[CheckpointStorage, int]], tasks: int, work: str,
              operators: set[str] | None = None, assignment: int = KG_ASSIGNMENT) -> list[str]:
    """Local folders of the ``tasks`` new snapshots ([] when the stage has no state).

    ``backend`` None: the one that wrote the snapshots (a single-process savepoint records none);
    ``operators``: only these operators' state (None: every operator's); ``assignment``: the new
    run's key-group assignment.
    """
    local = []
    for i, (storage, cid) in enumerate(sources):
        folder = os.path.join(work, f"old-{i}")
        if storage.restore_state(cid, lambda path, folder=folder: shutil.copytree(path, folder)):
            local.append(folder)
    if not local:
        return []
    if len(local) != len(sources):
        msg = "A savepoint's stage has state snapshots for only some of its tasks"
        raise ExecutionError(msg)
    backend = backend or snapshot_backend(local[0])
    if backend is None:
        where = sources[0][0].state_dir(sources[0][1])
        msg = f"A savepoint's state snapshot ({where}) is of no known state backend"
        raise ExecutionError(msg)
    targets = [os.path.join(work, f"new-{t}") for t in range(tasks)]
    rescale_snapshots(backend, local, targets, os.path.join(work, "backends"), operators, assignment)
    return targets


def _share(metas: list[dict], exchanges: set[str], task: int, tasks: int,
           one_task: bool = False) -> dict[str, Any]:
    """Task ``task``'s source positions: the old tasks' offsets merged, cut to its partitions.

    ``one_task``: the positions are a single-process job's, which read every partition and record
    no starts: each topic gets Flink's start (:func:`flink_start`), recorded in every task's share,
    so the partitions go to the tasks a fresh run at ``tasks`` gives them.
    """
    merged: dict[str, Any] = {}
    for meta in metas:
        for source, position in (meta.get("positions") or {}).items():
            if source.startswith(SINK_STATE_PREFIX):  # the old tasks' sink states: task's share
                old = position if isinstance(position, list) else [position]
                share = [s for s in old if int(s.get("task", 0)) % tasks == task]
                merged.setdefault(source, []).extend(share)
                continue
            if source in exchanges:
                continue
            if isinstance(position, dict):
                merged.setdefault(source, {}).update(position)
            else:  # a source that is not partitioned runs in a stage of one task
                merged[source] = position
    if one_task and tasks > 1:  # one task (a stage reading no Kafka source) owns every position
        for source, position in merged.items():
            if isinstance(position, dict) and position_starts(position) is None:
                topics = {str(k).removeprefix(STOP_PREFIX).rpartition(":")[0] for k in position}
                position.update({f"{START_PREFIX}{t}": flink_start(t) for t in sorted(topics) if t})
    out: dict[str, Any] = {}
    for source, position in merged.items():
        if source.startswith(SINK_STATE_PREFIX):
            if position:
                out[source] = position
            continue
        if not isinstance(position, dict):
            out[source] = position
            continue
        starts = position_starts(position)
        if starts is None:  # written before starts were recorded: one numbering of all partitions
            keys = sorted((k for k in position if not k.startswith(STOP_PREFIX)), key=_partition_order)
            mine = {k for i, k in enumerate(keys) if i % tasks == task}  # a partition's end goes with it
            out[source] = {k: v for k, v in position.items() if k.removeprefix(STOP_PREFIX) in mine}
            continue
        out[source] = {}
        for k, v in position.items():
            topic, _, partition = k.removeprefix(STOP_PREFIX).rpartition(":")
            if k.startswith(START_PREFIX):
                out[source][k] = v  # every task records every topic's start
            elif owner(starts.get(topic, flink_start(topic)), int(partition), tasks) == task:
                out[source][k] = v
    return out


def _partition_order(key: str) -> tuple[str, int]:
    """``"3"`` and ``"topic:3"`` (a Kafka position's keys) in topic, partition order."""
    topic, _, partition = key.rpartition(":")
    return topic, int(partition) if partition.isdigit() else -1
