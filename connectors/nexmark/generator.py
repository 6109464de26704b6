"""Nexmark events, vectorized: person, auction and bid values for a range of event numbers.

The event model and every rule below are the Nexmark project's Flink generator
(``com.github.nexmark.flink.generator``: GeneratorConfig, NexmarkGenerator, PersonGenerator,
AuctionGenerator, BidGenerator, PriceGenerator, StringsGenerator), one generator
(parallelism 1), ``firstEventId`` = ``firstEventNumber`` = 1 as its table source sets them:

- event ``k`` (0-based, ``eventsCountSoFar``) has event number ``k + 1`` and id ``k + 2``; its
  type is by ``id % total`` (total = the three proportions): below ``person.proportion`` a
  person (``event_type`` 0), below person + auction an auction (1), else a bid (2);
- its timestamp is ``base + trunc((k + 1) * 1e6 / first-event.rate) // 1000`` ms (the rate shape
  and ``next-event.rate`` are never read by Nexmark's generator either);
- person ids, auction ids, sellers, bidders, prices, auction lengths, strings and extras as the
  generator classes (hot sellers/auctions/bidders by their ratios, 1000 active people, 100
  in-flight auctions); a bid's bidder gets ``FIRST_PERSON_ID`` (1000) added twice, as Nexmark's
  BidGenerator does.

Randomness differs on purpose: where Nexmark draws from an unseeded ``SplittableRandom``, every
draw here is a pure function of (seed, draw, event number) — a counter-based hash — so the events
are deterministic and any range is generated on its own, whatever the batch sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.datagen import splitmix64

FIRST_PERSON_ID = 1000
FIRST_AUCTION_ID = 1000
FIRST_CATEGORY_ID = 10
NUM_CATEGORIES = 5
PERSON_ID_LEAD = 10
AUCTION_ID_LEAD = 10
HOT_RATIO = 100  # HOT_SELLER_RATIO, HOT_AUCTION_RATIO and HOT_BIDDER_RATIO
NUM_ACTIVE_PEOPLE = 1000
NUM_IN_FLIGHT_AUCTIONS = 100
CHANNELS_NUMBER = 10_000
HOT_CHANNELS = ("Google", "Facebook", "Baidu", "Apple")
US_STATES = "AZ,CA,ID,OR,WA,WY".split(",")
US_CITIES = "Phoenix,Los Angeles,San Francisco,Boise,Portland,Bend,Redmond,Seattle,Kent,Cheyenne".split(",")
FIRST_NAMES = "Peter,Paul,Luke,John,Saul,Vicky,Kate,Julie,Sarah,Deiter,Walter".split(",")
LAST_NAMES = "Shultz,Abrams,Spencer,White,Bartels,Walton,Smith,Jones,Noris".split(",")
#: StringsGenerator.REUSABLE_EXTRA_STRING's length: extras are slices of it.
REUSABLE_LENGTH = 1024 * 1024

PERSON, AUCTION, BID = 0, 1, 2

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class NexmarkConfig:
    """The generator's settings (the connector's options, parsed; sizes in bytes).

    Attributes:
        first_event_rate: events per second of event time (``first-event.rate``).
        person_proportion, auction_proportion, bid_proportion: the interleaving.
        person_avg_size, auction_avg_size, bid_avg_size: the idealized sizes extras pad to.
        hot_auction_ratio, hot_bidders_ratio, hot_sellers_ratio: 1 - 1/ratio of the bids (auctions)
            go to a hot auction / bidder (seller).
        base_time_ms: the first event's time base, ms since the epoch (UTC).
        seed: the seed of every random draw.
    """

    first_event_rate: int = 10_000
    person_proportion: int = 1
    auction_proportion: int = 3
    bid_proportion: int = 46
    person_avg_size: int = 200
    auction_avg_size: int = 500
    bid_avg_size: int = 100
    hot_auction_ratio: int = 2
    hot_bidders_ratio: int = 4
    hot_sellers_ratio: int = 4
    base_time_ms: int = 0
    seed: int = 0

    @property
    def total_proportion(self) -> int:
        """The length of one person/auction/bid cycle of event ids."""
        return self.person_proportion + self.auction_proportion + self.bid_proportion

    def timestamps(self, numbers: np.ndarray) -> np.ndarray:
        """Event time (ms since the epoch) of event numbers, as GeneratorConfig.timestampForEvent."""
        delay_us = 1_000_000.0 / self.first_event_rate
        return self.base_time_ms + (numbers.astype(np.float64) * delay_us).astype(np.int64) // 1000


class _Draws:
    """The random draws of a set of events: draw ``d`` of event ``k`` is a pure function of both."""

    def __init__(self, seed: int, events: np.ndarray):
        self.key = splitmix64(np.array([seed & (2**64 - 1)], dtype=np.uint64))[0]
        self.events = events.astype(np.uint64)

    def hashes(self, draw: int, width: int = 1) -> np.ndarray:
        """uint64 hashes, shape (events,) or (events, width) for ``width`` > 1."""
        with np.errstate(over="ignore"):
            base = splitmix64(self.events ^ self.key) + np.uint64(draw) * _GOLDEN
            if width == 1:
                return splitmix64(base)
            return splitmix64(base[:, None] + np.arange(width, dtype=np.uint64)[None, :] * _M1)

    def unit(self, draw: int) -> np.ndarray:
        """Floats in [0, 1), as SplittableRandom.nextDouble."""
        return (self.hashes(draw) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))

    def below(self, draw: int, n) -> np.ndarray:
        """Integers in [0, n) (n a scalar or an array), as SplittableRandom.nextInt(n)."""
        return (self.unit(draw) * n).astype(np.int64)


def _java_div(a: np.ndarray, b: int) -> np.ndarray:
    """Java's long division (truncates toward zero)."""
    return np.sign(a) * (np.abs(a) // b)


def _java_round(x: np.ndarray) -> np.ndarray:
    """Java's Math.round: floor(x + 0.5)."""
    return np.floor(x + 0.5).astype(np.int64)


def _strings(chars: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """A string array of the first ``lengths[i]`` bytes of each row of the uint8 matrix ``chars``."""
    keep = np.arange(chars.shape[1])[None, :] < lengths[:, None]
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = np.ascontiguousarray(chars[keep])
    return pa.Array.from_buffers(pa.string(), len(lengths), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _slices(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """A string array of ``text[starts[i] : starts[i] + lengths[i]]`` (``text`` a uint8 array)."""
    width = int(lengths.max()) if len(lengths) else 0
    if width == 0:
        return pa.array([""] * len(lengths), pa.string())
    windows = np.lib.stride_tricks.sliding_window_view(text, width)
    return _strings(windows[np.minimum(starts, len(text) - width)], lengths)


class NexmarkGenerator:
    """Builds the person, auction and bid columns of a range of events (see module docstring)."""

    def __init__(self, config: NexmarkConfig):
        self.config = config

    @cached_property
    def _reusable(self) -> np.ndarray:
        """StringsGenerator.REUSABLE_EXTRA_STRING: 1 MiB of random lowercase letters (uint8)."""
        draws = _Draws(self.config.seed, np.arange(REUSABLE_LENGTH, dtype=np.uint64))
        return (np.uint8(ord("a")) + draws.below(900, 26)).astype(np.uint8)

    @cached_property
    def _channels(self) -> tuple[pa.Array, pa.Array]:
        """(channel, url) of the 4 hot channels then the 10,000 cached ones (BidGenerator's caches)."""
        n = len(HOT_CHANNELS) + CHANNELS_NUMBER
        draws = _Draws(self.config.seed, np.arange(n, dtype=np.uint64))
        parts = [self._next_string(draws, 910 + 2 * i, 5, "_") for i in range(3)]
        urls = pc.binary_join_element_wise("https://www.nexmark.com", *parts, "item.htm?query=1", "/")
        cached = np.arange(CHANNELS_NUMBER, dtype=np.int64)
        with_id = draws.below(920, 10)[len(HOT_CHANNELS) :] > 0
        ids = [str(abs_reverse(i)) for i in range(CHANNELS_NUMBER)]
        suffix = pa.array([f"&channel_id={v}" if w else "" for v, w in zip(ids, with_id, strict=True)])
        cached_urls = pc.binary_join_element_wise(urls[len(HOT_CHANNELS) :], suffix, "")
        channels = pa.array([*HOT_CHANNELS, *(f"channel-{i}" for i in cached)])
        return channels, pa.concat_arrays([urls[: len(HOT_CHANNELS)], cached_urls])

    # --- shared rules -----------------------------------------------------------------------

    def _last_base0_person_id(self, ids: np.ndarray) -> np.ndarray:
        c = self.config
        epoch, offset = ids // c.total_proportion, ids % c.total_proportion
        offset = np.minimum(offset, c.person_proportion - 1)
        return epoch * c.person_proportion + offset

    def _last_base0_auction_id(self, ids: np.ndarray) -> np.ndarray:
        c = self.config
        epoch, offset = ids // c.total_proportion, ids % c.total_proportion
        person = offset < c.person_proportion
        bid = offset >= c.person_proportion + c.auction_proportion
        epoch = np.where(person, epoch - 1, epoch)
        offset = np.where(person | bid, c.auction_proportion - 1, offset - c.person_proportion)
        return epoch * c.auction_proportion + offset

    def _next_base0_person_id(self, ids: np.ndarray, draws: _Draws, draw: int) -> np.ndarray:
        people = self._last_base0_person_id(ids) + 1
        active = np.minimum(people, NUM_ACTIVE_PEOPLE)
        return people - active + draws.below(draw, active + PERSON_ID_LEAD)

    def _next_base0_auction_id(self, ids: np.ndarray, draws: _Draws, draw: int) -> np.ndarray:
        last = self._last_base0_auction_id(ids)
        low = np.maximum(last - NUM_IN_FLIGHT_AUCTIONS, 0)
        return low + draws.below(draw, last - low + 1 + AUCTION_ID_LEAD)

    @staticmethod
    def _price(draws: _Draws, draw: int) -> np.ndarray:
        return _java_round(10.0 ** (draws.unit(draw) * 6.0) * 100.0)

    @staticmethod
    def _next_string(draws: _Draws, draw: int, max_length: int, special: str = " ") -> pa.Array:
        """StringsGenerator.nextString: 3 to max_length - 1 chars, 1/13 of them ``special``, trimmed."""
        lengths = 3 + draws.below(draw, max_length - 3)
        h = draws.hashes(draw + 1, max_length - 1)
        letters = (np.uint8(ord("a")) + ((h >> np.uint64(32)) % np.uint64(26)).astype(np.uint8)).astype(
            np.uint8
        )
        chars = np.where((h & np.uint64(0xFFFFFFFF)) % np.uint64(13) == 0, np.uint8(ord(special)), letters)
        out = _strings(chars.astype(np.uint8), lengths)
        return pc.utf8_trim(out, " ") if special == " " else out

    def _extra(self, draws: _Draws, draw: int, current: np.ndarray, average: int) -> pa.Array:
        """StringsGenerator.nextExtra: pads an event to ``average`` bytes ±20 % with a slice of letters."""
        desired = np.maximum(average - current, 0)
        delta = _java_round(desired * 0.2)
        size = desired - delta + np.where(delta == 0, 0, draws.below(draw, 2 * np.maximum(delta, 1)))
        size = np.where(current > average, 0, size)
        starts = draws.below(draw + 1, REUSABLE_LENGTH - size)
        return _slices(self._reusable, starts, size)

    # --- the three event kinds ----------------------------------------------------------------

    def persons(self, events: np.ndarray, ids: np.ndarray, ts: np.ndarray) -> pa.StructArray:
        """Person rows (id, name, emailAddress, creditCard, city, state, dateTime, extra)."""
        d = _Draws(self.config.seed, events)
        names = pa.array([f"{f} {last}" for f in FIRST_NAMES for last in LAST_NAMES])
        name = names.take(d.below(10, len(FIRST_NAMES)) * len(LAST_NAMES) + d.below(11, len(LAST_NAMES)))
        domain = pc.binary_join_element_wise(self._next_string(d, 14, 5), ".com", "")
        email = pc.binary_join_element_wise(self._next_string(d, 12, 7), domain, "@")
        groups = np.stack([d.below(16 + i, 10_000) for i in range(4)], axis=1)
        digits = (groups[:, :, None] // np.array([1000, 100, 10, 1])[None, None, :]) % 10
        cc = np.full((len(events), 4, 5), ord(" "), dtype=np.uint8)
        cc[:, :, :4] = (digits + ord("0")).astype(np.uint8)
        card = _strings(cc.reshape(len(events), 20), np.full(len(events), 19))
        city = pa.array(US_CITIES).take(d.below(20, len(US_CITIES)))
        state = pa.array(US_STATES).take(d.below(21, len(US_STATES)))
        size = 8 + sum(
            pc.binary_length(a).to_numpy(zero_copy_only=False) for a in (name, email, card, city, state)
        )
        extra = self._extra(d, 22, size, self.config.person_avg_size)
        pid = self._last_base0_person_id(ids) + FIRST_PERSON_ID
        cols = [pid, name, email, card, city, state, _ms(ts), extra]
        return pa.StructArray.from_arrays(
            [
                pa.array(c, f.type) if isinstance(c, np.ndarray) else c
                for c, f in zip(cols, PERSON_FIELDS, strict=True)
            ],
            fields=PERSON_FIELDS,
        )

    def auctions(self, events: np.ndarray, ids: np.ndarray, ts: np.ndarray) -> pa.StructArray:
        """Auction rows (id, itemName, description, ..., seller, category, extra: AUCTION_FIELDS)."""
        c, d = self.config, _Draws(self.config.seed, events)
        hot = d.below(30, c.hot_sellers_ratio) > 0
        seller = (
            np.where(
                hot,
                _java_div(self._last_base0_person_id(ids), HOT_RATIO) * HOT_RATIO,
                self._next_base0_person_id(ids, d, 31),
            )
            + FIRST_PERSON_ID
        )
        category = FIRST_CATEGORY_ID + d.below(32, NUM_CATEGORIES)
        initial = self._price(d, 33)
        # AuctionGenerator.nextAuctionLengthMs: average horizon = when the auction 100 in-flight
        # auctions ahead will be generated.
        ahead = (NUM_IN_FLIGHT_AUCTIONS * c.total_proportion) // c.auction_proportion
        horizon = c.timestamps(events + 1 + ahead) - ts
        expires = ts + 1 + d.below(34, np.maximum(horizon * 2, 1))
        item = self._next_string(d, 35, 20)
        desc = self._next_string(d, 37, 100)
        reserve = initial + self._price(d, 39)
        size = 8 + pc.binary_length(item).to_numpy() + pc.binary_length(desc).to_numpy() + 40
        extra = self._extra(d, 40, size, c.auction_avg_size)
        aid = self._last_base0_auction_id(ids) + FIRST_AUCTION_ID
        cols = [aid, item, desc, initial, reserve, _ms(ts), _ms(expires), seller, category, extra]
        return pa.StructArray.from_arrays(
            [
                pa.array(c, f.type) if isinstance(c, np.ndarray) else c
                for c, f in zip(cols, AUCTION_FIELDS, strict=True)
            ],
            fields=AUCTION_FIELDS,
        )

    def bids(self, events: np.ndarray, ids: np.ndarray, ts: np.ndarray) -> pa.StructArray:
        """Bid rows (auction, bidder, price, channel, url, dateTime, extra)."""
        c, d = self.config, _Draws(self.config.seed, events)
        hot_auction = d.below(50, c.hot_auction_ratio) > 0
        auction = (
            np.where(
                hot_auction,
                _java_div(self._last_base0_auction_id(ids), HOT_RATIO) * HOT_RATIO,
                self._next_base0_auction_id(ids, d, 51),
            )
            + FIRST_AUCTION_ID
        )
        hot_bidder = d.below(52, c.hot_bidders_ratio) > 0
        bidder = (
            np.where(
                hot_bidder,
                _java_div(self._last_base0_person_id(ids), HOT_RATIO) * HOT_RATIO + 1,
                self._next_base0_person_id(ids, d, 53),
            )
            + 2 * FIRST_PERSON_ID
        )
        price = self._price(d, 54)
        hot_channel = d.below(55, 2) > 0
        channel_index = np.where(
            hot_channel, d.below(56, len(HOT_CHANNELS)), len(HOT_CHANNELS) + d.below(57, CHANNELS_NUMBER)
        )
        channels, urls = self._channels
        extra = self._extra(d, 58, np.full(len(events), 32), c.bid_avg_size)
        cols = [
            auction,
            bidder,
            price,
            channels.take(channel_index),
            urls.take(channel_index),
            _ms(ts),
            extra,
        ]
        return pa.StructArray.from_arrays(
            [
                pa.array(c, f.type) if isinstance(c, np.ndarray) else c
                for c, f in zip(cols, BID_FIELDS, strict=True)
            ],
            fields=BID_FIELDS,
        )

    def events(self, first: int, count: int, step: int = 1) -> pa.Table:
        """``count`` events from ``first`` by ``step`` as (event_type, person, auction, bid)."""
        c = self.config
        events = first + np.arange(count, dtype=np.int64) * step
        ids = events + 2
        ts = c.timestamps(events + 1)
        rem = ids % c.total_proportion
        kind = np.where(
            rem < c.person_proportion,
            PERSON,
            np.where(rem < c.person_proportion + c.auction_proportion, AUCTION, BID),
        )
        columns = [pa.array(kind.astype(np.int32))]
        for k, build in ((PERSON, self.persons), (AUCTION, self.auctions), (BID, self.bids)):
            other = kind != k
            if count and other.mean() < 0.5:
                # most rows are of this kind: build it for every row and null the others (no copy)
                values = build(events, ids, ts)
                columns.append(
                    pa.StructArray.from_arrays(
                        values.flatten(), fields=list(values.type), mask=pa.array(other)
                    )
                )
                continue
            rows = np.flatnonzero(~other)
            values = build(events[rows], ids[rows], ts[rows])
            position = np.full(count, -1, dtype=np.int64)
            position[rows] = np.arange(len(rows))
            columns.append(values.take(pa.array(position, mask=other)))
        return pa.Table.from_arrays(columns, names=["event_type", "person", "auction", "bid"])


def abs_reverse(i: int) -> int:
    """``Math.abs(Integer.reverse(i))`` in Java (32-bit; MIN_VALUE stays negative)."""
    r = int(f"{i & 0xFFFFFFFF:032b}"[::-1], 2)
    r = r - (1 << 32) if r >= 1 << 31 else r
    return r if r == -(2**31) else abs(r)


def _ms(ms: np.ndarray) -> pa.Array:
    return pa.array(ms.astype(np.int64), pa.timestamp("ms"))


PERSON_FIELDS = [
    pa.field("id", pa.int64()),
    pa.field("name", pa.string()),
    pa.field("emailAddress", pa.string()),
    pa.field("creditCard", pa.string()),
    pa.field("city", pa.string()),
    pa.field("state", pa.string()),
    pa.field("dateTime", pa.timestamp("ms")),
    pa.field("extra", pa.string()),
]
AUCTION_FIELDS = [
    pa.field("id", pa.int64()),
    pa.field("itemName", pa.string()),
    pa.field("description", pa.string()),
    pa.field("initialBid", pa.int64()),
    pa.field("reserve", pa.int64()),
    pa.field("dateTime", pa.timestamp("ms")),
    pa.field("expires", pa.timestamp("ms")),
    pa.field("seller", pa.int64()),
    pa.field("category", pa.int64()),
    pa.field("extra", pa.string()),
]
BID_FIELDS = [
    pa.field("auction", pa.int64()),
    pa.field("bidder", pa.int64()),
    pa.field("price", pa.int64()),
    pa.field("channel", pa.string()),
    pa.field("url", pa.string()),
    pa.field("dateTime", pa.timestamp("ms")),
    pa.field("extra", pa.string()),
]
