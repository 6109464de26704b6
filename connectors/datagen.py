"""The ``datagen`` connector (source only): generated rows, as Flink's datagen.

Delivery guarantee: exactly-once. Every value is a pure function of (seed, column, row number),
and :meth:`DataGenSource.position` is the number of rows emitted, so a restored source continues
with exactly the rows it would have produced (sequences resume; random values are identical),
whatever the batch sizes. Only TIMESTAMP/DATE random values depend on the wall clock (now minus
a random past offset), as in Flink.

Options (Flink's): ``'rows-per-second'`` (default 10000; poll never returns rows faster),
``'number-of-rows'`` (bounded when set), ``'fields.<f>.kind'`` = ``random`` (default) or
``sequence``; for sequences ``'fields.<f>.start'`` and ``'fields.<f>.end'`` (required; the
source ends after the shortest sequence); for random ``'fields.<f>.min'``/``'fields.<f>.max'``
(numbers), ``'fields.<f>.length'`` (STRING/BYTES, default 100), a TIME a random time of day,
``'fields.<f>.max-past'``
(TIMESTAMP/DATE, ms, default 0), ``'fields.<f>.null-rate'`` (default 0). Extension: ``'seed'``
(default 0).

ROW, ARRAY and MAP columns are random, as Flink's ``RandomGeneratorVisitor``: a ROW's fields, an
ARRAY's elements and a MAP's keys and values take the options of a field named by the path below
the column, as Flink names them: ``'fields.r.a.min'`` (field ``a`` of ROW ``r``, nested ROWs
``'fields.r.x.y.max'``), ``'fields.arr.element.length'``, ``'fields.m.key.min'``,
``'fields.m.value.null-rate'``; ``'fields.<f>.length'`` is an ARRAY's or MAP's number of entries
(default 3, Flink's ``RANDOM_COLLECTION_LENGTH_DEFAULT``), a MAP's keys drawn alike collapsing
into one entry (the last value, as Java's ``HashMap.put``); ``'fields.<f>.null-rate'`` makes the
whole value NULL. A part takes no ``kind`` (it is random), and a field option the column's type does
not take (``'fields.a.length'`` of an INT) is refused, as Flink's ("Unsupported options found for
'datagen'"; scripts/flink_statements.py ``datagen_nested``).

A LIMIT right over the scan (no WHERE under it) is pushed into the source, as Flink's
``SupportsLimitPushDown`` (``ConnectorContext.limit``): the source ends after that many rows, so
``SELECT * FROM g LIMIT 3`` over an unbounded datagen table ends, as on Flink.

Generation is vectorized with numpy: a counter-based hash (splitmix64 of seed, column, row).
"""

from __future__ import annotations

import time
from decimal import Decimal, InvalidOperation

import numpy as np
import pyarrow as pa
from streamsql.connectors.registry import register, validate_options

from streamsql.core.catalog import TableDef
from streamsql.core.connector import OPT_SCAN_PARALLELISM, ConnectorContext, ConnectorSpec, OptionSpec, Source
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError
from streamsql.core.types import SqlType

_FIELD_KEYS = ("kind", "start", "end", "min", "max", "length", "null-rate", "max-past", "var-len")
#: The nested types and the names of their parts under the column (Flink's datagen option paths).
_NESTED = ("ROW", "ARRAY", "MAP")
#: Entries of a random ARRAY or MAP (Flink's ``RANDOM_COLLECTION_LENGTH_DEFAULT``).
_COLLECTION_LENGTH = 3
_INT_BOUNDS = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
}
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer, vectorized (uint64 arithmetic wraps); nexmark's generator uses it too."""
    with np.errstate(over="ignore"):
        z = x + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def _hash(seed: int, stream: int, rows: np.ndarray) -> np.ndarray:
    """A uint64 per row, a pure function of (seed, stream, row)."""
    key = splitmix64(np.array([(seed * 1_000_003 + stream) & (2**64 - 1)], dtype=np.uint64))[0]
    with np.errstate(over="ignore"):
        return splitmix64(rows.astype(np.uint64) ^ key)


def _child_index(index: int, i: int) -> int:
    """The generator index of part ``i`` of a nested column's generator ``index`` (its own hash streams)."""
    return int(splitmix64(np.array([index * 131 + i + 1], dtype=np.uint64))[0] >> np.uint64(8))


def field_paths(name: str, t: SqlType) -> list[str]:
    """The option paths of column ``name`` of type ``t`` and of its parts, as Flink's datagen names them.

    >>> arr = SqlType("ARRAY", children=(SqlType("INT"),))
    >>> field_paths("r", SqlType("ROW", children=(SqlType("INT"), arr), field_names=("a", "b")))
    ['r', 'r.a', 'r.b', 'r.b.element']
    """
    if t.name not in _NESTED:
        return [name]
    parts = t.field_names if t.name == "ROW" else ("element",) if t.name == "ARRAY" else ("key", "value")
    return [name] + [p for part, c in zip(parts, t.children) for p in field_paths(f"{name}.{part}", c)]


def _unit(h: np.ndarray) -> np.ndarray:
    """Floats in [0, 1) from hashes."""
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def _keys_taken(t: SqlType, kind: str) -> tuple[str, ...]:
    """The field option keys a generator of type ``t`` and ``kind`` takes (Flink's container options).

    As Flink's datagen, any other ``'fields.<f>.<key>'`` is refused ("Unsupported options found for
    'datagen'"): ``'fields.a.length'`` of an INT, ``'fields.s.min'`` of a STRING.
    """
    if kind == "sequence":
        return ("kind", "start", "end", "null-rate")
    n = t.name
    by_type = (("min", "max") if n in _INT_BOUNDS or n in ("FLOAT", "DOUBLE", "DECIMAL")
               else ("length", "var-len") if n in ("STRING", "BYTES")
               else ("max-past",) if n in ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE")
               else ("length",) if n in ("ARRAY", "MAP") else ())
    return ("kind", "null-rate", *by_type)


class _FieldGen:
    """Generates one column (or a part of a nested one) for a range of row numbers.

    Attributes:
        taken: the option keys (``'fields.r.a.min'``) it and its parts take; a part of a ROW,
            ARRAY or MAP (``nested``) takes no ``kind``: it is random, as Flink's.
    """

    def __init__(self, table: str, name: str, t: SqlType, opts: dict[str, str], index: int, seed: int,
                 nested: bool = False):
        self.name, self.t, self.index, self.seed = name, t, index, seed
        self.at = t.to_arrow()
        pre = f"Table '{table}': "
        if t.name == "BITMAP":  # Flink 2.3's datagen: a ValidationException (scripts/flink_bitmap.py)
            msg = f"{pre}Unsupported type: BITMAP (column '{name}'; datagen generates no bitmaps, as Flink's)"
            raise ConfigError(msg)

        def opt(key):
            return opts.get(f"fields.{name}.{key}")

        def num(key, default=None, conv=float):
            v = opt(key)
            if v is None:
                return default
            try:
                return conv(v)
            except (ValueError, InvalidOperation):
                msg = f"{pre}option 'fields.{name}.{key}' = '{v}' is not a valid number"
                raise ConfigError(msg) from None

        self.kind = "random" if nested else (opt("kind") or "random").lower()
        self.taken = [f"fields.{name}.{k}" for k in _keys_taken(t, self.kind) if not (nested and k == "kind")]
        if self.kind not in ("random", "sequence"):
            msg = f"{pre}option 'fields.{name}.kind' = '{opt('kind')}' is not one of 'random', 'sequence'"
            raise ConfigError(msg)
        self.null_rate = num("null-rate", 0.0)
        if not 0.0 <= self.null_rate <= 1.0:
            msg = f"{pre}option 'fields.{name}.null-rate' must be between 0 and 1"
            raise ConfigError(msg)
        n = t.name
        self.rows_limit: int | None = None
        if n in _NESTED:
            self._nested_parts(table, opts, num)
            return
        if self.kind == "sequence":
            if n not in _INT_BOUNDS and n not in ("STRING", "DECIMAL", "FLOAT", "DOUBLE"):
                raise ConfigError(_no_sequence(table, name, t))
            if opt("start") is None or opt("end") is None:
                msg = f"{pre}a sequence needs 'fields.{name}.start' and 'fields.{name}.end'"
                raise ConfigError(msg)
            self.start = num("start", conv=int)
            self.end = num("end", conv=int)
            if self.end < self.start:
                msg = (
                    f"{pre}'fields.{name}.end' ({self.end}) is less than 'fields.{name}.start' ({self.start})"
                )
                raise ConfigError(msg)
            lo, hi = _INT_BOUNDS.get(n, (-(2**63), 2**63 - 1))
            if self.start < lo or self.end > hi:
                msg = f"{pre}sequence of column '{name}' exceeds the range of {t.sql()}"
                raise ConfigError(msg)
            self.rows_limit = self.end - self.start + 1
            return
        for key in ("start", "end"):
            if opt(key) is not None:
                msg = (f"{pre}Unsupported options found for 'datagen': 'fields.{name}.{key}' "
                       + ("(a part of a ROW, ARRAY or MAP is random)" if nested
                          else f"needs 'fields.{name}.kind' = 'sequence'"))
                raise ConfigError(msg)
        if n in _INT_BOUNDS:
            lo, hi = _INT_BOUNDS[n]
            self.min, self.max = num("min", lo, int), num("max", hi, int)
            if self.min < lo or self.max > hi:
                msg = f"{pre}'fields.{name}.min'/'max' exceed the range of {t.sql()}"
                raise ConfigError(msg)
        elif n in ("FLOAT", "DOUBLE"):
            # Flink's defaults: Java's MIN_VALUE (the smallest positive value) to MAX_VALUE, so
            # unbounded random FLOAT/DOUBLE fields are never negative there either.
            self.min, self.max = (
                num("min", 1.4e-45 if n == "FLOAT" else 4.9e-324),
                num("max", 3.4028234663852886e38 if n == "FLOAT" else 1.7976931348623157e308),
            )
        elif n == "DECIMAL":
            p, s = t.precision or 10, t.scale or 0
            top = Decimal(10) ** (p - s) - Decimal(1).scaleb(-s)
            self.min, self.max = num("min", -top, Decimal), num("max", top, Decimal)
            self.scale = s
        elif n in ("STRING", "BYTES"):
            self.length = num("length", 100, int)
            if self.length < 0:
                msg = f"{pre}option 'fields.{name}.length' must be >= 0"
                raise ConfigError(msg)
            self.var_len = (opt("var-len") or "false").lower() == "true"
        elif n in ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE"):
            self.max_past = num("max-past", 0, int)
        if n in _INT_BOUNDS or n in ("FLOAT", "DOUBLE", "DECIMAL"):
            if self.min > self.max:
                msg = f"{pre}'fields.{name}.min' is greater than 'fields.{name}.max'"
                raise ConfigError(msg)

    def _nested_parts(self, table: str, opts: dict[str, str], num) -> None:
        """A ROW's, ARRAY's or MAP's generators of its parts, and its number of entries.

        Raises:
            ConfigError: a sequence (Flink's datagen makes only random nested values), a negative
                ``length``, a MAP key that may be NULL.
        """
        pre, name, t = f"Table '{table}': ", self.name, self.t
        if self.kind == "sequence":
            raise ConfigError(_no_sequence(table, name, t))
        parts = t.field_names if t.name == "ROW" else ("element",) if t.name == "ARRAY" else ("key", "value")
        self.parts = [_FieldGen(table, f"{name}.{part}", c, opts, _child_index(self.index, i), self.seed,
                                nested=True) for i, (part, c) in enumerate(zip(parts, t.children))]
        self.taken += [k for g in self.parts for k in g.taken]
        self.length = num("length", _COLLECTION_LENGTH, int)
        if self.length < 0:
            msg = f"{pre}option 'fields.{name}.length' must be >= 0"
            raise ConfigError(msg)
        if t.name == "MAP" and self.parts[0].null_rate > 0:
            msg = f"{pre}option 'fields.{name}.key.null-rate': a MAP key cannot be NULL"
            raise ConfigError(msg)

    def generate(self, first: int, count: int) -> pa.Array:
        """The column's values of rows ``first`` .. ``first + count - 1``."""
        return self.values(np.arange(first, first + count, dtype=np.uint64))

    def values(self, rows: np.ndarray) -> pa.Array:
        """The values of row numbers ``rows`` (uint64), each a pure function of (seed, field, row)."""
        count = len(rows)
        n = self.t.name
        if n in _NESTED:
            return self._nested(rows)
        if self.kind == "sequence":
            seq = rows.astype(np.int64) + np.int64(self.start)
            if n == "STRING":
                arr = pa.array(seq).cast(pa.string())
            elif n == "DECIMAL":
                arr = pa.array(seq).cast(pa.decimal128(38, 0)).cast(self.at)
            else:
                arr = pa.array(seq).cast(self.at)
        else:
            arr = self._random(rows, count)
        nulls = self._nulls(rows)
        if nulls is not None:
            arr = pa.compute.if_else(nulls, pa.nulls(count, self.at), arr)
        return arr

    def _nulls(self, rows: np.ndarray) -> pa.Array | None:
        """Which of ``rows`` are NULL (``'fields.<f>.null-rate'``), or None when none can be."""
        if self.null_rate <= 0:
            return None
        return pa.array(_unit(_hash(self.seed, self.index * 16 + 15, rows)) < self.null_rate)

    def _nested(self, rows: np.ndarray) -> pa.Array:
        """A ROW, ARRAY or MAP column's values of ``rows``: its parts' values, nested."""
        mask, count = self._nulls(rows), len(rows)
        if self.t.name == "ROW":
            parts = [g.values(rows) for g in self.parts]
            return pa.StructArray.from_arrays(parts, fields=list(self.at), mask=mask)
        size = self.length
        inner = (rows[:, None] * np.uint64(size) + np.arange(size, dtype=np.uint64)).ravel()
        offsets = np.arange(count + 1, dtype=np.int32) * np.int32(size)
        if self.t.name == "ARRAY":
            elements = self.parts[0].values(inner)
            return pa.ListArray.from_arrays(pa.array(offsets), elements, type=self.at, mask=mask)
        keys, items = self.parts[0].values(inner), self.parts[1].values(inner)
        if size > 1:  # keys drawn alike are one entry, with the last value (Java's HashMap.put)
            owner = np.repeat(np.arange(count, dtype=np.int64), size)
            last = pa.table({"r": owner, "k": keys, "p": np.arange(len(owner))}).group_by(["r", "k"]) \
                .aggregate([("p", "max")])
            keep = np.sort(last["p_max"].to_numpy())
            keys, items = keys.take(keep), items.take(keep)
            offsets = np.zeros(count + 1, np.int32)
            np.cumsum(np.bincount(owner[keep], minlength=count), out=offsets[1:])
        return pa.MapArray.from_arrays(pa.array(offsets), keys, items, type=self.at, mask=mask)

    def _random(self, rows: np.ndarray, count: int) -> pa.Array:
        n = self.t.name
        h = _hash(self.seed, self.index * 16, rows)
        if n in _INT_BOUNDS:
            span = self.max - self.min + 1
            if span >= 2**64:
                vals = h.view(np.int64)
            else:
                with np.errstate(over="ignore"):
                    vals = ((h % np.uint64(span)) + np.uint64(self.min & (2**64 - 1))).view(np.int64)
            return pa.array(vals).cast(self.at)
        if n in ("FLOAT", "DOUBLE"):
            u = _unit(h)
            vals = (
                self.min + u * (self.max - self.min)
                if np.isfinite(self.max - self.min)
                else self.min * (1 - u) + self.max * u
            )
            return pa.array(vals.astype(np.float32 if n == "FLOAT" else np.float64))
        if n == "DECIMAL":
            s = self.scale
            lo, hi = int(self.min.scaleb(s)), int(self.max.scaleb(s))
            span = hi - lo + 1
            if span < 2**63 and -(2**63) <= lo and hi < 2**63:
                unscaled = (h % np.uint64(span)).astype(np.int64) + np.int64(lo)
                return _from_unscaled(unscaled, s, self.at)
            # very wide range: exact Python ints
            return pa.array([Decimal(lo + int(x) % span).scaleb(-s) for x in h.tolist()], self.at)
        if n == "BOOLEAN":
            return pa.array((h & np.uint64(1)).astype(bool))
        if n in ("STRING", "BYTES"):
            return self._strings(rows, count, h)
        if n in ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE"):
            now_ms = int(time.time() * 1000)
            past = (
                (h % np.uint64(self.max_past + 1)).astype(np.int64)
                if self.max_past > 0
                else np.zeros(count, np.int64)
            )
            ms = now_ms - past
            if n == "DATE":
                return pa.array((ms // 86_400_000).astype(np.int32)).cast(pa.date32())
            unit = self.at.unit
            vals = ms * {"ms": 1, "us": 1000, "ns": 1_000_000}[unit]  # a TIMESTAMP(7..9) is in ns
            return pa.array(vals).cast(self.at)
        if n == "TIME":  # a random time of day, in whole units of its precision (a pure function of the row)
            unit = 10 ** (3 - min(self.t.precision or 0, 3))
            ms = (h % np.uint64(86_400_000)).astype(np.int64) // unit * unit
            return pa.array(ms * 1000, pa.int64()).cast(self.at)
        msg = f"datagen cannot generate random values of type {self.t.sql()}"
        raise ConfigError(msg)

    def _strings(self, rows: np.ndarray, count: int, h: np.ndarray) -> pa.Array:
        L = self.length
        lens = np.full(count, L, dtype=np.int64)
        if self.var_len and L > 0:
            lens = (h % np.uint64(L + 1)).astype(np.int64)
        words = max(1, -(-L // 16))
        if L > 0 and count > 0:
            mat = np.empty((count, words), dtype=np.uint64)
            for w in range(words):
                mat[:, w] = _hash(
                    self.seed, self.index * 16 + 1 + (w % 14), rows + np.uint64(w // 14) * np.uint64(2**40)
                )
            nib = np.empty((count, words * 16), dtype=np.uint8)
            for k in range(16):
                nib[:, k::16] = ((mat >> np.uint64(4 * k)) & np.uint64(15)).astype(np.uint8)
            chars = _HEX[nib[:, :L]]
        else:
            chars = np.zeros((count, 0), dtype=np.uint8)
        if self.var_len:
            keep = np.arange(L)[None, :] < lens[:, None]
            data = chars[keep]
        else:
            data = chars.reshape(-1)
        offsets = np.zeros(count + 1, dtype=np.int32)
        np.cumsum(lens, out=offsets[1:])
        typ = pa.string() if self.t.name == "STRING" else pa.binary()
        return pa.Array.from_buffers(
            typ,
            count,
            [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(np.ascontiguousarray(data).tobytes())],
        )


def _no_sequence(table: str, name: str, t: SqlType) -> str:
    """The message refusing a sequence of a type Flink's ``SequenceGeneratorVisitor`` has none of."""
    return (f"Table '{table}': Unsupported type: {t.sql()} (column '{name}' cannot be a sequence; "
            "supported: integer, decimal, floating, STRING)")


def _from_unscaled(unscaled: np.ndarray, s: int, at: pa.DataType) -> pa.Array:
    """Build decimal128(38, s) directly from little-endian 128-bit unscaled integers."""
    lo = unscaled.astype(np.int64)
    hi = np.where(lo < 0, -1, 0).astype(np.int64)
    buf = np.empty(len(lo) * 2, dtype=np.int64)
    buf[0::2], buf[1::2] = lo, hi
    arr = pa.Array.from_buffers(pa.decimal128(38, s), len(lo), [None, pa.py_buffer(buf.tobytes())])
    return arr.cast(at)


def _settings(table: TableDef) -> tuple[float, int | None, int, list[_FieldGen]]:
    """Check the table's options and build its field generators.

    Returns ``(rows per second, 'number-of-rows' or None, seed, one generator per column)``.

    Raises:
        ConfigError: for an unknown or bad option, or metadata columns.
    """
    opts = table.options
    pre = f"Table '{table.name}': "
    validate_options(SPEC, opts, table.name)
    schema = table.physical_schema
    if table.metadata_columns:
        msg = f"{pre}connector 'datagen' has no metadata columns"
        raise ConfigError(msg)
    try:
        rps = float(opts.get("rows-per-second", "10000"))
    except ValueError:
        msg = f"{pre}option 'rows-per-second' = '{opts['rows-per-second']}' is not a number"
        raise ConfigError(msg) from None
    if rps <= 0:
        msg = f"{pre}option 'rows-per-second' must be positive"
        raise ConfigError(msg)
    total = opts.get("number-of-rows")
    try:
        total_rows = None if total is None else int(total)
        seed = int(opts.get("seed", "0"))
    except ValueError:
        msg = f"{pre}options 'number-of-rows' and 'seed' must be integers"
        raise ConfigError(msg) from None
    if total_rows is not None and total_rows < 0:
        msg = f"{pre}option 'number-of-rows' must be >= 0"
        raise ConfigError(msg)
    names = {p for f in schema for p in field_paths(f.name, f.type)}
    for key in opts:
        if key.startswith("fields."):
            parts = key[len("fields.") :].rsplit(".", 1)
            if len(parts) != 2 or parts[1] not in _FIELD_KEYS:
                msg = (
                    f"{pre}Unsupported options found for 'datagen': '{key}'; field options are "
                    f"'fields.<column>.<key>' with key one of {', '.join(_FIELD_KEYS)}"
                )
                raise ConfigError(msg, table=table.name, option=key)
            if parts[0] not in names:
                msg = (f"{pre}Unsupported options found for 'datagen': '{key}' names no column "
                       f"(nor a part of one); columns and parts: {', '.join(sorted(names))}")
                raise ConfigError(msg, table=table.name, option=key)
    gens = [_FieldGen(table.name, f.name, f.type, opts, i, seed) for i, f in enumerate(schema)]
    taken = {k for g in gens for k in g.taken}
    for key in opts:
        if key.startswith("fields.") and key not in taken:
            path = key[len("fields."):].rsplit(".", 1)[0]
            takes = sorted(k.rsplit(".", 1)[1] for k in taken if k.startswith(f"fields.{path}.")
                           and k.count(".") == key.count("."))
            msg = (f"{pre}Unsupported options found for 'datagen': '{key}' ('{path}' takes "
                   f"{', '.join(takes)}, as Flink's datagen)")
            raise ConfigError(msg, table=table.name, option=key)
    return rps, total_rows, seed, gens


class DataGenSource(Source):
    """See module docstring."""

    def __init__(self, ctx: ConnectorContext):
        table = ctx.table
        self.schema = table.physical_schema
        self.rps, self.total, self.seed, self.gens = _settings(table)
        limits = [g.rows_limit for g in self.gens if g.rows_limit is not None]
        if self.total is not None:
            limits.append(self.total)
        if ctx.limit is not None:  # a LIMIT pushed into the scan
            limits.append(ctx.limit)
        self.limit = min(limits) if limits else None
        self.bounded = self.limit is not None
        self.emitted = 0
        self._tokens = 0.0
        self._last = None

    def open(self, position: dict | None) -> None:
        """See :meth:`Source.open` / :meth:`Sink.open`."""
        self.emitted = int(position.get("rows", 0)) if position else 0
        self._last = time.monotonic()
        self._tokens = 0.0

    def _refill(self) -> None:
        now = time.monotonic()
        self._tokens = min(max(self.rps, 1.0), self._tokens + (now - self._last) * self.rps)
        self._last = now

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """Return the next rows, at most ``max_rows`` (see :meth:`Source.poll`)."""
        if self.finished():
            return None
        self._refill()
        if self._tokens < 1.0:
            wait = (1.0 - self._tokens) / self.rps
            if wait > timeout_s:
                if timeout_s > 0:
                    time.sleep(timeout_s)
                self._refill()
                return None
            time.sleep(wait)
            self._refill()
        n = min(int(self._tokens), max_rows)
        if self.limit is not None:
            n = min(n, self.limit - self.emitted)
        if n <= 0:
            return None
        self._tokens -= n
        first = self.emitted
        arrays = [g.generate(first, n) for g in self.gens]
        self.emitted += n
        return Batch(pa.Table.from_arrays(arrays, schema=self.schema.to_arrow()))

    def position(self) -> dict:
        """The position just after the last row returned (see :meth:`Source.position`)."""
        return {"rows": self.emitted}

    def finished(self) -> bool:
        """True once the last row has been returned."""
        return self.limit is not None and self.emitted >= self.limit


SPEC = register(
    ConnectorSpec(
        name="datagen",
        options=[
            OptionSpec("connector", required=True, description="'datagen'"),
            OptionSpec("rows-per-second", default="10000", description="rows generated per second"),
            OptionSpec("number-of-rows", description="total rows to generate (bounded when set)"),
            OptionSpec("seed", default="0", description="seed of random values (StreamSQL extension)"),
            OPT_SCAN_PARALLELISM,
        ],
        create_source=DataGenSource,
        option_prefixes=("fields.",),
        knows_prefixed=lambda key: key.rsplit(".", 1)[-1] in _FIELD_KEYS and key.count(".") >= 2,
        check_source=lambda table, config: _settings(table),
        description="generated rows (sequences and random values); exactly-once",
        source_limit=True,
    )
)
