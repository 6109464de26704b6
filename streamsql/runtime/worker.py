"""Workers of a parallel job: Kafka's group protocol decides which worker runs which task.

Every worker process (``streamsql worker FILE.sql``, or one that ``streamsql run`` starts) joins
the consumer group ``_streamsql-<job>-workers`` on the job's task topic
``_streamsql-<job>-tasks``, which has one partition per task (tasks numbered stage by stage).
The group assigns the partitions (``cooperative-sticky``: a rebalance moves only the partitions
that must move; static membership through ``group.instance.id`` = the worker id, so a worker
restarted within ``session.timeout.ms`` gets its tasks back without a rebalance).

- **Assigned** partition p: start task p (:class:`~streamsql.runtime.parallel.TaskRunner`) in a
  thread of its own. Opening it fences the task's transactional producer
  (``init_transactions``), then it restores its last committed checkpoint and runs.
- **Held** first while the worker is assigned more than its share, ``ceil(tasks / workers)``
  (``workers``: ``'parallelism.default'``, the processes ``streamsql run`` starts), for at most
  :data:`HOLD_S`: the first worker to join is assigned every task, and the next one's join
  moves some of them away at once. Started, each such task would fence, restore, run and be
  cancelled, and its new owner would read its records again (measured: 10-20k records and
  ~0.4 CPU-s of a Q1 run on 2 workers); a held task that is revoked was never started. A
  broker delays a new group's first rebalance for the same reason
  (``group.initial.rebalance.delay.ms``, 3 s by default, 0 on the test broker), but that is
  the broker's setting, not the group's.
- **Revoked** (or lost) partition p: cancel task p and wait for it to stop — its open
  transaction is aborted; nothing else of the worker is touched. A task whose producer was
  fenced (the worker was frozen or cut off and the task moved) is dropped the same way, never
  retried: retrying would fence its new owner.
- A task that finished produces a ``done`` record into its partition (after its last commit,
  so a crash in between just runs the finished task again, which ends at once); its value holds
  the task's counts, which ``streamsql run`` prints (:func:`task_reports`).
- The worker leaves when every partition holds a ``done`` record, after writing the job's
  ``_finished`` marker (see :mod:`streamsql.runtime.parallel`). A task failing beyond its
  restart strategy fails the worker (exit 1), its error naming the task and the worker.
- A starting worker's first request (the task topic's metadata: its registration) is retried
  while the brokers do not answer, for up to :data:`REGISTRATION_TIMEOUT_S` (:func:`register`).
- A worker that ``streamsql run`` started says whose it is in its ``client.id``
  (:data:`DRIVER_CLIENT_PREFIX` + the driver's host and pid), so that a second ``streamsql run``
  of the job, from another checkpoint folder (whose folder lock it does not meet), finds the
  first one's workers in the group and refuses to start its own among them
  (:func:`other_drivers_workers`). A worker started by hand carries no such id: it joins any run.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import orjson
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import OffsetSpec

from streamsql.connectors.kafka.admin import admin_client
from streamsql.connectors.kafka.errors import RDKAFKA_LOG, KafkaUnreachableError, new_client
from streamsql.connectors.kafka.exchange import ensure_topic
from streamsql.core.counters import KEYS as DROPPED_KEYS
from streamsql.core.errors import ExecutionError, FencedError, user_text
from streamsql.core.faults import fault_point
from streamsql.core.lifeline import children_running, process_may_live

log = logging.getLogger(__name__)

#: How long a silent worker keeps its tasks (the broker's minimum is 6 s).
SESSION_TIMEOUT_MS = 6000
#: How often a worker heartbeats: a member learns of a rebalance (another worker joined, or
#: revoked the tasks it hands over) only in a heartbeat's answer, so each of the two rounds of a
#: cooperative rebalance waited up to this long (1 s: ~2 s before a second worker ran its tasks).
HEARTBEAT_INTERVAL_MS = 250
#: How often a worker that runs no task (all of its own finished) looks whether every task is
#: done (s): the job ends when the last worker leaves. At once after a task of its own finished.
DONE_CHECK_IDLE_S = 0.25
#: ... and one that runs tasks (as before: every second; its tasks finishing make it look at once).
DONE_CHECK_BUSY_S = 1.0
#: Longest hold of the tasks assigned beyond a worker's share (Kafka's default initial
#: rebalance delay): after that they start, so a job short of workers runs all its tasks.
HOLD_S = 3.0
#: How long a starting worker retries joining its job while the brokers do not answer: Flink's
#: ``taskmanager.registration.timeout`` (a TaskManager retries its registration with the
#: ResourceManager, backing off up to ``cluster.registration.max-timeout``, for 5 min).
REGISTRATION_TIMEOUT_S = 300.0
#: The longest pause between two of those tries (the first waits 0.5 s, then twice as long).
REGISTRATION_MAX_BACKOFF_S = 10.0
#: The ``client.id`` of a worker that ``streamsql run`` started starts so, then names that driver.
DRIVER_CLIENT_PREFIX = "streamsql-worker-of-"
#: How long a starting driver waits for another driver's workers that may be leaving the group:
#: a driver on another host killed just before took its workers along, but their static members
#: stay until the session timeout. Not waited for: a running worker of a live driver on this host
#: (refused at once) and the workers of a dead one here (:func:`other_drivers_workers`).
OTHER_DRIVERS_WAIT_S = SESSION_TIMEOUT_MS / 1000 + 4.0
#: What a task's ``done`` record holds (from :meth:`TaskRunner.stats`, what the worker that finished
#: it counted): read back by :func:`task_reports`.
REPORT_KEYS = ("worker", "rows_in", "rows_out", "rows_exchanged", *DROPPED_KEYS, "restarts")


def task_topic(job: str) -> str:
    """The job's task topic: one partition per task."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in job)
    return f"_streamsql-{safe}-tasks"


def task_reports(props: dict[str, Any], job: str, tasks: int, timeout: float = 10.0) -> dict[int, dict]:
    """What each finished task's ``done`` record says, by task-topic partition.

    The first ``done`` record of a partition is the attempt that finished the task (a task run
    again after a crash between its last commit and that record ends at once, and says so
    again). Its dict has :data:`REPORT_KEYS` and ``restored_from`` (the checkpoint id that attempt
    resumed from, or None); the counts are those of that attempt, since the
    checkpoint it restored (as a resumed single-process run counts). A partition whose record is
    not read within ``timeout`` seconds is left out.
    """
    config = {**props, "group.id": f"_streamsql-{job}-reports", "enable.auto.commit": False,
              "logger": RDKAFKA_LOG}
    consumer = new_client(Consumer, config, f"Job '{job}' task reports")
    out: dict[int, dict[str, Any]] = {}
    try:
        consumer.assign([TopicPartition(task_topic(job), p, 0) for p in range(tasks)])
        deadline = time.monotonic() + timeout
        while len(out) < tasks and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None or msg.error() or msg.partition() in out:
                continue
            try:
                report = orjson.loads(msg.value())
            except orjson.JSONDecodeError:
                report = None
            out[msg.partition()] = report if isinstance(report, dict) else {}
    finally:
        consumer.close()
    return out


def register(props: dict[str, Any], topic: str, tasks: int, what: str, cancelled: threading.Event,
             timeout_s: float = REGISTRATION_TIMEOUT_S) -> bool:
    """Make sure the job's task topic exists, retrying while the brokers do not answer.

    A worker's first request (the task topic's metadata) is its registration with the job. It
    failed the worker at once when the brokers took longer than the metadata timeout to answer:
    a worker frozen during it (the crash campaign's SIGSTOP, past the 10 s timeout) or starved on
    a loaded machine exited 1 with ``Failed to get metadata: Local: Timed out``. As a Flink
    TaskManager retries its registration, it is retried with backoff for ``timeout_s``; other
    errors (the topic with another partition count, ...) fail at once.

    Returns:
        False when ``cancelled`` was set meanwhile.

    Raises:
        KafkaUnreachableError: the brokers did not answer for ``timeout_s`` seconds.
        ExecutionError: any other failure of :func:`ensure_topic`.
    """
    deadline, backoff = time.monotonic() + timeout_s, 0.5
    while True:
        try:
            ensure_topic(props, topic, tasks, what)
            return True
        except KafkaUnreachableError as e:
            if time.monotonic() + backoff > deadline:
                raise
            log.warning("%s; retrying in %.1f s (for up to %.0f s in all)", e, backoff, timeout_s)
        if cancelled.wait(backoff):
            return False
        backoff = min(2 * backoff, REGISTRATION_MAX_BACKOFF_S)


def other_drivers_workers(props: dict[str, Any], job: str, driver: str,
                          wait_s: float = OTHER_DRIVERS_WAIT_S) -> list[str]:
    """The members of the job's worker group that another ``streamsql run`` than ``driver`` started.

    Each member is judged by :func:`_member_state`. Members of a driver on this host whose process
    is gone are left out. A worker process of a live driver on this host that still runs makes the
    answer at once: it heartbeats and stays, waiting for it only delayed the refusal by ``wait_s``.
    Otherwise it waits up to ``wait_s`` seconds for the members left to leave: those of a driver on
    another host (killed, it took its workers along, but their static members stay until the
    session timeout) and those of a live driver here whose worker process has ended (its run is
    finishing). Each is described as ``<worker id> (of driver <host>-<pid>)``. A group the brokers
    cannot describe counts as empty: this check refuses, it never fails a run by itself.

    Args:
        props: librdkafka properties of the brokers.
        job: the job's name.
        driver: this driver's ``<host>-<pid>``.
        wait_s: the longest wait for members that may be leaving (s).
    """
    group, mine = f"_streamsql-{job}-workers", DRIVER_CLIENT_PREFIX + driver
    admin = admin_client(props, f"Job '{job}' workers")
    deadline = time.monotonic() + wait_s
    while True:
        try:
            found = admin.describe_consumer_groups([group], request_timeout=10)[group].result(timeout=15)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if not (isinstance(err, KafkaError) and err.code() == KafkaError.GROUP_ID_NOT_FOUND):
                log.warning("job %s: cannot describe the workers' group %s: %s", job, group, e)
            return []
        members = [m for m in found.members
                   if m.client_id.startswith(DRIVER_CLIENT_PREFIX) and m.client_id != mine]
        states = _member_states(members, driver)
        others = sorted(f"{m.group_instance_id or m.member_id} (of driver "
                        f"{m.client_id.removeprefix(DRIVER_CLIENT_PREFIX)})"
                        for m, state in zip(members, states) if state != "gone")
        if not others or "running" in states or time.monotonic() >= deadline:
            return others
        time.sleep(0.5)


def _member_states(members: list, mine: str) -> list[str]:
    """What became of each member's worker (``<host>-<pid>`` of its driver in its ``client.id``).

    - ``gone``: its driver, on this host, has ended: its workers died with it
      (:mod:`streamsql.core.lifeline`); their static members just have not timed out yet;
    - ``running``: its driver on this host lives and has a child process of the member's worker id
      (``--worker-id``), or ``/proc`` cannot tell: it stays;
    - ``leaving``: its driver on this host lives but that worker process has ended (the run is
      finishing): its static member stays until the session timeout;
    - ``remote``: its driver is on another host: it may have been killed, or may run.
    """
    host = mine.rpartition("-")[0]
    running: dict[int, set[str] | None] = {}  # per live driver pid on this host: its running workers
    states = []
    for m in members:
        theirs_host, _, pid = m.client_id.removeprefix(DRIVER_CLIENT_PREFIX).rpartition("-")
        if theirs_host != host or not pid.isdigit():
            states.append("remote")
            continue
        if not process_may_live(int(pid)):
            states.append("gone")
            continue
        if int(pid) not in running:
            ids = {x.group_instance_id for x in members if x.client_id == m.client_id and x.group_instance_id}
            running[int(pid)] = children_running(int(pid), "--worker-id", ids)
        alive = running[int(pid)]
        states.append("running" if alive is None or m.group_instance_id in alive else "leaving")
    return states


class TaskGroup:
    """This worker's membership in the job's group and the tasks it runs (see module docstring).

    Args:
        job: the job's name.
        tasks: the job's task runners, in task-topic partition order.
        props: librdkafka properties of the brokers.
        worker_id: the static member id (stable across restarts of this worker).
        workers: how many workers the job expects (its share is ``ceil(len(tasks) / workers)``).
        driver: ``<host>-<pid>`` of the ``streamsql run`` that started this worker, or None.
    """

    def __init__(self, job: str, tasks: list, props: dict[str, Any], worker_id: str, workers: int = 1,
                 driver: str | None = None):
        self.job = job
        self.tasks = tasks
        self.props = props
        self.worker_id = worker_id
        self.driver = driver
        self.share = -(-len(tasks) // max(1, workers))
        self.topic = task_topic(job)
        self._assigned: set[int] = set()  # the group thread's view (its callbacks run in poll)
        self._held: dict[int, float] = {}  # assigned, not started: partition -> since (monotonic)
        self._threads: dict[int, threading.Thread] = {}
        self._errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._producer: Producer | None = None
        self._finished = threading.Event()  # a task of this worker recorded that it is done

    # -- running ------------------------------------------------------------------------------
    def run(self, cancelled: threading.Event) -> bool:
        """Take part until every task is done (True) or ``cancelled`` is set (False).

        Raises:
            StreamSQLError: a task's failure beyond its restart strategy.
        """
        if not register(self.props, self.topic, len(self.tasks), f"Job '{self.job}' task topic", cancelled):
            return False
        what = f"Job '{self.job}' worker {self.worker_id}"
        self._producer = new_client(Producer, {**self.props, "acks": "all", "allow.auto.create.topics": False,
                                               "logger": RDKAFKA_LOG}, what)  # the task topic goes at the end
        consumer = new_client(Consumer, {
            **self.props, "group.id": f"_streamsql-{self.job}-workers", "group.instance.id": self.worker_id,
            "partition.assignment.strategy": "cooperative-sticky", "session.timeout.ms": SESSION_TIMEOUT_MS,
            "heartbeat.interval.ms": HEARTBEAT_INTERVAL_MS, "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            **({"client.id": DRIVER_CLIENT_PREFIX + self.driver} if self.driver else {}),
            "logger": RDKAFKA_LOG}, what)
        consumer.subscribe([self.topic], on_assign=self._assign, on_revoke=self._revoke, on_lost=self._revoke)
        try:
            next_check = 0.0
            while not cancelled.is_set():
                consumer.poll(0.2)  # serves the group protocol; the records themselves are read below
                self._release_held()
                if self._errors:
                    raise self._errors[0]
                if self._finished.is_set() or time.monotonic() >= next_check:
                    self._finished.clear()
                    if self._all_done():
                        return True
                    next_check = time.monotonic() + (DONE_CHECK_BUSY_S if self._busy() else DONE_CHECK_IDLE_S)
            return False
        finally:
            self._stop_all()
            consumer.close()
            self._producer.flush(10)

    def _busy(self) -> bool:
        """Whether a task of this worker is held or runs (then its end says when to look again)."""
        with self._lock:
            return bool(self._held) or any(th.is_alive() for th in self._threads.values())

    def _all_done(self) -> bool:
        """Every task partition holds a ``done`` record (the only records ever written).

        Asked in one ListOffsets request of the shared admin client: the group consumer's own
        ``get_watermark_offsets`` waited behind its pending fetch, ~0.4 s per partition.
        """
        tps = [TopicPartition(self.topic, p) for p in range(len(self.tasks))]
        try:
            admin = admin_client(self.props, f"Job '{self.job}' worker {self.worker_id}")
            futures = admin.list_offsets({tp: OffsetSpec.latest() for tp in tps}, request_timeout=5)
            return all(f.result().offset > 0 for f in futures.values())
        except KafkaException:
            return False

    # -- assignment ---------------------------------------------------------------------------
    def _assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        now = time.monotonic()
        for tp in partitions:
            self._assigned.add(tp.partition)
            self._held.setdefault(tp.partition, now)
        if len(self._assigned) > self.share:
            log.info("worker %s: %d tasks assigned, more than its share of %d: held up to %.0f s for the "
                     "other workers to join", self.worker_id, len(self._assigned), self.share, HOLD_S)
        self._release_held()

    def _revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        for tp in partitions:
            self._assigned.discard(tp.partition)
            if self._held.pop(tp.partition, None) is None:  # held tasks never started
                self._stop(tp.partition, revoked=True)

    def _release_held(self) -> None:
        """Start the held tasks once the assignment is within the share, or held :data:`HOLD_S`."""
        if not self._held:
            return
        fair = len(self._assigned) <= self.share
        now = time.monotonic()
        for p, since in list(self._held.items()):
            if fair or now - since >= HOLD_S:
                del self._held[p]
                self._start(p)

    def _start(self, p: int) -> None:
        with self._lock:
            if p in self._threads:
                return
            task = self.tasks[p]
            task._cancel.clear()
            task.worker = self.worker_id
            th = threading.Thread(target=self._main, args=(p,), name=f"task-{task.name}", daemon=True)
            self._threads[p] = th
        log.info("worker %s: task %s assigned", self.worker_id, task.name)
        th.start()

    def _stop(self, p: int, revoked: bool = False) -> None:
        with self._lock:
            th = self._threads.pop(p, None)
        if th is None:
            return
        self.tasks[p].cancel()
        if revoked:
            fault_point("during_revocation")
        th.join()
        log.info("worker %s: task %s revoked", self.worker_id, self.tasks[p].name)

    def _stop_all(self) -> None:
        for p in list(self._threads):
            self._stop(p)

    def _main(self, p: int) -> None:
        task = self.tasks[p]
        try:
            task.run()
        except FencedError as e:  # a newer owner took the task over (this worker was frozen or cut off)
            log.warning("worker %s: task %s dropped: %s", self.worker_id, task.name, e)
            with self._lock:
                self._threads.pop(p, None)  # a later assignment starts it afresh
            return
        except BaseException as e:  # the worker fails with it, naming the task (its job is the worker's)
            where = f"task {task.slot.stage}-{task.slot.index} (on worker {self.worker_id})"
            failure = ExecutionError(f"{where}: {user_text(e)}")
            failure.__cause__ = e
            self._errors.append(failure)
            return
        finally:  # what this worker did of the task (SHOW JOBS cannot reach worker processes)
            st = task.counts()
            log.info("worker %s: task %s %s: %d rows in, %d rows out", self.worker_id, task.name,
                     st["status"], st["rows_in"], st["rows_out"])
        if task._cancel.is_set() or task._stop.is_set():
            return
        try:  # the task finished: say so (after its last commit), with its counts (task_reports)
            # and the checkpoint it resumed from: the driver's summary says it, as a single-process run's
            report = {**{k: st[k] for k in REPORT_KEYS}, "restored_from": task.restored_from}
            self._producer.produce(self.topic, value=orjson.dumps(report), key=b"done", partition=p)
            if self._producer.flush(30) != 0:
                msg = f"Job '{self.job}': cannot record that task {task.name} finished"
                raise ExecutionError(msg)
            self._finished.set()
        except (KafkaException, ExecutionError) as e:
            self._errors.append(e if isinstance(e, ExecutionError) else ExecutionError(str(e)))
