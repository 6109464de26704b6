"""The ``json`` format's first fast path: flat records decoded by msgspec into Arrow columns.

msgspec (a library with binary wheels) decodes each payload into a ``Struct`` whose fields are the
table's columns, then each kept column becomes one Arrow array of the type ``pyarrow.json`` would
have read (:func:`.json.read_schema`), and :func:`.common.fix_types` converts it as it does
Arrow's (timestamps, DATE, TIME and BYTES from their text). Its cost against Arrow's reader with
the checks that one needs: benchmarks/README.md, session 32 (``python -m benchmarks.decode_ab``).

It decodes only what it can decode exactly as Flink's JSON format (``JsonParserToRowDataConverters``)
would; any other batch gives None and the caller goes on to the Arrow fast path, then per record:

- only flat tables whose every column is a BIGINT, INT, SMALLINT, TINYINT, BOOLEAN, STRING (also
  CHAR/VARCHAR), DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ or BYTES (no DECIMAL, FLOAT, DOUBLE: their
  exactness is the Arrow and per-record paths' work; no ROW, ARRAY, MAP);
- every record is one JSON object holding every column (``null`` allowed) with a value of the
  column's JSON kind: an integer for an integer column (no fraction, exponent, string or bool; in
  range, else Arrow's overflow error), ``true``/``false`` for a BOOLEAN, a string for the rest
  (a number into a STRING is Flink's number text, which the other paths give) but a STRING the
  job does not read, which takes any value (``msgspec.Raw``: checked, not copied); msgspec rejects
  invalid JSON, ``NaN``/``Infinity``, control characters in strings and invalid UTF-8 in what it
  decodes, and a payload with anything but whitespace after its object (Flink would read the
  first value: the per-record path does);
- the batch holds no backslash (no escapes: every key is written as its name, no string holds a
  quote) and is valid UTF-8; and it holds exactly one key per column per record: the count of
  ``":`` (a key's end; a string starting with ``:`` only adds to it) is records × columns, and no
  ``"`` is followed by whitespace (a key ending ``" :`` would not be counted). With every column
  present, that means no name written twice and no field outside the table, so Flink's count of
  the fields it has read (:mod:`.json_fields`) never cuts a record short and every field is the
  one value msgspec read.

Raises nothing of its own: :meth:`MsgspecReader.read` returns None for what it does not take
(also for a record nested deeper than Jackson's limit, :mod:`.json_depth`, which msgspec may
take, in an unread STRING's ``Raw``, and for nesting deeper than msgspec's own limit, where it
raises RecursionError).
"""

from __future__ import annotations

from operator import attrgetter

import msgspec
import numpy as np
import pyarrow as pa
from streamsql.connectors.formats.common import ARROW_ERRORS, fix_types, valid_utf8
from streamsql.connectors.formats.json_depth import too_deep

from streamsql.core.types import Schema, SqlType

#: SQL type name → the Python type msgspec decodes the column's JSON value as.
_KINDS: dict[str, type] = {
    "BIGINT": int, "INT": int, "SMALLINT": int, "TINYINT": int, "BOOLEAN": bool,
    "STRING": str, "DATE": str, "TIME": str, "TIMESTAMP": str, "TIMESTAMP_LTZ": str, "BYTES": str,
}

#: Bytes per numpy pass of :func:`one_key_per_column` (temporaries that stay in cache).
_CHUNK = 1 << 16


def supported(t: SqlType) -> bool:
    """True when this path decodes a column of type ``t`` (see the module docstring)."""
    return t.name in _KINDS


def one_key_per_column(data: bytes, expect: int) -> bool:
    """True when ``data`` holds ``expect`` ``":`` pairs and no ``"`` followed by a byte <= 0x20.

    ``data``: the newline-joined payloads, with no backslash. ~0.07 CPU-µs per 206-byte record
    by numpy over 64 KiB chunks (a ``bytes.count`` of a two-byte needle took 0.18).
    """
    a = np.frombuffer(data, np.uint8)
    keys = 0
    for lo in range(0, max(len(a) - 1, 0), _CHUNK):
        c = a[lo:lo + _CHUNK + 1]
        quote = c[:-1] == 34
        after = c[1:]
        keys += int(np.count_nonzero(quote & (after == 58)))
        if bool((quote & (after <= 32)).any()):
            return False
    return keys == expect


class MsgspecReader:
    """Decodes a batch of a flat table's records with msgspec (see the module docstring).

    Args:
        full: the table's columns, all of which every record must hold once (for a narrowed
            decoder, the columns before narrowing).
        kept: the columns to return, a subset of ``full`` in its order.
        read_schema: ``kept`` as ``pyarrow.json`` reads it (:func:`.json.read_schema`).
        iso: ``'json.timestamp-format.standard' = 'ISO-8601'`` (for :func:`fix_types`).
    """

    def __init__(self, full: Schema, kept: Schema, read_schema: pa.Schema, iso: bool):
        names = [f.name for f in full]
        kept_names = {f.name for f in kept}
        # a STRING nobody reads takes any JSON value in Flink (its text): msgspec only checks it
        fields = [(f"c{i}", msgspec.Raw if f.name not in kept_names and f.type.name == "STRING"
                   else _KINDS[f.type.name] | None) for i, f in enumerate(full)]
        struct = msgspec.defstruct("JsonRecord", fields, rename={f"c{i}": n for i, n in enumerate(names)},
                                   gc=False)
        self._decode = msgspec.json.Decoder(struct).decode
        self._columns = len(names)
        self._kept = kept
        self._read = [(attrgetter(f"c{names.index(f.name)}"), r.type) for f, r in zip(kept, read_schema)]
        self._read_schema = read_schema
        self._iso = iso

    @staticmethod
    def takes(schema: Schema) -> bool:
        """True when every column of ``schema`` is of a :func:`supported` type."""
        return len(schema) > 0 and all(supported(f.type) for f in schema)

    def read(self, payloads: list[bytes]) -> pa.Table | None:
        """The kept columns of ``payloads`` (one row each) with the schema's Arrow types, or None.

        None for a batch this path does not decode exactly as Flink (module docstring).
        """
        data = b"\n".join(payloads)
        if b"\\" in data or not valid_utf8(data) or too_deep(data, payloads):
            return None
        try:
            rows = list(map(self._decode, payloads))
        except (msgspec.DecodeError, RecursionError):  # ValidationError too; nesting past msgspec's
            return None  # ~1000-level limit (in an unread STRING: Raw), which the other paths decide
        if not one_key_per_column(data, len(payloads) * self._columns):
            return None
        try:
            cols = [pa.array(list(map(get, rows)), t) for get, t in self._read]
            return fix_types(pa.Table.from_arrays(cols, schema=self._read_schema), self._kept, self._iso)
        except (*ARROW_ERRORS, OverflowError):  # an integer out of its column's range, a bad timestamp
            return None

