"""The filesystem sink under kill -9: each row in the committed part files exactly once.

A job reads a file of 3000 rows and writes them into a partitioned filesystem table whose part
files roll every 2 KB (so that files are pending at checkpoints, not only in progress), with a
checkpoint every 100 ms; the process dies at a fault point of the second checkpoint (or of the
sink's renames), then the same job runs again, restores the last committed checkpoint and
finishes. Before the fix the sink appended the rows after the last checkpoint again on restore.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

_CHILD = """
import sys
from streamsql.environment import StreamEnvironment
src, out, d, name = sys.argv[1:5]
env = StreamEnvironment({"execution.checkpointing.dir": d + "/chk", "state.dir": d + "/state",
                         "pipeline.name": name, "execution.checkpointing.interval": "100 ms",
                         "execution.batch-size": "10"})
env.execute_sql(f"CREATE TABLE s (id BIGINT, name STRING) WITH ('connector'='filesystem', 'path'='{src}', "
                f"'format'='json')")
env.execute_sql(f"CREATE TABLE d (id BIGINT, name STRING, p INT) PARTITIONED BY (p) WITH ("
                f"'connector'='filesystem', 'path'='{out}', 'format'='json', "
                f"'sink.rolling-policy.file-size'='2kb', 'sink.partition-commit.policy.kind'='success-file')")
env.execute_sql("INSERT INTO d SELECT id, name, CAST(id % 3 AS INT) FROM s")
env.wait_all()
"""

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _committed(out: str) -> list[int]:
    ids = []
    for folder, _dirs, files in os.walk(out):
        for f in files:
            if f.startswith((".", "_")):
                continue
            p = int(os.path.basename(folder).partition("=")[2])
            with open(os.path.join(folder, f)) as fh:
                for line in fh:
                    rec = json.loads(line)
                    assert "p" not in rec and rec["id"] % 3 == p  # the partition column is the folder's
                    ids.append(rec["id"])
    return ids


@pytest.mark.parametrize("fault", ["before_barrier:2", "after_snapshot_before_commit:2",
                                   "after_commit_before_bookkeeping:2", "during_file_commit:2"])
def test_kill_and_restart_writes_each_row_once(tmp_path, fault):
    src = tmp_path / "in.json"
    src.write_text("".join(json.dumps({"id": i, "name": f"n{i}"}) + "\n" for i in range(3000)))
    out = tmp_path / "out"
    name = f"fs-{uuid.uuid4().hex[:8]}"
    args = [sys.executable, "-c", _CHILD, str(src), str(out), str(tmp_path), name]
    env = {**os.environ, "PYTHONPATH": ROOT, "STREAMSQL_FAULT": fault}
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 137, r.stderr[-2000:]
    assert f"dying at {fault.partition(':')[0]}" in r.stderr
    before = _committed(str(out))
    assert len(before) == len(set(before)) < 3000  # what the killed run committed: once each
    env.pop("STREAMSQL_FAULT")
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    ids = _committed(str(out))
    assert len(ids) == 3000 and set(ids) == set(range(3000))
    hidden = [f for _d, _s, files in os.walk(out) for f in files if f.startswith(".")]
    assert hidden == []  # the killed run's in-progress files were resumed or deleted
    assert sorted(os.listdir(out)) == ["p=0", "p=1", "p=2"]
    assert all(os.path.exists(out / p / "_SUCCESS") for p in ("p=0", "p=1", "p=2"))
