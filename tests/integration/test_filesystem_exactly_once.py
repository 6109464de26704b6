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

#: the killed child's environment: argv are the source file, output folder, work folder, job name
_CHILD_ENV = """
import sys
from streamsql.environment import StreamEnvironment
src, out, d, name = sys.argv[1:5]
env = StreamEnvironment({"execution.checkpointing.dir": d + "/chk", "state.dir": d + "/state",
                         "pipeline.name": name, "execution.checkpointing.interval": "100 ms",
                         "execution.batch-size": "10"})
"""
_CHILD = _CHILD_ENV + """
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


_CHILD_PT = _CHILD_ENV + """
env.execute_sql(f"CREATE TABLE s (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
                f"'connector'='filesystem', 'path'='{src}', 'format'='json')")
env.execute_sql(f"CREATE TABLE d (id BIGINT, dt STRING, hm STRING) PARTITIONED BY (dt, hm) WITH ("
                f"'connector'='filesystem', 'path'='{out}', 'format'='json', "
                f"'sink.partition-commit.trigger'='partition-time', 'sink.partition-commit.delay'='1 min', "
                f"'partition.time-extractor.timestamp-pattern'='$dt $hm:00', "
                f"'sink.partition-commit.policy.kind'='success-file')")
env.execute_sql("INSERT INTO d SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') FROM s")
env.wait_all()
"""


def _minute_folders(out) -> dict[str, tuple[list[int], bool, bool]]:
    """Per partition folder: its committed ids, whether it has _SUCCESS, whether hidden files are left."""
    found = {}
    for folder, _dirs, files in os.walk(out):
        if not any(f.startswith(("part-", ".part-", "_")) for f in files):
            continue
        ids = []
        for f in files:
            if f.startswith("part-"):
                with open(os.path.join(folder, f)) as fh:
                    ids += [json.loads(line)["id"] for line in fh]
        found[os.path.relpath(folder, out)] = (sorted(ids), "_SUCCESS" in files,
                                               any(f.startswith(".") for f in files))
    return found


@pytest.mark.parametrize("fault", ["after_snapshot_before_commit:3", "during_file_commit:3"])
def test_partition_time_commit_survives_a_kill(tmp_path, fault):
    """A partition's _SUCCESS only once all its rows are committed; after the restart each row once.

    3000 rows, one a second (50 one-minute partitions), the watermark on their time and a delay of
    one minute: a partition is due once the watermark passed its minute's end, so the success file
    of a partition the killed run committed must sit beside every row of its minute, renamed.
    """
    src = tmp_path / "in.json"
    src.write_text("".join(json.dumps({"id": i, "ts": f"2024-01-05 10:{i // 60:02d}:{i % 60:02d}"}) + "\n"
                           for i in range(3000)))
    out = tmp_path / "out"
    name = f"fspt-{uuid.uuid4().hex[:8]}"
    args = [sys.executable, "-c", _CHILD_PT, str(src), str(out), str(tmp_path), name]
    env = {**os.environ, "PYTHONPATH": ROOT, "STREAMSQL_FAULT": fault}
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 137, r.stderr[-2000:]
    killed = _minute_folders(out)
    for folder, (ids, success, hidden) in killed.items():
        if success:  # committed by the killed run: complete, nothing left in progress
            minute = int(folder.rpartition("%3A")[2])
            assert ids == list(range(minute * 60, minute * 60 + 60)) and not hidden, folder
    assert any(s for _i, s, _h in killed.values()) and not all(s for _i, s, _h in killed.values())
    env.pop("STREAMSQL_FAULT")
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    done = _minute_folders(out)
    assert len(done) == 50 and all(s and not h for _i, s, h in done.values())  # the end commits all
    assert sorted(i for ids, _s, _h in done.values() for i in ids) == list(range(3000))
