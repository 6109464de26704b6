"""Record the lines Apache Flink 2.3's ``print`` sink writes at parallelism > 1 (the subtask prefix).

Writes ``tests/connectors/print_parallel_flink.json``: per scenario the ``SET`` options, the DDL,
the INSERT and the lines Flink printed (in the order they came: lines of different subtasks
interleave in any order), plus the topic Flink read (its name decides which subtask reads which
partition: Flink's ``KafkaSourceEnumerator.getSplitOwner``) and the records of each partition.
``tests/connectors/test_print_parallel.py`` runs the same statements here.

Flink's ``PrintSinkOutputWriter.open`` builds the prefix: the identifier, then, when the sink
has more than one subtask, ``:`` (after a non-empty identifier) and the 1-based subtask index,
then ``> `` when anything came before.

How Flink's lines are captured: as ``scripts/flink_compat.py`` (fd 1 pointed at a scratch file
before the JVM starts). Needs the broker of ``/work/services.env`` and this project's venv for the
Kafka client (``CLIENT_PYTHON``)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_print_parallel.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the Flink venv does not install StreamSQL: import the helpers by path
sys.path.insert(0, str(ROOT / "scripts"))

from flink_compat import Capture  # noqa: E402

from benchmarks.flink_setup import kafka_jar  # noqa: E402

OUT = ROOT / "tests" / "connectors" / "print_parallel_flink.json"
BOOTSTRAP = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")

#: Per partition of the 2-partition topic, the JSON values ``{"id", "s"}`` written in order.
PARTITIONS = [[{"id": 1, "s": "a"}, {"id": 2, "s": "b"}, {"id": 3, "s": "a"}],
              [{"id": 4, "s": "c"}, {"id": 5, "s": "a"}]]
VALUES = "SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, 'a'), (4, 'c')) AS t(id, s)"
SRC = ("CREATE TABLE src (id INT, s STRING) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
       "'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json', "
       "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')")
SCENARIOS = [
    {"name": "values_default2", "set": {"parallelism.default": "2"},
     "sink": "id INT, s STRING", "with": "", "insert": VALUES},
    {"name": "values_default2_ident", "set": {"parallelism.default": "2"},
     "sink": "id INT, s STRING", "with": ", 'print-identifier' = 'out'", "insert": VALUES},
    {"name": "values_sink_parallelism2_ident", "set": {},
     "sink": "id INT, s STRING", "with": ", 'print-identifier' = 'out', 'sink.parallelism' = '2'",
     "insert": VALUES},
    {"name": "values_sink_parallelism2", "set": {},
     "sink": "id INT, s STRING", "with": ", 'sink.parallelism' = '2'", "insert": VALUES},
    {"name": "kafka_default2", "set": {"parallelism.default": "2"}, "kafka": True,
     "sink": "id INT, s STRING", "with": "", "insert": "SELECT id, s FROM src"},
    {"name": "kafka_default2_ident", "set": {"parallelism.default": "2"}, "kafka": True,
     "sink": "id INT, s STRING", "with": ", 'print-identifier' = 'out'", "insert": "SELECT id, s FROM src"},
    {"name": "kafka_default2_global_agg", "set": {"parallelism.default": "2"}, "kafka": True,
     "sink": "c BIGINT", "with": ", 'print-identifier' = 'out'", "insert": "SELECT COUNT(*) FROM src"},
    {"name": "kafka_default2_group_by", "set": {"parallelism.default": "2"}, "kafka": True,
     "sink": "s STRING, c BIGINT", "with": "", "insert": "SELECT s, COUNT(*) FROM src GROUP BY s"},
]

_CLIENT = r'''
import json, sys, time
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
bootstrap, topic, parts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
admin = AdminClient({"bootstrap.servers": bootstrap})
admin.create_topics([NewTopic(topic, len(parts), 1)])[topic].result(60)
time.sleep(1)
p = Producer({"bootstrap.servers": bootstrap})
for i, values in enumerate(parts):
    for v in values:
        p.produce(topic, json.dumps(v, separators=(",", ":")).encode(), partition=i)
p.flush(30)
'''


def main() -> int:
    """Run every scenario on Flink and write :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    capture = Capture()
    topic = f"flink-print-parallel-{uuid.uuid4().hex[:8]}"
    py = os.environ.get("CLIENT_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
    subprocess.run([py, "-c", _CLIENT, BOOTSTRAP, topic, json.dumps(PARTITIONS)], check=True)
    results = []
    for s in SCENARIOS:
        t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        config = t.get_config()
        config.set("parallelism.default", "1")
        config.set("pipeline.jars", Path(kafka_jar()).as_uri())
        for k, v in s["set"].items():
            config.set(k, v)
        if s.get("kafka"):
            t.execute_sql(SRC.format(topic=topic, bootstrap=BOOTSTRAP))
        t.execute_sql(f"CREATE TABLE p ({s['sink']}) WITH ('connector' = 'print'{s['with']})")
        start = capture.mark()
        t.execute_sql(f"INSERT INTO p {s['insert']}").wait()
        lines = capture.since(start)
        print(s["name"], lines, file=capture.out)
        results.append({**s, "lines": lines})
    OUT.write_text(json.dumps({"topic": topic, "partitions": PARTITIONS, "source": SRC, "scenarios": results},
                              indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
