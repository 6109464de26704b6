"""Key and value formats of a Kafka table (Flink's ``key.*`` / ``value.*`` format options).

:func:`format_setup` resolves which columns the message key and value carry and with which
format; :func:`validate_table` checks a table's options against its connector's spec and its
formats. The formats themselves live in :mod:`streamsql.connectors.formats`.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass

import pyarrow as pa
from streamsql.connectors.formats import (
    is_changelog_format,
    make_decoder,
    make_encoder,
    validate_format_options,
)
from streamsql.connectors.kafka.options import FORMATS, check_topic_choice, table_prefix
from streamsql.connectors.registry import get_connector, validate_options

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError
from streamsql.core.types import Schema


@dataclass
class FormatSetup:
    """Key and value formats of a Kafka table.

    Attributes:
        value_format: the value format name.
        value_schema: columns the value carries (all physical columns, or those not in the key
            with ``'value.fields-include' = 'EXCEPT_KEY'``).
        value_options: the value format's options with the ``'value.'`` prefix stripped.
        key_format: the key format name, or None when messages have no decoded key.
        key_schema: the key columns (``'key.fields'``, or the PRIMARY KEY for upsert-kafka).
        key_options: the key format's options with the ``'key.'`` prefix stripped.
        key_prefix: ``'key.fields-prefix'``: the key columns' names in the table start with it,
            their names in the key format do not (Flink's key format projection).
    """

    value_format: str
    value_schema: Schema
    value_options: dict[str, str]
    key_format: str | None
    key_schema: Schema | None
    key_options: dict[str, str]
    key_prefix: str = ""

    @property
    def key_names(self) -> list[str]:
        """Key column names in the table (empty without a key format)."""
        return self.key_schema.names if self.key_schema is not None else []

    @property
    def key_format_schema(self) -> Schema | None:
        """The key columns as the key format names them (``'key.fields-prefix'`` cut off)."""
        if self.key_schema is None or not self.key_prefix:
            return self.key_schema
        n = len(self.key_prefix)
        return Schema([dataclasses.replace(f, name=f.name[n:]) for f in self.key_schema])

    def key_table(self, table: pa.Table) -> pa.Table:
        """The key columns of ``table`` (the table's names), named as the key format names them."""
        keys = table.select(self.key_names)
        return keys.rename_columns(self.key_format_schema.names) if self.key_prefix else keys

    def table_keys(self, keys: pa.Table) -> pa.Table:
        """Decoded key columns (the key format's names) named as the table's key columns."""
        return keys.rename_columns(self.key_names) if self.key_prefix else keys

    def extra_prefixes(self) -> tuple[str, ...]:
        """Option prefixes of the formats in use (for :func:`validate_options`'s allowed_extra)."""
        out = [f"{self.value_format}.", f"value.{self.value_format}."]
        if self.key_format:
            out.append(f"key.{self.key_format}.")
        return tuple(out)

    def make_decoders(self, table: TableDef):
        """``(value_decoder, key_decoder or None)``."""
        return self._value_and_key(make_decoder, table)

    def make_encoders(self, table: TableDef):
        """``(value_encoder, key_encoder or None)``."""
        return self._value_and_key(make_encoder, table)

    def _value_and_key(self, make, table: TableDef):
        v = make(self.value_format, self.value_schema, self.value_options, table.name)
        k = None
        if self.key_format:
            k = make(self.key_format, self.key_format_schema, self.key_options, table.name)
        if k is not None:
            k.option_prefix = "key."  # the key format's options are 'key.<format>.*'
        return v, k


def _strip(options: dict[str, str], fmt: str, prefix: str) -> dict[str, str]:
    """Format options for ``fmt``: ``'<prefix><fmt>.x'`` keys become ``'<fmt>.x'``."""
    out = {}
    for k, v in options.items():
        if k.startswith(prefix + fmt + "."):
            out[k[len(prefix) :]] = v
    return out


def format_setup(table: TableDef, key_fields: list[str] | None = None) -> FormatSetup:
    """Resolve the key/value formats of ``table``.

    Args:
        table: the table.
        key_fields: key columns imposed by the connector (upsert-kafka: the PRIMARY KEY, and then
            ``'key.format'`` and ``'value.format'`` are required, ``'format'`` is refused, as
            Flink's ``UpsertKafkaDynamicTableFactory``); None to use ``'key.fields'``.

    Raises:
        ConfigError: for a missing or conflicting format option or an unknown key field (at the
            option in the CREATE TABLE: the one set, or ``connector`` for a missing one).
    """
    o = table.options
    pre = table_prefix(table)
    if key_fields is not None:
        _check_upsert_formats(table, pre)
    if "format" in o and "value.format" in o:
        msg = f"{pre}set either 'format' or 'value.format', not both"
        raise ConfigError(msg, table=table.name, option="value.format")
    vfmt = (o.get("value.format") or o.get("format") or "").strip().lower()
    if not vfmt:
        msg = f"{pre}option 'format' (or 'value.format') is required: one of {', '.join(FORMATS)}"
        raise ConfigError(msg, table=table.name, option="connector")
    vopts = _strip(o, vfmt, "value.") if "value.format" in o else _strip(o, vfmt, "")
    if "value.format" in o:  # be lenient: unprefixed format options apply to the value too
        vopts = {**_strip(o, vfmt, ""), **vopts}
    physical = table.physical_schema
    if key_fields is None:
        key_fields = [k.strip() for k in o.get("key.fields", "").split(";") if k.strip()]
        if key_fields and "key.format" not in o:
            msg = f"{pre}'key.fields' needs 'key.format'"
            raise ConfigError(msg, table=table.name, option="key.fields")
        if "key.format" in o and not key_fields:
            msg = f"{pre}'key.format' needs 'key.fields' (columns separated by ';')"
            raise ConfigError(msg, table=table.name, option="key.format")
    kfmt = (o.get("key.format") or "").strip().lower() or None
    key_schema = None
    if kfmt:
        fields = []
        for name in key_fields:
            f = physical.find(name)
            if f is None:
                msg = (
                    f"{pre}key field '{name}' is not a physical column; columns: {', '.join(physical.names)}"
                )
                raise ConfigError(msg)
            fields.append(f)
        key_schema = Schema(fields)
    include = o.get("value.fields-include", "ALL").upper()
    prefix = o.get("key.fields-prefix", "")
    if prefix:
        _check_key_prefix(pre, prefix, include, key_fields)
    if include == "EXCEPT_KEY" and key_schema is not None:
        knames = {n.lower() for n in key_schema.names}
        value_schema = Schema([f for f in physical if f.name.lower() not in knames])
    else:
        value_schema = physical
    kopts = _strip(o, kfmt, "key.") if kfmt else {}
    return FormatSetup(vfmt, value_schema, vopts, kfmt, key_schema, kopts, prefix)


def _check_upsert_formats(table: TableDef, pre: str) -> None:
    """Flink's format options of ``upsert-kafka``: ``'key.format'`` and ``'value.format'``, no ``'format'``.

    Flink 2.3 asks for the key's format, then the value's, then refuses options it does not know;
    so does this, in its words (``Could not find required ... format``, ``Unsupported options
    found for 'upsert-kafka'``).

    Raises:
        ConfigError: at ``'format'`` when it is set, else at ``connector`` for a missing format.
    """
    o = table.options
    for key in ("key.format", "value.format"):
        if not o.get(key, "").strip():
            misnamed = key == "value.format" and "format" in o
            hint = (" (upsert-kafka has no option 'format': name the value's format 'value.format')"
                    if misnamed else "")
            msg = f"{pre}Could not find required format '{key}'{hint}"
            raise ConfigError(msg, table=table.name, option="format" if misnamed else "connector")
    if "format" in o:
        msg = (f"{pre}Unsupported options found for 'upsert-kafka'. Unsupported options: format "
               "('value.format' names the value's format)")
        raise ConfigError(msg, table=table.name, option="format")


def _check_key_prefix(pre: str, prefix: str, include: str, key_fields: list[str]) -> None:
    """Flink's checks of ``'key.fields-prefix'`` (``KafkaConnectorOptionsUtil``), in its words.

    Raises:
        ConfigError: with ``'value.fields-include'`` = ``'ALL'``, or a key field not prefixed.
    """
    if include != "EXCEPT_KEY":
        msg = (f"{pre}A key prefix is not allowed when option 'value.fields-include' is set to 'ALL'. "
               "Set it to 'EXCEPT_KEY' instead to avoid field overlaps.")
        raise ConfigError(msg)
    for name in key_fields:
        if not name.startswith(prefix):
            msg = (f"{pre}All fields in 'key.fields' must be prefixed with '{prefix}' when option "
                   f"'key.fields-prefix' is set but field '{name}' is not prefixed.")
            raise ConfigError(msg)


def validate_table(connector: str, table: TableDef, fs: FormatSetup) -> None:
    """Check the table's options against connector ``connector``'s spec and its formats' options.

    Raises:
        ConfigError: naming the table and the bad option.
    """
    opts = {k: v for k, v in table.options.items() if k != "connector"}
    validate_options(get_connector(connector), opts, table.name, allowed_extra=fs.extra_prefixes())
    table.options.update(opts)  # enums in their canonical spelling, which the reader compares
    check_topic_choice(table)  # at planning, placed in the DDL (the reader and sink check it again)
    validate_format_options(fs.value_format, fs.value_options, table.name)
    if fs.key_format:
        validate_format_options(fs.key_format, fs.key_options, table.name)
    if connector == "kafka" and table.primary_key and not is_changelog_format(fs.value_format):
        # Flink's KafkaDynamicTableFactory.validatePKConstraints, for its source and its sink: an
        # append-only topic cannot keep a key's semantics (upsert-kafka, or a changelog format, can)
        msg = (f"The Kafka table '{table.name}' with '{fs.value_format}' format doesn't support defining "
               "PRIMARY KEY constraint on the table, because it can't guarantee the semantic of primary "
               "key.")
        raise ConfigError(msg)


class StatesFormats(ABC):
    """A Kafka source or sink class: it states the formats of its table (the planner asks it)."""

    @staticmethod
    @abstractmethod
    def formats(table: TableDef) -> FormatSetup:
        """The table's key/value formats, its options checked against the connector's spec.

        Raises:
            ConfigError: for a bad option.
        """
