"""Restart strategies: whether, and after how long, a failed job runs again (Flink 2.3's).

``'restart-strategy.type'`` (fallback key ``'restart-strategy'``, any case) is one of
``none``/``off``/``disable``, ``fixed-delay``, ``failure-rate`` or ``exponential-delay`` (also
spelt without the dash), with Flink's sub-keys and defaults (:data:`~streamsql.core.config.
DEFAULTS`). Unset, Flink restarts with ``exponential-delay`` when checkpointing is enabled and not
at all otherwise (``RestartBackoffTimeStrategyFactoryLoader``). Flink's checkpointing is off
unless ``'execution.checkpointing.interval'`` is set, StreamSQL's is on by default; the default
strategy follows what Flink would do with the same script: ``exponential-delay`` when the script
(or ``--set``) sets a positive interval, else ``none``, so a script that fails at once on Flink
fails at once here (docs/checkpointing.md, "Restarts").

A strategy sees each failure through :meth:`RestartStrategy.next_delay`, which returns the seconds
to wait before the next attempt or None when the job is to fail. Times are monotonic seconds.
"""

from __future__ import annotations

import random
from collections import deque

from streamsql.core.config import Config
from streamsql.core.errors import ConfigError
from streamsql.core.values import parse_enum

#: Flink's names of each strategy (RestartStrategyOptions.RestartStrategyType), by strategy.
_NAMES = {"none": ("none", "off", "disable"), "fixed-delay": ("fixed-delay", "fixeddelay"),
          "failure-rate": ("failure-rate", "failurerate"),
          "exponential-delay": ("exponential-delay", "exponentialdelay")}
TYPE_VALUES = tuple(v for names in _NAMES.values() for v in names)


class RestartStrategy:
    """No restart (``'none'``): every failure fails the job."""

    name = "none"

    def next_delay(self, now: float) -> float | None:
        """Seconds to wait before restarting after a failure at ``now``, or None: fail the job."""
        return None

    def describe(self) -> str:
        """One line for the log: the strategy and its limits."""
        return self.name


class FixedDelay(RestartStrategy):
    """``attempts`` restarts, ``delay`` seconds apart; the next failure fails the job."""

    name = "fixed-delay"

    def __init__(self, attempts: int, delay: float):
        self.attempts, self.delay, self.used = attempts, delay, 0

    def next_delay(self, now: float) -> float | None:
        """See :meth:`RestartStrategy.next_delay`."""
        self.used += 1
        return self.delay if self.used <= self.attempts else None

    def describe(self) -> str:
        """See :meth:`RestartStrategy.describe`."""
        return f"fixed-delay, restart {self.used} of {self.attempts}"


class FailureRate(RestartStrategy):
    """Restart after ``delay`` unless more than ``max_failures`` failed within ``interval`` s."""

    name = "failure-rate"

    def __init__(self, max_failures: int, interval: float, delay: float):
        self.max_failures, self.interval, self.delay = max_failures, interval, delay
        self.failures: deque[float] = deque()

    def next_delay(self, now: float) -> float | None:
        """See :meth:`RestartStrategy.next_delay`."""
        self.failures.append(now)
        while self.failures and self.failures[0] <= now - self.interval:
            self.failures.popleft()
        return self.delay if len(self.failures) <= self.max_failures else None

    def describe(self) -> str:
        """See :meth:`RestartStrategy.describe`."""
        return f"failure-rate, {len(self.failures)} of {self.max_failures} failures per {self.interval:g} s"


class ExponentialDelay(RestartStrategy):
    """Flink's exponential-delay: backoffs grow by ``multiplier`` up to ``max_backoff``.

    The first restart waits ``initial``; each further one ``multiplier`` times longer, capped at
    ``max_backoff``, each moved by up to ``jitter`` of itself at random (so that many jobs do not
    retry in step). A failure more than ``reset_threshold`` seconds after the previous one starts
    again from ``initial`` (the job ran fine in between). After ``attempts`` restarts without a
    reset the job fails (Flink's default is 2**31 - 1: a failure that recurs restarts "forever",
    slowly: once a minute with the defaults).
    """

    name = "exponential-delay"

    def __init__(self, initial: float, max_backoff: float, multiplier: float, reset_threshold: float,
                 jitter: float, attempts: int, rng: random.Random | None = None):
        self.initial, self.max_backoff, self.multiplier = initial, max_backoff, multiplier
        self.reset_threshold, self.jitter, self.attempts = reset_threshold, jitter, attempts
        self.rng = rng or random.Random()
        self.used = 0
        self.backoff = initial
        self.last_failure: float | None = None

    def next_delay(self, now: float) -> float | None:
        """See :meth:`RestartStrategy.next_delay`."""
        if self.last_failure is not None and now - self.last_failure >= self.reset_threshold:
            self.used, self.backoff = 0, self.initial
        elif self.used:
            self.backoff = min(self.backoff * self.multiplier, self.max_backoff)
        self.last_failure = now
        self.used += 1
        if self.used > self.attempts:
            return None
        spread = self.backoff * self.jitter
        return max(0.0, self.backoff + self.rng.uniform(-spread, spread))

    def describe(self) -> str:
        """See :meth:`RestartStrategy.describe`."""
        return f"exponential-delay, restart {self.used}, backoff {self.backoff:g} s"


def strategy_type(config: Config) -> str:
    """The strategy in force: the key's canonical name, or Flink's default (module docstring).

    Raises:
        ConfigError: for a value that names no strategy.
    """
    value = config.get("restart-strategy.type") or config.settings.get("restart-strategy")
    if value is None:
        explicit = config.settings.get("execution.checkpointing.interval")
        return "exponential-delay" if explicit is not None and config.duration(
            "execution.checkpointing.interval") > 0 else "none"
    spelt = parse_enum(value.lower(), TYPE_VALUES, "restart-strategy.type")
    return next(name for name, names in _NAMES.items() if spelt in names)


def create_strategy(config: Config) -> RestartStrategy:
    """The job's restart strategy, from its configuration (fresh state: no failure seen).

    Raises:
        ConfigError: for a bad type or sub-key value, naming the key.
    """
    kind = strategy_type(config)
    sec = lambda key: config.duration(f"restart-strategy.{kind}.{key}") / 1000  # noqa: E731
    if kind == "fixed-delay":
        return FixedDelay(config.integer("restart-strategy.fixed-delay.attempts"), sec("delay"))
    if kind == "failure-rate":
        return FailureRate(config.integer("restart-strategy.failure-rate.max-failures-per-interval"),
                           sec("failure-rate-interval"), sec("delay"))
    if kind == "exponential-delay":
        key = "restart-strategy.exponential-delay."
        multiplier, jitter = config.number(key + "backoff-multiplier"), config.number(key + "jitter-factor")
        if multiplier < 1 or not 0 <= jitter <= 1:
            msg = (f"'{key}backoff-multiplier' must be >= 1 and '{key}jitter-factor' between 0 and 1; "
                   f"got {multiplier:g} and {jitter:g}")
            raise ConfigError(msg)
        return ExponentialDelay(sec("initial-backoff"), sec("max-backoff"), multiplier,
                                sec("reset-backoff-threshold"), jitter,
                                config.integer(key + "attempts-before-reset-backoff"))
    return RestartStrategy()
