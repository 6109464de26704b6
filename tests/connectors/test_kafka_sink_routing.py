"""Which topic each row of a Kafka sink goes to (Flink's multi-topic sink), without a broker.

Flink's behaviour end to end is ``tests/integration/test_kafka_topics_flink.py``; this checks the
grouping, the first failing row and the Java ``HashSet`` order of Flink's message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from streamsql.connectors.kafka.metadata import check_sink_metadata, writable_metadata
from streamsql.connectors.kafka.routing import NO_TOPIC, TopicRouting, java_hash_set_order

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.types import SqlType

ORACLE = Path(__file__).parent.parent / "integration" / "kafka_topics_flink.json"
SINK_CLASS = "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink"


def _table(options: dict[str, str], virtual: bool = False) -> TableDef:
    return TableDef("snk", [
        ColumnDef("id", SqlType("INT")),
        ColumnDef("tp", SqlType("STRING"), metadata_key="topic", virtual=virtual),
    ], {"connector": "kafka", **options})


def test_rows_are_grouped_by_topic_in_order_of_first_row():
    routing = TopicRouting(_table({"topic": "a;b;c"}), "tp")
    rows = pa.table({"id": [1, 2, 3, 4, 5], "tp": ["b", "a", "b", "c", "a"]})
    groups, error = routing.groups(rows)
    assert [(t, idx.tolist()) for t, idx in groups] == [("b", [0, 2]), ("a", [1, 4]), ("c", [3])]
    assert error is None
    assert routing.row_topics(rows) == ["b", "a", "b", "c", "a"]
    assert routing.groups(pa.table({"id": [1, 2], "tp": ["c", "c"]})) == ([("c", None)], None)


def test_one_topic_takes_every_row_whatever_the_column_says():
    routing = TopicRouting(_table({"topic": "a"}), None)
    assert routing.groups(pa.table({"id": [1], "tp": [None]})) == ([("a", None)], None)


def test_the_first_bad_row_fails_with_flinks_message_after_the_rows_before_it():
    """Flink writes row by row: the rows before the failing one reach their topics."""
    routing = TopicRouting(_table({"topic": "a;b"}), "tp")
    groups, error = routing.groups(pa.table({"id": [1, 2, 3, 4], "tp": ["a", "b", "zz", None]}))
    assert [(t, None if i is None else i.tolist()) for t, i in groups] == [("a", [0]), ("b", [1])]
    assert isinstance(error, ExecutionError)
    assert str(error).endswith("Expected topic to be in: [a, b] but was: zz")
    groups, error = routing.groups(pa.table({"id": [1, 2, 3], "tp": ["a", "a", "zz"]}))
    assert [(t, i.tolist()) for t, i in groups] == [("a", [0, 1])]  # not None: not every row
    groups, error = routing.groups(pa.table({"id": [1, 2, 3], "tp": [None, "a", "zz"]}))
    assert (groups, str(error)) == ([], NO_TOPIC)
    with pytest.raises(ExecutionError, match="but was: zz"):
        routing.row_topics(pa.table({"id": [1], "tp": ["zz"]}))


def test_a_pattern_must_match_the_whole_name():
    routing = TopicRouting(_table({"topic-pattern": "t[0-9]"}), "tp")
    groups, _ = routing.groups(pa.table({"id": [1, 2], "tp": ["t1", "t2"]}))
    assert [t for t, _ in groups] == ["t1", "t2"]
    _, error = routing.groups(pa.table({"id": [1], "tp": ["t10"]}))
    assert str(error).endswith("Expected topic to match: t[0-9] but was: t10")


def test_topic_options_are_checked_when_planned():
    with pytest.raises(ConfigError, match="Either 'topic' or 'topic-pattern' must be set."):
        TopicRouting(_table({}), "tp")
    with pytest.raises(ConfigError, match="Option 'topic' and 'topic-pattern' shouldn't be set together."):
        TopicRouting(_table({"topic": "a", "topic-pattern": "a.*"}), "tp")
    with pytest.raises(ConfigError, match="Flink fails the job: " + NO_TOPIC.replace(".", r"\.")):
        TopicRouting(_table({"topic": "a;b"}, virtual=True), None)


def test_topic_is_writable_only_without_a_single_topic():
    assert writable_metadata(_table({"topic": "a;b"})) == ["topic", "headers", "timestamp"]
    assert writable_metadata(_table({"topic-pattern": "a.*"})) == ["topic", "headers", "timestamp"]
    assert writable_metadata(_table({"topic": "a"})) == ["headers", "timestamp"]
    check_sink_metadata(_table({"topic": "a;b"}), SINK_CLASS)
    with pytest.raises(ConfigError, match="metadata keys for writing:\nheaders\ntimestamp$"):
        check_sink_metadata(_table({"topic": "a"}), SINK_CLASS)


def test_java_hash_set_order_is_flinks():
    """Flink printed the set of 'alpha;beta;gamma;delta' in this order (kafka_topics_flink.json)."""
    sinks = json.loads(ORACLE.read_text())["sinks"]
    scenario = next(s for s in sinks if s["name"] == "topic_not_listed_fixed_names")
    shown = scenario["error"].split("Expected topic to be in: [")[1].split("]")[0]
    assert ", ".join(java_hash_set_order(["alpha", "beta", "gamma", "delta"])) == shown
