"""Engine configuration: Flink's keys, our defaults, and typed accessors.

Values are strings as ``SET 'key' = 'value'`` gives them; accessors parse them with errors that
name the key.
"""

from __future__ import annotations

import re

from streamsql.errors import ConfigError

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
    "state.backend.type": "rocksdb",
    "state.dir": ".streamsql/state",
    "restart-strategy.type": "none",
    "restart-strategy.fixed-delay.attempts": "3",
    "restart-strategy.fixed-delay.delay": "1 s",
    "execution.batch-size": "10000",
    "sql-client.execution.result-mode": "tableau",
    "sql-client.verbose": "false",
    "table.dml-sync": "false",
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

    Raises:
        ConfigError: naming ``key`` for an unparsable value.
    """
    m = re.fullmatch(r"\s*(-?\d+)\s*([a-zA-Z]*)\s*", str(value))
    if not m or (m.group(2) and m.group(2).lower() not in _UNITS):
        msg = f"'{key}' = '{value}' is not a duration (e.g. '10 s', '500 ms', '1 min')"
        raise ConfigError(msg)
    return int(m.group(1)) * _UNITS[m.group(2).lower() or "ms"]


class Config:
    """A layered view: explicit settings over :data:`DEFAULTS`."""

    def __init__(self, settings: dict[str, str] | None = None):
        self.settings: dict[str, str] = dict(settings or {})

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
