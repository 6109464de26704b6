"""An in-process parallel job killed inside the checkpoint protocol resumes with the key groups it had.

16 INT keys: under today's bit-reversed assignment both tasks of 2 (and all of 3) hold keys (under
the ranges one task held all 16, so a crash never had state on both). The job (its tasks as
threads of one process, the embedding API's path) dies with ``os._exit(137)`` at a fault point of
the checkpoint protocol; the same job started again resumes the unfinished run (its
``_key_groups``, its tasks' committed state and its exchange topic) and reads on to the end. The
upsert topic's final table must be DuckDB's over all the rows, also when ``_key_groups`` was
deleted or rewritten to the ranges between the kill and the resume: the tasks' checkpoints record
the run's assignment and decide it (before, the resume took the ranges and routed half the keys
away from their counts, a wrong answer without an error).

The fault counts are the process's, not a task's: with six tasks committing checkpoint 1 on their
own threads, the 4th ``after_snapshot_before_commit`` can come before any of the first three
tasks' commits returned, and then nothing committed and the resume rightly starts afresh. So the
test asserts what a restore miss would break: each key's committed counts only grow (a run
started again from the beginning on top of committed output would count a key from 1 again), and
a first run that committed output is resumed from a checkpoint.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid
from collections import Counter

import orjson
import pytest

from tests.integration.test_flights import read_committed
from tests.integration.test_parallel import _duck, _load, _upserts

QUERY = "SELECT k, COUNT(*) AS c, SUM(v) AS s FROM src GROUP BY k"
SCRIPT = textwrap.dedent("""
    import sys
    from streamsql.environment import StreamEnvironment
    chk, state, src, out, bootstrap, parallelism, name = sys.argv[1:]
    env = StreamEnvironment({
        "parallelism.default": parallelism, "pipeline.name": name,
        "execution.checkpointing.interval": "200 ms", "execution.batch-size": "25",
        "execution.checkpointing.dir": chk, "state.dir": state})
    env.execute_sql(f'''CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
        'connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')''')
    env.execute_sql(f'''CREATE TABLE out_t (k INT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')''')
    job = env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*) AS c, SUM(v) AS s FROM src GROUP BY k").job
    job.wait(300)
    print("STATUS", job.status, "RESTORED", job.runner.restored_from)
""")


def _run(args: list[str], fault: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("STREAMSQL_FAULT")}
    if fault:
        env["STREAMSQL_FAULT"] = fault
    return subprocess.run([sys.executable, "-c", SCRIPT, *args], env=env, capture_output=True, text=True,
                          timeout=400)


@pytest.mark.parametrize(("parallelism", "fault", "tamper"), [
    (2, "after_commit_before_bookkeeping:4", None),
    (2, "before_exchange_commit:4", None),
    (3, "after_snapshot_before_commit:4", None),
    (2, "after_commit_before_bookkeeping:4", "delete"),
    (3, "after_commit_before_bookkeeping:4", "rewrite"),
])
def test_a_killed_parallel_run_resumes_with_its_key_groups(tmp_path, kafka_bootstrap, kafka_topic_factory,
                                                           parallelism, fault, tamper):
    src, out = kafka_topic_factory(partitions=8), kafka_topic_factory()
    rows = [{"id": i, "k": i % 16, "v": i % 7, "ts": "2026-01-01 00:00:00.000"} for i in range(3000)]
    _load(kafka_bootstrap, src, rows)
    # a name of its own: the tasks' progress groups on the shared broker are named after the job
    name = f"crash-resume-{uuid.uuid4().hex[:8]}"
    args = [str(tmp_path / "chk"), str(tmp_path / "state"), src, out, kafka_bootstrap, str(parallelism), name]
    first = _run(args, fault)
    assert first.returncode == 137, (first.stdout, first.stderr[-3000:])  # died at the fault point
    marker = tmp_path / "chk" / name / "_key_groups"
    assert marker.read_text() == "2"
    if tamper == "delete":
        marker.unlink()
    elif tamper == "rewrite":
        marker.write_text("1")  # the ranges: what a run without the file was taken to have
    committed_before = read_committed(kafka_bootstrap, out)
    second = _run(args, None)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "STATUS FINISHED RESTORED" in second.stdout, second.stdout
    if committed_before:  # some task committed a checkpoint: the resume starts from it
        assert "RESTORED None" not in second.stdout, (second.stdout, len(committed_before))
    counts: dict[bytes, list[int]] = {}
    for key, value in read_committed(kafka_bootstrap, out):
        counts.setdefault(key, []).append(orjson.loads(value)["c"])
    replayed = {k: c for k, c in counts.items() if any(a >= b for a, b in zip(c, c[1:]))}
    assert not replayed, replayed  # a key counted again from the start: input read twice
    assert _upserts(kafka_bootstrap, out, ["k", "c", "s"]) == Counter(_duck(QUERY, src=rows))
