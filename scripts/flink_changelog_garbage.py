"""Record what Apache Flink 2.3 reads from malformed ``canal-json``, ``maxwell-json``, ``ogg-json`` messages.

Writes ``tests/connectors/changelog_garbage_flink.json``, which
``tests/connectors/test_changelog_garbage_flink.py`` compares StreamSQL with. For each format, the
messages of :data:`GARBAGE` (each wrong in one way: a null or non-object row among good ones, an
``old`` shorter than ``data``, a missing or unknown type, rows of wrong types, JSON that is no
envelope) and a good one last are produced into a new one-partition topic and read by Flink's
``kafka`` source (bounded) with ``'<format>.ignore-parse-errors' = 'true'``: the rows with their
row kinds. Where a canal message holds several rows, Flink's deserializer emits them one by one, so
the rows before a bad one (null, no object, no ``old`` for it) are read (break36: StreamSQL skipped
the whole message).

Needs the broker of ``STREAMSQL_KAFKA_BOOTSTRAP`` (default 127.0.0.1:9092) and the Kafka SQL
connector jar as cached by ``benchmarks/flink_setup.py``. Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_changelog_garbage.py
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_changelog_json import COLUMNS, _read
from flink_session import ROOT, kafka_jar, produce_json, table_env

OUT = ROOT / "tests" / "connectors" / "changelog_garbage_flink.json"


def _row(i: int, name: str = "r") -> dict:
    return {"id": i, "name": f"{name}{i}", "price": i}


#: Per format: the malformed messages, then a good one.
GARBAGE = {
    "canal-json": [
        {"type": "INSERT", "data": [_row(1), None, _row(2)]},
        {"type": "INSERT", "data": [_row(3), 5]},
        {"type": "UPDATE", "data": [_row(4), _row(5)], "old": [{"name": "x"}]},
        {"type": "UPDATE", "data": [_row(6), _row(7)], "old": [{"name": "y"}, None]},
        {"type": "UPDATE", "data": [_row(8)], "old": None},
        {"type": "DELETE", "data": [_row(9), None]},
        {"type": "INSERT", "data": None},
        {"type": "INSERT"},
        {"data": [_row(10)]},
        {"type": "ERASE", "data": [_row(11)]},
        {"type": "INSERT", "data": [{"id": "12x", "name": ["a"], "price": {"o": 1}}]},
        {"type": "INSERT", "data": _row(13)},
        {"type": "INSERT", "data": []},
        [],
        None,
        {"type": "INSERT", "data": [_row(99, "ok")]},
    ],
    "maxwell-json": [
        {"type": "update", "data": _row(1)},
        {"type": "update", "data": _row(2), "old": None},
        {"type": "update", "data": _row(3), "old": [{"name": "x"}]},
        {"type": "delete"},
        {"type": "insert", "data": [_row(4)]},
        {"type": "insert", "data": {"id": "5x", "name": 6, "price": "p"}},
        {"type": "bootstrap-insert", "data": _row(7)},
        {"type": "INSERT", "data": _row(8)},
        {"data": _row(9)},
        [],
        None,
        {"type": "insert", "data": _row(99, "ok")},
    ],
    "ogg-json": [
        {"op_type": "I", "after": None},
        {"op_type": "U", "before": _row(1), "after": None},
        {"op_type": "D", "before": None, "after": _row(2)},
        {"op_type": "T", "before": None, "after": None},
        {"op_type": 1, "after": _row(3)},
        {"op_type": "I", "after": [_row(4)]},
        {"op_type": "I", "after": {"id": "5x", "name": {"a": 1}, "price": "zz"}},
        {"after": _row(6)},
        {"op_type": "i", "after": _row(7)},
        [],
        None,
        {"op_type": "I", "after": _row(99, "ok")},
    ],
}


def main() -> int:
    """Produce the messages, read them on Flink with parse errors ignored, write :data:`OUT`."""
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    t = table_env(kafka_jar(), utc=True)
    out = {}
    for fmt, messages in GARBAGE.items():
        topic = f"break36-flink-{fmt}-garbage-{uuid.uuid4().hex[:8]}"
        produce_json(bootstrap, topic, [[m, []] for m in messages])
        options = {f"{fmt}.ignore-parse-errors": "true"}
        read = _read(t, bootstrap, topic, fmt, options, False)
        out[fmt] = {"messages": messages, "options": options, **read}
        print(json.dumps(out[fmt], indent=1), flush=True)
    OUT.write_text(json.dumps({"flink": "2.3", "columns": COLUMNS, **out}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
