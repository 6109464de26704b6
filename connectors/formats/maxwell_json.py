"""The ``maxwell-json`` format: Maxwell's change messages as a changelog (Flink's format).

A message is ``{"database": ..., "table": ..., "type": "insert" | "update" | "delete", "ts":
seconds, "data": row, "old": changed fields, "primary_key_columns": [...], ...}``. As Flink's
``MaxwellJsonDeserializationSchema``: ``insert`` → +I(data); ``update`` → -U (``old``, the
fields it does not name taken from ``data``; one it sets to null stays NULL), +U(data);
``delete`` → -D(data); another type (Maxwell's ``bootstrap-*`` events too) fails the message.
Metadata (``METADATA FROM 'value.<key>'``): ``database``, ``table``, ``primary-key-columns``
(ARRAY<STRING>), ``ingestion-timestamp`` (TIMESTAMP_LTZ(3), from ``ts`` in seconds).

Written as Flink's ``MaxwellJsonSerializationSchema``: ``{"data":row,"type":"insert"}`` for
+I/+U, ``"delete"`` for -U/-D.
"""

from __future__ import annotations

from streamsql.connectors.formats.changelog_json import (
    Change,
    ChangelogJsonDecoder,
    ChangelogJsonEncoder,
    Partial,
    changelog_options,
    json_text,
    metadata,
    names_within,
)
from streamsql.connectors.formats.convert import RecordError

from streamsql.core.elements import RowKind

OPTIONS = changelog_options("maxwell-json")

_KINDS = {"insert": RowKind.INSERT, "delete": RowKind.DELETE}


class MaxwellJsonDecoder(ChangelogJsonDecoder):
    """See module docstring."""

    fmt = "maxwell-json"
    METADATA = {
        "database": metadata("STRING", "database"),
        "table": metadata("STRING", "table"),
        "primary-key-columns": metadata("ARRAY<STRING>", "primary_key_columns"),
        "ingestion-timestamp": metadata("TIMESTAMP_LTZ(3)", "ts", "BIGINT", 1000),
    }

    def changes(self, obj: dict) -> list[Change]:
        """The changes of one Maxwell message (see module docstring)."""
        kind = obj.get("type")
        if kind not in ("insert", "update", "delete"):
            msg = f'Unknown "type" value {json_text(kind)}'
            raise RecordError(msg)
        data = obj.get("data")
        if not isinstance(data, dict):
            msg = f"the 'data' field of an {kind} message is {'null' if data is None else 'not an object'}"
            raise RecordError(msg)
        if kind in _KINDS:
            return [(data, _KINDS[kind])]
        old = obj.get("old")
        if not isinstance(old, dict):
            msg = f"the 'old' field of an update message is {'null' if old is None else 'not an object'}"
            raise RecordError(msg)
        return [(Partial(old, names_within(old)), RowKind.UPDATE_BEFORE), (data, RowKind.UPDATE_AFTER)]


class MaxwellJsonEncoder(ChangelogJsonEncoder):
    """See module docstring."""

    fmt = "maxwell-json"

    def envelope(self, row: dict, adds: bool) -> dict:
        """``{"data":row,"type":"insert"|"delete"}``."""
        return {"data": row, "type": "insert" if adds else "delete"}
