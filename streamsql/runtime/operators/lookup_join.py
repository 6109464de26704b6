"""The lookup join operator, as Flink's ``LookupJoinRunner`` (batched), with Flink's lookup cache.

Per input batch: the distinct non-NULL keys of its rows that the cache does not hold are looked
up in one call of the connector's :class:`~streamsql.core.connector.LookupSource` (one query,
``WHERE id IN (...)``); each row then joins the dimension rows of its key that pass the residual
condition — INNER drops a row without any, LEFT emits it padded with NULLs; a row with a NULL
key matches nothing. Output rows keep their input row's kind and come in input order. The
operator keeps no keyed state: a restore replays the input and looks it up again (results
depend on the table at lookup time, as in Flink).

The cache, per Flink's lookup options (``'lookup.cache'``):

- ``NONE`` (default): every batch looks its keys up.
- ``PARTIAL``: looked-up keys are kept with their rows, at most
  ``'lookup.partial-cache.max-rows'`` keys (least recently used evicted first); an entry
  expires ``'lookup.partial-cache.expire-after-write'`` after its lookup and/or
  ``'lookup.partial-cache.expire-after-access'`` after its last use (processing time, ms);
  a key without rows is cached too unless ``'lookup.partial-cache.cache-missing-key'`` is
  false. Flink requires one of the two expirations or max-rows: so does this.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

import pyarrow as pa

from streamsql.core.config import duration_ms
from streamsql.core.connector import LookupSource
from streamsql.core.elements import Batch, Element
from streamsql.core.errors import ConfigError
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import Operator, OperatorContext
from streamsql.runtime.operators.join import JoinBase, rows_of, table_of


class LookupCache:
    """Flink's partial lookup cache: key → dimension rows, bounded and expiring (module docstring).

    Args:
        options: the dimension table's options.
        table: its name, for errors.
        clock: processing time in ms.

    Raises:
        ConfigError: an unknown ``'lookup.cache'`` value, PARTIAL without max-rows or an
            expiration, a bad number or duration.
    """

    def __init__(self, options: dict[str, str], table: str, clock: Callable[[], int]):
        mode = options.get("lookup.cache", "NONE").upper()
        if mode not in ("NONE", "PARTIAL"):
            msg = f"Table '{table}': 'lookup.cache' = '{options['lookup.cache']}' must be NONE or PARTIAL"
            raise ConfigError(msg)
        self.enabled = mode == "PARTIAL"
        self.clock = clock
        self._entries: OrderedDict[tuple, tuple[list[tuple], int, int]] = OrderedDict()
        p = "lookup.partial-cache."
        rows = options.get(p + "max-rows")
        try:
            self.max_rows = int(rows) if rows is not None else None
        except ValueError:
            msg = f"Table '{table}': '{p}max-rows' = '{rows}' is not a number"
            raise ConfigError(msg) from None
        self.after_write = duration_ms(options[p + "expire-after-write"], p + "expire-after-write") \
            if p + "expire-after-write" in options else None
        self.after_access = duration_ms(options[p + "expire-after-access"], p + "expire-after-access") \
            if p + "expire-after-access" in options else None
        self.cache_missing = options.get(p + "cache-missing-key", "true").lower() != "false"
        if self.enabled and self.max_rows is None and self.after_write is None and self.after_access is None:
            msg = (f"Table '{table}': 'lookup.cache' = 'PARTIAL' needs '{p}max-rows', "
                   f"'{p}expire-after-write' or '{p}expire-after-access' (as Flink)")
            raise ConfigError(msg)

    def get(self, key: tuple) -> list[tuple] | None:
        """The cached rows of ``key`` (an access), or None when not cached or expired."""
        entry = self._entries.get(key) if self.enabled else None
        if entry is None:
            return None
        rows, written, accessed = entry
        now = self.clock()
        if (self.after_write is not None and now - written >= self.after_write) or (
                self.after_access is not None and now - accessed >= self.after_access):
            del self._entries[key]
            return None
        self._entries[key] = (rows, written, now)
        self._entries.move_to_end(key)
        return rows

    def put(self, key: tuple, rows: list[tuple]) -> None:
        """Cache the looked-up ``rows`` of ``key`` (evicting the least recently used beyond max-rows)."""
        if not self.enabled or (not rows and not self.cache_missing):
            return
        now = self.clock()
        self._entries[key] = (rows, now, now)
        self._entries.move_to_end(key)
        if self.max_rows is not None:
            while len(self._entries) > self.max_rows:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


class LookupJoinOperator(JoinBase, Operator):
    """A lookup join (module docstring).

    Args:
        join_type: INNER or LEFT.
        left_keys: the key columns of the input.
        dim_keys: the key columns of the dimension rows (indexes in ``dim_schema``), same order.
        left_schema, dim_schema: the input's and the dimension table's Arrow schemas.
        output_schema: input columns then dimension columns.
        residual: the other conditions as one boolean item over ``output_schema``, or None.
        insert_only: the input (and so the output) is insert-only.
        connect: ``config → LookupSource`` for the dimension table (called at open).
        options: the dimension table's options (its cache), and its name.
        retry: ``(delay ms, max attempts)`` of a LOOKUP hint's retry on a miss, or None: the keys
            of a batch that found no row are looked up again together after the delay, up to
            ``max attempts`` more times (Flink's ``RetryableLookupFunctionDelegator``, per key;
            the job thread waits, as Flink's synchronous lookup does). The cache holds the answer
            after the retries; a key answered by the cache is not retried.
        dim_filter: with ``retry``, the conditions on the dimension alone that Flink's JDBC lookup
            puts in its query (a ``__ok`` column over ``dim_schema``): rows failing it are not
            looked up at all, so a key whose rows all fail it is a miss, retried.
    """

    def __init__(self, join_type: str, left_keys: list[int], dim_keys: list[int], left_schema: pa.Schema,
                 dim_schema: pa.Schema, output_schema: pa.Schema, residual: BatchQuery | None,
                 insert_only: bool, connect: Callable[[dict[str, str]], LookupSource],
                 options: tuple[dict[str, str], str], retry: tuple[int, int] | None = None,
                 dim_filter: BatchQuery | None = None):
        self._setup(join_type, left_keys, dim_keys, left_schema, dim_schema, output_schema, residual)
        self.dim_schema = dim_schema
        self.insert_only = insert_only
        self.connect = connect
        self.options = options
        self.retry = retry
        self.dim_filter = dim_filter
        self.source: LookupSource | None = None

    def open(self, ctx: OperatorContext) -> None:
        """Connect to the dimension table and set its cache up.

        Raises:
            ConfigError: bad cache options, or the connector's (URL, credentials, table).
        """
        super().open(ctx)
        self.cache = LookupCache(self.options[0], self.options[1], ctx.clock)
        self.source = self.connect(ctx.config)
        self.source.open()

    def _fetch(self, keys: list[tuple], into: dict[tuple, list[tuple]]) -> None:
        """Look ``keys`` up in one call; their dimension rows appended to ``into``."""
        dk = self.keys[1]
        table = self._dim_table(self.source.lookup(keys))
        if self.dim_filter is not None and table.num_rows:
            table = table.filter(self.dim_filter.run(Batch(table)).table.column(0).fill_null(False))
        for d in rows_of(table):
            key = tuple(d[i] for i in dk)
            if key in into:
                into[key].append(d)

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Look the batch's keys up (cache first, then one lookup) and join its rows."""
        rows = rows_of(batch.table)
        if not rows:
            return []
        lk, dk = self.keys
        keys = [tuple(r[i] for i in lk) for r in rows]
        found: dict[tuple, list[tuple]] = {}
        missing = []
        for k in dict.fromkeys(keys):
            if any(v is None for v in k):
                continue
            cached = self.cache.get(k)
            if cached is None:
                missing.append(k)
            else:
                found[k] = cached
        if missing:
            fetched = {k: [] for k in missing}
            self._fetch(missing, fetched)
            delay_ms, attempts = self.retry or (0, 0)
            for _ in range(attempts):
                misses = [k for k, v in fetched.items() if not v]
                if not misses:
                    break
                time.sleep(delay_ms / 1000)
                self._fetch(misses, fetched)
            for k, v in fetched.items():
                self.cache.put(k, v)
            found.update(fetched)
        cands = self._filter(0, rows, [[(d, None) for d in found.get(k, ())] for k in keys])
        kinds = batch.kind_array()
        out, out_kinds = [], []
        for x, kind, cs in zip(rows, kinds, cands):
            if cs:
                out += [x + d for d, _ in cs]
                out_kinds += [kind] * len(cs)
            elif self.join_type == "LEFT":
                out.append(self._pad_mine(0, x))
                out_kinds.append(kind)
        return self._output(out, out_kinds, self.insert_only)

    def _dim_table(self, rows: list[tuple]) -> pa.Table:
        """The database's rows as the declared types (so their keys compare with the input's).

        A value of another Python type (MariaDB's BOOLEAN is a TINYINT, NUMERIC a Decimal) is
        cast by Arrow from the type it has.
        """
        try:
            return table_of(rows, self.dim_schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            cols = list(zip(*rows))
            arrays = [pa.array(list(c)).cast(f.type) for c, f in zip(cols, self.dim_schema)]
            return pa.Table.from_arrays(arrays, schema=self.dim_schema)

    def close(self) -> None:
        """Close the lookup source."""
        if self.source is not None:
            self.source.close()
