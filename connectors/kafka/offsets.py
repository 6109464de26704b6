"""Where a Kafka read starts and ends: startup and bounded modes resolved to concrete offsets.

Startup (``'scan.startup.mode'``): ``group-offsets`` (then ``'properties.auto.offset.reset'``:
``earliest`` | ``latest`` | ``none``, the default when the mode is set explicitly, as Flink: a
partition without a committed offset fails the job; with the mode left unset StreamSQL falls back
to earliest) | ``earliest-offset`` | ``latest-offset`` | ``timestamp`` |
``specific-offsets`` (unlisted partitions: group offsets, then the reset policy). Bounded end
(``'scan.bounded.mode'``): ``latest-offset`` (the last stable offset at open) | ``timestamp`` |
``specific-offsets`` (unlisted partitions: group offsets, then the earliest offset: nothing is
read there, as Flink's ``OffsetsInitializer.offsets``) | ``group-offsets`` (a partition without a
committed offset fails, as Flink's split reader). Offsets are resolved once, at open.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from streamsql.connectors.kafka.errors import execution_error
from streamsql.connectors.kafka.options import (
    int_option,
    librdkafka_props,
    metadata_timeout_s,
    parse_specific_offsets,
    table_prefix,
    topics_of,
)

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError, ExecutionError

TopicPart = tuple[str, int]


def check_offset_options(table: TableDef, startup: str, bounded: str) -> None:
    """Check the options the startup and bounded modes need (Flink's ``validateScan*Mode``).

    As ``KafkaConnectorOptionsUtil.validateScanStartupMode`` and ``validateScanBoundedMode``: a
    ``timestamp`` mode needs its ``*-timestamp-millis`` (an integer), a ``specific-offsets``
    mode its ``*-specific-offsets`` (well formed) and a single topic in ``'topic'`` (Flink: "Currently
    Kafka source only supports specific offset for single topic."; ``'topic-pattern'`` counts as
    several topics).

    A ``group-offsets`` mode set explicitly needs ``'properties.group.id'``, as Flink's
    ``KafkaSourceBuilder`` checks it ("Property group.id is required when using committed offset
    for offsets initializer"). Left unset, the startup mode reads the committed offsets of a
    group of StreamSQL's, else from the earliest offset (Flink refuses that source too).

    Raises:
        ConfigError: naming the table and the option, with Flink's wording.
    """
    group = table.options.get("properties.group.id")
    for scan in ("startup", "bounded"):
        key = f"scan.{scan}.mode"
        if table.options.get(key, "").lower() == "group-offsets" and not group:
            msg = (f"{table_prefix(table)}Property group.id is required when using committed offset for "
                   f"offsets initializer ('{key}' = 'group-offsets' reads the committed offsets of "
                   "'properties.group.id', which is not set)")
            raise ConfigError(msg, table=table.name, option=key)
    for scan, mode in (("startup", startup), ("bounded", bounded)):
        if mode not in ("timestamp", "specific-offsets"):
            continue
        option = f"scan.{scan}.{'timestamp-millis' if mode == 'timestamp' else 'specific-offsets'}"
        if option not in table.options:
            msg = f"{table_prefix(table)}'{option}' is required in '{mode}' {scan} mode but missing."
            raise ConfigError(msg, table=table.name, option=f"scan.{scan}.mode")
        if mode == "timestamp":
            int_option(table, option, required=True)
            continue
        if len(topics_of(table)) != 1 or table.options.get("topic-pattern"):
            msg = (f"{table_prefix(table)}'scan.{scan}.mode' = 'specific-offsets' needs a single topic in "
                   "'topic' (Flink: Currently Kafka source only supports specific offset for single topic.)")
            raise ConfigError(msg, table=table.name, option=f"scan.{scan}.mode")
        parse_specific_offsets(table, option)


_T = TypeVar("_T")
_RETRY_BACKOFF_S = 0.1  # between asks of a retriable error (librdkafka's retry.backoff.ms)
#: Errors of a partition whose leader is being elected or moved (retriable in the Java client):
#: a topic created just before the job starts answers them for a moment.
_LEADER_CHANGING = frozenset({KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError.LEADER_NOT_AVAILABLE})


class OffsetResolver:
    """Asks the brokers, through ``consumer``, for the offsets a read starts and ends at.

    Args:
        consumer: a consumer of the table's brokers (with the table's group id).
        table: the table (its offset options).
        what: who reads, for error messages.
        bootstrap: the bootstrap servers, for error messages.
        group_id: the consumer group whose committed offsets ``group-offsets`` reads.
    """

    def __init__(self, consumer: Consumer, table: TableDef, what: str, bootstrap: str, group_id: str):
        self.consumer = consumer
        self.table = table
        self.what = what
        self.bootstrap = bootstrap
        self.group_id = group_id
        #: 'properties.default.api.timeout.ms' (s): how long the brokers' answers are waited for
        self.timeout_s = metadata_timeout_s(table, "consumer")

    def _ask(self, call: Callable[[], _T]) -> _T:
        """``call()``, asked again every 0.1 s while a partition's leader is changing.

        A new topic's partitions answer NOT_LEADER_OR_FOLLOWER until their leader is elected (the
        Java client retries it); asked until ``timeout_s`` has passed.

        Raises:
            ExecutionError: another error, or a leader still changing past the timeout.
        """
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                return call()
            except KafkaException as e:
                err = e.args[0] if e.args else None
                code = err.code() if isinstance(err, KafkaError) else None
                if code not in _LEADER_CHANGING or time.monotonic() >= deadline:
                    raise execution_error(self.what, e, self.bootstrap) from None
            time.sleep(_RETRY_BACKOFF_S)

    def watermarks(self, tp: TopicPart) -> tuple[int, int]:
        """``(low, high)`` offsets of ``tp`` (high: the last stable offset under read_committed).

        Raises:
            ExecutionError: when the brokers cannot be asked.
        """
        return self._ask(lambda: self.consumer.get_watermark_offsets(
            TopicPartition(*tp), timeout=self.timeout_s, cached=False
        ))

    def _for_times(self, tps: list[TopicPart], ts: int) -> dict[TopicPart, int]:
        if not tps:
            return {}
        res = self._ask(lambda: self.consumer.offsets_for_times(
            [TopicPartition(t, p, ts) for t, p in tps], timeout=self.timeout_s
        ))
        out = {}
        for r in res:
            tp = (r.topic, r.partition)
            out[tp] = r.offset if r.offset >= 0 else self.watermarks(tp)[1]
        return out

    def _committed(self, tps: list[TopicPart]) -> dict[TopicPart, int]:
        if not tps:
            return {}
        res = self._ask(lambda: self.consumer.committed([TopicPartition(t, p) for t, p in tps],
                                                        timeout=self.timeout_s))
        return {(r.topic, r.partition): r.offset for r in res if r.offset >= 0}

    def _specific(self, tps: list[TopicPart], option: str, out: dict[TopicPart, int]) -> list[TopicPart]:
        """Put the offsets listed in ``option`` into ``out``; the partitions it does not list."""
        spec = parse_specific_offsets(self.table, option)
        out.update({tp: spec[tp[1]] for tp in tps if tp[1] in spec})
        return [tp for tp in tps if tp[1] not in spec]

    def _group(self, tps: list[TopicPart], out: dict[TopicPart, int]) -> list[TopicPart]:
        """Put the group's committed offsets into ``out``; the partitions without one."""
        got = self._committed(tps)
        out.update(got)
        return [tp for tp in tps if tp not in got]

    def start_offsets(self, tps: list[TopicPart], mode: str) -> dict[TopicPart, int]:
        """The first offset to read of each of ``tps`` under startup mode ``mode``.

        Raises:
            ExecutionError: when the brokers cannot be asked.
        """
        o = self.table.options
        out: dict[TopicPart, int] = {}
        rest = list(tps)
        if mode == "timestamp":
            return self._for_times(rest, int(o["scan.startup.timestamp-millis"]))
        if mode == "specific-offsets":
            rest = self._specific(rest, "scan.startup.specific-offsets", out)
            if rest and not o.get("properties.group.id"):
                raise self._unlisted_without_group(rest, "scan.startup.specific-offsets")
            mode = "group-offsets"  # Flink: partitions not listed fall back to the committed offsets
        if mode == "group-offsets":
            explicit = o.get("scan.startup.mode") == "group-offsets"
            rest = self._group(rest, out)
            default = "none" if explicit else "earliest"
            reset = str(librdkafka_props(o).get("auto.offset.reset", default)).lower()
            if rest and reset in ("none", "error"):
                raise self._no_committed_offset(rest)
            mode = "latest-offset" if reset in ("latest", "largest", "end") else "earliest-offset"
        for tp in rest:
            low, high = self.watermarks(tp)
            out[tp] = high if mode == "latest-offset" else low
        return out

    def _no_committed_offset(self, tps: list[TopicPart]) -> ExecutionError:
        """Flink's NoOffsetForPartitionException ("Undefined offset with no reset policy"), in words."""
        parts = ", ".join(f"{t}-{p}" for t, p in sorted(tps))
        return ExecutionError(
            f"{self.what}: 'scan.startup.mode' = 'group-offsets' but consumer group '{self.group_id}' has "
            f"no committed offset for partition(s) [{parts}] and no reset policy (Flink fails the job "
            "too: 'Undefined offset with no reset policy'); set 'properties.auto.offset.reset' = "
            "'earliest' or 'latest' to start there, or choose 'scan.startup.mode' = 'earliest-offset'")

    def _unlisted_without_group(self, tps: list[TopicPart], option: str) -> ExecutionError:
        """Partitions ``option`` (a ``*-specific-offsets``) does not name, and no group to ask."""
        parts = ", ".join(f"{t}-{p}" for t, p in sorted(tps))
        where = "start" if option.startswith("scan.startup.") else "end"
        return ExecutionError(
            f"{self.what}: '{option}' names no offset for partition(s) [{parts}], "
            f"which then {where} at the committed offsets of 'properties.group.id', and it is not set. "
            "Flink fails the job too (Failed to initialize partition splits due to ... Unexpected size "
            "of key set: expected >= 1, but got 0). Name every partition, or set 'properties.group.id'")

    def stop_offsets(self, parts: list[TopicPart], mode: str) -> dict[TopicPart, int]:
        """The end offset (exclusive) of each of ``parts`` under bounded mode ``mode``.

        Raises:
            ExecutionError: when the brokers cannot be asked.
        """
        o = self.table.options
        if mode == "timestamp":
            return self._for_times(parts, int(o["scan.bounded.timestamp-millis"]))
        out: dict[TopicPart, int] = {}
        rest = list(parts)
        if mode == "specific-offsets":
            # Flink's OffsetsInitializer.offsets(map): a partition the map lacks ends at the
            # group's committed offset, else at the earliest (EARLIEST reset): none of it is read
            rest = self._specific(rest, "scan.bounded.specific-offsets", out)
            if rest and not o.get("properties.group.id"):
                raise self._unlisted_without_group(rest, "scan.bounded.specific-offsets")
            rest = self._group(rest, out)
            out.update({tp: self.watermarks(tp)[0] for tp in rest})
            return out
        if mode == "group-offsets":
            rest = self._group(rest, out)
            if rest:
                raise self._no_committed_stop(rest)
            return out
        for tp in rest:  # latest-offset (read_committed: the last stable offset)
            out[tp] = self.watermarks(tp)[1]
        return out

    def _no_committed_stop(self, tps: list[TopicPart]) -> ExecutionError:
        """Flink's split reader's failure for partitions that should stop at a committed offset they lack.

        Flink names the first partition it meets; this names each.
        """
        sentences = " ".join(
            f"Partition {t}-{p} should stop at committed offset. But there is no committed offset of "
            f"this partition for group {self.group_id}." for t, p in sorted(tps))
        return ExecutionError(
            f"{self.what}: {sentences} ('scan.bounded.mode' = 'group-offsets' ends each partition at "
            "the committed offset of 'properties.group.id', as Flink, which fails the job too.) Commit "
            "offsets for the group first, or choose another 'scan.bounded.mode' such as 'latest-offset'")
