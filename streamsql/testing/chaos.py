"""The crash campaign: kill a running job again and again, then check the committed output.

A producer feeds a 3-partition topic while a job (a subprocess running ``streamsql run``)
consumes it under checkpoints; the campaign ``kill -9``s the job at random times and makes it
die at each fault-injection point (``STREAMSQL_FAULT``, see
:mod:`streamsql.core.faults`), restarting it each time with the same ``pipeline.name``.
Finally a bounded run drains the topic and finishes. The output is read with a
``read_committed`` consumer and compared with DuckDB over every produced record:

- ``agg``: ``GROUP BY k`` count/sum into ``upsert-kafka``, folded by key;
- ``filter``: a filter/projection into an exactly-once ``kafka`` sink, compared as a multiset;
- ``window``: a 10-second TUMBLE window count/sum per ``k % 10`` on the records' event time
  (pending windows and the watermark are state), into an exactly-once ``kafka`` sink, compared
  as a multiset with DuckDB's ``GROUP BY`` over the floored times;
- ``topn``: the top 3 records per ``g`` by ``v DESC, id`` (``ROW_NUMBER() ... WHERE rn <= 3``:
  ranked rows retracted and moved as larger values arrive), into ``upsert-kafka`` keyed by
  ``(g, rn)``, folded by key and compared with DuckDB's ranking;
- ``dedup``: the first record per ``k`` on rowtime (deduplication keeping the first row, held
  until the watermark passes it), into an exactly-once ``kafka`` sink, compared as a multiset;
- ``udaf``: a Python aggregate with retraction (:data:`UDAF_MODULE`, found through
  ``'python.files'``) over a changelog: ``GROUP BY k`` count/sum, then ``py_sum`` of them
  ``GROUP BY MOD(k, 10)`` (each update of a ``k`` retracts its old row), into ``upsert-kafka``,
  folded by key and compared as ``agg`` (the accumulators are keyed state, checkpointed);
- ``join``: a regular FULL JOIN of two updating inputs (``GROUP BY k`` and ``GROUP BY g`` of the
  two halves of the input; ~70 rows per join key on one side, NULL join keys on both, a non-equi
  condition that flips as counts grow), so every update retracts joined and NULL-padded rows;
  its count and sum per join key into ``upsert-kafka``, compared as ``agg`` with DuckDB's join;
- ``join-append``: a regular LEFT JOIN of two insert-only inputs (each side's rows appended under
  random entry keys; many rows per key, NULL keys on both sides): a padded left row is retracted
  when its first match arrives; count and sum per ``join key % 10``, compared as ``join``;
- ``join-inner``: the same as an inner join, whose appending sides are joined column by column
  and stored as one block of rows per join key and batch (:meth:`JoinState.append
  <streamsql.runtime.operators.join_state.JoinState.append>`);
- ``window-upsert``, ``interval-join``, ``window-topn``, ``two-sinks``, ``multi-topic``: see
  :mod:`.chaos_queries`.

Every query reads the input through a UNION ALL of two scans. With source reuse (Flink's
``'table.optimizer.reuse-source-enabled'``, on by default) the two scans are one source, whose
barrier reaches both inputs of the union in one push: no input is ever held back, and the
``during_alignment`` point cannot be reached. A campaign that kills there (``--points``, or all
five points) therefore runs its job with source reuse off: two sources, one Kafka consumer each,
whose barriers reach the union apart, so alignment holds an input back and the point is reached.

usage::

    python -m streamsql.testing.chaos --records 200000 --kills 20 --query agg --backend rocksdb
    python -m streamsql.testing.chaos --mode AT_LEAST_ONCE ...   # reports duplicates it saw
    python -m streamsql.testing.chaos --workers 2 --freeze ...   # a parallel job: see chaos_workers
    python -m streamsql.testing.chaos --set execution.checkpointing.dir=s3://bucket/chaos ...
    python -m streamsql.testing.chaos --query filter --out-partitions 3 ...  # sticky unkeyed sink
    python -m streamsql.testing.chaos --broker-restarts 2 --slow-sink 65536 ...  # see chaos_broker

Prints kills, restarts, records, lost and duplicated; exits 1 on any difference (under
AT_LEAST_ONCE only a loss is a difference).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import duckdb
import orjson
import pyarrow as pa

from streamsql.testing.chaos_queries import QUERIES

POINTS = ("before_barrier", "during_alignment", "after_snapshot_before_commit", "during_commit",
          "after_commit_before_bookkeeping")
#: Source reuse: off where the campaign kills at ``during_alignment`` (see the module docstring).
REUSE_SOURCE = "table.optimizer.reuse-source-enabled"
#: The pipelined hot path's points (``--pipeline-points``): epoch n+1 held while n commits, a
#: decode with batches in both of a source's queues.
PIPELINE_POINTS = ("while_holding", "during_decode")

_SQL = """{settings}
SET 'pipeline.name' = '{job}';
SET 'execution.checkpointing.interval' = '{interval}';
SET 'execution.checkpointing.mode' = '{mode}';
SET 'state.backend.type' = '{backend}';
CREATE TABLE src (id BIGINT, k INT, v INT, g INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{bounded});
{sink}
"""
_AGG_SINK = """
CREATE TABLE out_t (k INT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO out_t SELECT k, COUNT(*), SUM(v) FROM (
  SELECT * FROM src WHERE MOD(k, 2) = 0 UNION ALL SELECT * FROM src WHERE MOD(k, 2) = 1) GROUP BY k;
"""
_FILTER_SINK = """
CREATE TABLE out_t (id BIGINT, k INT, v2 INT) WITH (
  'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'format' = 'json', 'sink.delivery-guarantee' = '{guarantee}');
INSERT INTO out_t SELECT id, k, v * 2 FROM (
  SELECT * FROM src WHERE MOD(k, 2) = 0 UNION ALL SELECT * FROM src WHERE MOD(k, 2) = 1) WHERE MOD(v, 3) <> 0;
"""
_WINDOW_SINK = """
CREATE TABLE out_t (g INT, ws TIMESTAMP(3), n BIGINT, s BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'format' = 'json', 'sink.delivery-guarantee' = '{guarantee}');
CREATE VIEW both_halves AS
  SELECT * FROM src WHERE MOD(k, 2) = 0 UNION ALL SELECT * FROM src WHERE MOD(k, 2) = 1;
INSERT INTO out_t SELECT g, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE both_halves,
  DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY g, window_start, window_end;
"""
_TOPN_SINK = """
CREATE TABLE out_t (g INT, rn BIGINT, id BIGINT, v INT, PRIMARY KEY (g, rn) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO out_t SELECT g, rn, id, v FROM (
  SELECT g, id, v, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC, id ASC) AS rn FROM (
    SELECT * FROM src WHERE MOD(k, 2) = 0 UNION ALL SELECT * FROM src WHERE MOD(k, 2) = 1)) WHERE rn <= 3;
"""
_DEDUP_SINK = """
CREATE TABLE out_t (id BIGINT, k INT, v INT) WITH (
  'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'format' = 'json', 'sink.delivery-guarantee' = '{guarantee}');
INSERT INTO out_t SELECT id, k, v FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM (
    SELECT * FROM src WHERE MOD(k, 2) = 0 UNION ALL SELECT * FROM src WHERE MOD(k, 2) = 1)) WHERE rn = 1;
"""
_UDAF_SINK = """
SET 'python.files' = '{work}/chaos_udfs.py';
CREATE TEMPORARY FUNCTION py_sum AS 'chaos_udfs.PySum' LANGUAGE PYTHON;
CREATE TABLE out_t (g INT, n BIGINT, s BIGINT, PRIMARY KEY (g) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO out_t SELECT g, py_sum(n), py_sum(s) FROM (
  SELECT k, MOD(k, 10) AS g, COUNT(*) AS n, SUM(v) AS s FROM (
    SELECT * FROM src WHERE MOD(k, 2) = 0 UNION ALL SELECT * FROM src WHERE MOD(k, 2) = 1) GROUP BY k)
GROUP BY g;
"""
_JOIN_SINK = """
CREATE TABLE out_t (j INT, n BIGINT, s BIGINT, PRIMARY KEY (j) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'key.format' = 'json', 'value.format' = 'json');
CREATE VIEW l AS SELECT k, CASE WHEN MOD(k, 50) = 0 THEN CAST(NULL AS INT) ELSE MOD(k, 7) END AS jk,
  COUNT(*) AS n, SUM(v) AS s FROM src WHERE MOD(id, 2) = 0 GROUP BY k;
CREATE VIEW r AS SELECT g, CASE WHEN g = 3 THEN CAST(NULL AS INT) ELSE MOD(g, 7) END AS jk,
  COUNT(*) AS c, MAX(v) AS m FROM src WHERE MOD(id, 2) = 1 GROUP BY g;
INSERT INTO out_t SELECT COALESCE(l.jk, r.jk, -1), COUNT(*),
  SUM(COALESCE(l.n, 0) * 1000 + COALESCE(l.s, 0) + COALESCE(r.c, 0) * 7 + COALESCE(r.m, 0))
  FROM l FULL JOIN r ON l.jk = r.jk AND l.n * 50 > r.c
  GROUP BY COALESCE(l.jk, r.jk, -1);
"""
_JOIN_APPEND_SINK = """
CREATE TABLE out_t (j INT, n BIGINT, s BIGINT, PRIMARY KEY (j) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'key.format' = 'json', 'value.format' = 'json');
CREATE VIEW a AS SELECT id, v, CASE WHEN MOD(id, 97) = 0 THEN CAST(NULL AS INT) ELSE k END AS jk
  FROM src WHERE MOD(id, 40) <> 1;
CREATE VIEW b AS SELECT id, v, CASE WHEN MOD(id, 89) = 1 THEN CAST(NULL AS INT) ELSE k END AS jk
  FROM src WHERE MOD(id, 40) = 1;
INSERT INTO out_t SELECT MOD(COALESCE(a.jk, b.jk, -1), 10), COUNT(*),
  SUM(COALESCE(a.v, 0) + COALESCE(b.v, 0) * 3 + COALESCE(b.id, 0))
  FROM a LEFT JOIN b ON a.jk = b.jk GROUP BY MOD(COALESCE(a.jk, b.jk, -1), 10);
"""
#: DuckDB's answer of each query that aggregates into ``out_t (key, n, s)``: ``(key column, SQL over r)``.
_KEYED_DUCK = {
    "agg": ("k", "SELECT k, COUNT(*), SUM(v) FROM r GROUP BY k"),
    "udaf": ("g", "SELECT g, COUNT(*), SUM(v) FROM r GROUP BY g"),
    "join": ("j", """
        WITH l AS (SELECT k, CASE WHEN k % 50 = 0 THEN NULL ELSE k % 7 END AS jk, COUNT(*) AS n, SUM(v) AS s
                   FROM r WHERE id % 2 = 0 GROUP BY k),
             rr AS (SELECT g, CASE WHEN g = 3 THEN NULL ELSE g % 7 END AS jk, COUNT(*) AS c, MAX(v) AS m
                    FROM r WHERE id % 2 = 1 GROUP BY g)
        SELECT COALESCE(l.jk, rr.jk, -1) AS j, COUNT(*),
               SUM(COALESCE(l.n, 0) * 1000 + COALESCE(l.s, 0) + COALESCE(rr.c, 0) * 7 + COALESCE(rr.m, 0))
        FROM l FULL JOIN rr ON l.jk = rr.jk AND l.n * 50 > rr.c GROUP BY ALL"""),
    "join-append": ("j", """
        WITH a AS (SELECT id, v, CASE WHEN id % 97 = 0 THEN NULL ELSE k END AS jk FROM r WHERE id % 40 <> 1),
             b AS (SELECT id, v, CASE WHEN id % 89 = 1 THEN NULL ELSE k END AS jk FROM r WHERE id % 40 = 1)
        SELECT COALESCE(a.jk, b.jk, -1) % 10 AS j, COUNT(*),
               SUM(COALESCE(a.v, 0) + COALESCE(b.v, 0) * 3 + COALESCE(b.id, 0))
        FROM a LEFT JOIN b ON a.jk = b.jk GROUP BY ALL"""),
}
#: The Python aggregate of the ``udaf`` query: a sum with retraction, its accumulator [sum, count].
UDAF_MODULE = """
class PySum:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, x):
        if x is not None:
            acc[0] += x
            acc[1] += 1

    def retract(self, acc, x):
        if x is not None:
            acc[0] -= x
            acc[1] -= 1

    def merge(self, acc, accs):
        for other in accs:
            acc[0] += other[0]
            acc[1] += other[1]

    def get_value(self, acc):
        return acc[0] if acc[1] else None

    def get_result_type(self):
        return "BIGINT"
"""
_KEYED_DUCK["join-inner"] = ("j", _KEYED_DUCK["join-append"][1].replace("LEFT JOIN", "JOIN"))
_SINKS = {"agg": _AGG_SINK, "filter": _FILTER_SINK, "window": _WINDOW_SINK, "topn": _TOPN_SINK,
          "dedup": _DEDUP_SINK, "udaf": _UDAF_SINK, "join": _JOIN_SINK, "join-append": _JOIN_APPEND_SINK,
          "join-inner": _JOIN_APPEND_SINK.replace("LEFT JOIN", "JOIN")}
#: queries into a compacted upsert-kafka topic
_UPSERT = ("agg", "topn", "udaf", "join", "join-append", "join-inner")
_EVENT_MS = 20  # event time advances 20 ms per record: 500 records per 10-second window


def make_records(n: int) -> list[dict]:
    """Seeded records; ``ts`` grows with ``id`` (in order per partition, so none is late)."""
    rnd = random.Random(7)
    base = datetime.datetime(2024, 5, 1)
    out = []
    for i in range(n):
        k = rnd.randrange(500)
        ts = base + datetime.timedelta(milliseconds=i * _EVENT_MS)
        out.append({"id": i, "k": k, "v": rnd.randrange(1000), "g": k % 10,
                    "ts": ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]})
    return out


def create_topics(bootstrap: str, topics: list[tuple[str, int, dict]]) -> None:
    """Create ``(name, partitions, config)`` topics."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, p, 1, config=c) for t, p, c in topics]).values():
        f.result()


def produce(bootstrap: str, topic: str, records: list[dict], seconds: float, done: threading.Event,
            partitions: int = 3, client_id: str = "rdkafka",
            keep_alive: threading.Event | None = None) -> None:
    """Feed ``records`` over about ``seconds`` (record ``id`` into partition ``id % partitions``).

    Idempotent, so a broker restart neither loses nor duplicates an input record. With
    ``keep_alive``, the last fifth of the records goes ten times slower until it is set: the
    input keeps flowing while the campaign still has to reach a point that needs rows arriving
    (``during_alignment``), however late a loaded machine starts the job.
    """
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 10,
                  "client.id": client_id, "log_level": 2})  # not every reconnect during a broker restart
    full = max(1, len(records) // max(1, int(seconds * 10)))
    tail = len(records) * 4 // 5
    start = 0
    while start < len(records):
        slow = keep_alive is not None and start >= tail and not keep_alive.is_set()
        chunk = max(1, full // 10) if slow else full
        for r in records[start:start + chunk]:
            while True:
                try:
                    p.produce(topic, orjson.dumps(r), partition=r["id"] % partitions)
                    break
                except BufferError:
                    p.poll(0.05)
        start += chunk
        p.poll(0)
        time.sleep(0.1)
    if p.flush(60):
        msg = "producer could not deliver every record"
        raise RuntimeError(msg)
    done.set()


def read_committed(bootstrap: str, topic: str) -> list[tuple[bytes | None, bytes | None]]:
    """Every committed record of ``topic``, read to the end with ``read_committed``."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"chaos-check-{uuid.uuid4().hex}",
                  "isolation.level": "read_committed", "enable.auto.commit": False})
    parts = [TopicPartition(topic, p, 0) for p in c.list_topics(topic, timeout=10).topics[topic].partitions]
    ends = {p.partition: c.get_watermark_offsets(p, timeout=10)[1] for p in parts}
    c.assign(parts)
    out: list = []
    deadline = time.time() + 120
    while time.time() < deadline:
        for m in c.consume(5000, timeout=0.5):
            if not m.error():
                out.append((m.key(), m.value()))
        if all(tp.offset >= ends[tp.partition] or ends[tp.partition] == 0 for tp in c.position(parts)):
            break
    c.close()
    return out


def run_job(script: str, cwd: str, env: dict, kill_after: float | None, log) -> int:
    """Run ``streamsql run script``; ``kill -9`` it after ``kill_after`` s (then -9); its exit code."""
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", "run", script], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=log)
    try:
        return proc.wait(timeout=kill_after)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return -9


def kill_once(script: str, work: str, point: str | None, rnd: random.Random, a: argparse.Namespace,
              log) -> tuple[int, str]:
    """Run the job once; (exit code, how it died).

    It dies at fault ``point`` (``kill -9`` after ``a.max_run_seconds`` if not reached) or, for
    None, by ``kill -9`` after a random time between ``a.min_kill`` and ``a.max_kill`` seconds.
    """
    env = dict(os.environ)
    env.pop("STREAMSQL_FAULT", None)
    if point is None:
        return run_job(script, work, env, rnd.uniform(a.min_kill, a.max_kill), log), "kill -9"
    env["STREAMSQL_FAULT"] = f"{point}:{rnd.randint(1, 3)}"
    rc = run_job(script, work, env, a.max_run_seconds, log)
    return rc, f"fault {point}" if rc == 137 else f"fault {point} not reached; kill -9"


def write_scripts(a: argparse.Namespace, work: str, job: str, src: str, out: str,
                  prefix: str = "") -> tuple[str, str]:
    """Write the job's script (``job.sql``) and its bounded version (``final.sql``) into ``work``."""
    guarantee = "exactly-once" if a.mode == "EXACTLY_ONCE" else "at-least-once"
    if a.query in QUERIES:
        sink = QUERIES[a.query].script(out, a.bootstrap, guarantee)
    else:
        sink = _SINKS[a.query].format(out=out, bootstrap=a.bootstrap, guarantee=guarantee, work=work)
    if a.query == "udaf":
        with open(os.path.join(work, "chaos_udfs.py"), "w") as f:
            f.write(UDAF_MODULE)
    settings = "".join(f"\nSET '{k}' = '{v}';" for k, _, v in (kv.partition("=") for kv in a.set))
    params = dict(settings=settings, job=job, interval=a.interval, mode=a.mode, backend=a.backend, src=src,
                  bootstrap=a.bootstrap)
    paths = []
    for name, bounded in (("job.sql", ""), ("final.sql", ", 'scan.bounded.mode' = 'latest-offset'")):
        paths.append(os.path.join(work, name))
        with open(paths[-1], "w") as f:
            f.write(prefix + _SQL.format(bounded=bounded, sink=sink, **params))
    return paths[0], paths[1]


def campaign(a: argparse.Namespace) -> int:
    """Run one campaign (see module docstring); returns the exit code."""
    run = uuid.uuid4().hex[:8]
    src, out, job = f"chaos_in_{run}", f"chaos_out_{run}", f"chaos-{a.query}-{run}"
    create_topics(a.bootstrap, [(src, 3, {}), *output_topics(a.query, out, a.out_partitions)])
    records = make_records(a.records)
    done, points_reached = threading.Event(), threading.Event()
    points = tuple(a.points) if a.points else POINTS + (PIPELINE_POINTS if a.pipeline_points else ())
    feeder = threading.Thread(target=produce, args=(a.bootstrap, src, records, a.feed_seconds, done),
                              kwargs={"keep_alive": points_reached}, daemon=True)
    feeder.start()
    work = tempfile.mkdtemp(prefix="streamsql-chaos-")
    if "during_alignment" in points and not any(kv.startswith(REUSE_SOURCE + "=") for kv in a.set):
        a.set = [*a.set, f"{REUSE_SOURCE}=false"]  # one source aligns nothing (module docstring)
    unbounded, bounded = write_scripts(a, work, job, src, out)
    rnd = random.Random(a.seed)
    plan = [("point", p) for p in points] + [("random", None)] * max(0, a.kills - len(points))
    rnd.shuffle(plan)
    kills = restarts = 0
    log = open(os.path.join(work, "jobs.log"), "ab")
    last_point = max((i for i, (kind, _) in enumerate(plan) if kind == "point"), default=-1)
    if last_point < 0:
        points_reached.set()
    for i, (_, point) in enumerate(plan):
        rc, how = kill_once(unbounded, work, point, rnd, a, log)
        if i == last_point:
            points_reached.set()
        if rc not in (137, -9):
            print(f"job exited by itself with code {rc}; see {work}/jobs.log", flush=True)
            return 1
        kills += 1
        restarts += 1
        print(f"kill {kills}: {how}", flush=True)
    done.wait()
    rc = run_job(bounded, work, dict(os.environ), None, log)
    if rc != 0:
        print(f"final bounded run failed with code {rc}; see {work}/jobs.log", flush=True)
        return 1
    return verdict(a, records, out, f"kills={kills} restarts={restarts}")


def output_topics(query: str, out: str, partitions: int = 1) -> list[tuple[str, int, dict]]:
    """The ``(name, partitions, config)`` of the output topics of ``query`` (``out``, and more).

    ``partitions``: of each output topic (``--out-partitions``); above 1, an append sink without
    key fields (``filter``) spreads its rows over them batch by batch (the sticky placement of
    :meth:`~streamsql.connectors.kafka.session.ProducerSession.produce_many`).
    """
    if query in QUERIES:
        q = QUERIES[query]
        names = {"out": out, "out2": out + "_2"}
        return [(names[t], partitions, {"cleanup.policy": "compact"} if t in q.upsert else {})
                for t in q.topics]
    return [(out, partitions, {"cleanup.policy": "compact"} if query in _UPSERT else {})]


def verdict(a: argparse.Namespace, records: list[dict], out: str, counts: str) -> int:
    """Compare the committed output of topic ``out`` with DuckDB, print the line; the exit code."""
    if a.query in QUERIES:
        outputs = {"out": read_committed(a.bootstrap, out), "out2": []}
        if "out2" in QUERIES[a.query].topics:
            outputs["out2"] = read_committed(a.bootstrap, out + "_2")
        lost, dup = compare(a, records, outputs)
        misplaced = order_errors(a, records, outputs)
    else:
        lost, dup = compare(a, records, read_committed(a.bootstrap, out))
        misplaced = None
    placed = "" if misplaced is None else f" misplaced={misplaced}"
    print(f"{counts} records={len(records)} lost={lost} duplicated={dup}{placed}", flush=True)
    if lost or (dup and a.mode == "EXACTLY_ONCE") or (misplaced and a.mode == "EXACTLY_ONCE"):
        print("DIFFERENCE: the committed output does not match DuckDB over the input", flush=True)
        return 1
    return 0


def order_errors(a, records: list[dict], outputs) -> int | None:
    """For a query whose output order is its answer: the committed rows out of place; else None."""
    check = QUERIES[a.query].misplaced
    return None if check is None else check(_duck_records(records), outputs)


def _duck_records(records: list[dict]):
    """A DuckDB connection holding ``records`` as table ``r`` (``id, k, v, g, ts``)."""
    con = duckdb.connect()
    given = pa.Table.from_pylist(records)  # one Arrow scan: executemany took minutes for 200,000 rows
    con.register("given", given)
    con.execute("CREATE TABLE r AS SELECT id::BIGINT AS id, k::INT AS k, v::INT AS v, g::INT AS g, "
                "ts::TIMESTAMP AS ts FROM given")
    return con


def compare(a, records: list[dict], output) -> tuple[int, int]:
    """(lost, duplicated) of the committed ``output`` against DuckDB over ``records``.

    ``output``: the records of the output topic, or for a query of :mod:`.chaos_queries` those of
    each of its topics by name.
    """
    con = _duck_records(records)
    if a.query in QUERIES:
        return QUERIES[a.query].compare(con, output)
    if a.query in _KEYED_DUCK:
        by, sql = _KEYED_DUCK[a.query]
        sums = con.execute(sql).fetchall()
        expected = {k: (n, s) for k, n, s in sums}
        actual = {}
        for key, value in output:
            k = orjson.loads(key)[by]
            if value is None:
                actual.pop(k, None)
            else:
                row = orjson.loads(value)
                actual[k] = (row["n"], row["s"])
        lost = sum(max(0, n - actual.get(k, (0, 0))[0]) for k, (n, _) in expected.items())
        dup = sum(max(0, n - expected.get(k, (0, 0))[0]) for k, (n, _) in actual.items())
        wrong_sums = sum(1 for k in expected if k in actual and actual[k][0] == expected[k][0]
                         and actual[k][1] != expected[k][1])
        return lost + wrong_sums, dup
    if a.query == "topn":
        return _compare_top_n(con, output)
    if a.query == "dedup":
        first = "SELECT id, k, v FROM r QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts, id) = 1"
        rows = con.execute(first)
        expected = collections.Counter(rows.fetchall())
        actual = collections.Counter((r["id"], r["k"], r["v"]) for r in (orjson.loads(v) for _, v in output))
        return sum((expected - actual).values()), sum((actual - expected).values())
    if a.query == "window":
        rows = con.execute("SELECT g, strftime(time_bucket(INTERVAL 10 SECOND, ts), '%Y-%m-%d %H:%M:%S'), "
                           "COUNT(*), SUM(v) FROM r GROUP BY ALL").fetchall()
        expected = collections.Counter(rows)
        actual = collections.Counter((r["g"], r["ws"][:19], r["n"], r["s"])
                                     for r in (orjson.loads(v) for _, v in output))
        return sum((expected - actual).values()), sum((actual - expected).values())
    expected = collections.Counter(con.execute("SELECT id, k, v * 2 FROM r WHERE v % 3 <> 0").fetchall())
    actual = collections.Counter((r["id"], r["k"], r["v2"]) for r in (orjson.loads(v) for _, v in output))
    return sum((expected - actual).values()), sum((actual - expected).values())


def _compare_top_n(con, output: list) -> tuple[int, int]:
    """Top-3 per ``g``: the upsert topic folded by key (g, rn) against DuckDB's ranking; (lost, extra)."""
    rows = con.execute("SELECT g, rn, id, v FROM (SELECT g, id, v, ROW_NUMBER() OVER (PARTITION BY g "
                       "ORDER BY v DESC, id) AS rn FROM r) WHERE rn <= 3").fetchall()
    expected = collections.Counter(rows)
    actual: dict = {}
    for key, value in output:
        k = orjson.loads(key)
        if value is None:
            actual.pop((k["g"], k["rn"]), None)
        else:
            row = orjson.loads(value)
            actual[(k["g"], k["rn"])] = (row["g"], row["rn"], row["id"], row["v"])
    got = collections.Counter(actual.values())
    return sum((expected - got).values()), sum((got - expected).values())


def main(argv: list[str] | None = None) -> int:
    """Command line (see module docstring)."""
    ap = argparse.ArgumentParser(description="Kill a StreamSQL job repeatedly; check exactly-once.")
    ap.add_argument("--bootstrap", default=os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092"))
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--kills", type=int, default=20,
                    help="at least one per fault point (5, or as many as --points names), the rest random")
    ap.add_argument("--query", choices=(*_SINKS, *QUERIES), default="agg")
    ap.add_argument("--backend", choices=("rocksdb", "hashmap"), default="rocksdb")
    ap.add_argument("--mode", choices=("EXACTLY_ONCE", "AT_LEAST_ONCE"), default="EXACTLY_ONCE")
    ap.add_argument("--interval", default="300 ms", help="checkpoint interval")
    ap.add_argument("--feed-seconds", type=float, default=20.0, help="spread the input over this long")
    ap.add_argument("--min-kill", type=float, default=None,
                    help="least seconds between kills (default 1; 2 with --workers)")
    ap.add_argument("--max-kill", type=float, default=None,
                    help="most seconds between kills (default 4; 6 with --workers)")
    ap.add_argument("--max-restart-delay", type=float, default=5.0,
                    help="with --workers: a killed worker restarts after 0 to this many seconds")
    ap.add_argument("--max-run-seconds", type=float, default=20.0,
                    help="a fault point not reached by then: kill -9")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1,
                    help="> 1: run the job at this parallelism on as many worker processes and kill those")
    ap.add_argument("--partitions", type=int, default=None,
                    help="input partitions (default 3, 8 with --workers)")
    ap.add_argument("--out-partitions", type=int, default=1,
                    help="partitions of each output topic (> 1: an unkeyed sink's batches spread over them)")
    ap.add_argument("--freeze", action="store_true",
                    help="with --workers: freeze one worker past its session timeout once")
    ap.add_argument("--every-point", action="store_true",
                    help="with --workers: go on past --kills until every fault point was reached")
    ap.add_argument("--pipeline-points", action="store_true",
                    help="also kill once at each of the pipelined hot path's fault points "
                         "(while_holding, during_decode)")
    ap.add_argument("--points", type=lambda v: v.split(","), default=None, metavar="POINT,...",
                    help="kill once at each of these fault points instead of every checkpoint point "
                         f"({', '.join(POINTS)}; also {', '.join(PIPELINE_POINTS)})")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a further SET of the job (e.g. execution.checkpointing.dir=s3://bucket/prefix)")
    ap.add_argument("--broker-restarts", type=int, default=0,
                    help="> 0: on a private broker, stop it this many times mid-job (see chaos_broker)")
    ap.add_argument("--broker-down", type=float, default=10.0, help="seconds the broker stays stopped")
    ap.add_argument("--broker-port", type=int, default=None, help="the private broker's port (default: free)")
    ap.add_argument("--slow-sink", type=int, default=0, metavar="BYTES",
                    help="with --broker-restarts: throttle the job's producers to BYTES/s (a broker quota)")
    a = ap.parse_args(argv)
    unknown = set(a.points or ()) - set(POINTS + PIPELINE_POINTS)
    if unknown:
        ap.error(f"--points: unknown fault points {', '.join(sorted(unknown))}")
    workers = a.workers > 1 and a.broker_restarts <= 0
    a.min_kill = a.min_kill if a.min_kill is not None else 2.0 if workers else 1.0
    a.max_kill = a.max_kill if a.max_kill is not None else 6.0 if workers else 4.0
    if a.broker_restarts > 0:
        from streamsql.testing.chaos_broker import broker_campaign

        return broker_campaign(a)
    if a.workers > 1:
        from streamsql.testing.chaos_workers import worker_campaign

        a.partitions = a.partitions or 8
        return worker_campaign(a)
    return campaign(a)


if __name__ == "__main__":
    sys.exit(main())
