"""The ``canal-json`` format: Alibaba Canal's change messages as a changelog (Flink's format).

A message is ``{"data": [row, ...], "old": [changed fields, ...] | null, "type": "INSERT" |
"UPDATE" | "DELETE" | "CREATE", "database": ..., "table": ..., "pkNames": [...], "sqlType":
{...}, "ts": ms, "es": ms, ...}``. As Flink's ``CanalJsonDeserializationSchema``: ``INSERT`` →
+I per row of ``data``; ``UPDATE`` → per row, -U (the row's ``old`` object; a field it leaves
NULL is taken from the row unless *any* object of ``old`` names it, Jackson's ``findValue`` over
the whole array: then it stays NULL) then +U (the row); ``DELETE`` → -D per row; ``CREATE`` (a DDL event) →
nothing; another type fails the message. Flink converts the whole envelope, then emits the rows
one by one: a ``data`` (or ``old``) element that is no object (null, a number) ends the message
after the rows before it were emitted (with ``'canal-json.ignore-parse-errors'`` they are read:
:class:`~.changelog_json.PartialMessage`; Flink 2.3's answers recorded by
``scripts/flink_changelog_garbage.py``).
With ``'canal-json.database.include'`` / ``'canal-json.table.include'`` (Java regular
expressions matched against the whole name) a message of another database or table is no change.
Metadata (``METADATA FROM 'value.<key>'``): ``database``, ``table``, ``sql-type`` (MAP<STRING, INT>),
``pk-names`` (ARRAY<STRING>), ``ingestion-timestamp`` (``ts``) and ``event-timestamp`` (``es``),
TIMESTAMP_LTZ(3).

Written as Flink's ``CanalJsonSerializationSchema``: ``{"data":[row],"type":"INSERT"}`` for
+I/+U, ``"DELETE"`` for -U/-D.
"""

from __future__ import annotations

import re

from streamsql.connectors.formats.changelog_json import (
    Change,
    ChangelogJsonDecoder,
    ChangelogJsonEncoder,
    Partial,
    PartialMessage,
    changelog_options,
    json_text,
    metadata,
    names_within,
)
from streamsql.connectors.formats.convert import RecordError

from streamsql.core.connector import OptionSpec
from streamsql.core.elements import RowKind
from streamsql.core.errors import ConfigError

OPTIONS = changelog_options(
    "canal-json",
    OptionSpec("canal-json.database.include",
               description="read only messages whose 'database' matches this Java regular expression"),
    OptionSpec("canal-json.table.include",
               description="read only messages whose 'table' matches this Java regular expression"),
)


class CanalJsonDecoder(ChangelogJsonDecoder):
    """See module docstring."""

    fmt = "canal-json"
    METADATA = {
        "database": metadata("STRING", "database"),
        "table": metadata("STRING", "table"),
        "sql-type": metadata("MAP<STRING, INT>", "sqlType"),
        "pk-names": metadata("ARRAY<STRING>", "pkNames"),
        "ingestion-timestamp": metadata("TIMESTAMP_LTZ(3)", "ts", "BIGINT"),
        "event-timestamp": metadata("TIMESTAMP_LTZ(3)", "es", "BIGINT"),
    }

    def __init__(self, schema, options, table=None):
        super().__init__(schema, options, table)
        patterns = [(k, _pattern(options, k, table)) for k in ("database", "table")]
        self.include = [(k, p) for k, p in patterns if p is not None]

    def changes(self, obj: dict) -> list[Change]:
        """The changes of one Canal message (see module docstring)."""
        for key, pattern in self.include:
            name = obj.get(key)
            if name is None:
                msg = f"the message has no '{key}' to match 'canal-json.{key}.include'"
                raise RecordError(msg)
            if not pattern.fullmatch(name if isinstance(name, str) else json_text(name)):
                return []
        kind = obj.get("type")
        if kind == "CREATE":
            return []
        if kind not in ("INSERT", "UPDATE", "DELETE"):
            msg = f'Unknown "type" value {json_text(kind)}'
            raise RecordError(msg)
        data = _rows(obj, "data", kind)
        if kind in ("INSERT", "DELETE"):
            out = [(r, RowKind.INSERT if kind == "INSERT" else RowKind.DELETE) for r in data]
            bad = next((i for i, r in enumerate(data) if not isinstance(r, dict)), None)
            if bad is not None:  # Flink emits the rows before it, then fails on it
                msg = f"row {bad + 1} of the 'data' field of an {kind} message is no object"
                raise PartialMessage(msg, out[:bad])
            return out
        old = _rows(obj, "old", kind)
        kept = names_within(old)  # Jackson's findValue over the whole "old" array, as Flink's
        out: list[Change] = []
        for i, r in enumerate(data):
            if i >= len(old) or not isinstance(old[i], dict) or not isinstance(r, dict):  # pairs before: read
                what = "'data'" if r is None else "'old'"
                msg = f"the {what} field of an UPDATE message has no object for row {i + 1}"
                raise PartialMessage(msg, out)
            out.append((Partial(old[i], kept), RowKind.UPDATE_BEFORE))
            out.append((r, RowKind.UPDATE_AFTER))
        return out


def _rows(obj: dict, field: str, kind: str) -> list:
    """The array in ``field`` (its elements: row objects, or anything else that ends the message there).

    Raises:
        RecordError: ``field`` is no array (Flink's deserializer fails before any row).
    """
    rows = obj.get(field)
    if not isinstance(rows, list):
        msg = f"the '{field}' field of an {kind} message is {'null' if rows is None else 'not an array'}"
        raise RecordError(msg)
    return rows

def _pattern(options: dict[str, str], key: str, table: str | None):
    """The compiled ``'canal-json.<key>.include'`` (None when unset); Flink matches the whole name.

    Python's ``re`` reads the patterns such options hold (names, ``.*``, ``|``, classes) as Java's
    ``Pattern`` does.

    Raises:
        ConfigError: the pattern does not compile, naming the option.
    """
    text = options.get(f"canal-json.{key}.include")
    if text is None:
        return None
    try:
        return re.compile(text)
    except re.error as e:
        where = f"Table '{table}': " if table else ""
        msg = f"{where}option 'canal-json.{key}.include' = '{text}' is not a regular expression: {e}"
        raise ConfigError(msg) from None


class CanalJsonEncoder(ChangelogJsonEncoder):
    """See module docstring."""

    fmt = "canal-json"

    def envelope(self, row: dict, adds: bool) -> dict:
        """``{"data":[row],"type":"INSERT"|"DELETE"}``."""
        return {"data": [row], "type": "INSERT" if adds else "DELETE"}
