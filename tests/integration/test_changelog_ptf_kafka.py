"""TO_CHANGELOG and FROM_CHANGELOG end to end through Kafka, and across a savepoint.

- An ``upsert-kafka`` source (one partition) → ``TO_CHANGELOG`` (default codes, and an
  ``op_mapping`` that drops -U rows) → exactly-once append ``kafka`` topics: each topic holds the
  op-coded rows Flink 2.3 gave over the same records, in order (``changelog_ptf_kafka_flink.json``,
  recorded by ``scripts/flink_changelog_ptf_kafka.py``): Flink's ChangelogNormalize reading.
- An append ``kafka`` source of op-coded rows (8 partitions, a key's rows in one) →
  ``FROM_CHANGELOG`` → ``GROUP BY`` → ``upsert-kafka``, at parallelism 2, stopped WITH SAVEPOINT
  halfway and restored: the topic's final table is DuckDB's GROUP BY over the table the op-coded
  rows leave behind (folded here, independently of the engine).
- Such a source → ``FROM_CHANGELOG`` → ``GROUP BY`` → ``TO_CHANGELOG`` → an exactly-once topic,
  killed inside a checkpoint (``STREAMSQL_FAULT``) and started again: it resumes from the last
  committed checkpoint and the topic's op-coded rows fold to the right table, none replayed.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections import Counter
from pathlib import Path

import duckdb
import orjson
import pytest
from confluent_kafka import Producer

from streamsql.environment import StreamEnvironment
from tests.integration.test_flights import fold_upserts, read_committed
from tests.integration.test_parallel_savepoint import savepoint_settings

PARTITIONS = 8
#: Flink 2.3's answers (``scripts/flink_changelog_ptf_kafka.py``): the upsert records it read and
#: the op-coded rows of each TO_CHANGELOG query over them, in order.
FLINK = json.loads((Path(__file__).parent / "changelog_ptf_kafka_flink.json").read_text())


def _produce(bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes | None, int]]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "enable.idempotence": True})
    for key, value, partition in records:
        p.produce(topic, value, key, partition=partition)
    p.flush(30)


def test_upsert_source_to_changelog_into_an_append_topic(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src = kafka_topic_factory("changelog34_ups")
    outs = {name: kafka_topic_factory(f"changelog34_{name}") for name in FLINK["queries"]}
    records = FLINK["records"]
    values = [None if v is None else orjson.dumps({"id": k, "name": v}) for k, v in records]
    _produce(kafka_bootstrap, src, [(orjson.dumps({"id": k}), v, 0) for (k, _), v in zip(records, values)])
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                             "execution.checkpointing.interval": "500 ms", "restart-strategy.type": "none"})
    env.execute_sql(f"""CREATE TABLE ups (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
        'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset')""")
    prefix = next(iter(outs.values()))  # one transactional id prefix: one transaction per job
    for name, topic in outs.items():
        env.execute_sql(f"""CREATE TABLE out_{name} (op STRING, id INT, name STRING) WITH (
            'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
            'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once',
            'sink.transactional-id-prefix' = '{prefix}')""")
    inserts = "".join(f"INSERT INTO out_{name} {q['query']};\n" for name, q in FLINK["queries"].items())
    job = env.execute_sql(f"EXECUTE STATEMENT SET BEGIN\n{inserts}END").job
    assert job.wait(120) == "FINISHED"
    for name, q in FLINK["queries"].items():
        rows = [list(orjson.loads(v).values()) for _, v in read_committed(kafka_bootstrap, outs[name])]
        assert {r[0] for r in q["rows"]} == {"+I"}  # TO_CHANGELOG's output is append-only
        assert rows == [r[1:] for r in q["rows"]], name


def _op_rows(seed: int, n: int) -> list[dict]:
    """A random changelog as op-coded rows: inserts, updates (-U/+U, maybe to another group), deletes."""
    rnd, table, out = random.Random(seed), {}, []
    for i in range(n):
        key = rnd.randint(0, 60)
        old = table.get(key)
        new = {"id": key, "g": rnd.randint(0, 9), "v": rnd.randint(-50, 500)}
        if old is None:
            out.append({**new, "op": "INSERT", "seq": i})
            table[key] = new
        elif rnd.random() < 0.7:
            out += [{**old, "op": "UPDATE_BEFORE", "seq": i}, {**new, "op": "UPDATE_AFTER", "seq": i}]
            table[key] = new
        else:
            out.append({**old, "op": "DELETE", "seq": i})
            del table[key]
    return out


def _final(rows: list[dict]) -> Counter:
    """DuckDB's ``GROUP BY g`` over the rows the op-coded changelog ``rows`` leave (folded here)."""
    table: dict[int, dict] = {}
    for r in rows:
        if r["op"] in ("INSERT", "UPDATE_AFTER"):
            table[r["id"]] = r
        else:
            assert table.pop(r["id"])["v"] == r["v"]
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, g INTEGER, v INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(r["id"], r["g"], r["v"]) for r in table.values()])
    return Counter(con.execute("SELECT g, COUNT(*), SUM(v) FROM t GROUP BY g").fetchall())


def _env(tmp_path, name: str, bootstrap: str, topics: dict, bounded: bool, backend: str,
         savepoint: str | None = None) -> StreamEnvironment:
    settings = savepoint_settings(tmp_path, name, 2, savepoint, **{"state.backend.type": backend})
    env = StreamEnvironment(settings)
    end = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE ops (id INT, g INT, v INT, op STRING, seq INT) WITH (
        'connector' = 'kafka', 'topic' = '{topics["ops"]}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{end})""")
    env.execute_sql(f"""CREATE TABLE agg (g INT, c BIGINT, s BIGINT, PRIMARY KEY (g) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{topics["agg"]}',
        'properties.bootstrap.servers' = '{bootstrap}', 'key.format' = 'json', 'value.format' = 'json')""")
    return env


JOB = "INSERT INTO agg SELECT g, COUNT(*), SUM(v) FROM FROM_CHANGELOG(input => TABLE ops) GROUP BY g"


def _agg(bootstrap: str, topic: str) -> Counter:
    final = fold_upserts(read_committed(bootstrap, topic))
    return Counter(tuple(v[c] for c in ("g", "c", "s")) for v in final.values())


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_op_coded_source_from_changelog_group_by_across_a_savepoint(kafka_bootstrap, kafka_topic_factory,
                                                                    tmp_path, backend):
    topics = {"ops": kafka_topic_factory("changelog34_ops", PARTITIONS),
              "agg": kafka_topic_factory("changelog34_agg")}
    rows = _op_rows(34, 3000)
    cut = next(i for i in range(len(rows) // 2, len(rows)) if rows[i]["op"] != "UPDATE_AFTER")
    first, second = rows[:cut], rows[cut:]
    records = [(None, orjson.dumps(r), r["id"] % PARTITIONS) for r in rows]  # a key's rows in one partition
    _produce(kafka_bootstrap, topics["ops"], records[:cut])
    name = f"changelog34-{uuid.uuid4().hex[:8]}"
    env = _env(tmp_path, name, kafka_bootstrap, topics, bounded=False, backend=backend)
    job = env.execute_sql(JOB).job
    deadline, expected_first = time.monotonic() + 120, _final(first)
    while _agg(kafka_bootstrap, topics["agg"]) != expected_first:  # the first half is in
        assert time.monotonic() < deadline and not job.done, "the job did not produce the first half"
        time.sleep(0.5)
    savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]

    _produce(kafka_bootstrap, topics["ops"], records[cut:])
    env = _env(tmp_path, name, kafka_bootstrap, topics, bounded=True, backend=backend, savepoint=savepoint)
    assert env.execute_sql(JOB).job.wait(180) == "FINISHED"
    assert _agg(kafka_bootstrap, topics["agg"]) == _final(rows)
    assert second  # both halves were read


CRASH_SCRIPT = """
import sys
from streamsql.environment import StreamEnvironment
chk, state, src, out, bootstrap, name = sys.argv[1:]
env = StreamEnvironment({"pipeline.name": name, "execution.checkpointing.interval": "200 ms",
                         "execution.batch-size": "25", "execution.checkpointing.dir": chk,
                         "state.dir": state})
env.execute_sql(f'''CREATE TABLE ops (id INT, g INT, v INT, op STRING, seq INT) WITH ('connector' = 'kafka',
    'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')''')
env.execute_sql(f'''CREATE TABLE changes (op STRING, g INT, c BIGINT, s BIGINT) WITH ('connector' = 'kafka',
    'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '{out}')''')
env.execute_sql("CREATE VIEW agg AS SELECT g, COUNT(*) AS c, SUM(v) AS s "
                "FROM FROM_CHANGELOG(input => TABLE ops) GROUP BY g")
job = env.execute_sql("INSERT INTO changes SELECT * FROM TO_CHANGELOG(input => TABLE agg)").job
job.wait(300)
print("STATUS", job.status, "RESTORED", job.runner.restored_from)
"""


def _crash_run(args: list[str], fault: str | None):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMSQL_FAULT")}
    if fault:
        env["STREAMSQL_FAULT"] = fault
    return subprocess.run([sys.executable, "-c", CRASH_SCRIPT, *args], env=env, capture_output=True,
                          text=True, timeout=400)


def test_killed_inside_a_checkpoint_resumes_without_replaying(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """FROM_CHANGELOG → GROUP BY → TO_CHANGELOG → exactly-once topic, killed after a snapshot, restarted.

    The committed op-coded rows, folded as the changelog they are, must be the final table of every
    input row: a replayed epoch would insert a group's row twice, a lost one retract what is absent.
    """
    src = kafka_topic_factory("changelog34_crash_src", PARTITIONS)
    out = kafka_topic_factory("changelog34_crash")
    rows = _op_rows(341, 3000)
    _produce(kafka_bootstrap, src, [(None, orjson.dumps(r), r["id"] % PARTITIONS) for r in rows])
    args = [str(tmp_path / "chk"), str(tmp_path / "state"), src, out, kafka_bootstrap,
            f"changelog34-crash-{uuid.uuid4().hex[:8]}"]
    first = _crash_run(args, "after_snapshot_before_commit:3")
    assert first.returncode == 137, (first.stdout, first.stderr[-3000:])  # died at the fault point
    committed_before = read_committed(kafka_bootstrap, out)
    second = _crash_run(args, None)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "STATUS FINISHED" in second.stdout, second.stdout
    assert committed_before  # two checkpoints committed before the kill: the resume starts from one
    assert "RESTORED None" not in second.stdout, second.stdout
    table: Counter = Counter()
    for _, value in read_committed(kafka_bootstrap, out):
        r = orjson.loads(value)
        row = (r["g"], r["c"], r["s"])
        if r["op"] in ("INSERT", "UPDATE_AFTER"):
            table[row] += 1
        else:
            assert table[row] > 0, r  # a retraction of a row that is not there: output lost or replayed
            table[row] -= 1
    assert +table == _final(rows)
