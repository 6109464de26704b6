"""Job identity: a checkpoint folder belongs to one job, and one process writes it.

Two files in the job's checkpoint folder (``<execution.checkpointing.dir>/<pipeline.name>/``):

- ``_job`` (JSON, written atomically before the first checkpoint): the fingerprint of what the
  job computes (:mod:`streamsql.plan.fingerprint`) and what it hashed (``described``, so that a
  job that does not resume this one can say what changed), its SQL, its name, the creation time, the
  first checkpoint id it owns (``first_checkpoint``: checkpoints below it, committed by a job the
  folder belonged to before, are not its own) and the path it restored from on purpose, if any.
- ``_lock``: held with ``fcntl.flock`` while the job runs (released by the OS when the process
  dies); it names the holder (pid, host, start time) for the error a second writer gets.

Where a job restores from (:meth:`JobIdentity.restore_point`):

1. ``'execution.state-recovery.path'`` (or ``'execution.savepoint.path'``) names a ``chk-<n>``
   folder not yet restored by this job: restore it on purpose, whatever job wrote it (a
   warning when another one did), and continue under this job's fingerprint;
2. no committed checkpoint: start fresh, unless the folder holds an unfinished run of this
   job's name with a completed checkpoint, written by another job (another query, or a changed
   ``'sink.transactional-id-prefix'``, whose commit point this job's transactional id does not
   see): refused, as it would read its sources again and write that run's output twice;
3. the committed checkpoint is this job's (same fingerprint): resume it (crash recovery);
4. otherwise refuse, with one message naming the job that wrote it, what changed, and the ways on.

A job without ``'pipeline.name'`` is named after its sinks and fingerprint
(``insert-into_<sinks>-<8 hex>``), so a changed query or table option makes a job of another name,
with a folder of its own: it starts from scratch, and an append sink writes again what the older
job wrote. :func:`superseded_notice` tells the user so, naming the older job's unfinished run,
its last checkpoint and what changed (Flink starts every submitted job afresh unless told where to
restore from; here resuming is the default, so not resuming must be said).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from streamsql.checkpoint.storage import SAVEPOINT_MARKER, CheckpointStorage
from streamsql.core.errors import ConfigError, ExecutionError

log = logging.getLogger(__name__)

#: The tasks of the job's run in progress, one name a line (a single-process job: its name); gone
#: once the run finished.
TASKS_FILE = "_tasks"
#: The settings that name a checkpoint to restore on purpose (Flink's key, then its old name).
RECOVERY_KEYS = ("execution.state-recovery.path", "execution.savepoint.path")


class JobIdentityError(ExecutionError):
    """The checkpoint folder is another job's, or in use: a restart would fail the same way."""


@dataclass(frozen=True)
class RestorePoint:
    """Where a job attempt restores from.

    Attributes:
        storage: the checkpoint folder holding the checkpoint (the job's own, or another's).
        checkpoint_id: the checkpoint to restore, or None (start fresh).
        keep: the job's own checkpoints newer than this are discarded (None: all of them).
        next_id: the id of the job's next checkpoint.
    """

    storage: CheckpointStorage
    checkpoint_id: int | None
    keep: int | None
    next_id: int

    @classmethod
    def own(cls, storage: CheckpointStorage, checkpoint_id: int | None) -> RestorePoint:
        """Resume ``checkpoint_id`` of the job's own folder (None: start fresh)."""
        return cls(storage, checkpoint_id, checkpoint_id, storage.first_id_after(checkpoint_id))


class JobIdentity:
    """A job's fingerprint and what it may restore; binds the job's checkpoint folder to it.

    Args:
        name: the job's name (``'pipeline.name'``).
        digest: the job's fingerprint (hex).
        sql: the job's INSERT statements, recorded in ``_job``.
        recovery_path: a ``chk-<n>`` folder to restore on purpose, or None.
        recovery_key: the setting that named it (one of :data:`RECOVERY_KEYS`), for messages.
        described: what the fingerprint hashed (recorded in ``_job``; compared by
            :func:`~streamsql.plan.fingerprint.changes` through ``explain_changes``).
        explain_changes: ``(recorded, ours) -> phrases``: what differs between two descriptions.
    """

    def __init__(self, name: str, digest: str, sql: str, recovery_path: str | None = None,
                 described: dict | None = None,
                 explain_changes: Callable[[dict, dict], list[str]] | None = None,
                 recovery_key: str = RECOVERY_KEYS[0]):
        self.name = name
        self.digest = digest
        self.sql = sql
        self.recovery_path = _location(recovery_path) if recovery_path else None
        self.recovery_key = recovery_key
        self.described = described or {}
        self._explain_changes = explain_changes
        #: ``(path, own folder) -> (folder, checkpoint id)``: a parallel job's savepoint merged into one
        #: checkpoint, for a job that runs as one task (set by the runtime); None: refused
        self.merge_savepoint: Callable[[str, CheckpointStorage], tuple[CheckpointStorage, int]] | None = None
        #: the folder held an unfinished run (``_tasks``) of this job's name as this one started (set by
        #: the runtime): :meth:`restore_point` then refuses a changed job even with nothing committed
        self.resuming_run = False

    def why(self, record: dict | None) -> str:
        """What differs between the job that wrote ``record`` (a ``_job``) and this one, in brackets.

        ``(table 'src': option 'format' changed from 'json' to 'csv')``, or ``(another SQL or other
        tables)`` when the record does not say (written before ``described`` was recorded).
        """
        before = (record or {}).get("described")
        found = []
        if before and self.described and self._explain_changes is not None:
            found = self._explain_changes(before, self.described)
        return f"({'; '.join(found)})" if found else "(another SQL or other tables)"

    @contextlib.contextmanager
    def lock(self, folder: str) -> Iterator[None]:
        """Hold the writer lock of checkpoint folder ``folder`` for the ``with`` block.

        Raises:
            JobIdentityError: another job (in this process or another) holds it; names the holder.
        """
        path = os.path.join(folder, "_lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise JobIdentityError(self._locked_message(folder, fd)) from None
            holder = {"job": self.name, "pid": os.getpid(), "host": socket.gethostname(),
                      "started": _now()}
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(holder).encode(), 0)
            yield
        finally:
            os.close(fd)  # releases the lock

    def _locked_message(self, folder: str, fd: int) -> str:
        try:
            holder = json.loads(os.pread(fd, 4096, 0) or b"{}")
        except ValueError:
            holder = {}
        who = (f"job '{holder.get('job', '?')}', pid {holder.get('pid', '?')} on host "
               f"{holder.get('host', '?')}, started {holder.get('started', '?')}")
        return (f"Job '{self.name}': the checkpoint folder {folder} is in use by {who}; one job at a "
                "time writes a checkpoint folder. Stop that job first, or give this one another "
                "'pipeline.name'")

    def restore_point(self, storage: CheckpointStorage, committed: int | None) -> RestorePoint:
        """Decide where this attempt restores from (see module docstring); record ``_job``.

        Args:
            storage: the job's own checkpoint folder.
            committed: the job's last committed checkpoint (from its committer), or None.

        Raises:
            JobIdentityError: the committed checkpoint belongs to another job, or the recovery
                path is not a checkpoint.
        """
        record = read_job_file(storage)
        ours = (record is not None and record.get("fingerprint") == self.digest
                and (committed is None or committed >= record.get("first_checkpoint", 1)))
        if self.recovery_path and not (ours and record.get("recovered_from") == self.recovery_path
                                       and committed is not None):
            return self._restore_on_purpose(storage, committed)
        if committed is None:
            if (self.resuming_run and record is not None and record.get("fingerprint") != self.digest
                    and any(storage.read_metadata(i) is not None for i in storage.checkpoint_ids())):
                detail = (" Its checkpoints were committed under its own commit point (a Kafka "
                          "transactional id joins the 'sink.transactional-id-prefix' values of the job's "
                          "sinks), where this job finds none: starting fresh would read its sources again "
                          "and write what that run committed a second time.")
                raise JobIdentityError(self._unfinished_message(storage, record, detail))
            self._write(storage, first_checkpoint=1, recovered_from=None)
            return RestorePoint.own(storage, None)
        if ours:
            return RestorePoint.own(storage, committed)
        raise JobIdentityError(self._foreign_message(storage, committed, record))

    def check_before_fencing(self, storage: CheckpointStorage, committed: int | None) -> None:
        """Refuse a commit point that is not this folder's, before the job fences its transactional id.

        ``committed`` is read from the commit point before fencing. A committed checkpoint that
        ``storage`` does not hold was committed by a job of the same name and transactional id
        prefix from another checkpoint folder (another ``'execution.checkpointing.dir'``, the same
        script run from another working folder): fencing its producer would fail that job, which
        may be running, and :meth:`restore_point` would then refuse this one anyway. Refused
        first, it runs on. A restore on purpose (:attr:`recovery_path`) is not checked here.

        Raises:
            JobIdentityError: as :meth:`restore_point` would after fencing.
        """
        if committed is None or self.recovery_path or storage.read_metadata(committed) is not None:
            return
        msg = (f"{self._foreign_message(storage, committed, read_job_file(storage))} (refused before fencing "
               "that id: a job committing under it runs on)")
        raise JobIdentityError(msg)

    def bind_run(self, storage: CheckpointStorage, resuming: bool) -> None:
        """Bind a parallel job's run to this job: record ``_job`` for a new run, check it on resume.

        A parallel job's tasks restore their own folders (``stage<s>-task<t>/``) without asking
        whose they are; what binds the run in progress to a job is the job folder's ``_job``,
        written when the run starts and checked by every process that resumes or joins it (the
        driver and each ``streamsql worker``), so a changed query never resumes another query's
        state and source positions.

        Args:
            storage: the job's checkpoint folder.
            resuming: an unfinished run's tasks are recorded there (``_tasks``).

        Raises:
            JobIdentityError: the unfinished run was started by another job (or by a job of
                unknown identity).
        """
        if not resuming:
            self._write(storage, first_checkpoint=1, recovered_from=self.recovery_path)
            return
        record = read_job_file(storage)
        if record is not None and record.get("fingerprint") == self.digest:
            return
        raise JobIdentityError(self._unfinished_message(storage, record))

    def _unfinished_message(self, storage: CheckpointStorage, record: dict | None, detail: str = "") -> str:
        """The refusal to resume (or start afresh over) an unfinished run another job wrote."""
        return (f"Job '{self.name}': the unfinished run in {storage.dir} was written by {_describe(record)}, "
                f"not by this job {self.why(record)}, so it is not resumed.{detail} "
                "To start fresh, give "
                f"this job another 'pipeline.name' or remove the folder {storage.dir} (and the job's "
                "_streamsql-* topics); to carry its state over on purpose, stop that job WITH SAVEPOINT and "
                "SET 'execution.savepoint.path' to the savepoint")

    def _restore_on_purpose(self, storage: CheckpointStorage, committed: int | None) -> RestorePoint:
        marker = storage.at(self.recovery_path).read_file(SAVEPOINT_MARKER) if self.merge_savepoint else None
        if marker is not None and marker.strip():  # a parallel job's savepoint (its manifest)
            source, checkpoint_id = self.merge_savepoint(self.recovery_path, storage)
        else:
            source, checkpoint_id = checkpoint_at(self.recovery_path, storage, self.recovery_key)
        writer = read_job_file(source)
        if writer is None or writer.get("fingerprint") != self.digest:  # the user was told (restore_notice)
            log.info("job %s restores checkpoint %s of %s, on purpose ('%s')", self.name, self.recovery_path,
                     _describe(writer), self.recovery_key)
        # Ids above every id the folder has seen, so an older job's commits never pass for ours.
        next_id = storage.first_id_after(max(checkpoint_id, committed or 0))
        self._write(storage, first_checkpoint=next_id, recovered_from=self.recovery_path)
        log.info("job %s restores checkpoint %d from %s", self.name, checkpoint_id, source.dir)
        # Rolling back within the job's own folder: keep the source. Compared as locations: the
        # folder's own dir is as configured (relative by default), the recovery path absolute.
        keep = checkpoint_id if _location(source.dir) == _location(storage.dir) else None
        return RestorePoint(source, checkpoint_id, keep, next_id)

    def restore_notice(self, storage: CheckpointStorage) -> str | None:
        """The warning that this job restores, on purpose, a checkpoint or savepoint another job wrote.

        Printed with the statement's result, as Flink's SQL client prints its notices, naming the
        setting the user gave (``'execution.savepoint.path'`` or ``'execution.state-recovery.path'``).

        Args:
            storage: the job's own checkpoint folder (its settings reach the path).

        Returns:
            ``[WARNING] ...``, or None: nothing to restore on purpose, the same job wrote it, or the
            path is not readable as a checkpoint (the job then fails with the reason).
        """
        if not self.recovery_path:
            return None
        own = read_job_file(storage)
        if (own is not None and own.get("fingerprint") == self.digest
                and own.get("recovered_from") == self.recovery_path):
            return None  # a rerun: it resumes its own run, which began from that restore
        job_dir, _, base = self.recovery_path.rpartition("/")
        if base.startswith("chk-") and base[4:].isdigit():
            what, writer = "checkpoint", read_job_file(storage.at(job_dir))
        else:  # a parallel job's savepoint (in its job's folder): its manifest names the job
            try:
                manifest = json.loads(storage.at(self.recovery_path).read_file(SAVEPOINT_MARKER) or b"null")
            except ValueError:
                return None
            if not isinstance(manifest, dict):
                return None
            what, writer = "savepoint", read_job_file(storage.at(job_dir))
            if writer is None or writer.get("fingerprint") != manifest.get("fingerprint"):
                writer = {"name": manifest.get("job"), "fingerprint": manifest.get("fingerprint")}
        if writer is not None and writer.get("fingerprint") == self.digest:
            return None
        return (f"[WARNING] Job '{self.name}' restores {what} {self.recovery_path} ('{self.recovery_key}'), "
                f"written by {_describe(writer)}: the state and source positions of another job, on purpose. "
                "Operators whose state means the same in this job take it over; the others start empty "
                "(streamsql.checkpoint.operators).")

    def _write(self, storage: CheckpointStorage, first_checkpoint: int, recovered_from: str | None) -> None:
        record = {"name": self.name, "fingerprint": self.digest, "sql": self.sql, "created": _now(),
                  "first_checkpoint": first_checkpoint, "recovered_from": recovered_from,
                  "described": self.described}
        storage.write_file("_job", json.dumps(record, indent=1).encode())

    def _foreign_message(self, storage: CheckpointStorage, committed: int, record: dict | None) -> str:
        if storage.read_metadata(committed) is None:  # not even in this folder: another folder's commit
            return (f"Job '{self.name}': its commit point says checkpoint {committed} committed last, but "
                    f"{storage.dir} holds no checkpoint {committed}"
                    f"{'' if record else ' (nor a _job file)'}: another job commits under the same Kafka "
                    "transactional id (the same 'pipeline.name' and 'sink.transactional-id-prefix' with "
                    "another 'execution.checkpointing.dir'), or the folder's checkpoints were removed, so "
                    "nothing is restored. Give this job (or the other) another 'pipeline.name' or "
                    "'sink.transactional-id-prefix'")
        return (f"Job '{self.name}': checkpoint {committed} in {storage.dir} was written by "
                f"{_describe(record)}, not by this job {self.why(record)}, so it is not restored. To start "
                "fresh, give this job another 'pipeline.name' or remove the folder "
                f"{storage.dir}; to restore it on purpose, SET 'execution.state-recovery.path' = "
                f"'{storage.location(committed)}'")


def check_commit_is_ours(name: str, storage: CheckpointStorage, checkpoint_id: int, meta: dict,
                         committed_uid: str | None) -> None:
    """Refuse to resume ``chk-<checkpoint_id>`` of ``storage`` when the commit point's uid is not its own.

    The commit point (the Kafka transactional id's progress group) names the last committed
    checkpoint by id, and records the checkpoint's random uid beside it (``_metadata["uid"]``,
    :mod:`streamsql.checkpoint.coordinator`). The same job run from two checkpoint folders shares
    that commit point: a run killed after writing ``chk-1`` and before committing it, then a run
    from another folder that committed its own checkpoint 1, and the first run's restart found
    "checkpoint 1 committed" and resumed its uncommitted ``chk-1`` — whose output the broker
    had aborted — silently (measured: 6,666 of 13,281 rows written twice). The ids agree, the
    uids do not: refused, as a commit of another folder's checkpoint is
    (:meth:`JobIdentity.check_before_fencing`). A commit without a uid (an older version's) and a
    checkpoint written before uids are not judged.

    Raises:
        JobIdentityError: naming the folder, the checkpoint and the ways on.
    """
    ours = meta.get("uid")
    if committed_uid is None or ours is None or committed_uid == ours:
        return
    msg = (f"Job '{name}': its commit point says checkpoint {checkpoint_id} committed last, but that "
           f"commit is not of the checkpoint {checkpoint_id} in {storage.dir} (uid {committed_uid} "
           f"committed, {ours} here): that checkpoint was never committed, and another run of a job "
           "with the same Kafka transactional id (the same 'pipeline.name' and "
           "'sink.transactional-id-prefix' with another 'execution.checkpointing.dir') committed "
           "its own, so nothing is restored. Give this job (or the other) another 'pipeline.name' or "
           "'sink.transactional-id-prefix'")
    raise JobIdentityError(msg)


def superseded_notice(storage: CheckpointStorage, identity: JobIdentity, digest_chars: int) -> str | None:
    """A warning when a default-named job starts from scratch next to an unfinished older version.

    Args:
        storage: this job's checkpoint folder (``<root>/<prefix><8 hex>``).
        identity: this job's identity.
        digest_chars: how many hex digits of the fingerprint end the default name (8).

    Returns:
        ``[WARNING] ...`` naming each other job folder of the same prefix that holds an unfinished
        run (``_tasks``) and a completed checkpoint: which checkpoint is not resumed and why (what
        changed, from its ``_job``), and how to resume it on purpose; None when there is none, or
        when this job resumes an unfinished run of its own (it does not start from scratch).

    Raises:
        JobIdentityError: such a run differs from this job only in its state layout version (the
            same script under another StreamSQL): refused rather than started from scratch.
    """
    own = read_job_file(storage)
    if own is not None and own.get("fingerprint") == identity.digest and _unfinished_run(storage):
        return None  # it resumes its own unfinished run: it does not start from scratch
    lines = []
    prefix = storage.job_key[:-digest_chars]  # insert-into_<sinks>-
    for job in sorted(storage.files.list("")):  # the job folders next to this one
        if not (job.startswith(prefix) and re.fullmatch(r"[0-9a-f]+", job[len(prefix):])
                and len(job) == len(storage.job_key)) or job == storage.job_key:
            continue
        other = storage.at(storage.files.uri(job))
        record = read_job_file(other)
        found = _unfinished_run(other) if record is not None else None
        if found is None:
            continue  # not a job's folder, its last run finished, or it has nothing to resume
        what, how = found
        if _layout_only(record.get("described"), identity.described):
            raise JobIdentityError(_layout_message(identity, record, what, other.dir))
        lines.append(
            f"[WARNING] Job '{identity.name}' starts from scratch: it does not resume {what}, written by "
            f"the unfinished job '{record.get('name', job)}' (created {record.get('created', '?')}), "
            f"because it is another job {identity.why(record)}. "
            "Its sources are read again from their startup mode, so an append sink writes again what that "
            f"job wrote. To resume that job, run it unchanged; to restore its state here on purpose, {how}; "
            f"to drop it, remove {other.dir}.")
    return "\n".join(lines) or None


def _layout_only(before: dict | None, after: dict) -> bool:
    """Whether two described fingerprints differ in their state layout version alone."""
    if not before or not after or before.get("state_layout") == after.get("state_layout"):
        return False
    rest = {k: v for k, v in before.items() if k != "state_layout"}
    return rest == {k: v for k, v in after.items() if k != "state_layout"}


def _layout_message(identity: JobIdentity, record: dict, what: str, folder: str) -> str:
    """The refusal of a default-named job whose older version differs only in the state layout.

    Its name changed with the layout (the fingerprint hashes it), so it would start from scratch
    next to the unfinished run: read its sources again and write their output a second time.
    """
    return (f"Job '{identity.name}' does not start: it is the unfinished job '{record.get('name', '?')}' "
            f"(created {record.get('created', '?')}) of another StreamSQL, whose state layout "
            f"(version {record.get('described', {}).get('state_layout')}) this one (version "
            f"{identity.described.get('state_layout')}) cannot restore, and starting from scratch would "
            f"read its sources again and write their output twice. To keep it exactly-once, finish {what} "
            "with the StreamSQL that wrote it (run the script there until its sources end, or stop the "
            f"job); to start from scratch on purpose, remove {folder} (or give the job a 'pipeline.name')")


def _unfinished_run(folder: CheckpointStorage) -> tuple[str, str] | None:
    """What a rerun of the job of ``folder`` would resume, and how to restore it on purpose.

    Returns:
        ``(what, how)`` when the folder holds an unfinished run (``_tasks``) with a completed
        checkpoint, or the checkpoints of a parallel run's tasks; None when its last run finished
        (a rerun starts afresh) or it has no checkpoint (nothing would be resumed).
    """
    tasks = folder.read_file(TASKS_FILE)
    if tasks is None:
        return None
    done = [i for i in folder.checkpoint_ids() if folder.read_metadata(i) is not None]
    if done:
        where = folder.location(done[-1])
        return f"checkpoint {where}", f"SET 'execution.state-recovery.path' = '{where}'"
    names = tasks.decode(errors="replace").split("\n")
    if len(names) > 1:
        return (f"the checkpoints of its {len(names)} tasks in {folder.dir}",
                "stop it WITH SAVEPOINT and SET 'execution.savepoint.path' to the savepoint")
    return None


def check_tasks(storage: CheckpointStorage, name: str, tasks: list[str]) -> bool:
    """Whether the job's folder holds an unfinished run of exactly ``tasks`` (:data:`TASKS_FILE`).

    An unfinished run's committed state belongs to its tasks (their source partitions, their key
    groups, their transactional ids): a run with other tasks — another parallelism, or one
    process instead of several — would find none of it and read its sources again from the
    start, writing everything the unfinished run committed a second time.

    Returns:
        True when the folder names ``tasks`` (resume), False when it names none (a new run: the
        caller records them once the job's identity is bound).

    Raises:
        ConfigError: the folder names other tasks.
    """
    theirs = storage.read_file(TASKS_FILE)
    if theirs is None:
        return False
    if theirs.decode() == "\n".join(tasks):
        return True
    names = theirs.decode(errors="replace").split("\n")
    before, mine = len(names), len(tasks)
    ours = re.compile(re.escape(name) + r"(-\d+)*")  # the job's own task names (<job>-<stage>-<index>)
    if not any(ours.fullmatch(n) for n in names):  # another job's: the folder was copied or renamed
        done = [i for i in storage.checkpoint_ids() if storage.read_metadata(i) is not None]
        how = (f"restore its checkpoint on purpose (SET 'execution.state-recovery.path' = "
               f"'{storage.location(done[-1])}'), or " if done else "")
        msg = (f"Job '{name}': the unfinished run in {storage.dir} is of other tasks ({', '.join(names)}): "
               "the folder was copied or renamed from another job's, whose commits are under that job's "
               f"Kafka transactional ids, so it is not resumed. Run that job under its own name, {how}"
               "remove the folder to start afresh")
        raise ConfigError(msg)
    msg = (f"Job '{name}' has an unfinished run with {before} task{'s' * (before != 1)} in {storage.dir}, "
           f"this run plans {mine}: resume it with the 'parallelism.default' it had, or remove the job's "
           "checkpoint folder (and its _streamsql-* topics) to start afresh")
    raise ConfigError(msg)


def read_job_file(storage: CheckpointStorage) -> dict | None:
    """The ``_job`` record of a job's checkpoint folder, or None (none, or unreadable)."""
    return job_record(storage.read_file("_job"))


def job_record(text: bytes | None) -> dict | None:
    """A ``_job`` file's bytes as its record, or None (absent, or unreadable)."""
    try:
        record = json.loads(text or b"null")
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def checkpoint_at(path: str, like: CheckpointStorage,
                  key: str = RECOVERY_KEYS[0]) -> tuple[CheckpointStorage, int]:
    """The checkpoint folder and id of a ``.../<job>/chk-<n>`` path (or ``s3://...`` URI).

    Args:
        path: the checkpoint's location.
        like: a storage whose settings (storage kind, ``s3.*`` keys) reach it.
        key: the setting that named ``path``, for messages.

    Raises:
        JobIdentityError: ``path`` is not a completed checkpoint.
    """
    path = _location(path)
    job_dir, _, base = path.rpartition("/")
    if not (base.startswith("chk-") and base[4:].isdigit()):
        if like.at(path).read_file(SAVEPOINT_MARKER) is not None:
            msg = (f"'{key}' = '{path}' is the savepoint of a parallel job; "
                   "restoring it at 'parallelism.default' = '1' is not supported yet: restore it at a "
                   "parallelism > 1")
            raise JobIdentityError(msg)
        found = [f"chk-{i}" for i in like.at(path).checkpoint_ids()]
        hint = f"; it holds {', '.join(found)}" if found else ""
        msg = f"'{key}' = '{path}' is not a chk-<n> checkpoint folder{hint}"
        raise JobIdentityError(msg)
    storage = like.at(job_dir)
    checkpoint_id = int(base[4:])
    if storage.read_metadata(checkpoint_id) is None:
        msg = f"'{key}' = '{path}' is not a completed checkpoint (no _metadata)"
        raise JobIdentityError(msg)
    return storage, checkpoint_id


def _location(path: str) -> str:
    """A checkpoint location as compared and shown: absolute if local, else the URI."""
    return path.rstrip("/") if "://" in path else os.path.abspath(path)


def _describe(record: dict | None) -> str:
    if record is None:
        return "a job of unknown identity (the folder has no _job file)"
    sql = " ".join(str(record.get("sql", "")).split())
    sql = sql if len(sql) <= 200 else sql[:197] + "..."
    return (f"job '{record.get('name', '?')}' (fingerprint {str(record.get('fingerprint', '?'))[:8]}, "
            f"created {record.get('created', '?')}: {sql})")


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime())
