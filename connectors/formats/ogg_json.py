"""The ``ogg-json`` format: Oracle GoldenGate's change messages as a changelog (Flink's format).

A message is ``{"before": row | null, "after": row | null, "op_type": "I" | "U" | "D", "table":
..., "op_ts": ..., "current_ts": ..., "pos": ..., "primary_keys": [...]}``. As Flink's
``OggJsonDeserializationSchema``: ``I`` → +I(after); ``U`` → -U(before), +U(after); ``D`` →
-D(before); a missing image or another ``op_type`` fails the message (skipped with
``'ogg-json.ignore-parse-errors'``). Metadata (``METADATA FROM 'value.<key>'``, as Flink's
``OggJsonDecodingFormat``): ``table`` (STRING), ``primary-keys`` (ARRAY<STRING> from
``primary_keys``), ``ingestion-timestamp`` (TIMESTAMP_LTZ(6) from the text ``current_ts``:
``yyyy-MM-dd'T'HH:mm:ss.SSSSSS`` cut to milliseconds, else java.sql's forms, else NULL) and
``event-timestamp`` (TIMESTAMP_LTZ(6) from the text ``op_ts``, Flink's default timestamp text cut
to milliseconds: other text fails the message); see :mod:`.timestamp_data`.

Written as Flink's ``OggJsonSerializationSchema``: ``{"before":null,"after":row,"op_type":"I"}`` for
+I/+U, ``{"before":row,"after":null,"op_type":"D"}`` for -U/-D.
"""

from __future__ import annotations

from streamsql.connectors.formats.changelog_json import (
    Change,
    ChangelogJsonDecoder,
    ChangelogJsonEncoder,
    changelog_options,
    json_text,
    metadata,
)
from streamsql.connectors.formats.convert import RecordError
from streamsql.connectors.formats.timestamp_data import parse_default, parse_pattern_or_sql

from streamsql.core.elements import RowKind

OPTIONS = changelog_options("ogg-json")


class OggJsonDecoder(ChangelogJsonDecoder):
    """See module docstring."""

    fmt = "ogg-json"
    METADATA = {
        "table": metadata("STRING", "table"),
        "primary-keys": metadata("ARRAY<STRING>", "primary_keys"),
        "ingestion-timestamp": metadata("TIMESTAMP_LTZ(6)", "current_ts", "STRING",
                                        parse=parse_pattern_or_sql),
        "event-timestamp": metadata("TIMESTAMP_LTZ(6)", "op_ts", "STRING", parse=parse_default),
    }

    def changes(self, obj: dict) -> list[Change]:
        """The changes of one GoldenGate message (see module docstring)."""
        op = obj.get("op_type")
        before, after = obj.get("before"), obj.get("after")
        if op not in ("I", "U", "D"):
            msg = f'Unknown "op_type" value {json_text(op)}'
            raise RecordError(msg)
        if op in ("U", "D") and before is None:
            what = "UPDATE" if op == "U" else "DELETE"
            msg = f"the 'before' field of a {what} message is null (the source must log the whole row)"
            raise RecordError(msg)
        if op == "I":
            return [(after, RowKind.INSERT)]
        if op == "D":
            return [(before, RowKind.DELETE)]
        return [(before, RowKind.UPDATE_BEFORE), (after, RowKind.UPDATE_AFTER)]


class OggJsonEncoder(ChangelogJsonEncoder):
    """See module docstring."""

    fmt = "ogg-json"

    def envelope(self, row: dict, adds: bool) -> dict:
        """``{"before":null,"after":row,"op_type":"I"}`` or ``{"before":row,"after":null,"op_type":"D"}``."""
        if adds:
            return {"before": None, "after": row, "op_type": "I"}
        return {"before": row, "after": None, "op_type": "D"}
