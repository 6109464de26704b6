"""The ``debezium-json`` format: Debezium change events as a changelog.

Events are ``{"before": {...}|null, "after": {...}|null, "op": "c"|"r"|"u"|"d"}`` as a changelog.

Row kinds, as Flink: ``c``/``r`` → +I(after); ``u`` → -U(before), +U(after); ``d`` → -D(before).
With ``'debezium-json.schema-include' = 'true'`` the event is wrapped as
``{"schema": ..., "payload": {...}}``. Tombstones (None, Kafka's delete markers that follow a ``d``)
and empty messages are skipped (as Flink: no change) and counted in ``tombstones``. An unknown
``op``, a missing ``after`` for c/r/u or a missing ``before`` for u/d (Postgres without
``REPLICA IDENTITY FULL``) is a bad record, as is undecodable JSON: skipped and counted with
``'debezium-json.ignore-parse-errors' = 'true'``, else ``BadRecordError`` naming the location.
With that option a field that does not convert to its column type (``"x"`` for an INT) is NULL
and the change is kept, as Flink's json format does.

Decoding is vectorized (``pyarrow.json`` with nested struct schemas; kinds and the row
interleaving computed with numpy); values follow the json format's rules (exact decimals, ...),
with the same per-record fallback and the same guards that the fast path reads exactly one row
per payload from valid UTF-8 (see :mod:`.json`). Encoding writes Flink's form: +I/+U →
``{"before":null, "after":row,"op":"c"}``, -U/-D → ``{"before":row,"after":null,"op":"d"}``.
"""

from __future__ import annotations

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.formats.common import (
    Decoder,
    Encoder,
    Where,
    bad_record,
    bool_option,
    combine,
    decode_bisect,
    fix_types,
    skip_option,
)
from streamsql.connectors.formats.convert import RecordError, from_rows
from streamsql.connectors.formats.json import (
    RowConverter,
    decimal_plain_option,
    loads_exact,
    read_rows,
    read_schema,
    timestamp_standard_option,
)
from streamsql.connectors.formats.json_depth import check_depth, deep_recursion
from streamsql.connectors.formats.json_encode import python_columns

from streamsql.core.connector import flag_option
from streamsql.core.elements import Batch, RowKind
from streamsql.core.types import Schema

OPTIONS = [
    flag_option("debezium-json.ignore-parse-errors",
                "instead of failing: NULL for a field that does not convert (row kept), skip (counted) "
                "events that cannot be decoded"),
    flag_option("debezium-json.schema-include", "events carry Debezium's {schema, payload} envelope"),
    timestamp_standard_option("debezium-json", "SQL ('yyyy-MM-dd HH:mm:ss.s') or ISO-8601"),
    decimal_plain_option("debezium-json"),
]

_REPLICA = (
    "the 'before' field of a {} event is null; for the Debezium Postgres connector set the "
    "table's REPLICA IDENTITY to FULL"
)


class DebeziumJsonDecoder(Decoder):
    """See module docstring."""

    fmt = "debezium-json"
    empty_is_no_row = True
    changelog = True

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options)
        self.ignore_errors = bool_option(options, "debezium-json.ignore-parse-errors", False, table)
        self.schema_include = bool_option(options, "debezium-json.schema-include", False, table)
        row = pa.struct(list(read_schema(schema)))
        env = pa.schema([("before", row), ("after", row), ("op", pa.string())])
        self.read_schema = pa.schema([("payload", pa.struct(list(env)))]) if self.schema_include else env
        self.iso = options.get("debezium-json.timestamp-format.standard", "SQL") == "ISO-8601"
        self.converter = RowConverter(schema, False, self.ignore_errors, self.iso)
        self.exact_cols = [f.name for f in schema if f.type.name in ("DECIMAL", "STRING", "FLOAT")]

    # ---------------------------------------------------------------------------------- fast

    def decode(self, values: list[bytes | None], where: Where) -> Batch:
        """Decode ``values`` into one batch (see :meth:`Decoder.decode`)."""
        if None in values or not all(values):  # Flink: a tombstone or an empty message is no change
            idx = np.asarray([i for i, v in enumerate(values) if v], dtype=np.int64)
            self.tombstones += len(values) - len(idx)
        else:
            idx = np.arange(len(values), dtype=np.int64)
        if len(idx) == 0:
            return self.empty()
        payloads = values if len(idx) == len(values) else [values[i] for i in idx]

        def fast(lo: int, hi: int):
            try:
                return self._fast(payloads[lo:hi], idx[lo:hi], where)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, _Fallback):
                return None

        batch, self.source_index, _ = decode_bisect(
            len(payloads), fast, lambda lo, hi: self._slow(payloads, idx, lo, hi, where)
        )
        return batch

    def _fast(self, payloads, idx, where):
        t = read_rows(payloads, self.read_schema, constants=True)  # None unless one row per payload
        if t is None:
            raise _Fallback
        if self.schema_include:
            payload = combine(t.column("payload"))
            if payload.null_count:
                raise _Fallback
            env = {n: payload.field(n) for n in ("before", "after", "op")}
        else:
            env = {n: combine(t.column(n)) for n in ("before", "after", "op")}
        before, after, op = env["before"], env["after"], env["op"]
        is_ins = pc.fill_null(pc.is_in(op, pa.array(["c", "r"])), False).to_numpy(zero_copy_only=False)
        is_u = pc.fill_null(pc.equal(op, "u"), False).to_numpy(zero_copy_only=False)
        is_d = pc.fill_null(pc.equal(op, "d"), False).to_numpy(zero_copy_only=False)
        after_null = after.is_null().to_numpy(zero_copy_only=False)
        before_null = before.is_null().to_numpy(zero_copy_only=False)
        bad = ~(is_ins | is_u | is_d) | ((is_ins | is_u) & after_null) | ((is_u | is_d) & before_null)
        keep = np.arange(len(payloads))
        if bad.any():
            if not self.ignore_errors:
                j = int(np.flatnonzero(bad)[0])
                raise bad_record(
                    self.fmt,
                    where(int(idx[j])),
                    self._reason(op[j].as_py(), is_ins[j], is_u[j], after_null[j], before_null[j]),
                    payloads[j],
                    skip_option(self),
                )
            self.skipped += int(bad.sum())
            keep = np.flatnonzero(~bad)
            is_ins, is_u, is_d = is_ins[keep], is_u[keep], is_d[keep]
        n = len(payloads)
        rows = fix_types(
            pa.Table.from_arrays(after.flatten(), schema=pa.schema(list(after.type))), self.schema, self.iso
        )
        brows = fix_types(
            pa.Table.from_arrays(before.flatten(), schema=pa.schema(list(before.type))), self.schema, self.iso
        )
        both = pa.concat_tables([rows, brows])  # after rows 0..n-1, before rows n..2n-1
        counts = 1 + is_u.astype(np.int64)
        starts = np.cumsum(counts) - counts
        total = int(counts.sum())
        take = np.empty(total, dtype=np.int64)
        kinds = np.empty(total, dtype=np.int8)
        take[starts] = np.where(is_ins, keep, keep + n)
        kinds[starts] = np.where(
            is_ins, RowKind.INSERT, np.where(is_u, RowKind.UPDATE_BEFORE, RowKind.DELETE)
        )
        us = starts[is_u] + 1
        take[us] = keep[is_u]
        kinds[us] = RowKind.UPDATE_AFTER
        return Batch(both.take(pa.array(take)), kinds), np.repeat(idx[keep], counts)

    @staticmethod
    def _reason(op, ins, u, after_null, before_null) -> str:
        if not (ins or u or op == "d"):
            return f'unknown "op" value {op!r} (expected c, r, u or d)' if op is not None else 'missing "op"'
        if (ins or u) and after_null:
            return f"the 'after' field of a {'UPDATE' if u else 'INSERT'} event is null"
        return _REPLICA.format("UPDATE" if u else "DELETE")

    # ---------------------------------------------------------------------------------- slow

    def _parse(self, v: bytes) -> dict:
        """One record's envelope, as Flink's parser reads it.

        Raises:
            RecordError: a bad record; :class:`~.json_depth.TooDeep` for one nested deeper than
                Jackson's limit (1000), which orjson reads up to 1024 deep
                (``scripts/flink_debezium_nesting.py``).
        """
        check_depth(v)
        try:
            obj = orjson.loads(v)
        except orjson.JSONDecodeError:
            obj = None
        if obj is None or self._needs_exact(obj):
            if not v.strip():
                msg = "empty record"
                raise RecordError(msg)
            with deep_recursion(v):
                obj = loads_exact(v, reject_constants=False, raw_numbers=False)
        if self.schema_include:
            if not isinstance(obj, dict) or not isinstance(obj.get("payload"), dict):
                msg = 'expected a {"schema", "payload"} envelope'
                raise RecordError(msg)
            obj = obj["payload"]
        if not isinstance(obj, dict):
            msg = f"expected a JSON object, got {type(obj).__name__}"
            raise RecordError(msg)
        for k in ("before", "after"):
            if obj.get(k) is not None and not isinstance(obj[k], dict):
                msg = f"'{k}' must be an object or null"
                raise RecordError(msg)
        return obj

    def _needs_exact(self, obj) -> bool:
        if not isinstance(obj, dict):
            return False
        if self.schema_include:
            obj = obj.get("payload")
            if not isinstance(obj, dict):
                return False
        for k in ("before", "after"):
            r = obj.get(k)
            if isinstance(r, dict) and any(
                isinstance(r.get(c), (float, dict, list)) for c in self.exact_cols
            ):
                return True
        return False

    def _slow(self, payloads, idx, lo: int, hi: int, where: Where):
        rows, kinds, src = [], [], []
        for j in range(lo, hi):
            v, i = payloads[j], int(idx[j])
            try:
                obj = self._parse(v)
                op = obj.get("op")
                before, after = obj.get("before"), obj.get("after")
                ins, u = op in ("c", "r"), op == "u"
                reason = None
                if (
                    not (ins or u or op == "d")
                    or ((ins or u) and after is None)
                    or ((u or op == "d") and before is None)
                ):
                    reason = self._reason(op, ins, u, after is None, before is None)
                if reason:
                    raise RecordError(reason)
                out = []
                if ins:
                    out.append((self.converter.convert(after), RowKind.INSERT))
                elif u:
                    out.append((self.converter.convert(before), RowKind.UPDATE_BEFORE))
                    out.append((self.converter.convert(after), RowKind.UPDATE_AFTER))
                else:
                    out.append((self.converter.convert(before), RowKind.DELETE))
            except RecordError as e:
                if not self.ignore_errors:
                    raise bad_record(self.fmt, where(i), str(e), v, skip_option(self)) from None
                self.skipped += 1
                continue
            for r, k in out:
                rows.append(r)
                kinds.append(k)
                src.append(i)
        return Batch(from_rows(rows, self.schema), np.asarray(kinds, dtype=np.int8)), np.asarray(
            src, dtype=np.int64
        )


class _Fallback(Exception):
    pass


class DebeziumJsonEncoder(Encoder):
    """See module docstring."""

    accepts_updates = True

    def encode(self, table: pa.Table, kinds: np.ndarray | None = None) -> list[bytes | None]:
        """One payload per row (see :meth:`Encoder.encode`)."""
        names = self.schema.names
        cols = python_columns(table, self.schema, self.options, prefix="debezium-json")
        ks = np.zeros(table.num_rows, np.int8) if kinds is None else kinds
        dumps = orjson.dumps
        out = []
        for row, k in zip(zip(*cols), ks.tolist()):
            rec = dict(zip(names, row))
            if k in (RowKind.INSERT, RowKind.UPDATE_AFTER):
                out.append(dumps({"before": None, "after": rec, "op": "c"}))
            else:
                out.append(dumps({"before": rec, "after": None, "op": "d"}))
        return out
