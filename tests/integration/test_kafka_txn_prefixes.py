"""A statement set whose exactly-once Kafka sinks give different 'sink.transactional-id-prefix'.

Flink's docs ask for a distinct prefix per sink, so Flink scripts give them; here the sinks of a
job commit in one Kafka transaction (the job's commit point), whose id joins their prefixes
(``<a>+<b>-<pipeline.name>-<task>``: :func:`~streamsql.connectors.kafka.transactions.transaction_prefix`).
Such a job used to fail as it started. Now it runs, each topic holds DuckDB's answer over the
input, and killed inside a checkpoint (``STREAMSQL_FAULT``, ``os._exit(137)`` as ``kill -9``) and
started again it resumes its last committed checkpoint under the same id: no row lost or doubled.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import duckdb
import orjson
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from tests.integration.test_flights import fold_upserts, read_committed

ROWS = 3000
ROOT = str(Path(__file__).resolve().parents[2])

#: The job: runs with argv ``chk state src out_a out_b out_c bootstrap name prefix_a prefix_b prefix_c
#: [parallelism]``. Topics a and c take filters (at parallelism 2 both in the first stage's tasks,
#: with the exchange), b a GROUP BY (the second stage's).
SCRIPT = """
import sys
import time
from streamsql.environment import StreamEnvironment
from tests.integration.test_kafka_txn_prefixes import STATEMENT_SET, tables
chk, state, src, out_a, out_b, out_c, bootstrap, name, pa, pb, pc = sys.argv[1:12]
env = StreamEnvironment({"pipeline.name": name, "execution.checkpointing.interval": "200 ms",
                         "parallelism.default": (sys.argv[12:] or ["1"])[0],
                         "execution.batch-size": "25", "execution.checkpointing.dir": chk,
                         "state.dir": state, "restart-strategy.type": "none"})
for ddl in tables(src, out_a, out_b, out_c, bootstrap, name, pa, pb, pc):
    env.execute_sql(ddl)
job = env.execute_sql(STATEMENT_SET).job
print("STATUS", job.wait(300), "RESTORED", job.runner.restored_from, flush=True)
"""
STATEMENT_SET = """EXECUTE STATEMENT SET BEGIN
    INSERT INTO a SELECT k, v FROM src WHERE MOD(v, 3) = 0;
    INSERT INTO b SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
    INSERT INTO c SELECT k, v FROM src WHERE MOD(v, 3) = 1;
END"""


def tables(src: str, out_a: str, out_b: str, out_c: str, bootstrap: str, name: str, pa: str, pb: str, pc: str,
           bounded: bool = True) -> list[str]:
    """The job's CREATE TABLEs: ``src`` (bounded at its latest offsets, or not), sinks a, b, c."""
    until = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    return [f"""CREATE TABLE src (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{src}',
    'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'scan.startup.mode' = 'earliest-offset'{until})""",
            f"""CREATE TABLE a (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{out_a}',
    'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '{pa}',
    'sink.progress-topic' = '{name}_progress')""",
            f"""CREATE TABLE c (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{out_c}',
    'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
    'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '{pc}',
    'sink.progress-topic' = '{name}_progress')""",
            f"""CREATE TABLE b (k INT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
    'connector' = 'upsert-kafka', 'topic' = '{out_b}', 'properties.bootstrap.servers' = '{bootstrap}',
    'key.format' = 'json', 'value.format' = 'json', 'sink.delivery-guarantee' = 'exactly-once',
    'sink.transactional-id-prefix' = '{pb}', 'sink.progress-topic' = '{name}_progress')"""]


def _rows() -> list[tuple[int, int]]:
    return [(i % 17, i * 7 % 1000) for i in range(ROWS)]


def _expected() -> tuple[Counter, dict, Counter]:
    """DuckDB's answers over the input: topic a's and c's rows (multisets), topic b's final table."""
    con = duckdb.connect()
    con.execute("CREATE TABLE src (k INTEGER, v INTEGER)")
    con.executemany("INSERT INTO src VALUES (?, ?)", _rows())
    a = Counter(con.execute("SELECT k, v FROM src WHERE v % 3 = 0").fetchall())
    b = {(k,): {"k": k, "c": c, "s": s}
         for k, c, s in con.execute("SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k").fetchall()}
    c = Counter(con.execute("SELECT k, v FROM src WHERE v % 3 = 1").fetchall())
    return a, b, c


def _got(bootstrap: str, out_a: str, out_b: str, out_c: str) -> tuple[Counter, dict, Counter]:
    def rows(topic: str) -> Counter:
        records = (orjson.loads(v) for _, v in read_committed(bootstrap, topic))
        return Counter((r["k"], r["v"]) for r in records)

    return rows(out_a), fold_upserts(read_committed(bootstrap, out_b)), rows(out_c)


def _committed_checkpoint(bootstrap: str, name: str, transactional_id: str) -> int:
    """The progress group's committed offset: the last checkpoint committed under the id (-1001: none)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{transactional_id}-progress",
                  "enable.auto.commit": False})
    try:
        return c.committed([TopicPartition(f"{name}_progress", 0)], timeout=10)[0].offset
    finally:
        c.close()


def _marker_ids(bootstrap: str, name: str) -> set[str]:
    """The transactional ids the job's commit markers name (its progress topic's records)."""
    return {orjson.loads(v)["transactional_id"] for _, v in read_committed(bootstrap, f"{name}_progress")}


@pytest.fixture
def job_args(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src = kafka_topic_factory("txn35_src", partitions=3)
    out_a, out_b, out_c = (kafka_topic_factory(f"txn35_{x}") for x in "abc")
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i, (k, v) in enumerate(_rows()):
        p.produce(src, orjson.dumps({"k": k, "v": v}), partition=i % 3)
    p.flush(30)
    tag = uuid.uuid4().hex[:8]
    # given out of their sorted order: the id sorts them
    yield [str(tmp_path / "chk"), str(tmp_path / "state"), src, out_a, out_b, out_c, kafka_bootstrap,
           f"txn35-{tag}", f"txn35b-{tag}", f"txn35c-{tag}", f"txn35a-{tag}"]
    AdminClient({"bootstrap.servers": kafka_bootstrap}).delete_topics([f"txn35-{tag}_progress"])


def _run(args: list[str], fault: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMSQL_FAULT")}
    env["PYTHONPATH"] = ROOT
    if fault:
        env["STREAMSQL_FAULT"] = fault
    return subprocess.run([sys.executable, "-c", SCRIPT, *args], env=env, capture_output=True, text=True,
                          timeout=400, cwd=args[0].rsplit("/", 1)[0])


def test_sinks_with_different_prefixes_run_as_one_transaction(job_args, kafka_bootstrap):
    run = _run(job_args)
    assert run.returncode == 0 and "STATUS FINISHED" in run.stdout, run.stderr[-3000:]
    assert _got(kafka_bootstrap, *job_args[3:6]) == _expected()
    name, pa, pb, pc = job_args[7:]
    # one commit point, under the joined id; none under a sink's own prefix
    assert _committed_checkpoint(kafka_bootstrap, name, f"{pc}+{pa}+{pb}-{name}-0") > 0
    for prefix in (pa, pb, pc):
        assert _committed_checkpoint(kafka_bootstrap, name, f"{prefix}-{name}-0") < 0
    assert _marker_ids(kafka_bootstrap, name) == {f"{pc}+{pa}+{pb}-{name}-0"}


@pytest.mark.parametrize(("point", "parallelism"), [("after_snapshot_before_commit:3", "1"),
                                                   ("during_commit:2", "1"), ("during_commit:3", "2")])
def test_killed_inside_a_checkpoint_resumes_without_loss_or_duplicates(job_args, kafka_bootstrap, point,
                                                                       parallelism):
    first = _run([*job_args, parallelism], point)
    assert first.returncode == 137, (first.stdout, first.stderr[-3000:])  # died at the fault point
    again = _run([*job_args, parallelism])
    assert again.returncode == 0 and "STATUS FINISHED" in again.stdout, again.stderr[-3000:]
    assert "RESTORED None" not in again.stdout  # resumed a checkpoint committed under the joined id
    assert _got(kafka_bootstrap, *job_args[3:6]) == _expected()


def test_a_parallel_statement_set_with_different_prefixes_runs(job_args, kafka_bootstrap):
    """At parallelism 2 (the filter's stage writes topic a and the exchange, the GROUP BY's topic
    b): each task's transaction takes its sinks' and exchanges' prefixes, and the finished job's
    clean-up fences and checks those ids (it refused nothing, deleted its exchanges)."""
    run = _run([*job_args, "2"])
    assert run.returncode == 0 and "STATUS FINISHED" in run.stdout, run.stderr[-3000:]
    assert _got(kafka_bootstrap, *job_args[3:6]) == _expected()
    name, pa, pb, pc = job_args[7:]
    # the first stage's tasks write a, c and the exchange (which takes one of their prefixes), the
    # second's b: their transactions joined the first's prefixes, the second's is b's own
    ids = _marker_ids(kafka_bootstrap, name)
    first = {i.rsplit(f"-{name}-", 1)[0] for i in ids if i.endswith(("-0-0", "-0-1"))}
    assert len(first) == 1 and set(first.pop().split("+")) == {pa, pc}
    assert {i for i in ids if i.endswith(("-1-0", "-1-1"))} == {f"{pb}-{name}-1-0", f"{pb}-{name}-1-1"}
    # the finished job deleted every task's progress group, the joined ids' too
    assert [i for i in ids if _committed_checkpoint(kafka_bootstrap, name, i) >= 0] == []



@pytest.mark.parametrize("parallelism", ["1", "2"])
def test_a_changed_prefix_does_not_start_the_killed_run_afresh(job_args, kafka_bootstrap, parallelism):
    """break36: killed after its third commit, the job is run again with one sink's prefix changed.

    Its transactional id joins the prefixes, so the new id has no commit: at parallelism 1 the run
    started from scratch and wrote again every row the killed run had committed (572 of topic a's
    1,000 and 570 of c's twice, DuckDB's answer otherwise). Now it is refused, as at parallelism 2,
    naming the changed option; nothing is written, and run with the prefixes it had it resumes
    and ends with DuckDB's answer.
    """
    first = _run([*job_args, parallelism], "after_commit_before_bookkeeping:3")
    assert first.returncode == 137, (first.stdout, first.stderr[-3000:])
    committed = _got(kafka_bootstrap, *job_args[3:6])
    changed = [*job_args[:8], job_args[8] + "x", *job_args[9:]]
    refused = _run([*changed, parallelism])
    assert refused.returncode != 0 and "JobIdentityError" in refused.stderr, refused.stdout
    assert f"option 'sink.transactional-id-prefix' changed from '{job_args[8]}' to '{job_args[8]}x'" in (
        refused.stderr)
    assert _got(kafka_bootstrap, *job_args[3:6]) == committed  # nothing more written
    again = _run([*job_args, parallelism])
    assert again.returncode == 0 and "STATUS FINISHED" in again.stdout, again.stderr[-3000:]
    assert _got(kafka_bootstrap, *job_args[3:6]) == _expected()


def _env(args: list[str], parallelism: str, **settings: str):
    from streamsql.environment import StreamEnvironment

    chk, state = args[:2]
    return StreamEnvironment({"pipeline.name": args[7], "execution.checkpointing.interval": "200 ms",
                              "parallelism.default": parallelism, "execution.batch-size": "25",
                              "execution.checkpointing.dir": chk, "state.dir": state,
                              "restart-strategy.type": "none", **settings})


@pytest.mark.parametrize("parallelism", ["1", "2"])
def test_a_prefix_changed_across_a_savepoint(job_args, kafka_bootstrap, parallelism):
    """break36: stopped WITH SAVEPOINT, the job is run again with one sink's prefix changed.

    Without the savepoint it is refused (at parallelism 1 it started from scratch: its new
    transactional id had no commit, and every committed row was written twice); restoring the
    savepoint (``'execution.savepoint.path'``) it goes on under the new id and ends with DuckDB's
    answer: nothing lost or doubled (as Flink restores a KafkaSink's state under a new prefix).
    """
    env = _env(job_args, parallelism)
    for ddl in tables(*job_args[2:], bounded=False):
        env.execute_sql(ddl)
    job = env.execute_sql(STATEMENT_SET).job
    deadline = time.monotonic() + 120
    while not _got(kafka_bootstrap, *job_args[3:6])[0]:  # some rows committed
        assert time.monotonic() < deadline and not job.done
        time.sleep(0.2)
    savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
    committed = _got(kafka_bootstrap, *job_args[3:6])
    changed = [*job_args[:8], job_args[8] + "x", *job_args[9:]]
    refused = _run([*changed, parallelism])
    assert refused.returncode != 0 and "JobIdentityError" in refused.stderr, refused.stdout
    assert "option 'sink.transactional-id-prefix' changed" in refused.stderr
    assert _got(kafka_bootstrap, *job_args[3:6]) == committed
    env = _env(changed, parallelism, **{"execution.savepoint.path": savepoint})
    for ddl in tables(*changed[2:]):
        env.execute_sql(ddl)
    assert env.execute_sql(STATEMENT_SET).job.wait(300) == "FINISHED"
    assert _got(kafka_bootstrap, *job_args[3:6]) == _expected()


@pytest.mark.parametrize("changed", ["name", "prefix"])
def test_a_killed_run_restored_under_another_id_aborts_its_open_transaction(job_args, kafka_bootstrap,
                                                                            changed):
    """break36: killed inside its third commit (that epoch's rows written, its transaction open), the
    job's checkpoint 2 is restored on purpose (``'execution.state-recovery.path'``) by a job of another
    ``'pipeline.name'`` or with one sink's prefix changed: another transactional id, which fences
    nothing of the old one. The open transaction held back every read_committed reader of the three
    topics until the broker's 15-minute timeout: the job finished with 715 + 761 of topic a's and c's
    2,000 rows (and b's) invisible. Now the restore aborts it first (as Flink's KafkaSink aborts a
    restored prefix's lingering transactions), and the topics hold DuckDB's answer."""
    first = _run([*job_args, "1"], "during_commit:3")
    assert first.returncode == 137, (first.stdout, first.stderr[-3000:])
    checkpoint = os.path.join(job_args[0], job_args[7], "chk-2")
    other = ([*job_args[:7], job_args[7] + "-renamed", *job_args[8:]] if changed == "name" else
             [*job_args[:8], job_args[8] + "x", *job_args[9:]])
    env = _env(other, "1", **{"execution.state-recovery.path": checkpoint})
    for ddl in tables(*other[2:]):
        env.execute_sql(ddl)
    job = env.execute_sql(STATEMENT_SET).job
    assert job.wait(300) == "FINISHED" and job.runner.restored_from == 2
    assert _got(kafka_bootstrap, *job_args[3:6]) == _expected()
