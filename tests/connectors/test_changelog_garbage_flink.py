"""Malformed canal-json, maxwell-json and ogg-json messages read with parse errors ignored, as Flink 2.3.

``changelog_garbage_flink.json`` holds the messages (each wrong in one way, a good one last) and the
rows Flink 2.3 read from them with ``'<format>.ignore-parse-errors' = 'true'``, recorded by
``scripts/flink_changelog_garbage.py``. Flink's canal deserializer emits a message's rows one by
one, so a null row (or an UPDATE's ``old`` without an object for a row) ends the message after the
rows before it: StreamSQL skipped the whole message, dropping those rows (break36).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.connectors.test_changelog_json_flink import _env, _options, _plain, _produce

FLINK = json.loads((Path(__file__).parent / "changelog_garbage_flink.json").read_text())
FORMATS = ["canal-json", "maxwell-json", "ogg-json"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_malformed_messages_read_as_flink(fmt, kafka_bootstrap, kafka_topic_factory, tmp_path):
    spec = FLINK[fmt]
    topic = kafka_topic_factory(f"break36-{fmt}-garbage")
    _produce(kafka_bootstrap, topic, spec["messages"])
    env = _env(tmp_path)
    query = spec["query"].replace(spec["query"].split(" FROM ")[-1], "src")
    env.execute_sql(f"CREATE TABLE src ({', '.join(spec['columns'])}) WITH "
                    f"({_options(kafka_bootstrap, topic, fmt, spec['options'])})")
    try:
        rows = [[k.short, *map(_plain, r)] for k, r in env.execute_sql(query).collect()]
    finally:
        env.close()
    assert rows == spec["rows"]
