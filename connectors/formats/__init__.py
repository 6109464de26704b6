"""Formats: message payloads ⇄ batches, by Flink's format names (json, csv, raw, debezium-json, ...).

The changelog JSON formats debezium-json, canal-json, maxwell-json and ogg-json share :mod:`.changelog_json`.

Format options carry the format name as prefix, as in Flink DDL (``'json.ignore-parse-errors'``,
``'csv.field-delimiter'``, ``'debezium-json.schema-include'``, ``'raw.charset'``). A connector
with key/value formats (Kafka's ``'value.json.x'``) strips its ``'value.'`` prefix before calling
:func:`make_decoder`.

Public API:

- :func:`make_decoder` / :func:`make_encoder` — build a :class:`Decoder` / :class:`Encoder`;
- :func:`format_options` — the options a format understands (validation, completion, HELP);
- :func:`validate_format_options` — check a table's options for a format;
- :func:`known_formats` — the format names;
- :func:`is_changelog_format` / :func:`encodes_updates` — whether a format's rows carry row
  kinds when read / can carry an updating result when written (the planner's questions).

See :mod:`.common` for the Decoder/Encoder contracts and the bad-record rules.
"""

from __future__ import annotations

from typing import NamedTuple

from streamsql.connectors.formats.common import Decoder, Encoder, check_options

from streamsql.core.connector import OptionSpec
from streamsql.core.errors import ConfigError
from streamsql.core.types import Schema, SqlType

__all__ = [
    "Decoder",
    "Encoder",
    "encodes_updates",
    "format_option_keys",
    "format_options",
    "is_changelog_format",
    "known_formats",
    "make_decoder",
    "make_encoder",
    "readable_metadata",
    "validate_format_options",
]


class _Format(NamedTuple):
    """What one format provides: its options and its decoder and encoder classes."""

    options: list[OptionSpec]
    decoder: type[Decoder]
    encoder: type[Encoder]


def _formats() -> dict[str, _Format]:
    from streamsql.connectors.formats import (
        avro,
        canal_json,
        csv,
        debezium_json,
        json,
        json_encode,
        maxwell_json,
        ogg_json,
        raw,
    )

    return {
        "json": _Format(json.OPTIONS, json.JsonDecoder, json_encode.JsonEncoder),
        "csv": _Format(csv.OPTIONS, csv.CsvDecoder, csv.CsvEncoder),
        "raw": _Format(raw.OPTIONS, raw.RawDecoder, raw.RawEncoder),
        "debezium-json": _Format(
            debezium_json.OPTIONS, debezium_json.DebeziumJsonDecoder, debezium_json.DebeziumJsonEncoder
        ),
        "canal-json": _Format(canal_json.OPTIONS, canal_json.CanalJsonDecoder, canal_json.CanalJsonEncoder),
        "maxwell-json": _Format(
            maxwell_json.OPTIONS, maxwell_json.MaxwellJsonDecoder, maxwell_json.MaxwellJsonEncoder
        ),
        "ogg-json": _Format(ogg_json.OPTIONS, ogg_json.OggJsonDecoder, ogg_json.OggJsonEncoder),
        "avro": _Format(avro.OPTIONS, avro.AvroDecoder, avro.AvroEncoder),
    }


def known_formats() -> list[str]:
    """The format names, sorted."""
    return sorted(_formats())


def is_changelog_format(format_name: str) -> bool:
    """True when rows read in ``format_name`` may be -U/+U/-D (debezium-json); False if unknown."""
    f = _lookup(format_name)
    return f is not None and f.decoder.changelog


def encodes_updates(format_name: str) -> bool:
    """True when ``format_name`` can write -U/+U/-D rows (debezium-json); False if unknown."""
    f = _lookup(format_name)
    return f is not None and f.encoder.accepts_updates


def readable_metadata(format_name: str | None) -> dict[str, SqlType]:
    """The metadata keys a format's messages carry and their SQL types, in Flink's order.

    A connector offers them as ``'value.<key>'`` (``canal-json``: ``database``, ``table``, ...;
    Flink's ``DecodingFormat.listReadableMetadata``); empty for a format without metadata or an
    unknown one. A decoder produces the keys asked with ``request_metadata`` in its ``metadata``
    attribute, one array per key aligned with its rows.
    """
    f = _lookup(format_name)
    return {k: m.type for k, m in getattr(f.decoder, "METADATA", {}).items()} if f else {}


def _lookup(format_name: str | None) -> _Format | None:
    return _formats().get((format_name or "").strip().lower())


def _get(format_name: str, table: str | None) -> _Format:
    f = _lookup(format_name)
    if f is None:
        pre = f"Table '{table}': " if table else ""
        msg = f"{pre}unknown format '{format_name}'; available: {', '.join(known_formats())}"
        raise ConfigError(msg)
    return f


def format_options(format_name: str) -> list[OptionSpec]:
    """The options ``format_name`` understands (keys prefixed by the format name).

    Raises:
        ConfigError: for an unknown format.
    """
    return list(_get(format_name, None).options)


def format_option_keys() -> frozenset[str]:
    """The option keys every format understands, together (``'json.ignore-parse-errors'``, ...)."""
    return frozenset(o.key for f in _formats().values() for o in f.options)


def validate_format_options(format_name: str, options: dict[str, str], table: str | None = None) -> None:
    """Check the ``'<format>.'``-prefixed keys of ``options`` (unknown key, bad choice/value).

    Raises:
        ConfigError: naming the table and the option.
    """
    _checked(format_name, options, table)


def _checked(format_name: str, options: dict[str, str], table: str | None) -> _Format:
    """The format ``format_name`` once its options in ``options`` are valid.

    Raises:
        ConfigError: for an unknown format, or a bad format option.
    """
    f = _get(format_name, table)
    name = format_name.strip().lower()
    check_options(f.options, options, name + ".", f"format '{name}'", table)
    return f


def make_decoder(
    format_name: str, schema: Schema, options: dict[str, str], table: str | None = None
) -> Decoder:
    """A decoder of ``format_name`` for ``schema`` (the physical columns).

    The format's options in ``options`` are checked first; :func:`make_encoder` does the same.

    Raises:
        ConfigError: for an unknown format, or a bad format option.
    """
    f = _checked(format_name, options, table)
    _string_map_keys(format_name, schema, table)
    _no_variant(format_name, schema, table, writing=False)
    _no_bitmap(format_name, schema, table, writing=False)
    return f.decoder(schema, options, table)


def make_encoder(
    format_name: str, schema: Schema, options: dict[str, str], table: str | None = None
) -> Encoder:
    """An encoder of ``format_name`` for ``schema``; it checks and raises as :func:`make_decoder`."""
    f = _checked(format_name, options, table)
    _string_map_keys(format_name, schema, table)
    _no_variant(format_name, schema, table, writing=True)
    _no_bitmap(format_name, schema, table, writing=True)
    return f.encoder(schema, options, table)


def _no_bitmap(format_name: str, schema: Schema, table: str | None, writing: bool) -> None:
    """Refuse a BITMAP column (at any depth) in every format, as Flink 2.3's formats refuse it.

    In Flink's words (scripts/flink_bitmap.py ``sinks``): csv ``Unsupported type 'BITMAP' for field
    'x'.``, json when writing ``Not support to parse type: BITMAP``, else ``Unsupported type:
    BITMAP``. Its bytes were written here as if they were text.

    Raises:
        ConfigError: naming the table and the column.
    """
    todo = [(f.name, f.type) for f in schema.fields]
    while todo:
        name, t = todo.pop()
        if t.name == "BITMAP":
            where = f"Table '{table}': " if table else ""
            fmt = format_name.strip().lower()
            flink = (f"Unsupported type 'BITMAP' for field '{name}'." if fmt == "csv"
                     else "Not support to parse type: BITMAP" if writing and fmt == "json"
                     else "Unsupported type: BITMAP")
            msg = f"{where}{flink} (column '{name}': no format reads or writes a BITMAP, as in Flink)"
            raise ConfigError(msg, table=table, column=name)
        todo += [(name, c) for c in t.children]


def _string_map_keys(format_name: str, schema: Schema, table: str | None) -> None:
    """Refuse a MAP whose key is not a string in a JSON format, as Flink's JSON converters do.

    Flink 2.3 fails such a table's job (reading or writing, at any depth) with ``JSON format
    doesn't support non-string as key type of map. The type is: MAP<INT, STRING>``; the key text
    was converted here instead (``{"1.25": 1}`` into ``MAP<DECIMAL(5, 1), INT>`` read as 1.3).

    Raises:
        ConfigError: with Flink's message, naming the table.
    """
    if format_name.strip().lower() not in ("json", "debezium-json", "canal-json", "maxwell-json", "ogg-json"):
        return
    todo = [(f.name, f.type) for f in reversed(schema.fields)]  # depth first, in field order, as Flink's
    while todo:
        column, t = todo.pop()
        if t.name == "MAP" and t.children[0].name != "STRING":
            where = f"Table '{table}': " if table else ""
            msg = f"{where}JSON format doesn't support non-string as key type of map. The type is: {t.sql()}"
            raise ConfigError(msg, table=table, column=column)  # at the column in the CREATE TABLE
        todo += [(column, c) for c in reversed(t.children)]



#: Flink 2.3's words refusing a VARIANT column in its JSON formats (scripts/flink_variant.py), reading
#: and writing.
_JSON_VARIANT = {False: "Unsupported type: VARIANT", True: "Not support to parse type: VARIANT"}


def _no_variant(format_name: str, schema: Schema, table: str | None, writing: bool) -> None:
    """Refuse a VARIANT column (at any depth): Flink 2.3's formats neither read nor write one.

    Raises:
        ConfigError: Flink's message for the ``json`` and ``csv`` formats, naming the table.
    """
    name = format_name.strip().lower()
    for f in schema.fields:
        todo = [f.type]
        while todo:
            t = todo.pop()
            if t.name != "VARIANT":
                todo += t.children
                continue
            if "json" in name:
                text = _JSON_VARIANT[writing]
            elif name == "csv":  # CsvRowSchemaConverter
                text = f"Unsupported type '{t.with_nullable(True).sql()}' for field '{f.name}'."
            else:
                text = f"The format '{name}' cannot {'write' if writing else 'read'} a VARIANT column"
            where = f"Table '{table}': " if table else ""
            msg = f"{where}{text} (PARSE_JSON reads a VARIANT from a STRING column)"
            raise ConfigError(msg, table=table, column=f.name)
