r"""A regular join's state: one map state entry per row of a side, as Flink's ``JoinRecordStateViews``.

Per side and join key, the side's rows are a map (:meth:`~streamsql.state.base.KeyedState.get_maps`)
from the row (its :func:`~streamsql.state.layout.encode_keys` bytes over all columns) to
``[count, associations, *row]`` — Flink's ``InputSideHasNoUniqueKey`` view (a ``MapState`` of
record → count) and, for an outer side, ``OuterJoinRecordStateViews``' (record → count and number
of associations, i.e. rows of the other side that match it; kept 0 on an inner side). So a record
costs one point read and one put or delete of its own entry, and a probe one prefix scan of the
other side's rows of the key: O(changed rows), not O(rows of the key) as when a side's rows of a
key were one value read and rewritten whole.

Keys (after the operator prefix; :mod:`streamsql.state.layout`)::

    map_prefixes(kg + key, JOIN_LEFT) + row    a left row of the join key (JOIN_RIGHT: right)
    LAYOUT_KEY                                 JOIN_LAYOUT: the version of this layout

Values: :data:`JOIN_ROW` ``[count, associations, *row]`` (or a block of them, below); under state
TTL (a side's STATE_TTL hint or ``'table.exec.state.ttl'``) wrapped with its write time by
:class:`~streamsql.state.ttl.TtlKeyedState`, so each row expires on its own ``ttl`` after its
count or associations last changed, as Flink's state TTL on that ``MapState``.

A side whose input is insert-only and has no state TTL (:attr:`JoinState.appends`) only ever
adds rows: each row is an entry of its own, under a random 16-byte entry key (:func:`unique_keys`),
with count 1 — no read before the put, no encoding of the row as a key (Flink reads the count;
nothing can tell the two apart, as a row of such a side is never retracted, updated or expired).
On an inner join (no associations to keep per row) a batch of such a side is written as one entry
per join key, :data:`JOIN_ROW_BLOCK` ``[[1, associations, *row], ...]`` under a random entry key
(:meth:`JoinState.append`; the rows encoded with numpy, :func:`~streamsql.state.row_values.encode_rows`):
one RocksDB put per distinct key of the batch instead of one per row (Nexmark q4: ~9,200 bids of
a 10,000-event batch go to a few hundred auctions). A probe reads a block as its rows, each with
count 1; a side's entries may be rows and blocks at once (a snapshot from before blocks reads as
it did; a snapshot with blocks restored by a version without them fails on their format).

Elsewhere rows equal as key bytes are one entry (SQL equality: ``-0.0`` and ``0.0``, every NaN, are one),
as they were one dict key before. Rows whose join key has a NULL are kept (an outer side retracts
them; NOT IN looks at them) but never probed.

A snapshot of the earlier layout (one value per side and key, ``join/rows`` v1) holds no
``LAYOUT_KEY``: reading it fails with :class:`~streamsql.state.layout.StateFormatError` instead of
starting silently empty (the new keys never meet the old ones).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from streamsql.core.py_values import py_values
from streamsql.core.types import hashable
from streamsql.state.base import KeyedState
from streamsql.state.layout import (
    JOIN_LEFT,
    JOIN_RIGHT,
    LAYOUT_KEY,
    StateFormatError,
    ValueFormat,
    encode_keys,
    map_prefixes,
    split_map_key,
    with_key_groups,
)
from streamsql.state.row_values import array_header, encode_rows
from streamsql.state.ttl import StateTtl, TtlKeyedState

#: A row of a side: ``[count, associations, *row]``.
JOIN_ROW = ValueFormat("join/row", 1)
#: The rows of one join key that one batch of an inner join's appending side added, in one entry:
#: ``[[count, associations, *row], ...]`` (:meth:`JoinState.append`).
JOIN_ROW_BLOCK = ValueFormat("join/row-block", 1)
#: The value at ``LAYOUT_KEY``: the layout's version (2: one entry per row; 1 had no such key).
JOIN_LAYOUT = ValueFormat("join/layout", 2)
_SIDE = (JOIN_LEFT, JOIN_RIGHT)
_UNIQUE_BYTES = 16  # random entry keys: a collision among 10^12 rows has odds below 10^-14


def rows_of(table: pa.Table) -> list[tuple]:
    """The rows of ``table`` as Python tuples (hashable: they key the join's state).

    A ROW, ARRAY or MAP value becomes a tuple (of fields, elements, key/value pairs), which
    Arrow builds back into the same value (:func:`~streamsql.runtime.operators.join.table_of`).
    """
    if not table.num_columns:
        return []
    cols = [py_values(c) for c in table.columns]
    if any(pa.types.is_nested(f.type) for f in table.schema):
        cols = [[hashable(v) for v in c] if pa.types.is_nested(f.type) else c
                for c, f in zip(cols, table.schema)]
    return list(zip(*cols))


def unique_keys(n: int) -> list[bytes]:
    """``n`` random entry keys of 16 bytes (an insert-only side's rows: module docstring)."""
    return np.frombuffer(os.urandom(_UNIQUE_BYTES * n), f"V{_UNIQUE_BYTES}").tolist()


@dataclass
class KeyedRows:
    """A batch of one side, with the state it touches.

    Attributes:
        rows, kinds: the batch's rows (tuples) and row kinds.
        keys: per row its encoded join key; ``distinct``: the distinct keys, in order.
        with_nulls: the keys with a NULL column (they never match).
        row_keys: per row its entry key (the row's encoded bytes).
        side: the side of the batch (0 left, 1 right).
        mine: per ``(key, row key)`` of the batch, that row's entry on this side,
            ``[count, associations, row, stored]`` (``[0, 0, row, False]`` when absent); None
            on a side that appends (:attr:`JoinState.appends`), whose rows are new entries:
            the operator fills ``associations`` instead.
        associations: on a side that appends, per row (in order) its number of matches.
        theirs: per distinct key, the other side's rows ``(row, [count, associations, row key])``
            ([] for a key with a NULL).
        prefixes: per side, per distinct key, its map prefix.
        extra: the values of further (plain) state keys read with them.
    """

    rows: list[tuple]
    kinds: list[int]
    keys: list[bytes]
    distinct: list[bytes]
    with_nulls: set[bytes]
    row_keys: list[bytes]
    side: int
    mine: dict | None
    theirs: dict
    prefixes: tuple[dict, dict]
    extra: list
    associations: list[int]


class JoinState:
    """Both sides' rows of a regular (or semi / anti) join in the operator's keyed state.

    Args:
        state: the operator's keyed state.
        ttls: per side, its rows' state TTL (None: kept for ever).
        insert_only: per side, its input is insert-only.

    Attributes:
        appends: per side, whether its rows are only ever added (insert-only, no TTL): then each
            row is an entry of its own (module docstring).
    """

    def __init__(self, state: KeyedState, ttls: tuple[StateTtl | None, StateTtl | None] = (None, None),
                 insert_only: tuple[bool, bool] = (False, False)):
        self.state = state
        self.views = tuple(TtlKeyedState(state, t) if t is not None else state for t in ttls)
        self.appends = tuple(i and t is None for i, t in zip(insert_only, ttls))
        self._checked = False

    def load(self, table: pa.Table, rows: list[tuple], kinds: list[int], side: int, keys: list[bytes],
             with_nulls: set[bytes], extra: tuple[bytes, ...] = ()) -> KeyedRows:
        """``table`` (a batch of ``side``, as ``rows``) with the entries it touches.

        One point read of this side's entries of the batch's rows, one prefix scan per distinct
        key of the other side's, one multi-get of ``extra`` (plain keys).

        Raises:
            StateFormatError: the state was written by another layout or format.
        """
        self._check_layout()
        distinct, prefixes = self._prefixes(keys)
        mine_p = prefixes[side]
        decode = JOIN_ROW.decode
        if self.appends[side]:  # a new entry per row, none to read
            row_keys = unique_keys(len(rows))
            mine = None
        else:
            row_keys = encode_keys(table.columns, table.num_rows)
            first = {}
            for k, rk, x in zip(keys, row_keys, rows):
                if (k, rk) not in first:
                    first[k, rk] = x
            mine = {}
            for (pair, x), v in zip(first.items(), self.views[side].get_map_values(
                    [(mine_p[k], rk) for k, rk in first])):
                if v is None:
                    mine[pair] = [0, 0, x, False]
                else:
                    r = decode(v)
                    mine[pair] = [r[0], r[1], tuple(r[2:]), True]
        theirs = self._theirs(side, distinct, with_nulls, prefixes[1 - side])
        values = self.state.get_many(list(extra)) if extra else []
        return KeyedRows(rows, kinds, keys, distinct, with_nulls, row_keys, side, mine, theirs, prefixes,
                         values, [])

    def probe(self, side: int, keys: list[bytes], with_nulls: set[bytes]) -> tuple[dict, tuple[dict, dict]]:
        """The other side's rows for a batch of ``side`` that appends (:attr:`appends`), read only.

        Args:
            side: the batch's side.
            keys: per row of the batch its encoded join key.
            with_nulls: the keys with a NULL column (they never match).

        Returns:
            Per distinct key the other side's rows ``(row, [count, associations, row key])``,
            and per side, per distinct key, its map prefix (for :meth:`append`).

        Raises:
            StateFormatError: the state was written by another layout or format.
        """
        self._check_layout()
        distinct, prefixes = self._prefixes(keys)
        return self._theirs(side, distinct, with_nulls, prefixes[1 - side]), prefixes

    def append(self, side: int, keys: list[bytes], prefixes: tuple[dict, dict], table: pa.Table,
               associations: np.ndarray) -> None:
        """Add the rows of ``table`` (a batch of an inner join's ``side``, which appends), in one write.

        The rows of one join key are one new entry, a :data:`JOIN_ROW_BLOCK` of
        ``[1, associations, *row]`` per row in batch order (module docstring), encoded for the
        whole batch at once (:func:`~streamsql.state.row_values.encode_rows`) where its column
        types allow. Only an inner join appends blocks: a block's rows have no entry key of
        their own, so their associations can never be rewritten (an outer side's must be).

        Args:
            side: the batch's side; :attr:`appends` must hold for it.
            keys: per row its encoded join key.
            prefixes: from :meth:`probe`.
            table: the batch's rows.
            associations: per row, its number of matches (int64).
        """
        n = table.num_rows
        rows = encode_rows(None, [np.ones(n, np.int64), associations], table)
        if rows is None:
            encode = JOIN_ROW.encode  # the same msgpack after JOIN_ROW's 3-byte tag
            rows = [encode([1, a, *x])[3:] for a, x in zip(associations.tolist(), rows_of(table))]
        first: dict[bytes, int] = {}
        group = np.fromiter((first.setdefault(k, len(first)) for k in keys), np.int64, count=n)
        order = np.argsort(group, kind="stable").tolist()  # each key's rows together, in batch order
        sizes = np.bincount(group, minlength=len(first)).tolist()
        mine_p, tag, at = prefixes[side], JOIN_ROW_BLOCK.tag, 0
        puts = []
        for k, size, rk in zip(first, sizes, unique_keys(len(first))):
            part = order[at:at + size]
            at += size
            puts.append((mine_p[k], rk, b"".join([tag, array_header(size), *(rows[i] for i in part)])))
        self.views[side].write_maps(puts)

    def _prefixes(self, keys: list[bytes]) -> tuple[list[bytes], tuple[dict, dict]]:
        """The distinct keys of ``keys`` in order, and per side their map prefixes."""
        distinct = list(dict.fromkeys(keys))
        grouped = with_key_groups(distinct)
        return distinct, tuple(dict(zip(distinct, map_prefixes(grouped, tag))) for tag in _SIDE)

    def _theirs(self, side: int, distinct: list[bytes], with_nulls: set[bytes], their_p: dict) -> dict:
        """Per distinct key, the other side's rows ``(row, [count, associations, row key])``."""
        probed = [k for k in distinct if k not in with_nulls]
        theirs = {k: [] for k in distinct}
        for k, entries in zip(probed, self.views[1 - side].get_maps([their_p[k] for k in probed])):
            out = theirs[k]
            for rk, v in entries:
                for r, key in _entry_rows(rk, v):
                    out.append((tuple(r[2:]), [r[0], r[1], key]))
        return theirs

    def write(self, kb: KeyedRows, touched: dict, puts: list | None = None) -> None:
        """Write back this side's entries of the batch, the other side's in ``touched``, and ``puts``.

        Args:
            kb: what :meth:`load` returned, its entries updated.
            touched: the other side's entries whose associations changed,
                ``{(key, row key): (row, entry)}``.
            puts: further (plain key, value) pairs.
        """
        side = kb.side
        encode = JOIN_ROW.encode
        mine_p, their_p = kb.prefixes[side], kb.prefixes[1 - side]
        mine_puts, mine_deletes = [], []
        if kb.mine is None:  # appends: one new entry per row
            mine_puts = [(mine_p[k], rk, encode([1, assoc, *x]))
                         for k, rk, x, assoc in zip(kb.keys, kb.row_keys, kb.rows, kb.associations)]
        else:
            for (k, rk), (count, assoc, x, stored) in kb.mine.items():
                if count > 0:
                    mine_puts.append((mine_p[k], rk, encode([count, assoc, *x])))
                elif stored:
                    mine_deletes.append((mine_p[k], rk))
        their_puts = [(their_p[k], rk, encode([e[0], e[1], *y])) for (k, rk), (y, e) in touched.items()]
        mine_view, their_view = self.views[side], self.views[1 - side]
        if mine_view is their_view:
            mine_view.write_maps(mine_puts + their_puts, mine_deletes)
        else:
            mine_view.write_maps(mine_puts, mine_deletes)
            if their_puts:
                their_view.write_maps(their_puts)
        if puts:
            self.state.write(puts)

    def left_rows(self):
        """Every left row in state: ``(row, count, associations)`` (a scan of all state)."""
        for key, value in self.state.items():
            split = split_map_key(key)
            if split is not None and split[1] and split[0][4:5] == JOIN_LEFT:  # not a marker (rocksdb)
                for r, _ in _entry_rows(split[1], value):
                    yield tuple(r[2:]), r[0], r[1]

    def _check_layout(self) -> None:
        """Refuse state of the earlier layout (module docstring); mark fresh state with this one."""
        if self._checked:
            return
        (marker,) = self.state.get_many([LAYOUT_KEY])
        if marker is not None:
            JOIN_LAYOUT.decode(marker)  # StateFormatError for another version
        elif next(iter(self.state.items()), None) is not None:
            msg = (f"State written by another format: expected '{JOIN_LAYOUT.name}' v{JOIN_LAYOUT.version} "
                   "(one state entry per row of a join side), found a regular join's state without it "
                   "('join/rows' v1: one value per side and join key); restore from a snapshot of this "
                   "version or start the job afresh")
            raise StateFormatError(msg)
        else:
            self.state.write([(LAYOUT_KEY, JOIN_LAYOUT.encode(JOIN_LAYOUT.version))])
        self._checked = True


def _entry_rows(entry_key: bytes, value: bytes) -> list[tuple[list, bytes | None]]:
    """The rows ``[count, associations, *row]`` of one entry of a side, each with its entry key.

    A :data:`JOIN_ROW_BLOCK`'s rows have none (None: rewriting one alone would lose the others).

    Raises:
        StateFormatError: a value of another format.
    """
    if value[:3] == JOIN_ROW_BLOCK.tag:
        return [(r, None) for r in JOIN_ROW_BLOCK.decode(value)]
    return [(JOIN_ROW.decode(value), entry_key)]
