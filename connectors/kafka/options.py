"""Options of the ``kafka`` and ``upsert-kafka`` connectors (Flink's names) and their parsing.

The option lists are what the connectors' specs declare; the helpers read the options of a
:class:`~streamsql.core.catalog.TableDef` and raise :class:`ConfigError` naming the table.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from streamsql.connectors.kafka.client_keys import WAIT_KEYS, translate, wait_ms
from streamsql.connectors.kafka.errors import METADATA_TIMEOUT_S

from streamsql.core.catalog import TableDef
from streamsql.core.connector import (
    OPT_SCAN_PARALLELISM,
    OPT_SINK_PARALLELISM,
    OPT_WATERMARK_IDLE,
    OptionSpec,
    choice_option,
    flag_option,
)
from streamsql.core.errors import ConfigError

log = logging.getLogger(__name__)

FORMATS = ("json", "csv", "raw", "debezium-json", "canal-json", "maxwell-json", "ogg-json", "avro")

OPT_TOPIC = OptionSpec("topic", description="topic name, or several separated by ';'")
OPT_BOOTSTRAP = OptionSpec(
    "properties.bootstrap.servers",
    required=True,
    description="Kafka bootstrap servers, host:port[,host:port...]",
)
OPT_GROUP = OptionSpec(
    "properties.group.id", description="consumer group (for 'group-offsets'; default streamsql-<job>-<table>)"
)
# Flink enum options (ValueFieldsStrategy, ScanStartupMode, ScanBoundedMode, DeliveryGuarantee): any case.
OPT_FIELDS_INCLUDE = choice_option(
    "value.fields-include", ("ALL", "EXCEPT_KEY"), "whether the value also carries the key fields", "ALL",
    enum=True,
)
OPT_VALUE_FORMAT = choice_option("value.format", FORMATS, "format of the message value")
OPT_KEY_PREFIX = OptionSpec(
    "key.fields-prefix",
    description="prefix of the key columns' names in the table, not in the key format (needs EXCEPT_KEY)",
)
GUARANTEES = ("none", "at-least-once", "exactly-once")
OPT_TXN_PREFIX = OptionSpec(
    "sink.transactional-id-prefix",
    default="streamsql",
    description="prefix of the transactional id (exactly-once)",
)
#: Flink's ``KafkaConnectorOptions.SCAN_TOPIC_PARTITION_DISCOVERY`` (a Duration, default 5 min;
#: '0' disables it; ignored for a bounded read). See :mod:`.reader`.
OPT_DISCOVERY = OptionSpec(
    "scan.topic-partition-discovery.interval",
    default="5 min",
    description="how often new partitions (and topics matching 'topic-pattern') are looked for ('0' = never)",
)
#: Flink's ``KafkaConnectorOptions.TRANSACTION_NAMING_STRATEGY`` (connector 4.x/5.0; enum
#: ``TransactionNamingStrategy``, any case; ``INCREMENTING`` by default). Flink's INCREMENTING names
#: a transaction per checkpoint (``<prefix>-<subtask>-<n>``), POOLING reuses a few names. Here the
#: transactional id is one per job and task, reused by every checkpoint
#: (:mod:`.transactions`), which is what POOLING is for: the option changes neither the rows
#: nor their visibility, so both values are accepted and mean the same.
OPT_TXN_NAMING = choice_option(
    "sink.transaction-naming-strategy",
    ("INCREMENTING", "POOLING"),
    "accepted: the transactional id is one per job and task, reused by every checkpoint (as POOLING)",
    "INCREMENTING",
    enum=True,
)
OPT_PROGRESS = OptionSpec(
    "sink.progress-topic",
    default="_streamsql_progress",
    description="compacted topic holding the committed-checkpoint markers (exactly-once)",
)


#: ``cleanup.policy`` of a sink topic StreamSQL creates, per connector, when
#: ``'sink.topic.auto-create.cleanup-policy'`` is unset: an upsert topic keeps one record per key.
CLEANUP_DEFAULT = {"kafka": "delete", "upsert-kafka": "compact"}


def auto_create_options(connector: str) -> list[OptionSpec]:
    """``'sink.topic.auto-create'`` and how a created topic looks (:mod:`.topics`)."""
    return [
        flag_option("sink.topic.auto-create", "create the sink topic when missing (else the job fails)"),
        OptionSpec(
            "sink.topic.auto-create.partitions",
            description="partitions of a created sink topic (default: the broker's num.partitions)",
        ),
        OptionSpec(
            "sink.topic.auto-create.replication-factor",
            description="replication factor of a created sink topic (default: the broker's)",
        ),
        choice_option(
            "sink.topic.auto-create.cleanup-policy",
            ("delete", "compact"),
            "cleanup.policy of a created sink topic",
            CLEANUP_DEFAULT[connector],
        ),
    ]


#: Where a ``kafka`` read may start (after ``'earliest-offset'``) or end (after ``'unbounded'``).
_OFFSET_MODES = ("latest-offset", "group-offsets", "timestamp", "specific-offsets")

OPT_TOPIC_PATTERN = OptionSpec(
    "topic-pattern", description="regular expression of the topics to read (source only)"
)
#: Flink's ``KafkaConnectorOptions.SCAN_BOUNDED_*``, declared by both ``kafka`` and ``upsert-kafka``
#: (``UpsertKafkaDynamicTableFactory.optionalOptions``); :mod:`.offsets` resolves them.
OPTS_BOUNDED = [
    choice_option(
        "scan.bounded.mode",
        ("unbounded", *_OFFSET_MODES),
        "when a bounded read ends: unbounded | latest-offset | group-offsets | timestamp | specific-offsets",
        "unbounded",
        enum=True,
    ),
    OptionSpec(
        "scan.bounded.timestamp-millis",
        description="end timestamp (ms) for 'scan.bounded.mode' = 'timestamp'",
    ),
    OptionSpec(
        "scan.bounded.specific-offsets",
        description="end offsets 'partition:0,offset:42;...' for 'specific-offsets' (one topic only)",
    ),
]

#: Options of the ``kafka`` connector.
KAFKA_OPTIONS = [
    OPT_TOPIC,
    OPT_TOPIC_PATTERN,
    OPT_BOOTSTRAP,
    OPT_GROUP,
    choice_option("format", FORMATS, "value format: " + ", ".join(FORMATS)),
    OPT_VALUE_FORMAT,
    choice_option("key.format", FORMATS, "format of the message key"),
    OptionSpec("key.fields", description="columns of the message key, separated by ';'"),
    OPT_KEY_PREFIX,
    OPT_FIELDS_INCLUDE,
    choice_option(
        "scan.startup.mode", ("earliest-offset", *_OFFSET_MODES), "where reading starts", "group-offsets",
        enum=True,
    ),
    OptionSpec("scan.startup.timestamp-millis", description="start timestamp (ms) for 'timestamp' startup"),
    OptionSpec(
        "scan.startup.specific-offsets",
        description="start offsets 'partition:0,offset:42;...' for 'specific-offsets' startup",
    ),
    *OPTS_BOUNDED,
    OPT_WATERMARK_IDLE,
    OPT_DISCOVERY,
    choice_option(
        "sink.partitioner",
        ("default", "fixed"),
        "default: by key hash (murmur2, as Java); fixed: one partition per task",
        "default",
    ),
    choice_option(
        "sink.delivery-guarantee",
        GUARANTEES,
        "none | at-least-once | exactly-once (Kafka transactions)",
        "at-least-once",
        enum=True,
    ),
    #: Flink's deprecated alias of 'sink.delivery-guarantee' (KafkaDynamicTableFactory.SINK_SEMANTIC)
    OptionSpec(
        "sink.semantic",
        description="deprecated alias of 'sink.delivery-guarantee' (as Flink: wins when set, with a warning)",
    ),
    OPT_TXN_PREFIX,
    OPT_TXN_NAMING,
    OPT_PROGRESS,
    OPT_SCAN_PARALLELISM,
    OPT_SINK_PARALLELISM,
    *auto_create_options("kafka"),
]

#: Options of the ``upsert-kafka`` connector.
UPSERT_KAFKA_OPTIONS = [
    OPT_TOPIC,
    OPT_TOPIC_PATTERN,
    OPT_BOOTSTRAP,
    OPT_GROUP,
    choice_option("key.format", FORMATS, "format of the message key (the PRIMARY KEY)"),
    OPT_VALUE_FORMAT,
    OPT_KEY_PREFIX,
    OPT_FIELDS_INCLUDE,
    OPT_WATERMARK_IDLE,
    OPT_DISCOVERY,
    *OPTS_BOUNDED,
    OptionSpec(
        "sink.buffer-flush.max-rows",
        default="0",
        description="with 'sink.buffer-flush.interval' > 0: buffer and keep each key's last change, "
        "written when this many keys are buffered (0: every change written, as Flink)",
    ),
    OptionSpec(
        "sink.buffer-flush.interval",
        default="0",
        description="with 'sink.buffer-flush.max-rows' > 0: longest time between buffer flushes "
        "(0: every change written, as Flink)",
    ),
    choice_option(
        "sink.delivery-guarantee",
        GUARANTEES,
        "default: exactly-once in an EXACTLY_ONCE job, else at-least-once",
        enum=True,
    ),
    OPT_TXN_PREFIX,
    OPT_TXN_NAMING,
    OPT_PROGRESS,
    OPT_SCAN_PARALLELISM,
    OPT_SINK_PARALLELISM,
    *auto_create_options("upsert-kafka"),
]


def librdkafka_props(options: dict[str, str], prefix: str = "", role: str | None = None) -> dict[str, Any]:
    """The ``'properties.*'`` options with the prefix stripped, Java client keys translated.

    See :mod:`~streamsql.connectors.kafka.client_keys`; ``prefix`` (``"Table 'name': "``) starts
    its messages; ``role`` (``"consumer"``, ``"producer"``) leaves out the other client's keys.

    Raises:
        ConfigError: for a Java key librdkafka cannot be given a meaning for.
    """
    props = {k[len("properties.") :]: v for k, v in options.items() if k.startswith("properties.")}
    return translate(props, prefix, role)


def metadata_timeout_s(table: TableDef, role: str) -> float:
    """How long the table's ``role`` client (``"consumer"``, ``"producer"``) waits for metadata at open.

    Its Java key of :data:`~.client_keys.WAIT_KEYS` (``'properties.max.block.ms'``,
    ``'properties.default.api.timeout.ms'``), else :data:`~.errors.METADATA_TIMEOUT_S`.

    Raises:
        ConfigError: for a value that is no number of milliseconds.
    """
    key = WAIT_KEYS[role]
    value = table.options.get(f"properties.{key}")
    return METADATA_TIMEOUT_S if value is None else wait_ms(key, value, table_prefix(table)) / 1000


def table_prefix(table: TableDef) -> str:
    """``Table 'name': `` for error messages."""
    return f"Table '{table.name}': "


def topics_of(table: TableDef) -> list[str]:
    """The ``'topic'`` option split on ';' (empty list when unset)."""
    return [t.strip() for t in table.options.get("topic", "").split(";") if t.strip()]


def check_topic_choice(table: TableDef) -> None:
    """Exactly one of ``'topic'`` and ``'topic-pattern'``, as Flink's ``validateSourceTopic`` (and sink's).

    Raises:
        ConfigError: with Flink's message, placed at ``'topic-pattern'`` when both are set, at
            ``'connector'`` (as a missing required option) when neither is.
    """
    if topics_of(table) and table.options.get("topic-pattern"):
        msg = f"{table_prefix(table)}Option 'topic' and 'topic-pattern' shouldn't be set together."
        raise ConfigError(msg, table=table.name, option="topic-pattern")
    if not topics_of(table) and not table.options.get("topic-pattern"):
        msg = f"{table_prefix(table)}Either 'topic' or 'topic-pattern' must be set."
        raise ConfigError(msg, table=table.name, option="connector")


def resolve_guarantee(table: TableDef, config: dict[str, str], default: str) -> str:
    """The sink's delivery guarantee: ``'sink.delivery-guarantee'``, else ``default``.

    ``default`` may be ``'auto'``: exactly-once when the job checkpoints in EXACTLY_ONCE mode,
    else at-least-once.
    """
    g = semantic_guarantee(table) or table.options.get("sink.delivery-guarantee")
    if g:
        return g
    if default != "auto":
        return default
    mode = (config.get("execution.checkpointing.mode") or "EXACTLY_ONCE").upper()
    return "exactly-once" if mode == "EXACTLY_ONCE" else "at-least-once"


def semantic_guarantee(table: TableDef) -> str | None:
    """The guarantee the deprecated ``'sink.semantic'`` names, or None when unset.

    As Flink's ``KafkaDynamicTableFactory.validateDeprecatedSemantic``: when set it decides
    (over ``'sink.delivery-guarantee'``), read as ``DeliveryGuarantee.valueOf(value.toUpperCase()
    .replace("-", "_"))``, and a warning says it is deprecated.

    Raises:
        ConfigError: for a value that names no guarantee.
    """
    value = table.options.get("sink.semantic")
    if value is None:
        return None
    name = value.upper().replace("-", "_")
    by_name = {g.upper().replace("-", "_"): g for g in GUARANTEES}
    if name not in by_name:
        msg = (f"{table_prefix(table)}option 'sink.semantic' = '{value}' is not one of "
               f"{', '.join(repr(g) for g in GUARANTEES)} (it is deprecated: use 'sink.delivery-guarantee')")
        raise ConfigError(msg)
    log.warning("%ssink.semantic is deprecated and will be removed. Please use sink.delivery-guarantee "
                "instead.", table_prefix(table))
    return by_name[name]


def int_option(table: TableDef, key: str, default: str | None = None, required: bool = False) -> int | None:
    """An integer option (``default`` when unset; None when unset without a default).

    Raises:
        ConfigError: when missing (and required) or not an integer.
    """
    v = table.options.get(key, default)
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


def parse_specific_offsets(table: TableDef, option: str) -> dict[int, int]:
    """Parse Flink's ``'partition:0,offset:42;partition:1,offset:300'`` in option ``option``.

    Returns:
        ``{partition: offset}``.

    Raises:
        ConfigError: for malformed text, naming the option.
    """
    text = table.options.get(option, "")
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
