"""The consumer side of the Kafka sources: assignment, positions, bounded ends, splits, discovery.

:class:`KafkaReader` assigns every partition of the table's topic(s) — or its task's share —
manually (no group rebalancing; offsets are never committed to the group — the checkpoint
holds them) and reads
with ``isolation.level = read_committed``. It tracks, per partition, the next offset to read
(the position) and, for a bounded read, the offset at which it stops. Offsets are resolved to
concrete numbers at :meth:`~KafkaReader.open` (:mod:`.offsets`), so a position is exact even for
partitions that returned nothing yet.

Partition discovery, as Flink's ``KafkaSourceEnumerator``: every
``'scan.topic-partition-discovery.interval'`` (default 5 min; '0' disables it; a bounded read
never discovers, as ``KafkaSourceBuilder`` sets ``partition.discovery.interval.ms`` = -1 for
it) :meth:`~KafkaReader.consume` re-reads the cluster's metadata (at most
:data:`~.errors.PROBE_TIMEOUT_S`) and assigns the partitions added to its topics, and the topics
newly matching ``'topic-pattern'``, from their EARLIEST offset (Flink's
``newDiscoveryOffsetsInitializer = OffsetsInitializer.earliest()``, whatever the startup mode).
A new partition enters the position at once, so a checkpoint holds it; a restore that finds a
partition its position does not name starts that one at the earliest offset too (Flink: a
partition missing from the restored enumerator state is a new one).

A task of a parallel job owns partition ``p`` of topic ``t`` when ``(start(t) + p) % tasks ==
task``, as Flink's ``KafkaSourceEnumerator.getSplitOwner`` (:mod:`.assignment`): the start of a
topic depends on its name only, so partitions added to any topic, and new topics, never move a
known partition to another task. A restarted task restores only its own position, which records
every topic's start (``"@<topic>"``), so it owns the partitions it checkpointed. A position written
before starts were recorded numbered all partitions in one sequence; its restore keeps that
numbering, and fails with an error (instead of reading some rows twice or never) when partitions
added to a topic other than the last while the job was down moved one of its partitions.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import operator
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition
from streamsql.connectors.kafka.assignment import (
    START_PREFIX,
    STOP_PREFIX,
    flink_start,
    owner,
    position_starts,
    sequence_starts,
)
from streamsql.connectors.kafka.errors import (
    PROBE_TIMEOUT_S,
    RDKAFKA_LOG,
    ErrorLatch,
    execution_error,
    new_client,
)
from streamsql.connectors.kafka.fetched import Located
from streamsql.connectors.kafka.offsets import OffsetResolver, TopicPart, check_offset_options
from streamsql.connectors.kafka.options import (
    OPT_DISCOVERY,
    check_topic_choice,
    librdkafka_props,
    metadata_timeout_s,
    table_prefix,
    topics_of,
)

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.values import duration_ms

log = logging.getLogger(__name__)

# Unbound C methods: ``map(_OFFSET, msgs)`` reads a batch without a Python frame per message.
_ERROR, _OFFSET, _PARTITION, _VALUE = Message.error, Message.offset, Message.partition, Message.value


def message_values(msgs: list[Message]) -> list[bytes | None]:
    """The value of every message (one C call each, no Python frame per message)."""
    return list(map(_VALUE, msgs))

#: How long :meth:`KafkaReader.history` may take.
HISTORY_TIMEOUT_S = 300.0


_gc_lock = threading.Lock()
_gc_pausers = 0  # threads inside gc_paused()
_gc_was_enabled = False  # whether the first of them found the collector on


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No automatic garbage collection while the body runs (``consume()``), in any thread.

    ``consume()`` creates a Message, a GC-tracked object, per record, ~10,000 in one call. With
    the collector on, that allocation triggers a young collection every 700 objects, and the
    messages created first in the call outlive them and are promoted to the oldest generation,
    whose full collection then ran every ~90,000 records (a scan of every long-lived object of
    the process: Q2 / a Kafka source alone spent 0.65 of 3.5 CPU-µs per record collecting,
    0.08 with the pause). Held by several threads at once, the collector is turned back on when
    the last leaves, and only if it was on when the first came in. The body must not block:
    :meth:`KafkaReader.consume` takes only the messages already queued under it and waits for
    more outside it (an idle source waiting inside would keep the collector off for good).
    """
    global _gc_pausers, _gc_was_enabled  # noqa: PLW0603  (one collector per process)
    with _gc_lock:
        if _gc_pausers == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pausers += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pausers -= 1
            if _gc_pausers == 0 and _gc_was_enabled:
                gc.enable()


class KafkaReader:
    """Reads raw messages of a table's topic(s) (see module docstring).

    Args:
        table: the table.
        job_name: for the default group id.
        startup_default: startup mode when ``'scan.startup.mode'`` is unset.
        bounded_mode: ``'scan.bounded.mode'``.
        share: ``(task, tasks)``: read only the partitions ``i`` (in topic, partition order)
            with ``i % tasks == task`` (a stage of a parallel job); ``(0, 1)``: all.

    Raises:
        ConfigError: for bad topic, startup, bounded or discovery options.
    """

    def __init__(
        self,
        table: TableDef,
        job_name: str,
        startup_default: str = "group-offsets",
        bounded_mode: str = "unbounded",
        share: tuple[int, int] = (0, 1),
    ):
        self.table = table
        self.share = share
        o = table.options
        self.bootstrap = o.get("properties.bootstrap.servers", "")
        self.topics = topics_of(table)
        self.pattern = o.get("topic-pattern")
        pre = table_prefix(table)
        check_topic_choice(table)
        if self.pattern:
            try:
                self._regex = re.compile(self.pattern)
            except re.error as e:
                msg = f"{pre}option 'topic-pattern' = '{self.pattern}' is not a regex: {e}"
                raise ConfigError(msg) from None
        self.single_topic = len(self.topics) == 1
        self.startup = o.get("scan.startup.mode", startup_default)
        self.bounded_mode = bounded_mode
        check_offset_options(table, self.startup, bounded_mode)
        key = OPT_DISCOVERY.key
        interval_ms = duration_ms(o.get(key, OPT_DISCOVERY.default), f"{pre}option '{key}'")
        #: seconds between two partition discoveries; 0: none (a bounded read never discovers)
        self.discovery_s = interval_ms / 1000 if bounded_mode == "unbounded" else 0.0
        self._discover_at = 0.0  # time.monotonic() of the next discovery
        self._all: list[TopicPart] = []  # every partition of the source (all tasks'), as found
        self.starts: dict[str, int] = {}  # each topic's start (.assignment); a parallel task records them
        librdkafka_props(o, pre)  # Java-only keys are rejected or warned about at planning already
        self.group_id = o.get("properties.group.id") or f"streamsql-{job_name}-{table.name}"
        self.what = f"Table '{table.name}' (kafka source)"
        self.latch = ErrorLatch(self.what, self.bootstrap)
        self.consumer: Consumer | None = None
        self.offsets: OffsetResolver | None = None
        self.next: dict[TopicPart, int] = {}
        self.stop: dict[TopicPart, int] = {}  # bounded: end offsets (exclusive)
        self.done: set[TopicPart] = set()
        self.parts: list[TopicPart] = []  # the splits, in order (set at open)
        self._split_of: dict[TopicPart, int] = {}
        self._split_of_partition: dict[int, int] = {}
        self._split_lut = np.zeros(0, np.int32)  # single topic: partition -> split (-1: not read)
        self._lut_parts = -1  # len(_split_of_partition) when the lut was built
        self._stop_arr = np.zeros(0, np.int64)  # bounded: stop offset per split
        # the last batch consume() returned, with the split and offset of each message
        self._located: tuple[list[Message], np.ndarray, np.ndarray] | None = None
        self._ends: EndOffsets | None = None  # made when the lag is first asked

    # -- open -----------------------------------------------------------------------------------
    def _consumer_config(self) -> dict[str, Any]:
        cfg = {
            "group.id": self.group_id,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
            # librdkafka prefetches up to 64 MB by default; one fetch thread consuming ~10k-row
            # batches needs far less, and the memory counts against large-state jobs' RSS. The
            # bound is checked before a fetch, so one fetch response overshoots it, and a queued
            # record keeps its whole response buffer alive, plus an op of ~300 bytes per record:
            # with 16 MB queued and 4 MB per partition, heaptrack saw 50 MB of response buffers
            # and 45 MB of ops at the peak of the 1M-key GROUP BY benchmark.
            "queued.max.messages.kbytes": 4096,
            # Responses of up to 2 MB per partition and 8 MB in all. Measured with a bare consume
            # loop on the benchmark's 4-partition topic (benchmarks/README.md, 2026-12-03): as fast
            # as 4 MB per partition (whose fetches were needed for WIN: 95k -> 135k ev/s against
            # the 1 MB default) at half the memory, and the partitions read evenly; 4 MB in all,
            # or 2 MB per partition with the 50 MB default in all, read one partition after another.
            "max.partition.fetch.bytes": 2097152,
            "fetch.max.bytes": 8388608,
            # librdkafka (>= 2.2) waits this long before fetching again for a partition whose
            # queue was over the bounds above (default 1000 ms): a backlog read stalled on it.
            "fetch.queue.backoff.ms": 1,
            "error_cb": self.latch,
            "logger": RDKAFKA_LOG,
        }
        cfg.update(librdkafka_props(self.table.options, table_prefix(self.table), "consumer"))
        cfg["enable.auto.commit"] = False
        cfg["enable.auto.offset.store"] = False
        cfg["enable.partition.eof"] = True
        cfg.setdefault("isolation.level", "read_committed")
        return cfg

    def open(self, position: dict | None) -> None:
        """Assign every partition, at ``position`` or where the startup mode says.

        Raises:
            ConfigError: for a topic that does not exist.
            ExecutionError: when the brokers cannot be reached.
        """
        self.consumer = new_client(Consumer, self._consumer_config(), self.what)
        self.latch.watch(self.consumer)
        self.offsets = OffsetResolver(self.consumer, self.table, self.what, self.bootstrap, self.group_id)
        every = self._partitions(metadata_timeout_s(self.table, "consumer"), True)
        if position is not None and self.share[1] > 1:
            # the starts the checkpoint recorded; none: one numbering of the partitions seen now (as
            # positions written before starts were recorded assigned them)
            self.starts = position_starts(position) or sequence_starts(every)
        parts = self._share(every)
        self.parts = parts
        self._split_of = {tp: i for i, tp in enumerate(parts)}
        self._split_of_partition = {p: i for i, (_, p) in enumerate(parts)}
        restored = self._restored(position, parts) if position is not None else {}
        # a restore: partitions the position does not name are new ones (Flink: earliest)
        mode = self.startup if position is None else "earliest-offset"
        starts = self.offsets.start_offsets([tp for tp in parts if tp not in restored], mode)
        starts.update(restored)
        self.next = dict(starts)
        if self.bounded_mode != "unbounded":
            # a restore keeps the ends its run started with (the group's offsets are its own
            # progress by now, the latest offset has moved on); new partitions are resolved
            kept = self._restored_stops(position, parts) if position is not None else {}
            todo = [tp for tp in parts if tp not in kept]
            resolved = self.offsets.stop_offsets(todo, self.bounded_mode) if todo else {}
            self.stop = {tp: kept[tp] if tp in kept else resolved[tp] for tp in parts}
            self._stop_arr = np.asarray([self.stop[tp] for tp in parts], np.int64)
            for tp in parts:
                if self.next[tp] >= self.stop[tp]:
                    self.done.add(tp)
        live = [TopicPartition(t, p, self.next[(t, p)]) for (t, p) in parts if (t, p) not in self.done]
        self.consumer.assign(live)
        self._discover_at = time.monotonic() + self.discovery_s

    def _partitions(self, timeout_s: float, first: bool) -> list[TopicPart]:
        """Every partition of the source's topics, in topic, partition order.

        The metadata asked for is that of the source's topics alone, but for a ``topic-pattern``
        (every topic's): on a cluster of a few thousand topics the whole list took ~0.5 s, which
        a discovery every 300 ms spent again and again (a source read 10 rows a second so).

        Raises:
            ConfigError: (``first``: at open) a topic that does not exist, none matching the pattern.
            ExecutionError: the brokers cannot be reached; (``first``) a topic's metadata has an error.
        """
        try:
            if self.pattern:
                md = self.consumer.list_topics(timeout=timeout_s).topics
            else:
                md = {t: self.consumer.list_topics(topic=t, timeout=timeout_s).topics.get(t)
                      for t in self.topics}
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        self.latch.check()
        if self.pattern:
            names = sorted(t for t in md if self._regex.fullmatch(t))
            if not names and first:
                msg = f"{self.what}: no topic matches 'topic-pattern' = '{self.pattern}' on {self.bootstrap}"
                raise ConfigError(msg)
            self.topics = names
        out = []
        for t in self.topics:
            tm = md.get(t)
            if not first and (tm is None or tm.error is not None):
                continue  # a discovery lists what it can; a topic deleted meanwhile: _check_topics_exist
            if tm is None or (tm.error is not None and tm.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
                msg = (
                    f"{self.what}: topic '{t}' does not exist on {self.bootstrap} "
                    "(option 'topic'); create it first"
                )
                raise ConfigError(msg)
            if tm.error is not None:
                msg = f"{self.what}: topic '{t}': {tm.error.str()}"
                raise ExecutionError(msg)
            out += [(t, p) for p in sorted(tm.partitions)]
        return out

    def _share(self, every: list[TopicPart]) -> list[TopicPart]:
        """This task's partitions of ``every`` (the source's); remembers ``every``."""
        self._all = list(every)
        return [tp for tp in every if self._mine(tp)]

    def _mine(self, tp: TopicPart) -> bool:
        """Whether this task reads ``tp`` (:mod:`.assignment`; a topic seen first gets Flink's start)."""
        task, tasks = self.share
        if tasks == 1:
            return True
        start = self.starts.setdefault(tp[0], flink_start(tp[0]))
        return owner(start, tp[1], tasks) == task

    def _restored(self, position: dict, parts: list[TopicPart]) -> dict[TopicPart, int]:
        """The offsets of ``position`` (a restore's) for this task's ``parts``.

        Raises:
            ExecutionError: the position names a partition another task of a parallel job owns
                now (partitions were added to a topic other than the last one, or a topic sorting
                before a known one appeared, while the job was down): restoring would read some
                rows twice and others never.
        """
        out = self._parse_position(position, parts)
        if self.share[1] > 1:
            moved = sorted(set(self._parse_position(position, self._all, quiet=True)) - set(out))
            if moved:
                raise self._moved_error(moved)
        return out

    def _restored_stops(self, position: dict, parts: list[TopicPart]) -> dict[TopicPart, int]:
        """The end offsets ``position`` recorded for ``parts`` (none in one written before ends were)."""
        stops = {k[len(STOP_PREFIX):]: v for k, v in position.items() if str(k).startswith(STOP_PREFIX)}
        return self._parse_position(stops, parts, quiet=True)

    def _moved_error(self, moved: list[TopicPart]) -> ExecutionError:
        names = ", ".join(f"{t}[{p}]" for t, p in moved[:5])
        task, tasks = self.share
        msg = (f"{self.what}: the checkpoint restored numbered the partitions of all topics in one "
               f"sequence (it was written before each topic's start was recorded), and partitions "
               f"added since move {names} to another of the job's {tasks} tasks (this is task {task}): "
               "restoring would read some rows twice and others never, so the job stops here. Restore "
               "it before adding partitions to a topic other than the last in name order, or start "
               "the job afresh; checkpoints written from now on record each topic's start")
        return ExecutionError(msg)

    def _key(self, tp: TopicPart) -> str:
        return str(tp[1]) if self.single_topic else f"{tp[0]}:{tp[1]}"

    def _parse_position(self, position: dict, parts: list[TopicPart],
                        quiet: bool = False) -> dict[TopicPart, int]:
        """The offsets of ``position`` for ``parts`` (``quiet``: no warning for the others).

        A bare ``"<partition>"`` key (a checkpoint written before positions named their topic) is
        the first topic's.
        """
        known = set(parts)
        out = {}
        for k, off in position.items():
            if str(k).startswith((START_PREFIX, STOP_PREFIX)):
                continue  # a topic's start, a bounded read's end (.assignment)
            t, sep, p = str(k).rpartition(":")
            tp = (t, int(p)) if sep else (self.topics[0], int(p))
            if tp in known:
                out[tp] = int(off)
            elif not quiet:
                log.warning("%s: restored position names partition %s, which it does not read (another "
                            "topic?); ignored", self.what, k)
        return out

    def history(self) -> Iterator[Message]:
        """The data messages of every partition from its beginning up to its start offset.

        Read after :meth:`open` with a consumer of its own (upsert-kafka rebuilds its per-key
        values from them); partition by partition in offset order.

        Raises:
            ExecutionError: for Kafka errors, or when it takes over :data:`HISTORY_TIMEOUT_S`.
        """
        todo = {}
        for tp, nxt in self.next.items():
            low, _ = self.offsets.watermarks(tp)
            if nxt > low:
                todo[tp] = (low, nxt)
        if not todo:
            return
        c = new_client(Consumer, self._consumer_config(), self.what)
        try:
            c.assign([TopicPartition(t, p, low) for (t, p), (low, _) in todo.items()])
            left = {tp: end for tp, (_, end) in todo.items()}
            deadline = time.monotonic() + HISTORY_TIMEOUT_S
            while left:
                if time.monotonic() > deadline:
                    msg = f"{self.what}: rebuilding the upsert state timed out"
                    raise ExecutionError(msg)
                for m in c.consume(num_messages=10000, timeout=0.5):
                    tp = (m.topic(), m.partition())
                    if tp not in left:
                        continue
                    err = m.error()
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF and m.offset() >= left[tp]:
                            del left[tp]
                        elif err.code() != KafkaError._PARTITION_EOF:
                            msg = f"{self.what}: {err.str()}"
                            raise ExecutionError(msg)
                        continue
                    if m.offset() >= left[tp]:
                        del left[tp]
                        continue
                    yield m
                    if m.offset() + 1 >= left[tp]:
                        del left[tp]
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        finally:
            c.close()

    # -- reading --------------------------------------------------------------------------------
    def consume(self, max_rows: int, timeout_s: float) -> list[Message]:
        """Up to ``max_rows`` data messages.

        Errors are raised, EOF events and messages past a bounded end dropped; EOF events move
        the positions past skipped control records.

        Raises:
            ExecutionError, ConfigError: for Kafka errors (see :mod:`.errors`).
        """
        c = self.consumer
        if self.finished():
            return []
        self.discover_when_due()
        n = max(1, max_rows)
        try:
            with gc_paused():  # only what is queued already: never a wait with the collector off
                msgs = c.consume(num_messages=n, timeout=0)
            if not msgs and timeout_s > 0:
                msgs = c.consume(num_messages=n, timeout=timeout_s)
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        if msgs:
            self.latch.alive()
        self.latch.check()
        if self.latch.missing is not None:
            self._check_topics_exist()
        if not msgs:
            return msgs
        # C calls, no Python frame per message (KafkaError's == fails against None: no count())
        if any(map(operator.is_not, map(_ERROR, msgs), itertools.repeat(None))):
            msgs = self._handle_events(msgs)
        if not msgs:
            return msgs
        splits, offsets = self._locate(msgs)
        if self.stop:
            keep = offsets < self._stop_arr[splits]
            if not keep.all():
                sel = np.flatnonzero(keep)
                msgs = [msgs[i] for i in sel.tolist()]
                splits, offsets = splits[sel], offsets[sel]
        self._located = (msgs, splits, offsets)
        return msgs

    def discover_when_due(self) -> None:
        """Look for new partitions when the discovery interval has passed (:meth:`_discover`; may wait)."""
        if self.discovery_s and time.monotonic() >= self._discover_at:
            self._discover()

    def _discover(self) -> None:
        """Assign the partitions added since the last look, from their earliest offset (module docstring).

        The metadata request waits at most :data:`PROBE_TIMEOUT_S`; unreachable brokers postpone
        the discovery to the next interval (their outage is the latch's to report).

        Raises:
            ExecutionError: the new partitions would move known ones to another task.
        """
        self._discover_at = time.monotonic() + self.discovery_s
        try:
            every = self._partitions(PROBE_TIMEOUT_S, False)
        except ExecutionError as e:
            log.warning("%s: partition discovery skipped: %s", self.what, e)
            return
        known = set(self._all)
        new = [tp for tp in every if tp not in known]
        if not new:
            return
        self._all += new
        mine = [tp for tp in new if self._mine(tp)]
        if not mine:
            return
        starts = self.offsets.start_offsets(mine, "earliest-offset")
        for tp in mine:
            self._split_of[tp] = len(self.parts)
            self._split_of_partition[tp[1]] = len(self.parts)
            self.parts.append(tp)
            self.next[tp] = starts[tp]
        try:
            self.consumer.incremental_assign([TopicPartition(t, p, starts[(t, p)]) for t, p in mine])
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        log.info("%s: discovered partitions %s; reading them from the earliest offset", self.what,
                 ", ".join(f"{t}[{p}]" for t, p in mine))

    def _check_topics_exist(self) -> None:
        """After an "unknown topic or partition" event: fail if a partition read is gone.

        librdkafka reports a topic deleted while the job reads it as such events, every second,
        and waits for it to come back; the job would run on forever reading nothing. The
        cluster's metadata decides: the event is also seen briefly for a topic just created.

        Raises:
            ExecutionError: ``topic 'x' is gone`` when the cluster no longer has a partition.
        """
        self.latch.missing = None
        try:
            md = self.consumer.list_topics(timeout=PROBE_TIMEOUT_S)
        except KafkaException:
            return  # brokers unreachable: the latch's "brokers down" timeout covers that
        for t, p in self.parts:
            tm = md.topics.get(t)
            unknown = tm is not None and tm.error is not None and (
                tm.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART)
            if tm is None or unknown or p not in tm.partitions:
                msg = (f"{self.what}: topic '{t}' partition {p} is gone from {self.bootstrap} "
                       "(deleted while the job read it?)")
                raise ExecutionError(msg)

    def _locate(self, msgs: list[Message]) -> tuple[np.ndarray, np.ndarray]:
        """The split (int32) and offset (int64) of every message, one pass over the batch."""
        n = len(msgs)
        offsets = np.fromiter(map(_OFFSET, msgs), np.int64, n)
        if len(self.parts) <= 1:
            return np.zeros(n, np.int32), offsets
        if self.single_topic:
            of_part = self._split_of_partition
            if self._lut_parts != len(of_part):  # built at the first batch, again after a discovery
                self._split_lut = np.full(max(of_part, default=-1) + 1, -1, np.int32)
                for p, i in of_part.items():
                    self._split_lut[p] = i
                self._lut_parts = len(of_part)
            partitions = np.fromiter(map(_PARTITION, msgs), np.int64, n)
            lut = self._split_lut
            if int(partitions.max()) < len(lut):
                splits = lut[partitions]
                if (splits >= 0).all():
                    return splits, offsets
            splits = np.fromiter((of_part[p] for p in partitions.tolist()), np.int32, n)  # KeyError
        else:
            split_of = self._split_of
            splits = np.fromiter((split_of[(m.topic(), m.partition())] for m in msgs), np.int32, n)
        return splits, offsets

    def _located_for(self, msgs: list[Message]) -> tuple[np.ndarray, np.ndarray]:
        loc = self._located
        if loc is not None and loc[0] is msgs:
            return loc[1], loc[2]
        return self._locate(msgs)

    def _handle_events(self, msgs: list[Message]) -> list[Message]:
        out = []
        for m in msgs:
            err = m.error()
            if err is None:
                out.append(m)
                continue
            if err.code() == KafkaError._PARTITION_EOF:
                tp = (m.topic(), m.partition())
                # EOF past skipped control records / aborted transactions: nothing to replay there
                if m.offset() > self.next.get(tp, -1):
                    if out:  # earlier messages of this batch come first
                        self._advance(out)
                    self.next[tp] = min(m.offset(), self.stop[tp]) if self.stop else m.offset()
                    self._check_done(tp)
                continue
            if err.code() in (
                KafkaError.UNKNOWN_TOPIC_OR_PART,
                KafkaError._UNKNOWN_PARTITION,
                KafkaError._UNKNOWN_TOPIC,
            ):
                msg = f"{self.what}: topic {m.topic()}[{m.partition()}] is gone: {err.str()}"
                raise ExecutionError(msg)
            if err.fatal() or not err.retriable():
                msg = f"{self.what}: Kafka error on {m.topic()}[{m.partition()}]: {err.str()}"
                raise ExecutionError(msg)
            log.warning("%s: %s", self.what, err.str())
        return out

    def _advance(self, msgs: list[Message]) -> list[TopicPart]:
        """Move each partition's position past its last message in ``msgs``; the partitions."""
        if not msgs:
            return []
        splits, offsets = self._located_for(msgs)
        nxt = self.next
        parts = self.parts
        if len(parts) <= 1 and parts:
            tp = parts[0]
            nxt[tp] = max(nxt.get(tp, 0), int(offsets.max()) + 1)
            return [tp]
        ends = np.full(len(parts), -1, np.int64)
        np.maximum.at(ends, splits, offsets)  # offsets rise within a partition: max = last
        touched = []
        for s in np.flatnonzero(ends >= 0).tolist():
            tp = parts[s]
            nxt[tp] = max(nxt.get(tp, 0), int(ends[s]) + 1)  # never back before an EOF position
            touched.append(tp)
        return touched

    def advance(self, msgs: list[Message]) -> None:
        """Move the positions past ``msgs`` (the messages just returned)."""
        touched = self._advance(msgs)
        self._located = None
        if self.stop:
            for tp in touched:
                self._check_done(tp)

    def _check_done(self, tp: TopicPart) -> None:
        if self.stop and tp not in self.done and self.next.get(tp, 0) >= self.stop[tp]:
            self.done.add(tp)
            try:
                self.consumer.pause([TopicPartition(*tp)])
            except KafkaException:
                pass

    # -- splits (one per partition, for per-partition watermarks) -------------------------------
    def split_names(self) -> list[str]:
        """One split per assigned partition, named by its position key (``"0"``, ``"t:0"``)."""
        return [self._key(tp) for tp in self.parts]

    def located(self, msgs: list[Message]) -> Located:
        """The split and offset of every message of ``msgs`` (what :meth:`consume` just returned).

        Taken before :meth:`advance`; the decode reads it on another thread, so it holds a copy
        of the partitions, never the reader.
        """
        splits, offsets = self._located_for(msgs)
        return Located(splits, offsets, tuple(self.parts))

    def finished_split_ids(self) -> set[int]:
        """Splits whose bounded read reached its end offset."""
        return {self._split_of[tp] for tp in self.done if tp in self._split_of}

    def finished(self) -> bool:
        """A bounded read reached the end offset of every partition."""
        return (
            bool(self.stop)
            and len(self.done) == len(self.stop)
            or (self.bounded_mode != "unbounded" and not self.stop and self.consumer is not None)
        )

    def lag(self) -> int | None:
        """Records between the position and the partitions' end offsets (None: unknown)."""
        consumer, positions = self.consumer, dict(self.next)
        if consumer is None:
            return None
        if self._ends is None:
            self._ends = EndOffsets(self._consumer_config(), self.what)
        return partition_lag(consumer, positions, self._ends)

    def position(self) -> dict[str, int]:
        """``{"<topic>:<partition>": next_offset}``, and a parallel task's ``{"@<topic>": start}``.

        The topic is named even for one topic (as a Flink Kafka split names its topic): a restore
        into a table that reads another topic then finds no position for its partitions and reads
        them as new ones, from the earliest offset (a warning names the positions left unused),
        instead of seeking them to the other topic's offsets. A task of a parallel job also records
        the start of every topic of the source (:mod:`.assignment`), so that its restore owns the
        partitions it checkpointed.
        """
        out = {f"{t}:{p}": off for (t, p), off in sorted(self.next.items())}
        out.update({f"{STOP_PREFIX}{t}:{p}": off for (t, p), off in sorted(self.stop.items())})
        if self.share[1] > 1:
            out.update({f"{START_PREFIX}{t}": s for t, s in sorted(self.starts.items())})
        return out

    def commit_offsets(self, position: dict) -> None:
        """Commit ``position`` (a checkpoint's) to the consumer group, as Flink does on checkpoints.

        Only with ``'properties.group.id'`` set (Flink: no group, no commit): the committed
        offsets are for lag monitoring and for ``'scan.startup.mode' = 'group-offsets'`` after a
        restart without a checkpoint; recovery itself uses the checkpoint, which also keeps where a
        bounded read ends (so a read ending at this group's offsets is not moved by these commits).
        Asynchronous and best effort: a failed commit is logged once, never fails the job (as Flink).
        """
        o = self.table.options
        if self.consumer is None or not o.get("properties.group.id"):
            return
        if o.get("properties.commit.offsets.on.checkpoint", "true").strip().lower() == "false":
            return  # Flink's KafkaSource key: the user turned the commits off
        parsed = self._parse_position(position, self.parts)
        offsets = [TopicPartition(t, p, off) for (t, p), off in parsed.items()]
        if not offsets:
            return
        try:
            self.consumer.commit(offsets=offsets, asynchronous=True)
        except KafkaException as e:
            log.warning("%s: committing offsets to group '%s' failed: %s", self.what, self.group_id,
                        e.args[0].str() if e.args and isinstance(e.args[0], KafkaError) else e)

    def close(self) -> None:
        """Close the consumer (offsets are committed only by :meth:`commit_offsets`)."""
        if self._ends is not None:
            self._ends.close()
            self._ends = None
        if self.consumer is not None:
            try:
                self.consumer.close()
            except (KafkaException, RuntimeError):
                pass
            self.consumer = None


class EndOffsets:
    """End offsets of partitions for :func:`partition_lag`, asked on a consumer of their own.

    Asked on the reading consumer, each query waited behind that connection's fetch request,
    which the broker holds until data arrives (``fetch.wait.max.ms``, 500 ms): ~0.5 s per
    partition, so ``JobHandle.tasks`` took seconds. This consumer is made at the first ask and
    reused until :meth:`close`; it is never assigned, so it neither fetches nor joins a group.
    Same settings as the reader's (``isolation.level`` included: the end is the last stable
    offset for read_committed), without the reader's error callback: a failed query is a lag
    of None, never the job's error.

    Args:
        config: the reading consumer's settings.
        what: names the client in errors.
    """

    def __init__(self, config: dict[str, Any], what: str):
        self._config = {k: v for k, v in config.items() if k != "error_cb"}
        self._what = what
        self._client: Consumer | None = None

    def high(self, tp: TopicPartition) -> int:
        """The end offset of ``tp`` (1 s at most).

        Raises:
            KafkaException: the query failed.
        """
        if self._client is None:
            self._client = new_client(Consumer, self._config, self._what)
        return self._client.get_watermark_offsets(tp, timeout=1, cached=False)[1]

    def close(self) -> None:
        """Close the consumer, if made."""
        client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except (KafkaException, RuntimeError):
                pass


def partition_lag(consumer: Consumer, positions: dict[TopicPart, int],
                  ends: EndOffsets | None = None) -> int | None:
    """The sum over ``positions`` ((topic, partition) -> next offset) of end offset - next offset.

    The consumer's own position counts where it is further on: it steps over the markers of
    transactions, which are offsets but not records. A metadata request per partition (1 s
    each at most), on ``ends`` when given (see :class:`EndOffsets`), else on ``consumer``; None
    when one fails.
    """
    total = 0
    try:
        fetched = consumer.position([TopicPartition(t, p) for t, p in positions])
        ahead = {(tp.topic, tp.partition): tp.offset for tp in fetched}
        for (topic, partition), offset in positions.items():
            tp = TopicPartition(topic, partition)
            if ends is not None:
                high = ends.high(tp)
            else:
                _, high = consumer.get_watermark_offsets(tp, timeout=1, cached=False)
            total += max(0, high - max(offset, ahead.get((topic, partition), -1)))
    except (KafkaException, RuntimeError):  # RuntimeError: the task closed its consumer meanwhile
        return None
    return total
