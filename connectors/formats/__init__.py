"""Formats: message payloads ⇄ batches, by Flink's format names (json, csv, raw, debezium-json).

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

from streamsql.connectors.formats.common import Decoder, Encoder, check_options

from streamsql.core.connector import OptionSpec
from streamsql.core.errors import ConfigError
from streamsql.core.types import Schema

__all__ = [
    "Decoder",
    "Encoder",
    "encodes_updates",
    "format_options",
    "is_changelog_format",
    "known_formats",
    "make_decoder",
    "make_encoder",
    "validate_format_options",
]


def _formats():
    from streamsql.connectors.formats import csv, debezium_json, json, raw

    return {
        "json": (json.OPTIONS, json.JsonDecoder, json.JsonEncoder),
        "csv": (csv.OPTIONS, csv.CsvDecoder, csv.CsvEncoder),
        "raw": (raw.OPTIONS, raw.RawDecoder, raw.RawEncoder),
        "debezium-json": (
            debezium_json.OPTIONS,
            debezium_json.DebeziumJsonDecoder,
            debezium_json.DebeziumJsonEncoder,
        ),
    }


def known_formats() -> list[str]:
    """The format names, sorted."""
    return sorted(_formats())


def is_changelog_format(format_name: str) -> bool:
    """True when rows read in ``format_name`` may be -U/+U/-D (debezium-json); False if unknown."""
    f = _formats().get((format_name or "").strip().lower())
    return f is not None and f[1].changelog


def encodes_updates(format_name: str) -> bool:
    """True when ``format_name`` can write -U/+U/-D rows (debezium-json); False if unknown."""
    f = _formats().get((format_name or "").strip().lower())
    return f is not None and f[2].accepts_updates


def _get(format_name: str, table: str | None):
    f = _formats().get((format_name or "").strip().lower())
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
    return list(_get(format_name, None)[0])


def validate_format_options(format_name: str, options: dict[str, str], table: str | None = None) -> None:
    """Check the ``'<format>.'``-prefixed keys of ``options`` (unknown key, bad choice/value).

    Raises:
        ConfigError: naming the table and the option.
    """
    name = format_name.strip().lower()
    check_options(_get(name, table)[0], options, name + ".", f"format '{name}'", table)


def make_decoder(
    format_name: str, schema: Schema, options: dict[str, str], table: str | None = None
) -> Decoder:
    """A decoder of ``format_name`` for ``schema`` (the physical columns).

    Raises:
        ConfigError: for an unknown format, or a bad format option.
    """
    return _build(format_name, 1, schema, options, table)


def make_encoder(
    format_name: str, schema: Schema, options: dict[str, str], table: str | None = None
) -> Encoder:
    """An encoder of ``format_name`` for ``schema``.

    Raises:
        ConfigError: for an unknown format, or a bad format option.
    """
    return _build(format_name, 2, schema, options, table)


def _build(format_name: str, slot: int, schema: Schema, options: dict[str, str], table: str | None):
    """The format's decoder (``slot`` 1) or encoder (2), after checking its options."""
    cls = _get(format_name, table)[slot]
    validate_format_options(format_name, options, table)
    return cls(schema, options, table)
