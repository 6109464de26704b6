"""Shared machinery of the Kafka connectors and of the transactional producer.

Used by ``kafka``, ``upsert-kafka`` and :mod:`.kafka_transactions`: option specs, librdkafka
properties, key/value format set-up, error translation, the consumer-side reader (assignment,
startup and bounded offsets, positions, metadata columns) and a batched producer.

librdkafka reports trouble in three ways, all turned into StreamSQL errors here:

- *error events* (``error_cb``): fatal errors and authentication failures raise at once; "all
  brokers down" raises :class:`ExecutionError` once it has lasted :data:`BROKER_DOWN_TIMEOUT_S`
  without a message getting through (a broker restart within that time is survived);
- *message errors* in ``consume()`` (unknown topic/partition, ...) raise at once;
- *delivery reports* of failed messages raise at the sink's next ``write``/``pre_commit``.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

from streamsql.core.catalog import TableDef
from streamsql.core.connector import OptionSpec
from streamsql.core.errors import ConfigError, ExecutionError, StreamSQLError
from streamsql.core.types import Field, Schema, SqlType

log = logging.getLogger(__name__)
#: librdkafka's own log lines (retries, fencing, ...) go here instead of stderr.
RDKAFKA_LOG = logging.getLogger("streamsql.kafka.librdkafka")

#: How long "all brokers down" may last before a source or sink fails with ExecutionError.
BROKER_DOWN_TIMEOUT_S = 30.0
#: Timeout of metadata requests at open (topic lookup, watermarks, offsets for times).
METADATA_TIMEOUT_S = 10.0

# --------------------------------------------------------------------------------------------
# options

FORMATS = ("json", "csv", "raw", "debezium-json")

OPT_TOPIC = OptionSpec("topic", description="topic name, or several separated by ';'")
OPT_BOOTSTRAP = OptionSpec(
    "properties.bootstrap.servers",
    required=True,
    description="Kafka bootstrap servers, host:port[,host:port...]",
)
OPT_GROUP = OptionSpec(
    "properties.group.id", description="consumer group (for 'group-offsets'; default streamsql-<job>-<table>)"
)
OPT_KEY_FORMAT = OptionSpec("key.format", choices=FORMATS, description="format of the message key")
OPT_VALUE_FORMAT = OptionSpec("value.format", choices=FORMATS, description="format of the message value")
OPT_FIELDS_INCLUDE = OptionSpec(
    "value.fields-include",
    default="ALL",
    choices=("ALL", "EXCEPT_KEY"),
    description="whether the value also carries the key fields",
)
OPT_GUARANTEE = OptionSpec(
    "sink.delivery-guarantee",
    choices=("none", "at-least-once", "exactly-once"),
    description="none | at-least-once | exactly-once (Kafka transactions)",
)
OPT_TXN_PREFIX = OptionSpec(
    "sink.transactional-id-prefix",
    default="streamsql",
    description="prefix of the transactional id (exactly-once)",
)
OPT_PROGRESS = OptionSpec(
    "sink.progress-topic",
    default="_streamsql_progress",
    description="compacted topic holding the committed-checkpoint markers (exactly-once)",
)
OPT_BOUNDED = OptionSpec(
    "scan.bounded.mode",
    default="unbounded",
    choices=("unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"),
    description="when a bounded read ends: unbounded | latest-offset | ...",
)
OPT_BOUNDED_TS = OptionSpec(
    "scan.bounded.timestamp-millis", description="end timestamp (ms) for 'scan.bounded.mode' = 'timestamp'"
)
OPT_BOUNDED_SPECIFIC = OptionSpec(
    "scan.bounded.specific-offsets",
    description="end offsets 'partition:0,offset:42;...' for 'specific-offsets'",
)


def librdkafka_props(options: dict[str, str]) -> dict[str, Any]:
    """The ``'properties.*'`` options with the prefix stripped (passed to librdkafka as is)."""
    return {k[len("properties.") :]: v for k, v in options.items() if k.startswith("properties.")}


def table_prefix(table: TableDef) -> str:
    """``Table 'name': `` for error messages."""
    return f"Table '{table.name}': "


def topics_of(table: TableDef) -> list[str]:
    """The ``'topic'`` option split on ';' (empty list when unset)."""
    return [t.strip() for t in table.options.get("topic", "").split(";") if t.strip()]


def resolve_guarantee(table: TableDef, config: dict[str, str], default: str) -> str:
    """The sink's delivery guarantee: ``'sink.delivery-guarantee'``, else ``default``.

    ``default`` may be ``'auto'``: exactly-once when the job checkpoints in EXACTLY_ONCE mode,
    else at-least-once.
    """
    g = table.options.get("sink.delivery-guarantee")
    if g:
        return g
    if default != "auto":
        return default
    mode = (config.get("execution.checkpointing.mode") or "EXACTLY_ONCE").upper()
    return "exactly-once" if mode == "EXACTLY_ONCE" else "at-least-once"


# --------------------------------------------------------------------------------------------
# formats


@dataclass
class FormatSetup:
    """Key and value formats of a Kafka table (Flink's key/value format options).

    Attributes:
        value_format: the value format name.
        value_schema: columns the value carries (all physical columns, or those not in the key
            with ``'value.fields-include' = 'EXCEPT_KEY'``).
        value_options: the value format's options with the ``'value.'`` prefix stripped.
        key_format: the key format name, or None when messages have no decoded key.
        key_schema: the key columns (``'key.fields'``, or the PRIMARY KEY for upsert-kafka).
        key_options: the key format's options with the ``'key.'`` prefix stripped.
    """

    value_format: str
    value_schema: Schema
    value_options: dict[str, str]
    key_format: str | None
    key_schema: Schema | None
    key_options: dict[str, str]

    @property
    def key_names(self) -> list[str]:
        """Key column names (empty without a key format)."""
        return self.key_schema.names if self.key_schema is not None else []

    def extra_prefixes(self) -> tuple[str, ...]:
        """Option prefixes of the formats in use (for :func:`validate_options`'s allowed_extra)."""
        out = [f"{self.value_format}.", f"value.{self.value_format}."]
        if self.key_format:
            out.append(f"key.{self.key_format}.")
        return tuple(out)

    def make_decoders(self, table: TableDef):
        """``(value_decoder, key_decoder or None)``."""
        from streamsql.connectors.formats import make_decoder

        v = make_decoder(self.value_format, self.value_schema, self.value_options, table.name)
        k = None
        if self.key_format:
            k = make_decoder(self.key_format, self.key_schema, self.key_options, table.name)
        return v, k

    def make_encoders(self, table: TableDef):
        """``(value_encoder, key_encoder or None)``."""
        from streamsql.connectors.formats import make_encoder

        v = make_encoder(self.value_format, self.value_schema, self.value_options, table.name)
        k = None
        if self.key_format:
            k = make_encoder(self.key_format, self.key_schema, self.key_options, table.name)
        return v, k


def _strip(options: dict[str, str], fmt: str, prefix: str) -> dict[str, str]:
    """Format options for ``fmt``: ``'<prefix><fmt>.x'`` keys become ``'<fmt>.x'``."""
    out = {}
    for k, v in options.items():
        if k.startswith(prefix + fmt + "."):
            out[k[len(prefix) :]] = v
    return out


def format_setup(
    table: TableDef, key_fields: list[str] | None = None, default_key_format: str | None = None
) -> FormatSetup:
    """Resolve the key/value formats of ``table``.

    Args:
        table: the table.
        key_fields: key columns imposed by the connector (upsert-kafka: the PRIMARY KEY); None
            to use ``'key.fields'``.
        default_key_format: key format when ``'key.format'`` is unset but a key is needed.

    Raises:
        ConfigError: for a missing or conflicting format option or an unknown key field.
    """
    o = table.options
    pre = table_prefix(table)
    if "format" in o and "value.format" in o:
        msg = f"{pre}set either 'format' or 'value.format', not both"
        raise ConfigError(msg)
    vfmt = (o.get("value.format") or o.get("format") or "").strip().lower()
    if not vfmt:
        msg = f"{pre}option 'format' (or 'value.format') is required: one of {', '.join(FORMATS)}"
        raise ConfigError(msg)
    vopts = _strip(o, vfmt, "value.") if "value.format" in o else _strip(o, vfmt, "")
    if "value.format" in o:  # be lenient: unprefixed format options apply to the value too
        vopts = {**_strip(o, vfmt, ""), **vopts}
    physical = table.physical_schema
    if key_fields is None:
        key_fields = [k.strip() for k in o.get("key.fields", "").split(";") if k.strip()]
        if key_fields and "key.format" not in o:
            msg = f"{pre}'key.fields' needs 'key.format'"
            raise ConfigError(msg)
        if "key.format" in o and not key_fields:
            msg = f"{pre}'key.format' needs 'key.fields' (columns separated by ';')"
            raise ConfigError(msg)
    kfmt = (o.get("key.format") or (default_key_format if key_fields else "") or "").strip().lower() or None
    key_schema = None
    if kfmt:
        fields = []
        for name in key_fields:
            f = physical.find(name)
            if f is None:
                msg = (
                    f"{pre}key field '{name}' is not a physical column; columns: {', '.join(physical.names)}"
                )
                raise ConfigError(msg)
            fields.append(f)
        key_schema = Schema(fields)
    include = o.get("value.fields-include", "ALL").upper()
    if include == "EXCEPT_KEY" and key_schema is not None:
        knames = {n.lower() for n in key_schema.names}
        value_schema = Schema([f for f in physical if f.name.lower() not in knames])
    else:
        value_schema = physical
    kopts = _strip(o, kfmt, "key.") if kfmt else {}
    return FormatSetup(vfmt, value_schema, vopts, kfmt, key_schema, kopts)


def validate_table(spec, table: TableDef, fs: FormatSetup) -> None:
    """Check the table's options against ``spec`` and its formats' options.

    Raises:
        ConfigError: naming the table and the bad option.
    """
    from streamsql.connectors.formats import validate_format_options
    from streamsql.connectors.registry import validate_options

    opts = {k: v for k, v in table.options.items() if k != "connector"}
    validate_options(spec, opts, table.name, allowed_extra=fs.extra_prefixes())
    validate_format_options(fs.value_format, fs.value_options, table.name)
    if fs.key_format:
        validate_format_options(fs.key_format, fs.key_options, table.name)


# --------------------------------------------------------------------------------------------
# errors


class ErrorLatch:
    """Collects librdkafka error events (``error_cb``) and raises them as StreamSQL errors.

    Args:
        what: who is talking to Kafka, for messages (``"Table 'orders' (kafka source)"``).
        bootstrap: the bootstrap servers, for messages.
    """

    def __init__(self, what: str, bootstrap: str):
        self.what = what
        self.bootstrap = bootstrap
        self.pending: StreamSQLError | None = None
        self.down_since: float | None = None
        self.down_reason = ""

    def __call__(self, err: KafkaError) -> None:
        """The ``error_cb``: record ``err``."""
        code = err.code()
        if err.fatal():
            self.pending = ExecutionError(f"{self.what}: fatal Kafka error: {err.str()}")
        elif code in (KafkaError._ALL_BROKERS_DOWN, KafkaError._RESOLVE, KafkaError._TRANSPORT):
            if code == KafkaError._ALL_BROKERS_DOWN or self.down_since is None:
                self.down_reason = err.str()
            if code == KafkaError._ALL_BROKERS_DOWN and self.down_since is None:
                self.down_since = time.monotonic()
        elif code in (
            KafkaError._AUTHENTICATION,
            KafkaError.SASL_AUTHENTICATION_FAILED,
            KafkaError._SSL,
            KafkaError.TOPIC_AUTHORIZATION_FAILED,
            KafkaError.GROUP_AUTHORIZATION_FAILED,
            KafkaError.CLUSTER_AUTHORIZATION_FAILED,
            KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
        ):
            self.pending = ExecutionError(
                f"{self.what}: Kafka at {self.bootstrap} refused access: {err.str()}"
            )
        else:
            log.warning("%s: Kafka error event: %s", self.what, err.str())

    def alive(self) -> None:
        """Something got through: the brokers are reachable."""
        self.down_since = None

    def check(self) -> None:
        """Raise a pending error, or "brokers down" once it lasted :data:`BROKER_DOWN_TIMEOUT_S`.

        Raises:
            ExecutionError: see above.
        """
        if self.pending is not None:
            e, self.pending = self.pending, None
            raise e
        if self.down_since is not None and time.monotonic() - self.down_since > BROKER_DOWN_TIMEOUT_S:
            msg = (
                f"{self.what}: Kafka brokers at {self.bootstrap} unreachable for more than "
                f"{BROKER_DOWN_TIMEOUT_S:.0f} s ({self.down_reason})"
            )
            raise ExecutionError(msg)


_FENCED_CODES = (KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH)


def unwrap(e: BaseException) -> BaseException:
    """The KafkaException behind ``e``.

    confluent-kafka surfaces a fatal error raised while serving callbacks as a SystemError whose
    cause is the KafkaException.
    """
    if isinstance(e, SystemError) and isinstance(e.__cause__ or e.__context__, KafkaException):
        return e.__cause__ or e.__context__
    return e


def execution_error(what: str, e: BaseException, bootstrap: str) -> ExecutionError:
    """An ExecutionError for a KafkaException raised by a client call."""
    e = unwrap(e)
    err = e.args[0] if isinstance(e, KafkaException) and e.args else e
    text = err.str() if isinstance(err, KafkaError) else str(err)
    if isinstance(err, KafkaError) and err.code() in _FENCED_CODES:
        return ExecutionError(
            f"{what}: producer fenced: another instance with the same transactional.id started ({text})"
        )
    if isinstance(err, KafkaError) and err.code() in (
        KafkaError._TRANSPORT,
        KafkaError._TIMED_OUT,
        KafkaError._ALL_BROKERS_DOWN,
        KafkaError._RESOLVE,
    ):
        return ExecutionError(f"{what}: cannot reach Kafka at {bootstrap}: {text}")
    return ExecutionError(f"{what}: Kafka error: {text}")


# --------------------------------------------------------------------------------------------
# offsets


def parse_specific_offsets(text: str, option: str, table: TableDef) -> dict[int, int]:
    """Parse Flink's ``'partition:0,offset:42;partition:1,offset:300'``.

    Raises:
        ConfigError: for malformed text, naming the option.
    """
    out = {}
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"\s*partition\s*:\s*(\d+)\s*,\s*offset\s*:\s*(\d+)\s*", part)
        if not m:
            msg = (
                f"{table_prefix(table)}option '{option}' = '{text}' is malformed; expected "
                "'partition:0,offset:42;partition:1,offset:300'"
            )
            raise ConfigError(msg)
        out[int(m.group(1))] = int(m.group(2))
    return out


def int_option(table: TableDef, key: str, required: bool = False) -> int | None:
    """An integer option.

    Raises:
        ConfigError: when missing (and required) or not an integer.
    """
    v = table.options.get(key)
    if v is None:
        if required:
            msg = f"{table_prefix(table)}option '{key}' is required here"
            raise ConfigError(msg)
        return None
    try:
        return int(v)
    except ValueError:
        msg = f"{table_prefix(table)}option '{key}' = '{v}' is not an integer"
        raise ConfigError(msg) from None


# --------------------------------------------------------------------------------------------
# metadata columns

#: Readable metadata keys: Flink's names and the SQL type they are produced as.
READABLE_METADATA = {
    "topic": SqlType("STRING"),
    "partition": SqlType("INT"),
    "offset": SqlType("BIGINT"),
    "timestamp": SqlType("TIMESTAMP_LTZ", 3),
    "timestamp-type": SqlType("STRING"),
}

_TS_TYPES = np.array(["NoTimestampType", "CreateTime", "LogAppendTime"], dtype=object)


def check_metadata(table: TableDef) -> None:
    """Raise ConfigError for a metadata column the Kafka source cannot produce."""
    for c in table.metadata_columns:
        if c.metadata_key not in READABLE_METADATA:
            msg = (
                f"{table_prefix(table)}metadata column '{c.name}' reads unknown key "
                f"'{c.metadata_key}'; Kafka provides: {', '.join(READABLE_METADATA)}"
            )
            raise ConfigError(msg)


def source_schema(table: TableDef) -> Schema:
    """Physical columns then metadata columns (declaration order), as a source produces them."""
    fields = list(table.physical_schema.fields)
    fields += [Field(c.name, c.type) for c in table.metadata_columns]
    return Schema(fields)


# --------------------------------------------------------------------------------------------
# the consumer side


class KafkaReader:
    """Reads raw messages of a table's topic(s) with manual assignment (no group rebalancing).

    Tracks, per partition, the next offset to read (the position) and, for a bounded read, the
    offset at which it stops. Offsets are resolved to concrete numbers at :meth:`open`, so a
    position is exact even for partitions that returned nothing yet.

    Args:
        table: the table.
        job_name: for the default group id.
        startup_default: startup mode when ``'scan.startup.mode'`` is unset.
        bounded_mode: ``'scan.bounded.mode'``.
    """

    def __init__(
        self,
        table: TableDef,
        job_name: str,
        startup_default: str = "group-offsets",
        bounded_mode: str = "unbounded",
    ):
        self.table = table
        o = table.options
        self.bootstrap = o.get("properties.bootstrap.servers", "")
        self.topics = topics_of(table)
        self.pattern = o.get("topic-pattern")
        pre = table_prefix(table)
        if bool(self.topics) == bool(self.pattern):
            msg = f"{pre}set exactly one of 'topic' and 'topic-pattern'"
            raise ConfigError(msg)
        if self.pattern:
            try:
                self._regex = re.compile(self.pattern)
            except re.error as e:
                msg = f"{pre}option 'topic-pattern' = '{self.pattern}' is not a regex: {e}"
                raise ConfigError(msg) from None
        self.single_topic = len(self.topics) == 1
        self.startup = o.get("scan.startup.mode", startup_default)
        self.bounded_mode = bounded_mode
        if self.startup == "timestamp":
            int_option(table, "scan.startup.timestamp-millis", required=True)
        if self.startup == "specific-offsets":
            parse_specific_offsets(
                o.get("scan.startup.specific-offsets", ""), "scan.startup.specific-offsets", table
            )
        if bounded_mode == "timestamp":
            int_option(table, "scan.bounded.timestamp-millis", required=True)
        self.group_id = o.get("properties.group.id") or f"streamsql-{job_name}-{table.name}"
        self.what = f"Table '{table.name}' (kafka source)"
        self.latch = ErrorLatch(self.what, self.bootstrap)
        self.consumer: Consumer | None = None
        self.next: dict[tuple[str, int], int] = {}
        self.stop: dict[tuple[str, int], int] = {}  # bounded: end offsets (exclusive)
        self.done: set[tuple[str, int]] = set()
        self.parts: list[tuple[str, int]] = []  # the splits, in order (set at open)
        self._split_of: dict[tuple[str, int], int] = {}
        self._split_of_partition: dict[int, int] = {}
        self._stop_arr = np.zeros(0, np.int64)  # bounded: stop offset per split
        # the last batch consume() returned, with the split and offset of each message
        self._located: tuple[list[Message], np.ndarray, np.ndarray] | None = None

    # -- open -----------------------------------------------------------------------------------
    def _consumer_config(self) -> dict[str, Any]:
        cfg = {
            "group.id": self.group_id,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
            # librdkafka prefetches up to 64 MB by default; one job thread consuming ~10k-row
            # batches needs far less, and the memory counts against large-state jobs' RSS.
            "queued.max.messages.kbytes": 16384,
            # ... but fetches of the 1 MB default per partition leave it waiting on the broker
            # (measured: WIN 95k -> 135k ev/s with 4 MB on 4 partitions, same queue bound).
            "max.partition.fetch.bytes": 4194304,
            "error_cb": self.latch,
            "logger": RDKAFKA_LOG,
        }
        cfg.update(librdkafka_props(self.table.options))
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
        try:
            self.consumer = Consumer(self._consumer_config())
        except KafkaException as e:
            msg = f"{self.what}: bad Kafka properties: {e.args[0].str() if e.args else e}"
            raise ConfigError(msg) from None
        c = self.consumer
        parts = self._partitions()
        self.parts = parts
        self._split_of = {tp: i for i, tp in enumerate(parts)}
        self._split_of_partition = {p: i for i, (_, p) in enumerate(parts)}
        restored = self._parse_position(position, parts) if position else {}
        starts = self._startup_offsets([tp for tp in parts if tp not in restored])
        starts.update(restored)
        self.next = dict(starts)
        if self.bounded_mode != "unbounded":
            self.stop = self._stop_offsets(parts)
            self._stop_arr = np.asarray([self.stop[tp] for tp in parts], np.int64)
            for tp in parts:
                if self.next[tp] >= self.stop[tp]:
                    self.done.add(tp)
        live = [TopicPartition(t, p, self.next[(t, p)]) for (t, p) in parts if (t, p) not in self.done]
        c.assign(live)

    def _partitions(self) -> list[tuple[str, int]]:
        c = self.consumer
        try:
            md = c.list_topics(timeout=METADATA_TIMEOUT_S)
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        self.latch.check()
        if self.pattern:
            names = sorted(t for t in md.topics if self._regex.fullmatch(t))
            if not names:
                msg = f"{self.what}: no topic matches 'topic-pattern' = '{self.pattern}' on {self.bootstrap}"
                raise ConfigError(msg)
            self.topics = names
        out = []
        for t in self.topics:
            tm = md.topics.get(t)
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

    def _key(self, tp: tuple[str, int]) -> str:
        return str(tp[1]) if self.single_topic else f"{tp[0]}:{tp[1]}"

    def _parse_position(self, position: dict, parts: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        known = set(parts)
        out = {}
        for k, off in position.items():
            t, sep, p = str(k).rpartition(":")
            tp = (t, int(p)) if sep else (self.topics[0], int(p))
            if tp in known:
                out[tp] = int(off)
            else:
                log.warning("%s: restored position names unknown partition %s; ignored", self.what, k)
        return out

    def _watermarks(self, tp: tuple[str, int]) -> tuple[int, int]:
        try:
            return self.consumer.get_watermark_offsets(
                TopicPartition(*tp), timeout=METADATA_TIMEOUT_S, cached=False
            )
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None

    def _for_times(self, tps: list[tuple[str, int]], ts: int) -> dict[tuple[str, int], int]:
        if not tps:
            return {}
        try:
            res = self.consumer.offsets_for_times(
                [TopicPartition(t, p, ts) for t, p in tps], timeout=METADATA_TIMEOUT_S
            )
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        out = {}
        for r in res:
            tp = (r.topic, r.partition)
            out[tp] = r.offset if r.offset >= 0 else self._watermarks(tp)[1]
        return out

    def _committed(self, tps: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        if not tps:
            return {}
        try:
            res = self.consumer.committed([TopicPartition(t, p) for t, p in tps], timeout=METADATA_TIMEOUT_S)
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        return {(r.topic, r.partition): r.offset for r in res if r.offset >= 0}

    def _startup_offsets(self, tps: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        o = self.table.options
        mode = self.startup
        out: dict[tuple[str, int], int] = {}
        rest = list(tps)
        if mode == "timestamp":
            return self._for_times(rest, int(o["scan.startup.timestamp-millis"]))
        if mode == "specific-offsets":
            spec = parse_specific_offsets(
                o.get("scan.startup.specific-offsets", ""), "scan.startup.specific-offsets", self.table
            )
            for tp in list(rest):
                if tp[1] in spec:
                    out[tp] = spec[tp[1]]
                    rest.remove(tp)
            mode = "group-offsets"  # Flink: partitions not listed fall back to the committed offsets
        if mode == "group-offsets":
            got = self._committed(rest)
            out.update(got)
            rest = [tp for tp in rest if tp not in got]
            reset = str(librdkafka_props(o).get("auto.offset.reset", "earliest")).lower()
            mode = "latest-offset" if reset in ("latest", "largest", "end") else "earliest-offset"
        for tp in rest:
            low, high = self._watermarks(tp)
            out[tp] = high if mode == "latest-offset" else low
        return out

    def _stop_offsets(self, parts: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        o = self.table.options
        m = self.bounded_mode
        if m == "timestamp":
            return self._for_times(parts, int(o["scan.bounded.timestamp-millis"]))
        out: dict[tuple[str, int], int] = {}
        rest = list(parts)
        if m == "specific-offsets":
            spec = parse_specific_offsets(
                o.get("scan.bounded.specific-offsets", ""), "scan.bounded.specific-offsets", self.table
            )
            for tp in list(rest):
                if tp[1] in spec:
                    out[tp] = spec[tp[1]]
                    rest.remove(tp)
        elif m == "group-offsets":
            got = self._committed(rest)
            out.update(got)
            rest = [tp for tp in rest if tp not in got]
        for tp in rest:  # latest-offset (read_committed: the last stable offset)
            out[tp] = self._watermarks(tp)[1]
        return out

    # -- reading --------------------------------------------------------------------------------
    def consume(self, max_rows: int, timeout_s: float) -> list[Message]:
        """Up to ``max_rows`` data messages.

        Errors are raised, EOF events and messages past a bounded end dropped; EOF events move
        the positions past skipped control records.

        Raises:
            ExecutionError, ConfigError: for Kafka errors (see module docstring).
        """
        c = self.consumer
        if self.finished():
            return []
        try:
            msgs = c.consume(num_messages=max(1, max_rows), timeout=timeout_s)
        except KafkaException as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        self.latch.check()
        if not msgs:
            return msgs
        self.latch.alive()
        if any(m.error() is not None for m in msgs):
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

    def _locate(self, msgs: list[Message]) -> tuple[np.ndarray, np.ndarray]:
        """The split (int32) and offset (int64) of every message, one pass over the batch."""
        n = len(msgs)
        offsets = np.fromiter((m.offset() for m in msgs), np.int64, n)
        if len(self.parts) <= 1:
            return np.zeros(n, np.int32), offsets
        if self.single_topic:
            of_part = self._split_of_partition
            splits = np.fromiter((of_part[m.partition()] for m in msgs), np.int32, n)
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

    def _advance(self, msgs: list[Message]) -> list[tuple[str, int]]:
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

    def _check_done(self, tp: tuple[str, int]) -> None:
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

    def split_ids(self, msgs: list[Message], idx: np.ndarray) -> np.ndarray | None:
        """The split (index into :meth:`split_names`) of each message ``msgs[i]`` for ``i`` in
        ``idx``, as int32; None when there is a single partition (every row is split 0)."""
        if len(self.parts) <= 1:
            return None
        per_msg, _ = self._located_for(msgs)
        return per_msg[np.asarray(idx, dtype=np.int64)]

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

    def position(self) -> dict[str, int]:
        """``{"<partition>": next_offset}`` (``"<topic>:<partition>"`` keys for several topics)."""
        return {self._key(tp): off for tp, off in sorted(self.next.items())}

    def close(self) -> None:
        """Close the consumer (no offsets are committed)."""
        if self.consumer is not None:
            try:
                self.consumer.close()
            except (KafkaException, RuntimeError):
                pass
            self.consumer = None


def metadata_arrays(table: TableDef, msgs: list[Message], idx: np.ndarray) -> list[pa.Array]:
    """Metadata column values of the messages selected by ``idx`` (declaration order)."""
    out = []
    cache: dict[str, Any] = {}
    for c in table.metadata_columns:
        key = c.metadata_key
        if key not in cache:
            if key == "topic":
                arr = pa.array([msgs[i].topic() for i in idx], pa.string())
            elif key == "partition":
                arr = pa.array([msgs[i].partition() for i in idx], pa.int32())
            elif key == "offset":
                arr = pa.array([msgs[i].offset() for i in idx], pa.int64())
            elif key == "timestamp":
                ts = [msgs[i].timestamp() for i in idx]
                arr = pa.array([t[1] if t[0] else None for t in ts], pa.int64()).cast(
                    pa.timestamp("ms", tz="UTC")
                )
            else:  # timestamp-type
                arr = pa.array([_TS_TYPES[msgs[i].timestamp()[0]] for i in idx], pa.string())
            cache[key] = arr
        arr = cache[key]
        target = c.type.to_arrow()
        out.append(arr if arr.type == target else arr.cast(target))
    return out


def assemble(
    table: TableDef,
    schema: Schema,
    fs: FormatSetup,
    value_tbl: pa.Table,
    key_tbl: pa.Table | None,
    meta: list[pa.Array],
) -> pa.Table:
    """The output table: physical columns, then metadata columns.

    Key fields come from the key unless the value carries them too.
    """
    cols = []
    vnames = {n.lower(): i for i, n in enumerate(value_tbl.column_names)}
    knames = {n.lower(): i for i, n in enumerate(key_tbl.column_names)} if key_tbl is not None else {}
    for f in table.physical_schema:
        low = f.name.lower()
        if low in vnames:
            cols.append(value_tbl.column(vnames[low]))
        elif low in knames:
            cols.append(key_tbl.column(knames[low]))
        else:  # pragma: no cover  (format_setup puts every column in key or value)
            cols.append(pa.nulls(value_tbl.num_rows, f.type.to_arrow()))
    cols += meta
    return pa.Table.from_arrays(cols, schema=schema.to_arrow())


# --------------------------------------------------------------------------------------------
# the producer side


class ProducerHandle:
    """A librdkafka producer with batched produce, error collection and bounded flushes.

    Delivery reports are requested for failures only (``delivery.report.only.error``), so a
    successful message costs no Python callback.

    Args:
        props: librdkafka properties (``bootstrap.servers`` included).
        what: who writes, for error messages.
    """

    def __init__(self, props: dict[str, Any], what: str):
        self.what = what
        self.bootstrap = str(props.get("bootstrap.servers", ""))
        self.latch = ErrorLatch(what, self.bootstrap)
        self.failed: list[str] = []
        cfg = {
            "partitioner": "murmur2_random",  # Java client's partitioner: same key → same partition
            "linger.ms": 5,
            "delivery.report.only.error": True,
            "logger": RDKAFKA_LOG,
        }
        cfg.update(props)
        cfg["error_cb"] = self.latch
        cfg["on_delivery"] = self._on_delivery
        try:
            self.producer = Producer(cfg)
        except KafkaException as e:
            msg = f"{what}: bad Kafka properties: {e.args[0].str() if e.args else e}"
            raise ConfigError(msg) from None

    def _on_delivery(self, err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            self.failed.append(f"{msg.topic()}[{msg.partition()}]: {err.str()}")
        else:
            self.latch.alive()

    def check(self) -> None:
        """Raise ExecutionError for failed deliveries or a pending error event."""
        if self.failed:
            n, first = len(self.failed), self.failed[0]
            self.failed = []
            msg = f"{self.what}: {n} message(s) could not be delivered to Kafka, first: {first}"
            raise ExecutionError(msg)
        self.latch.check()

    def produce_many(
        self, topic: str, keys: list[bytes | None] | None, values: list[bytes | None], partition: int = -1
    ) -> None:
        """Produce one message per value (with ``keys[i]`` when given); never raises BufferError.

        Raises:
            ExecutionError: for a Kafka error (e.g. message too large, producer fenced).
        """
        p = self.producer
        produce = p.produce
        n = len(values)
        i = 0
        try:
            while i < n:
                try:
                    if keys is None:
                        if partition < 0:
                            for i in range(i, n):  # noqa: B020
                                produce(topic, values[i])
                        else:
                            for i in range(i, n):  # noqa: B020
                                produce(topic, values[i], None, partition)
                    else:
                        for i in range(i, n):  # noqa: B020
                            produce(topic, values[i], keys[i], partition)
                    i = n
                except BufferError:  # queue full: serve delivery reports and retry the same row
                    p.poll(0.05)
                    self.check()
                    continue
                finally:
                    p.poll(0)
        except (KafkaException, SystemError) as e:
            raise execution_error(self.what, e, self.bootstrap) from None
        self.check()

    def flush(self) -> None:
        """Wait until every queued message is acknowledged (or failed).

        Raises:
            ExecutionError: for failed deliveries, or brokers down too long.
        """
        p = self.producer
        while True:
            try:
                left = p.flush(1.0)
            except (KafkaException, SystemError) as e:
                raise execution_error(self.what, e, self.bootstrap) from None
            self.check()
            if left == 0:
                return

    def close(self, flush: bool = True) -> None:
        """Flush (best effort, bounded) and drop the producer."""
        if flush:
            try:
                self.producer.flush(10)
            except (KafkaException, RuntimeError, SystemError):  # a fenced producer fails its callbacks
                pass


class ProducerSinkMixin:
    """Producer lifecycle shared by the kafka and upsert-kafka sinks.

    Expects ``self.table``, ``self.guarantee`` and ``self.transactional`` to be set first.
    """

    def _init_producer(self, ctx) -> None:
        self.txn = None
        if self.transactional:
            from streamsql.connectors.kafka_transactions import KafkaTransactions

            self.txn = KafkaTransactions.for_context(ctx)
        self.handle: ProducerHandle | None = None

    def _acquire_handle(self, props, what: str) -> None:
        """Join the job's transaction, or open a producer from ``props()`` labelled ``what``."""
        if self.txn is not None:
            self.handle = self.txn.acquire()
        else:
            self.handle = ProducerHandle(props(), what)

    def _flush_producer(self) -> None:
        """Poll (guarantee none) or flush the producer; a transactional sink then holds its rows."""
        if self.guarantee == "none":
            self.handle.producer.poll(0)
            self.handle.check()
        else:
            self.handle.flush()
        if self.transactional:
            self._holding = True

    def close(self) -> None:
        """Release the producer (exactly-once: an uncommitted transaction is aborted)."""
        if self._released:
            return
        self._released = True
        if self.txn is not None:
            if self.handle is not None:
                self.txn.release()
        elif self.handle is not None:
            self.handle.close(flush=True)


class ReaderSourceMixin:
    """Position, end and close of a source reading through ``self.reader`` (a :class:`KafkaReader`)."""

    def position(self) -> dict:
        """``{"<partition>": next_offset}``: the offset after the last record returned."""
        return self.reader.position()

    def finished(self) -> bool:
        """True once a bounded read reached every partition's end offset."""
        return self.bounded and self.reader.finished()

    @property
    def split_names(self) -> list[str]:
        """One split per partition (see :meth:`KafkaReader.split_names`); valid after open."""
        return self.reader.split_names()

    def finished_splits(self) -> set[int]:
        """Partitions whose bounded read is complete."""
        return self.reader.finished_split_ids()

    def close(self) -> None:
        """Close the consumer."""
        self.reader.close()
