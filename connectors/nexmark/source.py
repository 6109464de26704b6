"""The ``nexmark`` connector's options and source: Nexmark events as the project's Flink connector.

Options are the Nexmark project's ``NexmarkSourceOptions`` with their defaults:
``first-event.rate`` (10000; events per second of *event time*), ``next-event.rate``,
``rate.shape``, ``rate.period`` and ``rate.limited`` (accepted; Nexmark's generator never reads
them), ``events.num`` (0 = unbounded), ``stop-at`` (-1 = off; ends the source at that many
events), ``keep-alive`` (false; when true a finished source stays open, idle), ``max-emit-speed``
(true; false paces emission to the events' time), ``person.proportion`` / ``auction.proportion``
/ ``bid.proportion`` (1 / 3 / 46), ``person.avg-size`` / ``auction.avg-size`` / ``bid.avg-size``
(200b / 500b / 100b, Flink memory sizes), ``bid.hot-ratio.auctions`` (2),
``bid.hot-ratio.bidders`` (4), ``auction.hot-ratio.sellers`` (4). StreamSQL extensions:
``'seed'`` (0) and ``'base-time'`` (ms since the epoch of the first event's time base; default
2026-01-01 00:00:00 UTC; Nexmark uses the wall clock at planning, so its events differ run to
run, ours do not).

The table's physical columns must be Nexmark's: ``event_type INT``, ``person ROW<...>``,
``auction ROW<...>``, ``bid ROW<...>`` (:data:`DDL_COLUMNS`); the ``dateTime`` computed column
and the watermark are the DDL's, evaluated by the engine.

Delivery guarantee: exactly-once. Every value is a pure function of (options, event number)
and :meth:`NexmarkSource.position` is the number of events emitted. At parallelism ``n``, task
``i`` generates the events ``k`` with ``k % n == i``, so the job sees the same events at every
parallelism (Nexmark's splits re-time the events per generator instead).
"""

from __future__ import annotations

import re
import time

import numpy as np
import pyarrow as pa
from streamsql.connectors.nexmark.generator import (
    AUCTION_FIELDS,
    BID_FIELDS,
    PERSON_FIELDS,
    NexmarkConfig,
    NexmarkGenerator,
)
from streamsql.connectors.registry import register, validate_options

from streamsql.core.catalog import TableDef
from streamsql.core.connector import ConnectorContext, ConnectorSpec, OptionSpec, Source
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError

#: The physical columns of Nexmark's ``ddl_gen.sql``.
DDL_COLUMNS = """event_type INT,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR,
        state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT,
        `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
        `dateTime` TIMESTAMP(3), extra VARCHAR>"""

DEFAULT_BASE_TIME_MS = 1_767_225_600_000  # 2026-01-01 00:00:00 UTC

_INTS = {
    "first-event.rate": ("10000", "events per second of event time"),
    "next-event.rate": ("10000", "accepted; not read by Nexmark's generator"),
    "events.num": ("0", "events to generate; 0 = unbounded"),
    "stop-at": ("-1", "end the source after this many events; -1 = off"),
    "person.proportion": ("1", "persons per cycle of events"),
    "auction.proportion": ("3", "auctions per cycle of events"),
    "bid.proportion": ("46", "bids per cycle of events"),
    "bid.hot-ratio.auctions": ("2", "1 - 1/ratio of the bids go to a hot auction"),
    "bid.hot-ratio.bidders": ("4", "1 - 1/ratio of the bids are by a hot bidder"),
    "auction.hot-ratio.sellers": ("4", "1 - 1/ratio of the auctions are by a hot seller"),
    "seed": ("0", "seed of the random draws (StreamSQL extension)"),
    "base-time": (
        str(DEFAULT_BASE_TIME_MS),
        "ms since the epoch of the events' time base (StreamSQL extension)",
    ),
}
#: Option → NexmarkConfig field.
_CONFIG_FIELDS = {
    "first-event.rate": "first_event_rate",
    "person.proportion": "person_proportion",
    "auction.proportion": "auction_proportion",
    "bid.proportion": "bid_proportion",
    "person.avg-size": "person_avg_size",
    "auction.avg-size": "auction_avg_size",
    "bid.avg-size": "bid_avg_size",
    "bid.hot-ratio.auctions": "hot_auction_ratio",
    "bid.hot-ratio.bidders": "hot_bidders_ratio",
    "auction.hot-ratio.sellers": "hot_sellers_ratio",
    "base-time": "base_time_ms",
    "seed": "seed",
}
_SIZES = {"person.avg-size": "200b", "auction.avg-size": "500b", "bid.avg-size": "100b"}
_BOOLS = {"rate.limited": "false", "keep-alive": "false", "max-emit-speed": "true"}
_MEMORY_UNITS = {
    "": 1,
    "b": 1,
    "bytes": 1,
    "k": 1024,
    "kb": 1024,
    "kibibytes": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mebibytes": 1024**2,
}

OPTIONS = [
    OptionSpec("connector", required=True, description="'nexmark'"),
    *(OptionSpec(k, default=d, description=desc) for k, (d, desc) in _INTS.items()),
    *(
        OptionSpec(k, default=d, description="average size of the event (memory size)")
        for k, d in _SIZES.items()
    ),
    *(
        OptionSpec(k, default=d, choices=("true", "false"), description="as Nexmark")
        for k, d in _BOOLS.items()
    ),
    OptionSpec("rate.shape", default="SQUARE", description="accepted; not read by Nexmark's generator"),
    OptionSpec("rate.period", default="600 s", description="accepted; not read by Nexmark's generator"),
]


def _memory_size(table: str, key: str, text: str) -> int:
    """Bytes of a Flink MemorySize text ('200b', '1 kb'); only sizes below 512 KiB make sense here."""
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    if not m or m.group(2).lower() not in _MEMORY_UNITS:
        msg = f"Table '{table}': option '{key}' = '{text}' is not a memory size (e.g. '200b', '1kb')"
        raise ConfigError(msg)
    size = int(m.group(1)) * _MEMORY_UNITS[m.group(2).lower()]
    if size >= 512 * 1024:
        msg = f"Table '{table}': option '{key}' = '{text}' must be below 512kb"
        raise ConfigError(msg)
    return size


def settings(table: TableDef) -> tuple[NexmarkConfig, int | None, dict[str, bool]]:
    """Check a nexmark table and parse its options.

    Returns:
        ``(generator config, number of events or None for unbounded, boolean options)``.

    Raises:
        ConfigError: for an unknown or bad option, or columns other than Nexmark's.
    """
    opts, name = table.options, table.name
    validate_options(SPEC, opts, name)
    expected = _expected_schema()
    got = [(f.name, f.type.to_arrow()) for f in table.physical_schema]
    if table.metadata_columns or got != expected:
        msg = (
            f"Table '{name}': connector 'nexmark' produces exactly the columns of Nexmark's DDL: "
            f"{DDL_COLUMNS} (plus computed columns and a WATERMARK)"
        )
        raise ConfigError(msg)
    ints = {}
    for key, (default, _) in _INTS.items():
        text = opts.get(key, default)
        try:
            ints[key] = int(text)
        except ValueError:
            msg = f"Table '{name}': option '{key}' = '{text}' is not an integer"
            raise ConfigError(msg) from None
    for key in (
        "first-event.rate",
        "person.proportion",
        "auction.proportion",
        "bid.hot-ratio.auctions",
        "bid.hot-ratio.bidders",
        "auction.hot-ratio.sellers",
    ):
        if ints[key] < 1:
            msg = f"Table '{name}': option '{key}' must be at least 1"
            raise ConfigError(msg)
    if ints["bid.proportion"] < 0 or ints["events.num"] < 0:
        msg = f"Table '{name}': options 'bid.proportion' and 'events.num' must be >= 0"
        raise ConfigError(msg)
    sizes = {k: _memory_size(name, k, opts.get(k, d)) for k, d in _SIZES.items()}
    values = {**ints, **sizes}
    config = NexmarkConfig(**{field: values[key] for key, field in _CONFIG_FIELDS.items()})
    limits = [
        n
        for n in (ints["events.num"] or None, ints["stop-at"] if ints["stop-at"] >= 0 else None)
        if n is not None
    ]
    flags = {k: opts.get(k, d) == "true" for k, d in _BOOLS.items()}
    return config, (min(limits) if limits else None), flags


def _expected_schema() -> list[tuple[str, pa.DataType]]:
    return [
        ("event_type", pa.int32()),
        ("person", pa.struct(PERSON_FIELDS)),
        ("auction", pa.struct(AUCTION_FIELDS)),
        ("bid", pa.struct(BID_FIELDS)),
    ]


class NexmarkSource(Source):
    """See module docstring."""

    def __init__(self, ctx: ConnectorContext):
        config, self.total, flags = settings(ctx.table)
        self.generator = NexmarkGenerator(config)
        self.schema = ctx.table.physical_schema
        self.task, self.tasks = ctx.task_index, ctx.num_tasks
        self.keep_alive, self.paced = flags["keep-alive"], not flags["max-emit-speed"]
        # this task's share of the events: k = task, task + tasks, ...
        self.limit = None if self.total is None else max(0, -(-(self.total - self.task) // self.tasks))
        self.bounded = self.limit is not None and not self.keep_alive
        self.emitted = 0
        self._opened_at = 0.0
        self._opened_events = 0

    def open(self, position: dict | None) -> None:
        """See :meth:`Source.open`."""
        self.emitted = int(position.get("events", 0)) if position else 0
        self._opened_at, self._opened_events = time.monotonic(), self.emitted

    def _due(self) -> int:
        """Events of this task whose time has come (``max-emit-speed`` = false), Nexmark's pacing."""
        c = self.generator.config
        elapsed_ms = (time.monotonic() - self._opened_at) * 1000.0
        start_ms = c.timestamps(np.array([self._global(self._opened_events) + 1]))[0] - c.base_time_ms
        # event number e is due when trunc(e * 1e6 / rate) // 1000 <= start + elapsed
        last_number = int((start_ms + elapsed_ms + 1) * c.first_event_rate / 1000.0)
        return max(0, (last_number - 1 - self.task) // self.tasks + 1)

    def _global(self, local: int) -> int:
        return local * self.tasks + self.task

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """Return the next events, at most ``max_rows`` (see :meth:`Source.poll`)."""
        n = max_rows if self.limit is None else min(max_rows, self.limit - self.emitted)
        if self.paced:
            n = min(n, self._due() - self.emitted)
        if n <= 0:
            if timeout_s > 0 and (self.paced or self.keep_alive):
                time.sleep(min(timeout_s, 0.01))
            return None
        table = self.generator.events(self._global(self.emitted), n, self.tasks)
        self.emitted += n
        return Batch(table.cast(self.schema.to_arrow()))

    def position(self) -> dict:
        """The position just after the last event returned (see :meth:`Source.position`)."""
        return {"events": self.emitted}

    def finished(self) -> bool:
        """True once the last event has been returned (never with ``'keep-alive'``)."""
        return self.bounded and self.emitted >= self.limit


SPEC = register(
    ConnectorSpec(
        name="nexmark",
        options=OPTIONS,
        create_source=NexmarkSource,
        description="the Nexmark benchmark's events (persons, auctions, bids); exactly-once",
        check_source=lambda table, config: settings(table),
    )
)
