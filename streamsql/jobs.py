"""What users are told about jobs: SHOW JOBS rows, DESCRIBE JOB, failure notices, summaries.

A failure is always reported (issue 12, finding 3): :class:`FailureWatch` calls back once for
each job that fails, the moment it fails, so ``streamsql run`` can report it (and exit non-zero)
while another, unbounded job runs on, and the shell can print a notice while the user types.
``SHOW JOBS`` shows the cause (:func:`cause`), ``DESCRIBE JOB 'id'`` the whole error
(:func:`describe_job`).
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from streamsql.core.counters import DROPPED
from streamsql.core.errors import StreamSQLError
from streamsql.core.secrets import redact
from streamsql.runtime.job import JobHandle

#: SHOW JOBS' columns.
JOB_COLUMNS = ["job id", "name", "status", "started", "rows in", "rows out", "last checkpoint", "error"]
#: The longest cause SHOW JOBS shows (DESCRIBE JOB has the rest).
CAUSE_WIDTH = 160


def cause(job: JobHandle) -> str | None:
    """The first line of a failed job's error, cut to :data:`CAUSE_WIDTH`; None otherwise.

    A job that restarted after a failure (its restart strategy) shows that failure while it runs
    on: a failure that recurs (a bad record) restarts for ever, as on Flink, and must be seen.
    """
    last_failure = getattr(job.runner, "last_failure", None)
    if job.status in ("RUNNING", "RESTARTING") and last_failure:
        text = redact(last_failure).strip()
    elif job.status != "FAILED" or job.error is None:
        return None
    else:
        text = redact(str(job.error)).strip()
    first = text.splitlines()[0] if text else type(job.error).__name__
    return first if len(first) <= CAUSE_WIDTH else first[: CAUSE_WIDTH - 3] + "..."


def job_row(job: JobHandle) -> tuple:
    """One SHOW JOBS row (:data:`JOB_COLUMNS`)."""
    cp, m = job.last_checkpoint, job.metrics
    last = f"#{cp['checkpoint_id']} ({cp['duration_ms']} ms)" if cp else "-"
    if m.get("bad_records"):
        last += f"; {m['bad_records']} bad records skipped"
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job.started))
    return (job.job_id, job.name, job.status, started, m.get("rows_in", 0), m.get("rows_out", 0), last,
            cause(job))


def job_rows(job: JobHandle) -> list[tuple]:
    """The job's SHOW JOBS row, then one per task of a parallel job (:attr:`JobHandle.tasks`).

    A task's row: job id ``<job id>/<stage>-<task>``, name ``task <stage>-<task>``, its status,
    its worker in the ``started`` column, its rows in and out, its last checkpoint and its input
    lag (records not read yet).
    """
    rows = [job_row(job)]
    for t in job.tasks:
        cp = t["last_checkpoint"]
        last = f"#{cp['checkpoint_id']} ({cp['duration_ms']} ms)" if cp else "-"
        if t["input_lag"] is not None:
            last += f"; input lag {t['input_lag']}"
        rows.append((f"{job.job_id}/{t['task']}", f"task {t['task']}", t["status"], t["worker"] or "-",
                     t["rows_in"], t["rows_out"], last, None))
    return rows


def failure_notice(job: JobHandle) -> str:
    """``[ERROR] Job 'name' (id ...) FAILED: <the error>`` (the error may span lines).

    For a job its restart strategy restarted (still running): ``[WARNING] Job 'name' (id ...)
    failed and restarts ('restart-strategy.type'): <the failure>``.
    """
    last_failure = getattr(job.runner, "last_failure", None)
    if job.status != "FAILED" and last_failure:
        return (f"[WARNING] Job '{job.name}' (id {job.job_id}) failed and restarts ('restart-strategy.type'; "
                f"as on Flink, a failure that recurs restarts it again): {redact(last_failure)}")
    return f"[ERROR] Job '{job.name}' (id {job.job_id}) FAILED: {redact(str(job.error))}"


def job_summary(job: JobHandle) -> str:
    """What ``streamsql run`` prints of an ended job: one line, then one per task of a parallel job.

    ``[INFO] Job 'name' FINISHED: N rows in, M rows out, ...``: changes read from the job's
    sources (an update read as -U/+U once) and rows written to its tables (a parallel job's from
    its source stages and to its tables, not the rows crossing its exchanges), bad records, the
    checkpoint it resumed from, the last one. A parallel job with worker processes that ended
    before any task finished (cancelled, failed) says its counts are not known here.
    A parallel job's tasks follow, each ``[INFO]   task <stage>-<index> (worker ...): N rows in
    from the sources | the exchange, M rows out to tables | to the exchange`` (:func:`task_summary`).
    """
    m, cp = job.metrics, job.last_checkpoint
    tasks = job.tasks
    ran = [t for t in tasks if t["worker"]]
    if m.get("workers") and not ran and job.status != "FINISHED":
        # worker processes report a task's counts when it finishes: "0 rows in" would be a lie
        return (f"[INFO] Job '{job.name}' {job.status}: rows in and out not known here (the worker "
                "processes report them when their tasks finish); the tasks' checkpoints keep their progress")
    parts = [f"{m['rows_in']} rows in", f"{m['rows_out']} rows out"]
    parts += [f"{m[key]} {label}" for key, label, _ in DROPPED if m.get(key)]
    if job.runner.restored_from is not None:
        parts.append(f"resumed from checkpoint #{job.runner.restored_from}")
    if cp:
        parts.append(f"last checkpoint #{cp['checkpoint_id']} ({cp['duration_ms']} ms, "
                     f"{sum(cp['state_bytes'].values())} bytes, alignment {cp['alignment_ms']} ms)")
    line = f"[INFO] Job '{job.name}' {job.status}: " + ", ".join(parts)
    if not ran:
        return line
    count = f"{len(ran)} tasks" if len(ran) == len(tasks) else f"{len(ran)} of {len(tasks)} tasks"
    where = f" on {m['workers']} worker processes" if m.get("workers") else ""
    return "\n".join([f"{line}; {count}{where}:", *("[INFO]   " + task_summary(t) for t in ran)])


def task_summary(task: dict) -> str:
    """``task 1-0 (worker w1): 500 rows in from the exchange, 7 rows out to tables``.

    Args:
        task: a :meth:`~streamsql.runtime.parallel.ParallelJobRunner.task_stats` dict.
    """
    parts = [f"{task['rows_in']} rows in from the {task['input']}"]
    if task["to_tables"]:
        parts.append(f"{task['rows_out'] - task['rows_exchanged']} rows out to tables")
    if task["to_exchange"]:
        parts.append(f"{task['rows_exchanged']} rows out to the exchange")
    for key, label in (*((key, label) for key, label, _ in DROPPED), ("restarts", "restarts")):
        if task.get(key):
            parts.append(f"{task[key]} {label}")
    status = "" if task["status"] == "FINISHED" else f" {task['status']}"
    return f"task {task['task']} (worker {task['worker']}){status}: " + ", ".join(parts)


def describe_job(job: JobHandle, verbose: bool = False) -> str:
    """DESCRIBE JOB's text: identity, status, counts, checkpoints and, when it failed, the error.

    Args:
        job: the job.
        verbose: add the stack trace of the failure (``'sql-client.verbose'``).
    """
    cp, m = job.last_checkpoint, job.metrics
    lines = [
        f"Job ID:          {job.job_id}",
        f"Name:            {job.name}",
        f"Status:          {job.status}",
        f"Started:         {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(job.started))}",
        f"Rows in / out:   {m.get('rows_in', 0)} / {m.get('rows_out', 0)}",
    ]
    for key, label in (*((key, label) for key, _, label in DROPPED), ("restarts", "Restarts")):
        if m.get(key):
            lines.append(f"{(label + ':').ljust(16)} {m[key]}")
    if job.runner.restored_from is not None:
        lines.append(f"Resumed from:    checkpoint #{job.runner.restored_from}")
    if cp:
        lines.append(f"Last checkpoint: #{cp['checkpoint_id']} ({cp['duration_ms']} ms)")
    if job.tasks:
        lines.append("Tasks:           task | status | worker | rows in | rows out | last checkpoint")
        lines += [f"  {row[1][5:]} | {row[2]} | {row[3]} | {row[4]} | {row[5]} | {row[6]}"
                  for row in job_rows(job)[1:]]
    last_failure = getattr(job.runner, "last_failure", None)
    if job.status != "FAILED" and last_failure:  # restarted after it (restart-strategy.type)
        lines += ["Last failure:", *("  " + line for line in last_failure.splitlines())]
    if job.status == "FAILED" and job.error is not None:
        lines += ["Error:", *("  " + line for line in str(job.error).splitlines())]
        if not isinstance(job.error, StreamSQLError) or verbose:
            lines += ["Stack trace:", *("  " + line for line in (job.error_trace or "").splitlines())]
    return redact("\n".join(lines))


class FailureWatch:
    """Calls ``notify(job)`` once for each job of ``jobs`` that fails, as soon as it fails.

    A daemon thread looks at the jobs every ``interval`` seconds (jobs added to the dict later
    are watched too); a job that had already failed when the watch started is reported as well.

    Args:
        jobs: the live ``{job id: handle}`` dict (``StreamEnvironment.jobs``).
        notify: the callback; it runs on the watch's thread and must not raise.
        interval: seconds between looks.
        on_restart: called once for a job's first restart (its restart strategy restarted it after
            a failure: the job runs on, see streamsql/runtime/restart.py), or None.
    """

    def __init__(self, jobs: dict[str, JobHandle], notify: Callable[[JobHandle], None],
                 interval: float = 0.2, on_restart: Callable[[JobHandle], None] | None = None):
        self.jobs = jobs
        self.notify = notify
        self.on_restart = on_restart
        self.restart_reported: set[str] = set()
        self.interval = interval
        self.reported: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="failure-watch", daemon=True)

    def __enter__(self) -> FailureWatch:
        """Start watching."""
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop watching (after one last look, so no failure goes unreported)."""
        self._stop.set()
        self._thread.join(5)
        self.poll()

    def poll(self) -> None:
        """Report the failures not yet reported (also called by the thread)."""
        for job in list(self.jobs.values()):
            if job.done and job.status == "FAILED" and job.job_id not in self.reported:
                self.reported.add(job.job_id)
                self.notify(job)
            elif (self.on_restart is not None and not job.done and job.metrics.get("restarts")
                  and job.job_id not in self.restart_reported):
                self.restart_reported.add(job.job_id)  # the first restart; the log has each one
                self.on_restart(job)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.poll()
