"""The ``ogg-json`` format: Oracle GoldenGate's change messages as a changelog (Flink's format).

A message is ``{"before": row | null, "after": row | null, "op_type": "I" | "U" | "D", "table":
..., "op_ts": ..., "current_ts": ..., "pos": ..., "primary_keys": [...]}``. As Flink's
``OggJsonDeserializationSchema``: ``I`` → +I(after); ``U`` → -U(before), +U(after); ``D`` →
-D(before); a missing image or another ``op_type`` fails the message (skipped with
``'ogg-json.ignore-parse-errors'``). Its metadata columns are not read yet (refused as unknown keys).

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
)
from streamsql.connectors.formats.convert import RecordError

from streamsql.core.elements import RowKind

OPTIONS = changelog_options("ogg-json")


class OggJsonDecoder(ChangelogJsonDecoder):
    """See module docstring."""

    fmt = "ogg-json"

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
