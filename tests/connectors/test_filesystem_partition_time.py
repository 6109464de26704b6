"""The filesystem sink's partition-time commit against Flink 2.3's, and its one uuid per job.

Each stream case of :mod:`tests.connectors.filesystem_flink_cases` (Flink's record:
``flink_filesystem_stream.json``, ``scripts/flink_filesystem_sink.py --stream``) runs here the same
way: the rows in a one-partition topic read unbounded with a watermark, checkpoints every 300 ms;
the sink's folder must become Flink's — the partitions whose time plus the delay the watermark
passed committed (part files renamed, ``_SUCCESS``), the others still hidden in-progress files —
and stay so; or the job fails with Flink's words. The bounded cases (end of input commits every
partition, refused options) are in ``test_filesystem_flink.py``.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from tests.connectors.filesystem_flink_cases import (
    STREAM_CASES,
    STREAM_ROWS,
    stream_statements,
    visible_and_hidden,
)

FLINK = json.loads((Path(__file__).parent / "flink_filesystem_stream.json").read_text())
STEADY_S = 1.5


def _produce(bootstrap: str, topic: str) -> None:
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap})
    for r in STREAM_ROWS:
        p.produce(topic, json.dumps(r).encode())
    p.flush(30)


@pytest.mark.parametrize("name", sorted(STREAM_CASES))
def test_partition_time_commit_as_flink(name, tmp_path, kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory(f"fsq10-{name}")
    _produce(kafka_bootstrap, topic)
    out = tmp_path / "out"
    env = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                             "execution.checkpointing.dir": str(tmp_path / "cp"),
                             "execution.checkpointing.interval": "300 ms", "table.local-time-zone": "UTC"})
    flink = FLINK[name]
    try:
        *ddl, insert = stream_statements(name)
        for s in ddl:  # a SET too (no restarts for a failing case, as Flink's record ran)
            env.execute_sql(s.format(topic=topic, bootstrap=kafka_bootstrap, out="file://" + str(out)))
        job = env.execute_sql(insert).job
        deadline = time.monotonic() + 60
        if "error" in flink:
            while not job.done and time.monotonic() < deadline:
                time.sleep(0.2)
            assert job.status == "FAILED", job.status
            # which partition fails first is the order of a Java HashMap: any partition's text
            text = re.search(r"Text '[^']*' could not be parsed[^/]*", flink["error"]).group(0).strip()
            shape = re.escape(text).replace(re.escape(re.search(r"'[^']*'", text).group(0)), "'[^']*'")
            assert re.search(shape, str(job.error)), (text, str(job.error))
            assert visible_and_hidden(str(out / "s")) == flink["files"]  # nothing committed
            return
        now = None
        while time.monotonic() < deadline and now != flink["files"]:
            assert not job.done, job.error
            time.sleep(0.2)
            now = visible_and_hidden(str(out / "s"))
        assert now == flink["files"]
        time.sleep(STEADY_S)  # and it stays so: the partitions left are not committed later
        assert visible_and_hidden(str(out / "s")) == flink["files"]
    finally:
        env.close()
