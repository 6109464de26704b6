"""Engine configuration: Flink's keys, our defaults, and typed accessors.

Values are strings as ``SET 'key' = 'value'`` gives them; accessors parse them with errors that
name the key.
"""

from __future__ import annotations

import re

from streamsql.core.errors import ConfigError
from streamsql.core.values import duration_ms, memory_bytes, parse_bool, parse_enum, parse_int, positive_bytes

__all__ = ["DEFAULTS", "KINDS", "Config", "check_setting", "did_you_mean", "duration_ms", "is_time_zone",
           "memory_bytes", "ratio", "unknown_key_warning"]

#: Defaults. Unlike Flink, checkpointing is on by default (every 5 s) so that exactly-once
#: sinks commit without extra settings; set the interval to '0' to turn it off.
DEFAULTS: dict[str, str] = {
    "execution.checkpointing.interval": "5 s",
    "execution.checkpointing.mode": "EXACTLY_ONCE",
    "execution.checkpointing.min-pause": "0 ms",
    "execution.checkpointing.timeout": "10 min",
    "execution.checkpointing.tolerable-failed-checkpoints": "0",
    "execution.checkpointing.num-retained": "1",
    "execution.checkpointing.dir": ".streamsql/checkpoints",
    "execution.checkpointing.storage": "filesystem",
    "state.backend.type": "rocksdb",
    "state.dir": ".streamsql/state",
    "state.cache.max-entries": "100000",
    # Flink 2.3's restart defaults (RestartStrategyOptions); 'restart-strategy.type' has none: unset,
    # it depends on checkpointing (streamsql.runtime.restart.strategy_type).
    "restart-strategy.fixed-delay.attempts": "1",
    "restart-strategy.fixed-delay.delay": "1 s",
    "restart-strategy.failure-rate.max-failures-per-interval": "1",
    "restart-strategy.failure-rate.failure-rate-interval": "1 min",
    "restart-strategy.failure-rate.delay": "1 s",
    "restart-strategy.exponential-delay.initial-backoff": "1 s",
    "restart-strategy.exponential-delay.max-backoff": "1 min",
    "restart-strategy.exponential-delay.backoff-multiplier": "1.5",
    "restart-strategy.exponential-delay.reset-backoff-threshold": "1 h",
    "restart-strategy.exponential-delay.jitter-factor": "0.1",
    "restart-strategy.exponential-delay.attempts-before-reset-backoff": "2147483647",
    "execution.batch-size": "10000",
    "pipeline.auto-watermark-interval": "200 ms",
    "table.exec.source.idle-timeout": "0 ms",
    "sql-client.execution.result-mode": "tableau",
    "sql-client.verbose": "false",
    "table.dml-sync": "false",
    "parallelism.default": "1",
    "table.local-time-zone": "UTC",
    "streamsql.exec.pipeline.enabled": "true",
    "streamsql.exec.pipeline.queue-batches": "2",
    "streamsql.exec.pipeline.decode-thread": "true",
    "streamsql.exec.pipeline.decode-threads": "1",
    "streamsql.exec.pipeline.commit-thread": "true",
    "streamsql.exec.memory.trim-after-checkpoint": "true",
    "streamsql.exec.memory.keep-pandas-unloaded": "true",
    "streamsql.exec.pipeline.sink-prepare-on-job-thread": "true",
    "streamsql.exec.kafka.batch-produce": "true",
    "table.optimizer.reuse-sub-plan-enabled": "true",
    "table.optimizer.reuse-source-enabled": "true",
    "table.dynamic-table-options.enabled": "true",
    # Flink's client wait, here STOP JOB ... WITH SAVEPOINT's for the final checkpoint (the SQL
    # gateway's OperationExecutor.callStopJobOperation waits this long for the savepoint path).
    "client.timeout": "60 s",
}

def ratio(value: str, key: str = "ratio") -> float:
    """Parse a fraction strictly between 0 and 1 (``'0.5'``).

    Raises:
        ConfigError: naming ``key`` for a value that is not such a number.
    """
    try:
        r = float(value)
    except (TypeError, ValueError):
        r = None
    if r is None or not 0 < r < 1:
        msg = f"'{key}' = '{value}' must be a number between 0 and 1 (exclusive)"
        raise ConfigError(msg)
    return r


#: Flink's names of the restart strategies (RestartStrategyOptions.RestartStrategyType, any case).
_RESTART_TYPES = ("none", "off", "disable", "fixed-delay", "fixeddelay", "failure-rate", "failurerate",
                  "exponential-delay", "exponentialdelay")

#: How each engine key's value is checked when it is SET (streamsql.core.values): "duration",
#: "memory", "memory>0", "ratio", "number", "int>=0", "int>=1", "bool", or a tuple of allowed values
#: (an enum: any case).
KINDS: dict[str, object] = {
    "execution.checkpointing.interval": "duration",
    "execution.checkpointing.mode": ("EXACTLY_ONCE", "AT_LEAST_ONCE"),
    "execution.checkpointing.min-pause": "duration",
    "execution.checkpointing.timeout": "duration",
    "execution.checkpointing.tolerable-failed-checkpoints": "int>=0",
    "execution.checkpointing.num-retained": "int>=1",
    "execution.checkpointing.storage": ("filesystem", "jobmanager"),
    "state.backend.type": ("rocksdb", "hashmap"),
    "state.cache.max-entries": "int>=0",
    "restart-strategy.type": _RESTART_TYPES,
    "restart-strategy": _RESTART_TYPES,  # Flink's deprecated fallback key
    "restart-strategy.fixed-delay.attempts": "int>=0",
    "restart-strategy.fixed-delay.delay": "duration",
    "restart-strategy.failure-rate.max-failures-per-interval": "int>=1",
    "restart-strategy.failure-rate.failure-rate-interval": "duration",
    "restart-strategy.failure-rate.delay": "duration",
    "restart-strategy.exponential-delay.initial-backoff": "duration",
    "restart-strategy.exponential-delay.max-backoff": "duration",
    "restart-strategy.exponential-delay.backoff-multiplier": "number",
    "restart-strategy.exponential-delay.reset-backoff-threshold": "duration",
    "restart-strategy.exponential-delay.jitter-factor": "number",
    "restart-strategy.exponential-delay.attempts-before-reset-backoff": "int>=1",
    "execution.batch-size": "int>=1",
    "client.timeout": "duration",
    # A Kafka source's fetch and decode, a Kafka sink's encode/produce/flush and the checkpoints'
    # commits on threads of their own (streamsql.runtime.prefetch, streamsql.runtime.sink_stage,
    # streamsql.checkpoint.background), with queues of this many batches.
    "streamsql.exec.pipeline.enabled": "bool",
    "streamsql.exec.pipeline.queue-batches": "int>=1",
    # false: a Kafka source decodes on its fetch thread (no decode thread of its own)
    "streamsql.exec.pipeline.decode-thread": "bool",
    # decode threads of a Kafka source whose decodes may overlap (the kafka source; upsert-kafka's
    # derive its changelog in order: one); batches are handed on in fetch order all the same
    "streamsql.exec.pipeline.decode-threads": "int>=1",
    # false: checkpoints commit on the job thread (streamsql.checkpoint.background)
    "streamsql.exec.pipeline.commit-thread": "bool",
    # true: glibc's free arena memory goes back to the system after each completed checkpoint
    # (malloc_trim on a thread of its own: streamsql.runtime.memory.MallocTrimmer)
    "streamsql.exec.memory.trim-after-checkpoint": "bool",
    # false: pyarrow imports pandas if installed (streamsql.runtime.memory.keep_pandas_unloaded;
    # read when a StreamEnvironment is created, process-wide)
    "streamsql.exec.memory.keep-pandas-unloaded": "bool",
    # false: a pipelined sink's thread also does its prepare (the Kafka sink's encoding)
    "streamsql.exec.pipeline.sink-prepare-on-job-thread": "bool",
    # false: an exactly-once Kafka sink calls produce() per row instead of librdkafka's
    # rd_kafka_produce_batch() per batch (connectors/kafka/native.py)
    "streamsql.exec.kafka.batch-produce": "bool",
    "pipeline.auto-watermark-interval": "duration",
    "table.exec.source.idle-timeout": "duration",
    "sql-client.execution.result-mode": ("table", "changelog", "tableau"),
    "sql-client.verbose": "bool",
    "table.dml-sync": "bool",
    "parallelism.default": "int>=1",
    # Only streaming is run; batch (and automatic, batch over bounded sources) is refused.
    "execution.runtime-mode": "runtime-mode",
    # Flink's mini-batch aggregation: accepted and checked, with no further effect, because every
    # aggregation already folds a whole batch (execution.batch-size) before it emits.
    "table.exec.mini-batch.enabled": "bool",
    "table.exec.mini-batch.allow-latency": "duration",
    "table.exec.mini-batch.size": "int>=1",
    "table.local-time-zone": "zone",
    # INSERT into a sink whose PRIMARY KEY is not the query's upsert key (streamsql.plan.conflicts);
    # unset: 'true' and 'AUTO', Flink 2.3's defaults.
    "table.exec.sink.require-on-conflict": "bool",
    "table.exec.sink.upsert-materialize": ("NONE", "AUTO", "FORCE"),
    # A NULL into a NOT NULL (or PRIMARY KEY) sink column: fail the job (Flink's default) or drop the row.
    "table.exec.sink.not-null-enforcer": ("ERROR", "DROP"),
    # Equal parts of a statement's plan computed once (streamsql.plan.reuse), Flink's keys and defaults.
    "table.optimizer.reuse-sub-plan-enabled": "bool",
    "table.optimizer.reuse-source-enabled": "bool",
    # /*+ OPTIONS(...) */ after a table's name (streamsql.plan.options_hint), Flink's key and default.
    "table.dynamic-table-options.enabled": "bool",
    # Restoring a checkpoint whose operator state the new plan does not claim
    # (streamsql.checkpoint.operators): Flink's key, then its name before 2.0.
    "execution.state-recovery.ignore-unclaimed-state": "bool",
    "execution.savepoint.ignore-unclaimed-state": "bool",
    # Idle state retention (streamsql.state.ttl): GROUP BY, regular joins, Top-N, deduplication.
    "table.exec.state.ttl": "duration",
    # RocksDB's memory (streamsql.state.rocksdb_memory), Flink's keys and defaults there.
    "state.backend.rocksdb.memory.managed": "bool",
    "state.backend.rocksdb.memory.fixed-per-slot": "memory",
    "state.backend.rocksdb.memory.fixed-per-tm": "memory",
    "state.backend.rocksdb.memory.write-buffer-ratio": "ratio",
    "taskmanager.memory.managed.size": "memory",
    # Flink refuses 0 for these (RocksDBConfigurableOptions.checkArgumentValid: "must be larger than 0")
    "state.backend.rocksdb.block.cache-size": "memory>0",
    "state.backend.rocksdb.writebuffer.size": "memory>0",
}
#: Flink 2.3's deprecated names of keys StreamSQL reads (their ``ConfigOption.fallbackKeys()``, read
#: on PyFlink 2.3.0): a script that sets one is read as Flink reads it, the new name winning when
#: both are set ('restart-strategy' and 'execution.savepoint.path' are read where they are used).
DEPRECATED_KEYS: dict[str, tuple[str, ...]] = {
    "execution.checkpointing.dir": ("state.checkpoints.dir", "state.backend.fs.checkpointdir"),
    "execution.checkpointing.num-retained": ("state.checkpoints.num-retained",),
    "execution.checkpointing.storage": ("state.checkpoint-storage",),
    "state.backend.type": ("state.backend",),
}
KINDS.update({old: KINDS[new] for new, olds in DEPRECATED_KEYS.items() if new in KINDS for old in olds})
#: Keys with no default that the engine or its tools read.
OTHER_KEYS = ("pipeline.name", "python.files", "sql-client.display.max-column-width",
              "properties.bootstrap.servers", "execution.state-recovery.path", "execution.savepoint.path",
              # S3 checkpoint storage (streamsql.checkpoint.stores), Flink's s3 filesystem keys
              "s3.endpoint", "s3.access-key", "s3.secret-key", "s3.path.style.access", "s3.region")
#: Every key StreamSQL reads: a SET of any other key warns (it would be ignored).
KNOWN_KEYS = (frozenset(DEFAULTS) | frozenset(KINDS) | frozenset(OTHER_KEYS)
              | frozenset(old for olds in DEPRECATED_KEYS.values() for old in olds))


def check_mini_batch(config) -> None:
    """Refuse mini-batch settings Flink 2.3 refuses when it plans a query, in its words.

    With ``'table.exec.mini-batch.enabled'`` = ``'true'``, Flink needs a latency above 0 ms and a
    size above 0 (``'.allow-latency'`` defaults to 0 ms, ``'.size'`` to -1). The settings change
    nothing else here (every aggregation folds whole batches already: README, "Mini-batch").

    Raises:
        ConfigError: Flink's message.
    """
    if not config.boolean("table.exec.mini-batch.enabled"):
        return
    latency = config.get("table.exec.mini-batch.allow-latency")
    if latency is None or duration_ms(latency, "'table.exec.mini-batch.allow-latency'") <= 0:
        msg = ("MiniBatch Latency must be greater than 0 ms. (set 'table.exec.mini-batch.allow-latency', "
               "e.g. '1 s', with 'table.exec.mini-batch.enabled' = 'true')")
        raise ConfigError(msg)
    if int(config.get("table.exec.mini-batch.size") or -1) <= 0:
        msg = ("Key: 'table.exec.mini-batch.size' , default: -1 (fallback keys: []) must be > 0. (set it, "
               "e.g. '5000', with 'table.exec.mini-batch.enabled' = 'true')")
        raise ConfigError(msg)


def unknown_key_warning(key: str) -> str | None:
    """A warning for a key StreamSQL does not read, with the closest known key; None if known.

    Flink keys StreamSQL does not implement (``'table.exec.mini-batch.enabled'``) warn too: accepting
    them in silence would let a script believe they took effect.
    """
    if key in KNOWN_KEYS:
        return None
    return f"[WARNING] '{key}' is not a key StreamSQL reads; it is ignored{did_you_mean(key, KNOWN_KEYS)}"


def did_you_mean(key: str, known) -> str:
    """``"; did you mean 'k'?"`` for the known key closest to a misspelt ``key``, else ``""``."""
    import difflib

    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.7)
    return f"; did you mean '{close[0]}'?" if close else ""


def check_setting(key: str, value: str) -> str | None:
    """Validate ``SET key = value``.

    Returns:
        None, or a warning for an unknown key (:func:`unknown_key_warning`).

    Raises:
        ConfigError: a known key with a bad value.
    """
    kind = KINDS.get(key)
    if kind == "duration":
        duration_ms(value, key)
    elif kind == "memory":
        memory_bytes(value, key)
    elif kind == "ratio":
        ratio(value, key)
    elif kind == "memory>0":
        positive_bytes(value, key)
    elif isinstance(kind, str) and kind.startswith("int"):
        parse_int(value, key, int(kind[-1]))
    elif kind == "bool":
        parse_bool(value, key)
    elif kind == "zone":
        _check_zone(key, value)
    elif kind == "runtime-mode":
        _check_runtime_mode(value)
    elif kind == "number":
        number(value, key)
    elif isinstance(kind, tuple):
        parse_enum(value, kind, key)
    else:
        return unknown_key_warning(key)
    return None


def number(value: str, key: str) -> float:
    """A floating-point value as Java's ``Double.parseDouble`` reads it (``'1.5'``, ``'.5'``, ``'1e-1'``).

    Raises:
        ConfigError: naming ``key``.
    """
    try:
        return float(value)
    except (TypeError, ValueError):
        msg = f"'{key}' = '{value}' is not a number"
        raise ConfigError(msg) from None


def _check_runtime_mode(value: str) -> None:
    """Accept ``'streaming'``; refuse what StreamSQL does not run, rather than run it as streaming.

    Flink's batch mode (and ``automatic`` over bounded sources) gives each query's final result
    only, as insert-only rows; run in streaming mode, an aggregation emits its updates too (a
    ``print`` sink shows ``-U``/``+U`` rows), so a batch script would give another output.
    """
    mode = value.strip().lower()
    if mode == "streaming":
        return
    if mode in ("batch", "automatic"):
        msg = (f"'execution.runtime-mode' = '{value}' is not supported: StreamSQL runs every job in "
               "streaming mode, where an aggregation emits updates (-U/+U) before its final rows, not only "
               "the final result batch mode gives; remove the SET (the table the changelog folds to is the "
               "batch result) or write the query into an upsert sink (upsert-kafka, jdbc with a PRIMARY KEY)")
        raise ConfigError(msg)
    msg = f"'execution.runtime-mode' = '{value}' is not one of 'streaming', 'batch', 'automatic'"
    raise ConfigError(msg)


def is_time_zone(value: str) -> bool:
    """Whether ``value`` names a time zone as Flink takes one.

    An IANA zone name ('Europe/Berlin', from zoneinfo's database), 'UTC', or a fixed offset
    ('GMT+08:00').
    """
    import zoneinfo

    if re.fullmatch(r"(GMT|UTC)[+-]\d{1,2}:\d{2}", value):
        return True
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _check_zone(key: str, value: str) -> None:
    if not is_time_zone(value.strip()):
        msg = f"'{key}' = '{value}' is not a time zone (use an IANA name such as 'Europe/Berlin', or 'UTC')"
        raise ConfigError(msg)


class Config:
    """A layered view: explicit settings over :data:`DEFAULTS`."""

    def __init__(self, settings: dict[str, str] | None = None):
        """Explicit ``settings`` (Flink keys, string values).

        Raises:
            ConfigError: for an ``'execution.runtime-mode'`` other than streaming, which no
                later read would notice (see :func:`check_setting`).
        """
        self.settings: dict[str, str] = dict(settings or {})
        if "execution.runtime-mode" in self.settings:
            _check_runtime_mode(self.settings["execution.runtime-mode"])

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of ``key``: set, else default argument, else engine default."""
        if key in self.settings:
            return self.settings[key]
        for old in DEPRECATED_KEYS.get(key, ()):
            if old in self.settings:
                return self.settings[old]
        return default if default is not None else DEFAULTS.get(key)

    def duration(self, key: str) -> int:
        """``key`` as ms."""
        return duration_ms(self.get(key), key)

    def integer(self, key: str) -> int:
        """``key`` as an int.

        Raises:
            ConfigError: for a non-integer value.
        """
        return parse_int(self.get(key), key)

    def number(self, key: str) -> float:
        """``key`` as a float.

        Raises:
            ConfigError: for a value that is not a number.
        """
        return number(self.get(key), key)

    def boolean(self, key: str) -> bool:
        """``key`` as a bool (``'true'``/``'false'`` in any case, as Flink; unset = False).

        Raises:
            ConfigError: for another value (it was not SET through :func:`check_setting`).
        """
        return parse_bool(self.get(key, "false"), key)

    def choice(self, key: str) -> str | None:
        """An enum key's value in its canonical spelling (``'ROCKSDB'`` → ``'rocksdb'``), or None.

        Raises:
            ConfigError: for a value that is not one of the key's choices.
        """
        value, kind = self.get(key), KINDS.get(key)
        return parse_enum(value, kind, key) if value is not None and isinstance(kind, tuple) else value

    def as_dict(self) -> dict[str, str]:
        """Defaults overlaid with settings (a key set under a deprecated name too)."""
        return {**DEFAULTS, **self.settings, **{key: self.get(key) for key in DEPRECATED_KEYS}}

    def copy(self) -> Config:
        """An independent copy."""
        return Config(dict(self.settings))
