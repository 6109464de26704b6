"""The ``filesystem`` sink: exactly-once part files, partition folders, partition commit.

Into a directory (``'path'`` is one, or ends with ``/``, or the table is partitioned) the sink
writes as Flink 2.3's streaming file sink for row formats (:mod:`.part_files`): hidden in-progress
part files, renamed to ``part-<uuid>-<task>-<n>`` when the first checkpoint after their roll
completes, whose state (uuid, counter, in-progress lengths, pending files) is recorded in the
checkpoint. Delivery guarantee: exactly-once — a restore commits the restored checkpoint's pending
files, truncates its in-progress files to their recorded lengths and deletes later ones.

Partitioned (``PARTITIONED BY``): each row goes into the part file of its partition's folder
(:mod:`.partitions`); the records hold the other columns. With ``'sink.partition-commit.policy.kind'``
the partitions are committed as Flink's ``StreamingFileWriter`` and ``PartitionCommitter`` do, by
the trigger of :mod:`.partition_commit` (``process-time``: the delay since the partition's file
opened; ``partition-time``: the watermark past the partition's time plus the delay): at barrier
n the in-progress file of a partition committable then is rolled; when checkpoint n completes
its files are renamed, then the partitions written before barrier n that are committable by the
watermark of barrier n (or the delay) are committed — at the end of input, every partition. With
``'success-file'`` committing writes the empty file ``'sink.partition-commit.success-file.name'``
(``_SUCCESS``) into its folder. ``metastore`` is refused in Flink's words (a Hive table's),
``custom`` policies and time extractors as not supported, when the table is written.

Into a file (``'path'`` is an existing file, or names none and ends with ``.json``, ``.csv``, ...:
:func:`writes_directory`, a StreamSQL extension; Flink's path is always a directory) the rows are
appended and fsynced at each barrier,
visible at once; the checkpoint records the file's length, and a restore truncates the file to it:
after a crash each row is in the file exactly once, though rows of a checkpoint that then fails
are visible until the restore.
"""

from __future__ import annotations

import os
import re
import time

import numpy as np
from streamsql.connectors.part_files import PartFiles, RollingPolicy
from streamsql.connectors.partition_commit import OPTIONS as COMMIT_OPTIONS
from streamsql.connectors.partition_commit import PartitionTrigger, commit_rule, max_watermark
from streamsql.connectors.partitions import DEFAULT_NAME, bucket_codes, check_partition_columns

from streamsql.core.connector import ConnectorContext, Sink
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.values import duration_ms, memory_bytes

SINK_REASON = (
    "filesystem writes hidden in-progress part files and renames them when the checkpoint after "
    "their roll completes (exactly-once, as Flink's file sink)"
)

#: Formats Flink 2.3's filesystem sink writes as bulk formats (``CsvFileFormatFactory`` is a
#: ``BulkWriterFormatFactory``, preferred over the serialization format): rolled at every checkpoint.
BULK_FORMATS = ("csv",)

#: The partition-commit options and rolling options this sink reads (Flink's names).
OPTIONS = {
    "partition.default-name": "the folder name of a NULL or blank partition value",
    "sink.rolling-policy.file-size": "roll a part file larger than this (default 128 MB)",
    "sink.rolling-policy.rollover-interval": "roll a part file older than this (default 30 min)",
    "sink.rolling-policy.inactivity-interval": "roll a part file not written for this long (default 30 min)",
    "sink.rolling-policy.check-interval": "how often the two intervals are looked at (default 1 min)",
    "sink.partition-commit.policy.kind": "'success-file'; 'metastore' and 'custom' are refused",
    "sink.partition-commit.policy.class": "refused: a custom commit policy class",
    "sink.partition-commit.policy.class.parameters": "refused: a custom commit policy class's parameters",
    "sink.partition-commit.success-file.name": "the success file's name (default '_SUCCESS')",
    **COMMIT_OPTIONS,
}


def _now_ms() -> int:
    return int(time.time() * 1000)


def rolling_policy(table) -> RollingPolicy:
    """The table's rolling options (Flink's defaults when unset).

    Raises:
        ConfigError: a size or duration Flink would not parse.
    """
    o = table.options

    def ms(key: str, default: int) -> int:
        return duration_ms(o[key], f"Table '{table.name}': option '{key}'") if key in o else default

    size = RollingPolicy.file_size
    if "sink.rolling-policy.file-size" in o:
        size = memory_bytes(o["sink.rolling-policy.file-size"], f"Table '{table.name}': option "
                                                               "'sink.rolling-policy.file-size'")
    d = RollingPolicy()
    return RollingPolicy(size, ms("sink.rolling-policy.rollover-interval", d.rollover_ms),
                         ms("sink.rolling-policy.inactivity-interval", d.inactivity_ms),
                         ms("sink.rolling-policy.check-interval", d.check_ms),
                         on_checkpoint=(o.get("format") or "").strip().lower() in BULK_FORMATS)


def success_file(table) -> str | None:
    """The success file's name when partitions are committed with it, else None.

    Raises:
        ConfigError: a policy or trigger StreamSQL does not have, at the option.
    """
    o = table.options
    commit_rule(table, o.get("partition.default-name", DEFAULT_NAME))
    kinds = [k.strip().lower() for k in o.get("sink.partition-commit.policy.kind", "").split(",")
             if k.strip()]
    for kind in kinds:
        if kind != "success-file":
            key = "sink.partition-commit.policy.kind"
            if kind == "metastore":  # Flink's FileSystemTableFactory words
                msg = ("Can not configure a 'metastore' partition commit policy for a file system table. "
                       "You can only configure 'metastore' partition commit policy for a hive table.")
            else:
                msg = (f"Table '{table.name}': option '{key}' = '{o[key]}': '{kind}' is not supported "
                       f"(only 'success-file': StreamSQL runs no custom commit policy class)")
            raise ConfigError(msg, table=table.name, option=key)
    classes = ("sink.partition-commit.policy.class", "sink.partition-commit.policy.class.parameters")
    for key in [k for k in classes if k in o][:1]:
        msg = (f"Table '{table.name}': option '{key}' is not supported: StreamSQL runs no Java commit "
               f"policy class (only 'sink.partition-commit.policy.kind' = 'success-file')")
        raise ConfigError(msg, table=table.name, option=key)
    if not kinds or not table.partition_keys:
        return None
    return o.get("sink.partition-commit.success-file.name", "_SUCCESS")


def table_path(table) -> str:
    """The table's ``'path'`` as a local path: a ``file://`` URI's path (Flink's usual spelling).

    Raises:
        ConfigError: another scheme (``s3://``, ``hdfs://``): only local files are read and written.
    """
    p = table.options["path"]
    if p.startswith("file://"):
        return p[len("file://"):] or "/"
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]+://", p):
        msg = (f"Table '{table.name}': option 'path' = '{p}': only local paths and file:// URIs are "
               f"supported by the filesystem connector here")
        raise ConfigError(msg, table=table.name, option="path")
    return p


#: A sink's ``'path'`` not present yet whose name ends so is one file to append to (a StreamSQL
#: extension); any other is a directory of part files, as Flink's always is.
FILE_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".txt")


def writes_directory(table) -> bool:
    """True when the sink writes part files into ``'path'`` (a directory, as Flink's), False: into one file.

    One file: an existing file, or a path that is no ``file://`` URI, exists not and ends with
    one of :data:`FILE_SUFFIXES` (``out.json``), for a table without partitions.
    """
    p = table_path(table)
    if table.partition_keys or os.path.isdir(p) or table.options["path"].startswith("file://"):
        return True
    return not (os.path.isfile(p) or (not os.path.exists(p) and p.lower().endswith(FILE_SUFFIXES)))


def check_sink_options(table) -> None:
    """The checks the sink's creation makes, without creating it (raises ConfigError)."""
    rolling_policy(table)
    success_file(table)
    check_partition_columns(table)


class FileSystemSink(Sink):
    """See module docstring.

    Args:
        ctx: the table, job and task.
        encoder: the format's encoder of the columns the files hold (all but the partition columns).

    Raises:
        ConfigError: an option the sink cannot honour (:func:`check_sink_options`); a path that is
            one file (:func:`writes_directory`) written by more than one task.
    """

    transactional = True  # part files become visible at ``commit`` (the file mode: at the barrier)
    guarantee_reason = SINK_REASON

    def __init__(self, ctx: ConnectorContext, encoder):
        table = ctx.table
        check_sink_options(table)
        self.encoder = encoder
        self.ctx = ctx
        self.path = table_path(table)
        self.accepts_updates = encoder.accepts_updates
        self.keys = list(table.partition_keys)
        self.data_columns = [f.name for f in table.physical_schema.fields if f.name not in self.keys]
        fmt = (table.options.get("format") or "").strip().lower()
        # as Flink's CSV bulk writer: a row without data columns (all partition columns) writes
        # nothing into its part file (json writes {})
        self._no_records = not self.data_columns and fmt in BULK_FORMATS
        self.default_name = table.options.get("partition.default-name", DEFAULT_NAME)
        self.success = success_file(table)
        # Flink's partition commit runs when the table has partitions and a commit policy
        self.trigger = None if self.success is None else PartitionTrigger(
            commit_rule(table, self.default_name), _now_ms)
        self.directory = writes_directory(table)
        if not self.directory and ctx.num_tasks > 1:
            # each task would truncate the one file to its own recorded length at a restore
            msg = (f"Table '{table.name}': 'path' = '{table.options['path']}' is one file, which one task "
                   f"writes; this job writes the table from {ctx.num_tasks} tasks: give a directory "
                   f"path (part files per task, as Flink's) or run at parallelism 1")
            raise ConfigError(msg, table=table.name, option="path")
        policy = rolling_policy(table)
        self.parts = PartFiles(self.path, ctx.task_index, policy, ctx.job_uuid) if self.directory else None
        self._pending: list[bytes] = []  # file mode: rows until the barrier
        self._f = None
        # partition folder -> ms its first file opened: those with an open file (Flink's
        # inProgressPartitions), and those written since the last barrier (currentNewPartitions)
        self._opened: dict[str, int] = {}
        self._new: dict[str, int] = {}
        self._new_at: dict[int, dict[str, int]] = {}  # those of barrier n, handed on at its commit
        self._ended = False

    def open(self) -> None:
        """Create the directory, or open the file to append to.

        Raises:
            ExecutionError: the directory's path is a file (a partitioned table or a ``file://`` path
                is always a directory).
        """
        if self.directory:
            if os.path.exists(self.path) and not os.path.isdir(self.path):
                msg = (f"Table '{self.ctx.table.name}': path '{self.path}' is a file, but the table is "
                       f"written as a directory of part files (it is partitioned, or a file:// URI)")
                raise ExecutionError(msg)
            os.makedirs(self.path, exist_ok=True)
            return
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        self._f = open(self.path, "ab")  # noqa: SIM115 (closed in close)

    def write(self, batch: Batch) -> None:
        """Encode the rows; into their partitions' part files (a directory), or buffered (a file)."""
        if batch.num_rows == 0:
            return
        table = batch.table.select(self.data_columns) if self.keys else batch.table
        lines = [] if self._no_records else [b"" if p is None else p
                                             for p in self.encoder.encode(table, batch.kinds)]
        if not self.directory:
            self._pending.extend(lines)
            return
        if not self.keys:
            self.parts.write("", lines)
            return
        codes, folders = bucket_codes(batch.table, self.keys, self.default_name)
        now = _now_ms()
        for i, folder in enumerate(folders):
            rows = np.flatnonzero(codes == i)
            if self.trigger is not None:
                if not self.parts.active(folder):  # Flink's bucket created: its files watched again
                    self._opened.setdefault(folder, now)
                self._new.setdefault(folder, now)
            self.parts.write(folder, [lines[r] for r in rows] if len(folders) > 1 and lines else lines)

    def on_watermark(self, timestamp: int) -> None:
        """The sink's input watermark (ms): what the ``partition-time`` trigger compares."""
        if self.trigger is not None and not max_watermark(timestamp):
            self.trigger.watermark = timestamp

    def pre_commit(self, checkpoint_id: int) -> None:
        """At barrier ``checkpoint_id``: the file mode appends and fsyncs its rows.

        Part files are flushed by :meth:`snapshot`, which follows.
        """
        if self.directory:
            return
        if self._pending:
            self._f.write(b"\n".join(self._pending) + b"\n")
            self._pending = []
        self._f.flush()
        os.fsync(self._f.fileno())

    def snapshot(self, checkpoint_id: int) -> dict:
        """The state of checkpoint ``checkpoint_id`` (after ``pre_commit``).

        As Flink's ``StreamingFileWriter`` at a barrier, a partition committable now (by the
        watermark, or the delay since its file opened) has its in-progress file rolled first, so
        that the checkpoint's commit renames it before the partition is committed.

        Raises:
            ExecutionError: a partition's time cannot be read (:mod:`.partition_commit`).
        """
        if not self.directory:
            return {"file": os.path.abspath(self.path), "task": self.ctx.task_index, "length": self._f.tell()}
        state = {}
        if self.trigger is not None:
            for folder, opened in list(self._opened.items()):
                if self.trigger.committable(folder, opened, self.trigger.watermark):
                    if folder in self.parts.open_files:
                        self.parts.roll(folder)
                    del self._opened[folder]
            state["watermark"] = self.trigger.snapshot(checkpoint_id)
            self._new_at[checkpoint_id], self._new = self._new, {}
            waiting = dict(self.trigger.pending)
            for news in self._new_at.values():
                for p, t in news.items():
                    waiting.setdefault(p, t)
            state["partitions"] = waiting
        return {**self.parts.snapshot(checkpoint_id), **state}

    def commit(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` completed: rename its pending files; commit due partitions.

        The partitions written before its barrier join the trigger's pending ones; those due by
        the watermark at the barrier (or the delay; at the end of input: all) are committed, after
        the renames (a crash between two renames leaves every partition uncommitted).
        """
        if not self.directory:
            return
        self.parts.commit(checkpoint_id)
        if self.trigger is None:
            return
        for folder in [f for f in self._opened if not self.parts.active(f)]:  # Flink's inactive bucket
            del self._opened[folder]
        for n in sorted(n for n in self._new_at if n <= checkpoint_id):
            for p in self._new_at.pop(n):  # received now: the process-time delay counts from here
                self.trigger.receive(p)
        self._commit_partitions(self.trigger.due(checkpoint_id, ended=self._ended))

    def _commit_partitions(self, folders: list[str]) -> None:
        """Flink's partition commit policies for ``folders``: the success file."""
        for folder in folders:
            with open(os.path.join(self.path, folder, self.success), "wb"):
                pass

    def restore(self, state: dict | None) -> None:
        """Resume from checkpoint state (None: a fresh start; module docstring).

        Raises:
            ConfigError: the state is the other mode's (the table's path changed kind).
            ExecutionError: the files changed behind the job's back (:meth:`PartFiles.restore`; the
                file mode's file shorter than the checkpoint recorded).
        """
        if state is None:
            return
        if isinstance(state, list):  # a savepoint at another parallelism: the old tasks' states
            mine = [s for s in state if int(s.get("task", -1)) == self.ctx.task_index]
            if len(state) == 1 and mine:
                state = mine[0]
            else:
                for s in state:
                    self._check_mode(s)
                    if self.directory:
                        self.parts.adopt(s)
                        self._restore_partitions(s)
                    elif int(s.get("task", 0)) == self.ctx.task_index:
                        self._truncate(s)
                return
        self._check_mode(state)
        if not self.directory:
            self._truncate(state)
            return
        self.parts.restore(state)
        self._restore_partitions(state)

    def _restore_partitions(self, state: dict) -> None:
        """The partitions a checkpoint's state had not committed: pending again, with their recorded times.

        A restored in-progress file's partition is open again (Flink's restored bucket).
        """
        if self.trigger is None:
            return
        for k, v in (state.get("partitions") or {}).items():  # pending again, with their recorded times
            self.trigger.receive(k, int(v))
        now = _now_ms()
        for bucket in self.parts.open_files:
            self._opened.setdefault(bucket, now)

    def _check_mode(self, state: dict) -> None:
        if ("file" in state) == self.directory:
            msg = (f"Table '{self.ctx.table.name}': the restored checkpoint wrote "
                   f"{'a file' if 'file' in state else 'a directory'} at '{self.path}', the table now "
                   f"{'a directory' if self.directory else 'a file'}")
            raise ConfigError(msg, table=self.ctx.table.name)

    def _truncate(self, state: dict) -> None:
        length = int(state["length"])
        size = os.fstat(self._f.fileno()).st_size
        if size < length:  # truncate would pad it with NUL bytes
            msg = (f"Table '{self.ctx.table.name}': file {self.path} is {size} bytes, shorter than the "
                   f"{length} bytes the restored checkpoint wrote into it (changed behind the job's back): "
                   f"the job cannot resume it exactly once")
            raise ExecutionError(msg)
        self._f.truncate(length)
        self._f.seek(0, os.SEEK_END)

    def finish(self) -> None:
        """End of input: the file mode appends its rows; part files roll (the last checkpoint commits).

        Every partition then waits only for the final checkpoint, which commits them all (Flink's
        ``endInput``: no partition time is read, no file is open any more).
        """
        self._ended = True
        if self.directory:
            self.parts.finish()
            self._opened.clear()
        else:
            self.pre_commit(0)

    def close(self) -> None:
        """Close the open files."""
        if self.parts is not None:
            self.parts.close()
        if self._f is not None:
            self._f.close()
            self._f = None

