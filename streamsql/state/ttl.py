"""State TTL: idle state expires, as Flink's ``'table.exec.state.ttl'`` (idle state retention).

Flink's SQL operators build their state with ``StateTtlConfig`` (``StateConfigUtil.createTtlConfig``):
the time of an entry is its last write (``OnCreateAndWrite``), it is processing time, and an entry
whose ``last write + ttl <= now`` is never returned again (``NeverReturnExpired``): to the operator
the key simply has no state. Nothing is emitted when state expires. Here the same rule holds per
value an operator writes (:class:`TtlKeyedState`), a map entry included (as Flink's ``MapState``
under TTL: each entry expires on its own); an operator that keeps values of several rows in one
state value stamps each row itself with :meth:`StateTtl.now`.

Processing time comes from an injectable clock (ms), the wall clock by default, so tests expire
state deterministically. The write times are part of the stored values, so a checkpoint holds
them and a restored job expires the same entries (a job that was down for longer than the TTL
finds its idle state expired, as in Flink).

Stored value: :data:`TTL_VALUE` ``tag + 8-byte big-endian write time (ms) + the operator's own
value``; a snapshot written with TTL and read without (or the other way round) fails with a
:class:`~streamsql.state.layout.StateFormatError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from streamsql.state.base import KeyedState, MapEntry, MapPut
from streamsql.state.layout import ValueFormat

#: A value written under state TTL: its write time, then the operator's value.
TTL_VALUE = ValueFormat("state-ttl/value", 1)


def wall_clock_ms() -> int:
    """The processing time: the wall clock in ms since the epoch."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class StateTtl:
    """How long idle state is kept, and the clock that measures it.

    Attributes:
        ttl_ms: the retention in ms (> 0).
        clock: processing time in ms (:func:`wall_clock_ms`, or a test's clock).
    """

    ttl_ms: int
    clock: Callable[[], int] = wall_clock_ms

    def now(self) -> int:
        """The current processing time (ms)."""
        return self.clock()

    def alive(self, written_at: int, now: int) -> bool:
        """Whether an entry last written at ``written_at`` is still visible at ``now`` (Flink's rule)."""
        return written_at + self.ttl_ms > now


class TtlKeyedState(KeyedState):
    """A keyed state whose values expire ``ttl`` after their last write (module docstring).

    Args:
        state: the operator's keyed state.
        ttl: the retention and its clock.
    """

    def __init__(self, state: KeyedState, ttl: StateTtl):
        self.state = state
        self.ttl = ttl
        self._purged_at = ttl.now()

    def get_timed(self, keys: list[bytes], cache: bool = True) -> tuple[list[bytes | None], list[int]]:
        """Values for ``keys`` (None where absent or expired) and their write times (0 where None).

        ``cache``: as :meth:`~streamsql.state.base.KeyedState.get_many`'s.
        """
        now = self.ttl.now()
        values: list[bytes | None] = []
        times: list[int] = []
        for raw in self.state.get_many(keys, cache):
            if raw is not None:
                data = TTL_VALUE.unwrap(raw)
                written = int.from_bytes(data[:8], "big")
                if self.ttl.alive(written, now):
                    values.append(bytes(data[8:]))
                    times.append(written)
                    continue
            values.append(None)
            times.append(0)
        return values, times

    def get_many(self, keys: list[bytes], cache: bool = True) -> list[bytes | None]:
        """Values for ``keys`` in order (None where absent or expired)."""
        return self.get_timed(keys, cache)[0]

    def write(self, puts: list[tuple[bytes, bytes]], deletes: list[bytes] = (),
              times: list[int] | None = None) -> None:
        """Apply puts (stamped with ``times``, default now) and deletes in one write batch."""
        if times is None:
            times = [self.ttl.now()] * len(puts)
        wrapped = [(k, TTL_VALUE.wrap(t.to_bytes(8, "big") + v)) for (k, v), t in zip(puts, times)]
        self.state.write(wrapped, deletes)

    def _live(self, raw: bytes, now: int) -> bytes | None:
        """The operator's value in a stored one, None if expired."""
        data = TTL_VALUE.unwrap(raw)
        return bytes(data[8:]) if self.ttl.alive(int.from_bytes(data[:8], "big"), now) else None

    def get_maps(self, prefixes: list[bytes]) -> list[list[tuple[bytes, bytes]]]:
        """Per map prefix, its entries that have not expired; the expired ones met are deleted."""
        now = self.ttl.now()
        out: list[list[tuple[bytes, bytes]]] = []
        dead: list[tuple[bytes, bytes]] = []
        for prefix, entries in zip(prefixes, self.state.get_maps(prefixes)):
            live = []
            for k, raw in entries:
                v = self._live(raw, now)
                if v is None:
                    dead.append((prefix, k))
                else:
                    live.append((k, v))
            out.append(live)
        if dead:  # invisible already; deleting them keeps a map's scans short
            self.state.write_maps([], dead)
        return out

    def get_map_values(self, entries: list[MapEntry]) -> list[bytes | None]:
        """Values of map entries (None where absent or expired)."""
        now = self.ttl.now()
        return [None if raw is None else self._live(raw, now) for raw in self.state.get_map_values(entries)]

    def write_maps(self, puts: list[MapPut], deletes: list[MapEntry] = ()) -> None:
        """Put map entries stamped now, then delete ``deletes``, in one write batch."""
        stamp = self.ttl.now().to_bytes(8, "big")
        self.state.write_maps([(p, k, TTL_VALUE.wrap(stamp + v)) for p, k, v in puts], deletes)

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """The (key, value) pairs that have not expired, in key-group order."""
        now = self.ttl.now()
        for k, raw in self.state.items():
            data = TTL_VALUE.unwrap(raw)
            if self.ttl.alive(int.from_bytes(data[:8], "big"), now):
                yield k, bytes(data[8:])

    def purge(self) -> None:
        """Delete the expired entries, at most once per TTL period (a scan of the operator's state).

        Expired entries are invisible at once; this bounds the space of keys that never come back
        (Flink's cleanup in full snapshots and RocksDB compaction does the same job). Operators
        call it when they checkpoint.
        """
        now = self.ttl.now()
        if now - self._purged_at < self.ttl.ttl_ms:
            return
        self._purged_at = now
        dead = [k for k, raw in self.state.items()
                if not self.ttl.alive(int.from_bytes(TTL_VALUE.unwrap(raw)[:8], "big"), now)]
        if dead:
            self.state.write([], dead)

    def clear(self) -> None:
        """Remove every entry."""
        self.state.clear()
