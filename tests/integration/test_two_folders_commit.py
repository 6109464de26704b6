"""One job run from two checkpoint folders: a run never resumes a checkpoint another folder committed.

break35: the same script (one ``'pipeline.name'``, one Kafka transactional id) run from folder X,
killed after writing ``chk-1`` and before committing it; then from folder Y, which committed its
own checkpoint 1 and was killed. X's restart read "checkpoint 1 committed" from the shared commit
point and resumed its own ``chk-1``, whose output the broker had aborted: exit 0, 6,666 of 13,281
rows written twice. The commit now records the checkpoint's random uid (``chk-n/_metadata``
has it too), and X is refused, naming both folders' ways on
(:func:`streamsql.checkpoint.identity.check_commit_is_ours`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from streamsql.testing import chaos

_SQL = """SET 'pipeline.name' = '{job}';
SET 'execution.checkpointing.interval' = '300 ms';
CREATE TABLE src (id BIGINT, k INT, v INT, g INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{bounded});
CREATE TABLE out_t (id BIGINT, k INT, v2 INT) WITH (
  'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO out_t SELECT id, k, v * 2 FROM src WHERE MOD(v, 3) <> 0;
"""


def _run(folder, script: str, fault: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMSQL_FAULT")}
    if fault:
        env["STREAMSQL_FAULT"] = fault
    return subprocess.run([sys.executable, "-m", "streamsql", "run", script], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=180, check=False)


def test_a_run_never_resumes_its_uncommitted_checkpoint_on_another_folders_commit(
        kafka_bootstrap, kafka_topic_factory, tmp_path):
    src, out = kafka_topic_factory("break35_two_in", partitions=3), kafka_topic_factory("break35_two_out")
    job = f"break35-two-{out[-10:]}"
    records = chaos.make_records(5000)
    chaos.produce(kafka_bootstrap, src, records, 0.2, threading.Event())
    scripts = {}
    for name in ("x", "y"):
        (tmp_path / name).mkdir()
        for kind, bounded in (("job", ""), ("final", ", 'scan.bounded.mode' = 'latest-offset'")):
            path = tmp_path / name / f"{kind}.sql"
            sql = _SQL.format(job=job, src=src, out=out, bootstrap=kafka_bootstrap, bounded=bounded)
            path.write_text(sql)
            scripts[name, kind] = str(path)
    # X writes chk-1 and dies before committing it; Y (another folder) commits its own checkpoint 1
    x = _run(tmp_path / "x", scripts["x", "job"], "after_snapshot_before_commit:1")
    assert x.returncode == 137, x.stderr
    assert (tmp_path / "x" / ".streamsql" / "checkpoints" / job / "chk-1" / "_metadata").exists()
    y = _run(tmp_path / "y", scripts["y", "job"], "after_commit_before_bookkeeping:1")
    assert y.returncode == 137, y.stderr
    committed = chaos.read_committed(kafka_bootstrap, out)  # Y's checkpoint 1
    again = _run(tmp_path / "x", scripts["x", "final"], None)
    assert again.returncode == 1, again.stderr  # was 0: "resumed from checkpoint #1", rows twice
    assert "its commit point says checkpoint 1 committed last, but that commit is not of the checkpoint 1" \
        in again.stderr, again.stderr
    assert "another 'pipeline.name' or 'sink.transactional-id-prefix'" in again.stderr
    assert len(chaos.read_committed(kafka_bootstrap, out)) == len(committed)  # nothing written by X
    # Y, whose commit it is, resumes it and finishes: every row once
    done = _run(tmp_path / "y", scripts["y", "final"], None)
    assert done.returncode == 0, done.stderr
    assert "resumed from checkpoint #1" in done.stderr
    ids = sorted(json.loads(v)["id"] for _, v in chaos.read_committed(kafka_bootstrap, out))
    assert ids == [r["id"] for r in records if r["v"] % 3 != 0]
