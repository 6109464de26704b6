"""A parallel window aggregate drops the rows a watermark made late, as one process (and Flink) does.

The case's query runs at parallelism 2, its window aggregate behind an exchange, over a Kafka
topic of two partitions read to fixed offsets: partition 1 is empty, so its task ends at once;
once it has, the compat case's rows (out of order, some late: watermark ts - 1 s) go in order into
partition 0. The committed rows must be Flink 2.3's answer for the case (its ``expected.json``):
the exchange reader hands each row after the watermarks it follows in the partition. Before, it
handed the rows of up to 64 exchange records together and the watermark after them, so the late
rows among them were counted (``wintvf_filter_subquery_tumble``: windows of 3 and 4 rows where
Flink has 2 and 2).
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import orjson
import pytest
from confluent_kafka import Producer

from streamsql.environment import StreamEnvironment
from tests.integration.test_flights import read_committed

CASES = Path(__file__).resolve().parent.parent / "compat" / "cases"


def _kafka(sql: str, topic: str, bootstrap: str, rows: int | None = None) -> str:
    """A CREATE TABLE of a compat case with its WITH clause replaced by a Kafka topic's (a source
    reading ``rows`` rows of partition 0, none of partition 1)."""
    end = "" if rows is None else (", 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = "
                                   f"'specific-offsets', 'scan.bounded.specific-offsets' = "
                                   f"'partition:0,offset:{rows};partition:1,offset:0'")
    return (sql.split(" WITH (")[0] + f" WITH ('connector' = 'kafka', 'topic' = '{topic}', "
            f"'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json'{end})")


def _text(value) -> str | None:
    """A JSON cell as Flink's print sink shows it (timestamps ``2024-01-01T00:00:05``)."""
    if value is None:
        return None
    text = str(value)
    if len(text) >= 19 and text[4] == "-" and text[10] == " ":
        text = text.replace(" ", "T").removesuffix(".000").removesuffix(":00")
    return text


@pytest.mark.parametrize("case", ["wintvf_filter_subquery_tumble", "wintvf_where_window_hop"])
def test_late_rows_behind_an_exchange_are_dropped(kafka_bootstrap, kafka_topic_factory, tmp_path, case):
    folder = CASES / case
    lines = (folder / "ev.jsonl").read_text().splitlines()
    src, out = kafka_topic_factory("xwm_src", 2), kafka_topic_factory("xwm_out")
    env = StreamEnvironment({"parallelism.default": "2", "execution.batch-size": "1",
                             "execution.checkpointing.interval": "100 ms",
                             "pipeline.name": f"xwm-{uuid.uuid4().hex[:8]}",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "state")})
    for statement in (s.strip() for s in (folder / "case.sql").read_text().split(";\n") if s.strip()):
        statement = statement.rstrip(";")
        if statement.startswith("CREATE TABLE ev "):
            statement = _kafka(statement, src, kafka_bootstrap, len(lines))
        elif statement.startswith("CREATE TABLE out_rows "):
            statement = _kafka(statement, out, kafka_bootstrap)
        job = env.execute_sql(statement).job
    deadline = time.monotonic() + 60  # the task of the empty partition ends first
    while not any(t["task"].startswith("0-") and t["status"] == "FINISHED" for t in job.tasks):
        assert time.monotonic() < deadline and not job.done, (job.tasks, job.error)
        time.sleep(0.1)
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for line in lines:
        producer.produce(src, line.encode(), partition=0)
    producer.flush(30)
    assert job.wait(120) == "FINISHED", job.error
    rows = sorted([_text(v) for v in orjson.loads(value).values()]
                  for _, value in read_committed(kafka_bootstrap, out))
    assert rows == sorted(json.loads((folder / "expected.json").read_text())["rows"])
