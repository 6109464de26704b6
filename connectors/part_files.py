"""The filesystem sink's part files: exactly-once as Flink 2.3's streaming file sink (row formats).

Layout, as Flink writes it: under the table's ``'path'`` every *bucket* (a partition's
``k1=v1/k2=v2/`` folder, or ``'path'`` itself for a table without partitions) has at most one
*in-progress* part file per task, hidden while it is written (``.part-<uuid>-<task>-<n>.inprogress.
<uuid2>``, Flink's local ``RecoverableWriter`` names). ``<uuid>`` is the job's, one for all its
tasks and processes, drawn when the job is submitted
(:attr:`~streamsql.core.connector.ConnectorContext.job_uuid`), as Flink's ``FileSystemTableSink``
draws it when the job is planned. A restart within the submission keeps it; a new submission
(the script run again, a savepoint restored) names its new files by its own uuid, as Flink's
``-s`` resubmission does, while a restored in-progress file keeps its name. ``<n>`` counts the
task's part files over all buckets (Flink's ``partCounter``, continued by a restore).

An in-progress file is **rolled** (closed for commit), as Flink's ``TableRollingPolicy`` for row
formats:

- before a row when the file is larger than ``'sink.rolling-policy.file-size'`` (128 MB);
- when it is older than ``'sink.rolling-policy.rollover-interval'`` (30 min) or was not written
  for ``'sink.rolling-policy.inactivity-interval'`` (30 min), looked at every
  ``'sink.rolling-policy.check-interval'`` (1 min; here at the sink's next write or barrier);
- at the end of input;
- at every checkpoint for a format Flink writes as a bulk format (``csv``), not for a row format
  (``json``, ``raw``, ``debezium-json``: Flink's ``rollOnCheckpoint`` is ``!(writer instanceof
  Encoder)``).
 A rolled file is
**pending**; when the first checkpoint after its roll completes it is **committed**: renamed to
``part-<uuid>-<task>-<n>`` (visible; readers skip names starting with ``.`` or ``_``).

Exactly-once: at barrier n every in-progress file is flushed and fsynced, and the state recorded
in checkpoint n is the uuid, the next counter, each in-progress file with its length and the
pending files. A restore of checkpoint n renames its pending files (those a crash left before
their rename; a rename done is not done again), truncates each in-progress file to its recorded
length and writes on into it (Flink's resumable local writer), and deletes this task's other
hidden part files of the uuid (written after barrier n by the failed attempt). So whatever point
a crash hits (before or after the barrier's flush, after the commit before the renames), every
row is in the committed files exactly once.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from dataclasses import dataclass, field

import numpy as np

from streamsql.core.errors import ExecutionError
from streamsql.core.faults import fault_point


@dataclass(frozen=True)
class RollingPolicy:
    """Flink's ``TableRollingPolicy`` for row formats (sizes in bytes, times in ms)."""

    file_size: int = 128 << 20
    rollover_ms: int = 30 * 60_000
    inactivity_ms: int = 30 * 60_000
    check_ms: int = 60_000
    #: roll every file at each checkpoint: Flink's bulk formats (``csv``; ``json``, ``raw`` and
    #: ``debezium-json`` are row formats, Flink's ``Encoder``s, which do not)
    on_checkpoint: bool = False


@dataclass
class _InProgress:
    """One open part file: hidden ``name`` (relative to the sink's root), ``n``, bytes written."""

    bucket: str
    name: str
    n: int
    size: int
    created_ms: int
    updated_ms: int
    f: object = field(default=None, repr=False)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _final_name(hidden: str) -> str:
    """The committed name of an in-progress file.

    ``k=v/.part-<uuid>-<task>-<n>.inprogress.<x>`` → ``k=v/part-<uuid>-<task>-<n>``.
    """
    folder, _, name = hidden.rpartition("/")
    final = name[1:name.index(".inprogress.")]
    return f"{folder}/{final}" if folder else final


class PartFiles:
    """The part files of one sink task under ``root`` (see module docstring).

    Args:
        root: the table's ``'path'`` (a directory; created when missing).
        task: the sink task's index (in the names).
        policy: when to roll.
        job_uuid: the job's uuid (module docstring); None or "": one of its own.
    """

    def __init__(self, root: str, task: int, policy: RollingPolicy, job_uuid: str | None = None):
        self.root = root
        self.task = task
        self.policy = policy
        self.uuid = job_uuid or str(uuid.uuid4())
        self.uuids = [self.uuid]  # every uuid this task's files may carry (restored ones too)
        self.counter = 0
        self.open_files: dict[str, _InProgress] = {}
        self.pending: list[dict] = []  # rolled, not committed: {"from": hidden, "to": final}
        self._pending_at: dict[int, list[dict]] = {}  # those recorded at barrier n
        self._next_check = 0.0

    # ------------------------------------------------------------------------------ writing

    def write(self, bucket: str, lines: list[bytes]) -> None:
        """Append ``lines`` (each without its newline) to ``bucket``'s part file, rolling as due.

        ``bucket``: the folder relative to the root (``""`` or ``k=v/...``, ending with ``/``). No
        ``lines`` (rows that write nothing): the bucket's part file is opened, empty, as Flink's.
        """
        self._check_time()
        if not lines:
            self.open_files.get(bucket) or self._open(bucket)
            return
        sizes = np.fromiter((len(x) + 1 for x in lines), np.int64, len(lines))
        start = 0
        while start < len(lines):
            f = self.open_files.get(bucket) or self._open(bucket)
            # Flink rolls before a row once the file is larger than the limit: the rows written
            # are those before which the size is still within it (at least one, in a new file)
            rest = sizes[start:]
            before = f.size + np.concatenate(([0], np.cumsum(rest)[:-1]))
            over = before > self.policy.file_size
            take = int(np.argmax(over)) if over.any() else len(rest)
            if take == 0:
                self.roll(bucket)
                continue
            chunk = lines[start:start + take]
            f.f.write(b"\n".join(chunk) + b"\n")
            f.size += int(sizes[start:start + take].sum())
            f.updated_ms = _now_ms()
            start += take

    def _open(self, bucket: str) -> _InProgress:
        folder = os.path.join(self.root, bucket)
        try:
            os.makedirs(folder, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as e:
            msg = f"Cannot create the folder {folder} for a part file: a file is in its way ({e.strerror})"
            raise ExecutionError(msg) from e
        n = self.counter
        self.counter += 1
        name = f"{bucket}.part-{self.uuid}-{self.task}-{n}.inprogress.{uuid.uuid4()}"
        now = _now_ms()
        f = _InProgress(bucket, name, n, 0, now, now, open(os.path.join(self.root, name), "wb"))  # noqa: SIM115
        self.open_files[bucket] = f
        return f

    def active(self, bucket: str) -> bool:
        """Whether ``bucket`` has an open file or rolled files not committed yet (Flink's active bucket)."""
        return bucket in self.open_files or any(p["from"].rpartition(".part-")[0] == bucket
                                                for p in self.pending)

    def roll(self, bucket: str) -> None:
        """Close ``bucket``'s in-progress file: it becomes pending (committed by the next checkpoint)."""
        f = self.open_files.pop(bucket)
        f.f.flush()
        os.fsync(f.f.fileno())
        f.f.close()
        self.pending.append({"from": f.name, "to": _final_name(f.name)})

    def _check_time(self) -> None:
        """Roll the files over ``rollover_ms`` old or idle for ``inactivity_ms`` (every ``check_ms``)."""
        mono = time.monotonic()
        if mono < self._next_check:
            return
        self._next_check = mono + self.policy.check_ms / 1000
        now = _now_ms()
        for bucket, f in list(self.open_files.items()):
            if (now - f.created_ms >= self.policy.rollover_ms
                    or now - f.updated_ms >= self.policy.inactivity_ms):
                self.roll(bucket)

    def finish(self) -> None:
        """End of input: roll every in-progress file (committed by the final checkpoint)."""
        for bucket in list(self.open_files):
            self.roll(bucket)

    # ------------------------------------------------------------------------------ checkpoints

    def snapshot(self, checkpoint_id: int) -> dict:
        """Flush and fsync the in-progress files (a bulk format: roll them); checkpoint n's state."""
        self._check_time()
        if self.policy.on_checkpoint:
            self.finish()
        files = []
        for f in self.open_files.values():
            f.f.flush()
            os.fsync(f.f.fileno())
            files.append({"bucket": f.bucket, "name": f.name, "n": f.n, "length": f.size,
                          "created_ms": f.created_ms})
        self._pending_at[checkpoint_id] = list(self.pending)
        return {"uuid": self.uuid, "uuids": list(self.uuids), "task": self.task, "counter": self.counter,
                "in_progress": files, "pending": list(self.pending)}

    def commit(self, checkpoint_id: int) -> list[str]:
        """Checkpoint ``checkpoint_id`` completed: rename the files pending at its barrier (and before).

        Returns the buckets they were in.
        """
        done = [p for n, ps in self._pending_at.items() if n <= checkpoint_id for p in ps]
        self._pending_at = {n: ps for n, ps in self._pending_at.items() if n > checkpoint_id}
        names = {p["from"] for p in done}
        self.pending = [p for p in self.pending if p["from"] not in names]
        return self._rename(done)

    def _rename(self, files: list[dict]) -> list[str]:
        buckets = []
        for i, p in enumerate(files):
            src, dst = os.path.join(self.root, p["from"]), os.path.join(self.root, p["to"])
            if os.path.exists(src):
                os.replace(src, dst)
            elif not os.path.exists(dst):
                msg = f"Part file {src} of a completed checkpoint is gone (neither it nor {dst} exists)"
                raise ExecutionError(msg)
            if i == 0:
                fault_point("during_file_commit")
            buckets.append(p["to"].rpartition("part-")[0])
        return sorted(set(buckets))

    def restore(self, state: dict) -> list[str]:
        """Resume from a checkpoint's ``state`` (module docstring); the buckets committed now.

        Raises:
            ExecutionError: an in-progress file the checkpoint recorded is gone or shorter than
                recorded (the files were changed behind the job's back).
        """
        self.counter = max(self.counter, int(state["counter"]))
        for u in [state["uuid"], *state.get("uuids", [])]:
            if u not in self.uuids:
                self.uuids.append(u)
        committed = self._rename(state.get("pending", []))
        keep = set()
        for rec in state.get("in_progress", []):
            path = os.path.join(self.root, rec["name"])
            if not os.path.exists(path) or os.path.getsize(path) < rec["length"]:
                msg = (f"In-progress part file {path} of the restored checkpoint is gone or shorter than its "
                       f"{rec['length']} bytes then: the job cannot resume it exactly once")
                raise ExecutionError(msg)
            f = open(path, "r+b")  # noqa: SIM115 (closed when rolled or in close)
            f.truncate(rec["length"])
            f.seek(rec["length"])
            now = _now_ms()
            created = int(rec.get("created_ms", now))
            self.open_files[rec["bucket"]] = _InProgress(rec["bucket"], rec["name"], int(rec["n"]),
                                                         rec["length"], created, now, f)
            keep.add(os.path.normpath(path))
        self._remove_orphans(keep)
        return committed

    def adopt(self, state: dict) -> list[str]:
        """Take over another task's checkpoint ``state``; the buckets committed now.

        As a savepoint restored at another parallelism hands it: its pending files are renamed now,
        its in-progress files cut to their recorded lengths and made pending (renamed by this task's
        next completed checkpoint), its later hidden files deleted; this task keeps its own uuid
        and counter.

        Raises:
            ExecutionError: as :meth:`restore`.
        """
        other = PartFiles(self.root, int(state.get("task", 0)), self.policy, state["uuid"])
        committed = other.restore(state)
        for f in other.open_files.values():
            f.f.close()
            self.pending.append({"from": f.name, "to": _final_name(f.name)})
        other.open_files.clear()
        return committed

    def _remove_orphans(self, keep: set[str]) -> None:
        """Delete this task's hidden part files of its uuids that the restored state does not name."""
        uuids = "|".join(re.escape(u) for u in self.uuids)
        mine = re.compile(rf"\.part-({uuids})-{self.task}-\d+\.inprogress\..*")
        for folder, _dirs, files in os.walk(self.root):
            for name in files:
                path = os.path.normpath(os.path.join(folder, name))
                if mine.fullmatch(name) and path not in keep:
                    os.remove(path)

    def close(self) -> None:
        """Close the open files (they stay, hidden, for a restore to resume or delete)."""
        for f in self.open_files.values():
            f.f.close()
        self.open_files.clear()
