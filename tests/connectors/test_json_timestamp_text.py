"""Timestamp text read as Flink 2.3 reads it, checked against the compat cases Flink recorded.

``tests/compat/cases/kafka_json_timestamp_{sql,iso}_ignored`` hold 48 texts each and Flink's
``CAST(col AS STRING)`` of what it read from them into TIMESTAMP(3), TIMESTAMP_LTZ(3) and
TIMESTAMP(6) (NULL: Flink rejected the text). Here every text goes through the json decoder one
record at a time (the per-record path) and all of Flink's accepted texts together (Arrow's fast
path), without a broker.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pyarrow as pa
import pytest
from streamsql.connectors.formats import make_decoder
from streamsql.connectors.formats.java_timestamp import timestamp_column

from tests.connectors.helpers import schema_of

CASES = Path(__file__).resolve().parent.parent / "compat" / "cases"
SCHEMA = schema_of(id="INT", ts="TIMESTAMP(3)", ltz="TIMESTAMP_LTZ(3)", ts6="TIMESTAMP(6)")


def _text(v: dt.datetime | None, digits: int) -> str | None:
    """Flink's CAST(... AS STRING) of a TIMESTAMP(digits) value."""
    if v is None:
        return None
    return v.replace(tzinfo=None).isoformat(" ", "microseconds")[: 20 + digits]


def _flink(case: str) -> tuple[list[bytes], dict[int, list]]:
    d = CASES / case
    records = [r.encode() for r in json.loads((d / "records.json").read_text())]
    rows = {int(r[0]): r[1:] for r in json.loads((d / "expected.json").read_text())["rows"]}
    return records, rows


@pytest.mark.parametrize(("case", "options"), [
    ("kafka_json_timestamp_sql_ignored", {}),
    ("kafka_json_timestamp_iso_ignored", {"json.timestamp-format.standard": "ISO-8601"}),
])
def test_timestamp_text_as_flink(case, options):
    records, flink = _flink(case)
    options = {**options, "json.ignore-parse-errors": "true"}

    def read(batch: list[bytes]) -> list[list]:
        table = make_decoder("json", SCHEMA, options).decode(batch, lambda i: f"t[0]@{i}").table
        return [[_text(r["ts"], 3), _text(r["ltz"], 3), _text(r["ts6"], 6)] for r in table.to_pylist()]

    got = {i: read([r])[0] for i, r in enumerate(records)}
    assert got == flink
    # the fast path reads a text as Flink does, or leaves it to the per-record path
    iso = options.get("json.timestamp-format.standard") == "ISO-8601"
    fast = 0
    for i, r in enumerate(records):
        text = json.loads(r)["ts"]
        if not isinstance(text, str):
            continue
        for ltz, col in ((False, 0), (True, 1)):
            try:
                ns = timestamp_column(pa.array([text]), ltz, iso)
            except pa.ArrowInvalid:
                continue
            fast += 1
            ms = ns.cast(pa.timestamp("ms", tz=ns.type.tz), safe=False)
            assert _text(ms[0].as_py(), 3) == flink[i][col]
    assert fast >= 4
