"""The ``filesystem`` sink: exactly-once part files, partition folders, partition commit.

Into a directory (``'path'`` is one, or ends with ``/``, or the table is partitioned) the sink
writes as Flink 2.3's streaming file sink for row formats (:mod:`.part_files`): hidden in-progress
part files, renamed to ``part-<uuid>-<task>-<n>`` when the first checkpoint after their roll
completes, whose state (uuid, counter, in-progress lengths, pending files) is recorded in the
checkpoint. Delivery guarantee: exactly-once — a restore commits the restored checkpoint's pending
files, truncates its in-progress files to their recorded lengths and deletes later ones.

Partitioned (``PARTITIONED BY``): each row goes into the part file of its partition's folder
(:mod:`.partitions`); the records hold the other columns. Partition commit, as Flink's
``PartitionCommitter`` with ``'sink.partition-commit.trigger' = 'process-time'`` (the default): a
partition a part file was opened in before barrier n is committed when checkpoint n completes and
``'sink.partition-commit.delay'`` has passed since that file opened (at the end of input: every
partition at the final checkpoint); with ``'sink.partition-commit.policy.kind' = 'success-file'``
committing writes the empty file ``'sink.partition-commit.success-file.name'`` (``_SUCCESS``)
into its folder. ``metastore`` is refused in Flink's words (a Hive table's), ``custom`` and the
``partition-time`` trigger as not supported, when the table is written.

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
    "sink.partition-commit.trigger": "'process-time' (default); 'partition-time' is refused",
    "sink.partition-commit.delay": "commit a partition this long after its file opened (default 0 ms)",
    "sink.partition-commit.policy.kind": "'success-file'; 'metastore' and 'custom' are refused",
    "sink.partition-commit.success-file.name": "the success file's name (default '_SUCCESS')",
}


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
    trigger = o.get("sink.partition-commit.trigger", "process-time").strip().lower()
    if trigger != "process-time":
        key = "sink.partition-commit.trigger"
        msg = (f"Table '{table.name}': option '{key}' = '{o[key]}' is not supported: StreamSQL commits "
               f"partitions by processing time ('process-time'); a 'partition-time' trigger needs the "
               f"partition time extractor, which it does not have")
        raise ConfigError(msg, table=table.name, option=key)
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
    if "sink.partition-commit.delay" in table.options:
        duration_ms(table.options["sink.partition-commit.delay"],
                    f"Table '{table.name}': option 'sink.partition-commit.delay'")


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
        delay = table.options.get("sink.partition-commit.delay")
        self.delay_ms = duration_ms(delay) if delay else 0
        self.directory = writes_directory(table)
        if not self.directory and ctx.num_tasks > 1:
            # each task would truncate the one file to its own recorded length at a restore
            msg = (f"Table '{table.name}': 'path' = '{table.options['path']}' is one file, which one task "
                   f"writes; this job writes the table from {ctx.num_tasks} tasks: give a directory "
                   f"path (part files per task, as Flink's) or run at parallelism 1")
            raise ConfigError(msg, table=table.name, option="path")
        self.parts = PartFiles(self.path, ctx.task_index, rolling_policy(table)) if self.directory else None
        self._pending: list[bytes] = []  # file mode: rows until the barrier
        self._f = None
        self._partitions: dict[str, int] = {}  # partition folder -> ms its first file opened
        self._partitions_at: dict[int, dict[str, int]] = {}
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
        now = int(time.time() * 1000)
        for i, folder in enumerate(folders):
            rows = np.flatnonzero(codes == i)
            self.parts.write(folder, [lines[r] for r in rows] if len(folders) > 1 and lines else lines)
            self._partitions.setdefault(folder, now)

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
        """The state of checkpoint ``checkpoint_id`` (after ``pre_commit``)."""
        if not self.directory:
            return {"file": os.path.abspath(self.path), "task": self.ctx.task_index, "length": self._f.tell()}
        self._partitions_at[checkpoint_id] = dict(self._partitions)
        return {**self.parts.snapshot(checkpoint_id), "partitions": dict(self._partitions)}

    def commit(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` completed: rename its pending files; commit due partitions."""
        if not self.directory:
            return
        self.parts.commit(checkpoint_id)
        seen: dict[str, int] = {}
        for n in [n for n in self._partitions_at if n <= checkpoint_id]:
            seen.update(self._partitions_at.pop(n))
        now = int(time.time() * 1000)
        due = [p for p, t in seen.items() if self._ended or t + self.delay_ms <= now]
        self._commit_partitions(due)

    def _commit_partitions(self, folders: list[str]) -> None:
        """Flink's partition commit policies for ``folders`` (the success file), then forget them."""
        for folder in folders:
            self._partitions.pop(folder, None)
            if self.success is not None:
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
                        self._partitions.update({k: int(v) for k, v in (s.get("partitions") or {}).items()})
                    elif int(s.get("task", 0)) == self.ctx.task_index:
                        self._truncate(s)
                return
        self._check_mode(state)
        if not self.directory:
            self._truncate(state)
            return
        self.parts.restore(state)
        self._partitions = {k: int(v) for k, v in (state.get("partitions") or {}).items()}

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
        """End of input: the file mode appends its rows; part files roll (the last checkpoint commits)."""
        self._ended = True
        if self.directory:
            self.parts.finish()
        else:
            self.pre_commit(0)

    def close(self) -> None:
        """Close the open files."""
        if self.parts is not None:
            self.parts.close()
        if self._f is not None:
            self._f.close()
            self._f = None

