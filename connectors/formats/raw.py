"""The ``raw`` format: the whole message is the value of the table's single column.

The column is STRING (decoded with ``'raw.charset'``, default UTF-8; malformed bytes are replaced, as Java's
``new String(bytes, charset)``) or BYTES (as is).

A None payload (tombstone) becomes a NULL row, as Flink's raw format; an encoded NULL is a None
payload. There are no bad records in raw.
"""

from __future__ import annotations

import codecs

import numpy as np
import pyarrow as pa
from streamsql.connectors.formats.common import Decoder, Encoder, Where

from streamsql.core.connector import OptionSpec, choice_option
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError
from streamsql.core.types import Schema

OPTIONS = [
    OptionSpec("raw.charset", default="UTF-8", description="charset of STRING values"),
    choice_option(
        "raw.endianness",
        ("big-endian", "little-endian"),
        "accepted for compatibility (only STRING and BYTES columns are supported)",
        "big-endian",
    ),
]


def _check(schema: Schema, options: dict[str, str], table: str | None) -> str:
    pre = f"Table '{table}': " if table else ""
    if len(schema) != 1 or schema.fields[0].type.name not in ("STRING", "BYTES"):
        msg = (
            f"{pre}the 'raw' format needs exactly one physical column of type STRING or BYTES, got {schema!r}"
        )
        raise ConfigError(msg)
    charset = options.get("raw.charset", "UTF-8")
    try:
        return codecs.lookup(charset).name
    except LookupError:
        msg = f"{pre}option 'raw.charset' = '{charset}' is not a known charset"
        raise ConfigError(msg) from None


class RawDecoder(Decoder):
    """See module docstring."""

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options)
        self.charset = _check(schema, options, table)
        self.is_string = schema.fields[0].type.name == "STRING"

    def decode(self, values: list[bytes | None], where: Where) -> Batch:
        """Decode ``values`` into one batch (see :meth:`Decoder.decode`)."""
        arr = pa.array(values, pa.binary())
        if self.is_string:
            if self.charset == "utf-8":
                try:
                    arr = arr.cast(pa.string())
                except pa.ArrowInvalid:  # malformed UTF-8: replace, as Java does
                    arr = pa.array(
                        [None if v is None else v.decode("utf-8", "replace") for v in values], pa.string()
                    )
            else:
                arr = pa.array(
                    [None if v is None else v.decode(self.charset, "replace") for v in values], pa.string()
                )
        self.source_index = np.arange(len(values), dtype=np.int64)
        return Batch(pa.Table.from_arrays([arr], schema=self.arrow_schema))


class RawEncoder(Encoder):
    """See module docstring."""

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options)
        self.charset = _check(schema, options, table)

    def encode(self, table: pa.Table, kinds: np.ndarray | None = None) -> list[bytes | None]:
        """One payload per row (see :meth:`Encoder.encode`)."""
        col = table.column(0)
        if pa.types.is_string(col.type) and self.charset != "utf-8":
            return [None if s is None else s.encode(self.charset, "replace") for s in col.to_pylist()]
        return col.cast(pa.binary()).to_pylist()
