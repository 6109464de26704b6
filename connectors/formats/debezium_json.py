"""The ``debezium-json`` format: Debezium change events as a changelog.

Events are ``{"before": {...}|null, "after": {...}|null, "op": "c"|"r"|"u"|"d"}`` as a changelog.

Row kinds, as Flink: ``c``/``r`` → +I(after); ``u`` → -U(before), +U(after); ``d`` → -D(before).
With ``'debezium-json.schema-include' = 'true'`` the event is wrapped as
``{"schema": ..., "payload": {...}}``. Tombstones (None, Kafka's delete markers that follow a ``d``)
and empty messages are skipped (as Flink: no change) and counted in ``tombstones``.
Metadata (``METADATA FROM 'value.<key>'``, as Flink's ``DebeziumJsonDecodingFormat``): ``schema``
(STRING: the JSON text of the message's top-level ``schema``, beside ``payload`` with
``schema-include``), ``ingestion-timestamp`` (TIMESTAMP_LTZ(3) from ``ts_ms``), from the
``source`` object read as MAP<STRING, STRING>: ``source.timestamp`` (its ``ts_ms`` text read by
``Long.parseLong``: other text fails the event), ``source.database`` (``db``), ``source.schema``,
``source.table`` and ``source.properties`` (the whole map); each NULL where the event lacks it. An unknown
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
import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.formats.changelog_json import (
    Change,
    ChangelogJsonDecoder,
    ChangelogJsonEncoder,
    metadata,
)
from streamsql.connectors.formats.common import (
    Where,
    bad_record,
    bool_option,
    combine,
    decode_bisect,
    fix_types,
    skip_option,
)
from streamsql.connectors.formats.convert import RecordError
from streamsql.connectors.formats.json import (
    decimal_plain_option,
    read_rows,
    read_schema,
    timestamp_standard_option,
)
from streamsql.connectors.formats.timestamp_data import java_long

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

#: The type Flink reads the event's ``source`` object as (its values' JSON text).
_SOURCE = "MAP<STRING, STRING>"

_REPLICA = (
    "the 'before' field of a {} event is null; for the Debezium Postgres connector set the "
    "table's REPLICA IDENTITY to FULL"
)


class DebeziumJsonDecoder(ChangelogJsonDecoder):
    """See module docstring; the per-record path is :class:`~.changelog_json.ChangelogJsonDecoder`'s."""

    fmt = "debezium-json"
    METADATA = {
        "schema": metadata("STRING", "schema", root=True),
        "ingestion-timestamp": metadata("TIMESTAMP_LTZ(3)", "ts_ms", "BIGINT"),
        "source.timestamp": metadata("TIMESTAMP_LTZ(3)", "source", _SOURCE, entry="ts_ms",
                                     parse=lambda text: java_long(text) * 1000),
        "source.database": metadata("STRING", "source", _SOURCE, entry="db"),
        "source.schema": metadata("STRING", "source", _SOURCE, entry="schema"),
        "source.table": metadata("STRING", "source", _SOURCE, entry="table"),
        "source.properties": metadata(_SOURCE, "source"),
    }

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options, table)
        self.schema_include = bool_option(options, "debezium-json.schema-include", False, table)
        row = pa.struct(list(read_schema(schema)))
        env = pa.schema([("before", row), ("after", row), ("op", pa.string())])
        self.read_schema = pa.schema([("payload", pa.struct(list(env)))]) if self.schema_include else env

    # ---------------------------------------------------------------------------------- fast

    def decode(self, values: list[bytes | None], where: Where) -> Batch:
        """Decode ``values`` into one batch (see :meth:`Decoder.decode`); per record with metadata columns."""
        if self.metadata_keys:
            return super().decode(values, where)
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

        def slow(lo: int, hi: int):
            batch, src, _ = self.decode_records(values, idx[lo:hi].tolist(), where)
            return batch, src

        batch, self.source_index, _ = decode_bisect(len(payloads), fast, slow)
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
        if has_negative_zero(before) or has_negative_zero(after):  # "-0" or "-0.0": the text decides
            raise _Fallback
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

    def unwrap(self, obj) -> dict:
        """The change event: ``obj``, or its ``payload`` with ``'debezium-json.schema-include'``.

        Raises:
            RecordError: no JSON object, no ``{"schema", "payload"}`` envelope, or a ``before`` /
                ``after`` that is neither an object nor null.
        """
        if self.schema_include:
            if not isinstance(obj, dict) or not isinstance(obj.get("payload"), dict):
                msg = 'expected a {"schema", "payload"} envelope'
                raise RecordError(msg)
            obj = obj["payload"]
        obj = super().unwrap(obj)
        for k in ("before", "after"):
            if obj.get(k) is not None and not isinstance(obj[k], dict):
                msg = f"'{k}' must be an object or null"
                raise RecordError(msg)
        return obj

    def changes(self, obj: dict) -> list[Change]:
        """``c``/``r`` → +I(after); ``u`` → -U(before), +U(after); ``d`` → -D(before).

        Raises:
            RecordError: an unknown ``op``, or the image it needs is null.
        """
        op = obj.get("op")
        before, after = obj.get("before"), obj.get("after")
        ins, u = op in ("c", "r"), op == "u"
        if (not (ins or u or op == "d") or ((ins or u) and after is None)
                or ((u or op == "d") and before is None)):
            raise RecordError(self._reason(op, ins, u, after is None, before is None))
        if ins:
            return [(after, RowKind.INSERT)]
        if u:
            return [(before, RowKind.UPDATE_BEFORE), (after, RowKind.UPDATE_AFTER)]
        return [(before, RowKind.DELETE)]


def has_negative_zero(a: pa.Array) -> bool:
    """Whether Arrow array ``a`` holds a float -0.0, in a struct field / list / map element too.

    Arrow reads both ``-0`` and ``-0.0`` as -0.0, where Flink's changelog formats read ``-0`` (and,
    with a DECIMAL in the row type, ``-0.0``) as 0.0: such a batch takes the per-record path.
    """
    t = a.type
    if pa.types.is_floating(t):
        neg = pc.equal(pc.divide(pa.scalar(1.0, t), a), pa.scalar(float("-inf"), t))
        return bool(pc.any(neg).as_py())
    if pa.types.is_struct(t):
        return any(has_negative_zero(a.field(i)) for i in range(t.num_fields))
    if pa.types.is_map(t):
        return has_negative_zero(a.keys) or has_negative_zero(a.items)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return has_negative_zero(a.flatten())
    return False


class _Fallback(Exception):
    pass


class DebeziumJsonEncoder(ChangelogJsonEncoder):
    """See module docstring."""

    fmt = "debezium-json"

    def envelope(self, row: dict, adds: bool) -> dict:
        """``{"before":null,"after":row,"op":"c"}`` for +I/+U, ``{"before":row,"after":null,"op":"d"}``."""
        if adds:
            return {"before": None, "after": row, "op": "c"}
        return {"before": row, "after": None, "op": "d"}
