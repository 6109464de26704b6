"""A running job's liveness mark on Kafka: who uses a transactional id, before anything is fenced.

Two runs of one job from two checkpoint folders (the same script run from two working folders:
another ``'execution.checkpointing.dir'``, the same ``'pipeline.name'``) share its Kafka
transactional ids (``<prefix>-<job>-<task>``). The second one's ``init_transactions()`` fences the
first one's producer and fails that job. Once the first has committed a checkpoint, its commit
point names a checkpoint the second one's folder does not hold, and the second is refused before
fencing (:meth:`streamsql.checkpoint.identity.JobIdentity.check_before_fencing`); before that, the
commit point names nothing. The mark closes that window, on Kafka itself (no cluster manager):

- Before its producer fences anything, a task holding a transactional id joins the consumer group
  ``<transactional id>-running`` (:meth:`RunMark.join`), its ``client.id`` naming the run:
  ``streamsql-run|<host>|<pid>|<checkpoint folder>``. It waits until the broker lists it as a
  member (a second run started after that sees it), then looks at the other members
  (:meth:`RunMark.others`). A thread polls the consumer (so the member is never dropped for not
  polling) and the broker's heartbeat keeps it a member for as long as the task runs; the task's
  close leaves the group at once.
- A member whose checkpoint folder is this run's own is ignored: it is an earlier incarnation of
  this very run (killed, or a parallel task that moved between workers of the run), and the
  folder's lock, or the run's own fencing, already deals with it. So a restart after a
  ``kill -9`` is neither refused nor kept waiting.
- A member of another folder is a running job, or one that died less than the session timeout
  (:data:`SESSION_TIMEOUT_MS`) ago: a member whose process is gone on this host is ignored at
  once (:func:`streamsql.core.lifeline.process_may_live`), a live one refuses at once; another
  host's member is waited for up to :data:`OTHER_RUN_WAIT_S` to leave. Still there, the task is refused
  (:class:`~streamsql.core.errors.JobRunningError`, naming the running job's folder, host and
  pid) before its producer is created, and the running job is not touched.

Both runs mark before they look, so of two runs started at the same moment at least one sees the
other (both may be refused: never neither). Not told apart: the same folder path on two hosts
that do not share it (taken as one run's folder: the commit point's check remains).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException
from streamsql.connectors.kafka.admin import admin_client
from streamsql.connectors.kafka.client_keys import PRODUCER_ONLY
from streamsql.connectors.kafka.errors import RDKAFKA_LOG, execution_error, new_client

from streamsql.core.errors import ExecutionError, JobRunningError
from streamsql.core.lifeline import process_may_live

log = logging.getLogger(__name__)

#: The group member's ``client.id`` starts so, then ``<host>|<pid>|<folder>``.
CLIENT_PREFIX = "streamsql-run"
#: The mark's session timeout: how long a killed run's member stays (the broker's minimum).
SESSION_TIMEOUT_MS = 6000
#: How long a starting run waits for another folder's member (not known dead) to leave (s).
OTHER_RUN_WAIT_S = SESSION_TIMEOUT_MS / 1000 + 4.0
#: How long :meth:`RunMark.join` waits for the broker to list this member (s).
JOIN_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class RunInfo:
    """One run that marks a transactional id: its checkpoint folder, host and process id."""

    folder: str
    host: str
    pid: int

    @property
    def client_id(self) -> str:
        """The member's ``client.id``."""
        return f"{CLIENT_PREFIX}|{self.host}|{self.pid}|{self.folder}"

    @classmethod
    def parse(cls, client_id: str) -> RunInfo | None:
        """The run a ``client.id`` names (None: not a mark's member)."""
        prefix, _, rest = client_id.partition("|")
        host, _, rest = rest.partition("|")
        pid, _, folder = rest.partition("|")
        if prefix != CLIENT_PREFIX or not pid.isdigit():
            return None
        return cls(folder, host, int(pid))

    def describe(self) -> str:
        """``checkpoint folder '<folder>' (host <host>, pid <pid>)``."""
        return f"checkpoint folder '{self.folder}' (host {self.host}, pid {self.pid})"


def this_run(folder: str) -> RunInfo:
    """This process's run of the checkpoint folder ``folder`` (a path or URI, as the job shows it)."""
    return RunInfo(folder, socket.gethostname(), os.getpid())


def runs_elsewhere(props: dict[str, Any], transactional_ids: list[str], run: RunInfo, what: str,
                   wait_s: float = OTHER_RUN_WAIT_S) -> dict[str, list[RunInfo]]:
    """The runs of checkpoint folders other than ``run``'s that mark each of ``transactional_ids``.

    Members of ``run.folder`` are left out, and members of a process on this host that is gone;
    a live process of this host is found at once, another host's member is waited for up to
    ``wait_s`` seconds to leave (a killed run there stays a member until the session timeout).
    Without joining any group: what a run asks before it fences ids it holds no mark for (a
    parallel run's reset).

    Raises:
        ExecutionError: a group cannot be described.
    """
    props = {k: v for k, v in props.items() if k not in PRODUCER_ONLY}
    deadline = time.monotonic() + wait_s
    while True:
        members = _members(props, [f"{tid}-running" for tid in transactional_ids], what)
        found = {tid: sorted({m for m in members[f"{tid}-running"] if m.folder != run.folder
                              and (m.host != run.host or process_may_live(m.pid))},
                             key=lambda m: (m.host, m.pid, m.folder))
                 for tid in transactional_ids}
        # a live process of this host runs for sure; only another host's member may be a dead one
        if (not any(found.values()) or time.monotonic() >= deadline
                or any(m.host == run.host for runs in found.values() for m in runs)):
            return found
        log.info("%s: waiting up to %.0f s for the runs of other checkpoint folders that use %s to end", what,
                 max(0.0, deadline - time.monotonic()), ", ".join(t for t, runs in found.items() if runs))
        time.sleep(0.5)


def running_elsewhere_error(job: str, found: dict[str, list[RunInfo]], folder: str) -> JobRunningError:
    """The refusal of a run from checkpoint folder ``folder`` (``found``: :func:`runs_elsewhere`'s answer)."""
    tid, runs = next((t, r) for t, r in sorted(found.items()) if r)
    msg = (f"Job '{job}' is running from {runs[0].describe()}: it uses the Kafka transactional id "
           f"'{tid}' (a member of group '{tid}-running'), and this run, from checkpoint folder '{folder}', "
           "would fence it (refused before fencing that id: the running job is not touched). Stop that run "
           "first, or give this one another 'pipeline.name' or 'sink.transactional-id-prefix'")
    return JobRunningError(msg)


def _members(props: dict[str, Any], groups: list[str], what: str) -> dict[str, set[RunInfo]]:
    """The runs the members of each of ``groups`` name (none for a group that does not exist).

    One DescribeGroups request for all of them.

    Raises:
        ExecutionError: a group cannot be described.
    """
    admin = admin_client(props, f"{what}: liveness mark")
    futures = admin.describe_consumer_groups(groups, request_timeout=10)
    out: dict[str, set[RunInfo]] = {}
    for group, future in futures.items():
        try:
            found = future.result(timeout=15)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if isinstance(err, KafkaError) and err.code() == KafkaError.GROUP_ID_NOT_FOUND:
                out[group] = set()
                continue
            msg = f"{what}: cannot describe group '{group}'"
            raise execution_error(msg, e, str(props.get("bootstrap.servers", ""))) from None
        out[group] = {r for r in (RunInfo.parse(m.client_id) for m in found.members) if r is not None}
    return out


class RunMark:
    """Membership of the group ``<transactional id>-running`` (see module docstring).

    Args:
        props: librdkafka properties of the brokers (producer-only keys are dropped).
        transactional_id: the id the mark guards.
        topic: an existing topic the member subscribes to (the progress topic: it is assigned
            and paused, nothing is fetched).
        run: this run.
        what: names the task in errors.
    """

    def __init__(self, props: dict[str, Any], transactional_id: str, topic: str, run: RunInfo, what: str):
        self.props = {k: v for k, v in props.items() if k not in PRODUCER_ONLY}
        self.group = f"{transactional_id}-running"
        self.transactional_id = transactional_id
        self.topic = topic
        self.run = run
        self.what = what
        self._consumer: Consumer | None = None
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None

    def join(self) -> None:
        """Join the group and wait until the broker lists this member (at most :data:`JOIN_TIMEOUT_S`).

        A describe that fails is asked again until then: on a new broker the first group's
        coordinator is still loading (seen: the first job on a fresh broker failed at start).

        Raises:
            ExecutionError: the group cannot be joined or described in time.
        """
        props = {**self.props, "group.id": self.group, "client.id": self.run.client_id,
                 "session.timeout.ms": SESSION_TIMEOUT_MS, "heartbeat.interval.ms": 1000,
                 "enable.auto.commit": False, "logger": RDKAFKA_LOG}
        self._consumer = new_client(Consumer, props, f"{self.what}: liveness mark")
        self._consumer.subscribe([self.topic], on_assign=lambda c, parts: c.pause(parts))
        self._poller = threading.Thread(target=self._poll, name=f"mark-{self.group}", daemon=True)
        self._poller.start()
        deadline = time.monotonic() + JOIN_TIMEOUT_S
        while True:
            try:
                failed = None
                if self.run in self._members():
                    return
            except ExecutionError as e:  # a new broker's first group: its coordinator still loading
                failed = e
            if time.monotonic() > deadline:
                if failed is not None:
                    raise failed
                msg = (f"{self.what}: group '{self.group}' does not list this run as a member after "
                       f"{JOIN_TIMEOUT_S:.0f} s")
                raise execution_error(msg, None, str(self.props.get("bootstrap.servers", "")))
            time.sleep(0.05)

    def others(self, wait_s: float = OTHER_RUN_WAIT_S) -> list[RunInfo]:
        """The runs of other checkpoint folders that mark the id, after waiting ``wait_s`` for them.

        Members of this folder are left out (earlier incarnations of this run), and so are
        members of a process on this host that is gone (killed: its member stays until the
        session timeout); another host's are waited for up to ``wait_s`` seconds to leave.
        """
        found = runs_elsewhere(self.props, [self.transactional_id], self.run, self.what, wait_s)
        return found[self.transactional_id]

    def _members(self) -> set[RunInfo]:
        return _members(self.props, [self.group], self.what)[self.group]

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                self._consumer.poll(0.1)
            except (KafkaException, RuntimeError) as e:  # closed meanwhile, or a transient error
                if self._stop.is_set():
                    return
                log.debug("%s: liveness mark poll: %s", self.what, e)
                time.sleep(0.5)

    def close(self) -> None:
        """Leave the group (at once: the member is dynamic); idempotent."""
        self._stop.set()
        if self._poller is not None:
            self._poller.join()
            self._poller = None
        if self._consumer is not None:
            try:
                self._consumer.close()
            except (KafkaException, RuntimeError) as e:
                log.debug("%s: closing the liveness mark: %s", self.what, e)
            self._consumer = None
