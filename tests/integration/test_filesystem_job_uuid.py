"""A parallel job's filesystem part files carry one uuid, as Flink's (``part-<uuid>-<task>-<n>``).

Flink's ``FileSystemTableSink`` draws the uuid when the job is planned, so all its subtasks share
it, and a new submission (also one restoring a savepoint) draws a new one. Each task here drew
its own: a job at parallelism 2 wrote ``part-<a>-0-0`` and ``part-<b>-1-0``. Now the job's uuid
is drawn at submission and handed to its tasks — to its worker processes too (``streamsql run``
of a parallel job starts them; each plans the script again) — and a second run of the script is a
new submission with a new uuid.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid

from confluent_kafka import Producer

from streamsql import StreamEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_PART = re.compile(r"part-([0-9a-f-]{36})-(\d+)-(\d+)")


def _script(bootstrap: str, topic: str, out: str, name: str) -> str:
    return f"""
SET 'pipeline.name' = '{name}';
SET 'parallelism.default' = '2';
SET 'restart-strategy.type' = 'none';
SET 'execution.checkpointing.interval' = '300 ms';
CREATE TABLE src (a INT) WITH ('connector' = 'kafka', 'topic' = '{topic}',
    'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE d (a INT) WITH ('connector' = 'filesystem', 'path' = 'file://{out}', 'format' = 'json');
INSERT INTO d SELECT a FROM src;
"""


def _parts(out) -> list[tuple[str, int]]:
    """``(uuid, task)`` of each committed part file under ``out``; every row read once."""
    found, rows = [], []
    for name in sorted(os.listdir(out)):
        m = _PART.fullmatch(name)
        assert m, name  # nothing hidden or foreign is left
        found.append((m.group(1), int(m.group(2))))
        with open(os.path.join(out, name)) as f:
            rows += [json.loads(line)["a"] for line in f]
    assert sorted(rows) == sorted(list(range(40)) * (len(rows) // 40))
    return found


def _source(bootstrap: str, kafka_topic_factory) -> str:
    topic = kafka_topic_factory("fsq10-uuid", 2)
    p = Producer({"bootstrap.servers": bootstrap})
    for i in range(40):
        p.produce(topic, json.dumps({"a": i}).encode(), partition=i % 2)
    p.flush(30)
    return topic


def test_worker_processes_share_the_jobs_uuid(tmp_path, kafka_bootstrap, kafka_topic_factory):
    topic = _source(kafka_bootstrap, kafka_topic_factory)
    out = tmp_path / "out"
    name = f"fsq10-{uuid.uuid4().hex[:8]}"
    (tmp_path / "job.sql").write_text(_script(kafka_bootstrap, topic, str(out), name))
    env = {**os.environ, "PYTHONPATH": ROOT}
    uuids = []
    for run in (1, 2):  # the second run is a new submission: a new uuid, written beside the first's
        r = subprocess.run([sys.executable, "-m", "streamsql", "run", str(tmp_path / "job.sql")],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        new = {(u, t) for u, t in _parts(out) if u not in uuids}
        assert {t for _u, t in new} == {0, 1}, (run, new)  # both tasks wrote, under one uuid
        assert len({u for u, _t in new}) == 1, (run, new)
        uuids.append(next(iter(new))[0])
    assert len(set(uuids)) == 2


def test_tasks_in_one_process_share_the_jobs_uuid(tmp_path, kafka_bootstrap, kafka_topic_factory):
    topic = _source(kafka_bootstrap, kafka_topic_factory)
    out = tmp_path / "out"
    env = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                             "execution.checkpointing.dir": str(tmp_path / "cp")})
    try:
        for s in _script(kafka_bootstrap, topic, str(out), f"fsq10-{uuid.uuid4().hex[:8]}").split(";\n"):
            if s.strip():
                result = env.execute_sql(s)
        result.job.wait()
        assert result.job.status == "FINISHED", result.job.error
    finally:
        env.close()
    found = _parts(out)
    assert {t for _u, t in found} == {0, 1} and len({u for u, _t in found}) == 1, found
