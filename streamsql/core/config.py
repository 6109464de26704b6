"""Engine configuration: Flink's keys, our defaults, and typed accessors.

Values are strings as ``SET 'key' = 'value'`` gives them; accessors parse them with errors that
name the key.
"""

from __future__ import annotations

import re

from streamsql.core.errors import ConfigError

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
    "restart-strategy.type": "none",
    "restart-strategy.fixed-delay.attempts": "3",
    "restart-strategy.fixed-delay.delay": "1 s",
    "execution.batch-size": "10000",
    "pipeline.auto-watermark-interval": "200 ms",
    "table.exec.source.idle-timeout": "0 ms",
    "sql-client.execution.result-mode": "tableau",
    "sql-client.verbose": "false",
    "table.dml-sync": "false",
    "parallelism.default": "1",
    "table.local-time-zone": "UTC",
}

_UNITS = {
    "ms": 1, "milli": 1, "millis": 1, "millisecond": 1, "milliseconds": 1,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
    "min": 60_000, "m": 60_000, "minute": 60_000, "minutes": 60_000,
    "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000,
}


def duration_ms(value: str, key: str = "duration") -> int:
    """Parse a Flink duration (``'10 s'``, ``'500ms'``, ``'1 min'``, bare number = ms) to ms.

    As Flink's ``TimeUtils.parseDuration``, the text starts with a number: a negative duration
    is refused (``'-5 s'`` as a checkpoint interval or a TTL would have turned them off).

    Raises:
        ConfigError: naming ``key`` for an unparsable value.
    """
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", str(value))
    if not m or (m.group(2) and m.group(2).lower() not in _UNITS):
        msg = f"'{key}' = '{value}' is not a duration (e.g. '10 s', '500 ms', '1 min')"
        raise ConfigError(msg)
    return int(m.group(1)) * _UNITS[m.group(2).lower() or "ms"]


_MEMORY_UNITS = {
    "": 1, "b": 1, "bytes": 1,
    "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
    "m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20,
    "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
    "t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40,
}


def memory_bytes(value: str, key: str = "memory size") -> int:
    """Parse a Flink memory size (``'64 mb'``, ``'8mb'``, ``'1g'``, bare number = bytes) to bytes.

    Units are powers of 1024, case-insensitive, as Flink's ``MemorySize.parse``.

    Raises:
        ConfigError: naming ``key`` for an unparsable value.
    """
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", str(value))
    if not m or m.group(2).lower() not in _MEMORY_UNITS:
        msg = f"'{key}' = '{value}' is not a memory size (e.g. '64 mb', '512 kb', '1 gb')"
        raise ConfigError(msg)
    return int(m.group(1)) * _MEMORY_UNITS[m.group(2).lower()]


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


#: How each engine key's value is checked when it is SET: "duration", "memory", "ratio",
#: "int>=0", "int>=1", "bool", or a tuple of allowed values (case-insensitive).
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
    "restart-strategy.type": ("none", "fixed-delay", "fixeddelay", "disable", "off"),
    "restart-strategy.fixed-delay.attempts": "int>=0",
    "restart-strategy.fixed-delay.delay": "duration",
    "execution.batch-size": "int>=1",
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
    # Idle state retention (streamsql.state.ttl): GROUP BY, regular joins, Top-N, deduplication.
    "table.exec.state.ttl": "duration",
    # RocksDB's memory (streamsql.state.rocksdb_memory), Flink's keys and defaults there.
    "state.backend.rocksdb.memory.managed": "bool",
    "state.backend.rocksdb.memory.fixed-per-slot": "memory",
    "state.backend.rocksdb.memory.fixed-per-tm": "memory",
    "state.backend.rocksdb.memory.write-buffer-ratio": "ratio",
    "taskmanager.memory.managed.size": "memory",
    "state.backend.rocksdb.block.cache-size": "memory",
    "state.backend.rocksdb.writebuffer.size": "memory",
}
#: Keys with no default that the engine or its tools read.
OTHER_KEYS = ("pipeline.name", "python.files", "sql-client.display.max-column-width",
              "properties.bootstrap.servers", "execution.state-recovery.path", "execution.savepoint.path",
              # S3 checkpoint storage (streamsql.checkpoint.stores), Flink's s3 filesystem keys
              "s3.endpoint", "s3.access-key", "s3.secret-key", "s3.path.style.access", "s3.region")
#: Every key StreamSQL reads: a SET of any other key warns (it would be ignored).
KNOWN_KEYS = frozenset(DEFAULTS) | frozenset(KINDS) | frozenset(OTHER_KEYS)


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
    elif isinstance(kind, str) and kind.startswith("int"):
        low = int(kind[-1])
        if not re.fullmatch(r"\s*-?\d+\s*", value) or int(value) < low:
            msg = f"'{key}' = '{value}' must be an integer >= {low}"
            raise ConfigError(msg)
    elif kind == "bool":
        if value.strip().lower() not in ("true", "false"):
            msg = f"'{key}' = '{value}' must be 'true' or 'false'"
            raise ConfigError(msg)
    elif kind == "zone":
        _check_zone(key, value)
    elif kind == "runtime-mode":
        _check_runtime_mode(value)
    elif isinstance(kind, tuple):
        if value.strip().lower() not in {c.lower() for c in kind}:
            msg = f"'{key}' = '{value}' is not one of {', '.join(repr(c) for c in kind)}"
            raise ConfigError(msg)
    else:
        return unknown_key_warning(key)
    return None


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
        return default if default is not None else DEFAULTS.get(key)

    def duration(self, key: str) -> int:
        """``key`` as ms."""
        return duration_ms(self.get(key), key)

    def integer(self, key: str) -> int:
        """``key`` as an int.

        Raises:
            ConfigError: for a non-integer value.
        """
        v = self.get(key)
        try:
            return int(v)
        except (TypeError, ValueError):
            msg = f"'{key}' = '{v}' is not an integer"
            raise ConfigError(msg) from None

    def boolean(self, key: str) -> bool:
        """``key`` as a bool ('true'/'false')."""
        return str(self.get(key, "false")).strip().lower() == "true"

    def as_dict(self) -> dict[str, str]:
        """Defaults overlaid with settings."""
        return {**DEFAULTS, **self.settings}

    def copy(self) -> Config:
        """An independent copy."""
        return Config(dict(self.settings))
