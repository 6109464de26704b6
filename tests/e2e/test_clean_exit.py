"""A finished job's process exits cleanly (code 0), for the CLI and for the embedding API.

An outer join with a one-sided ON predicate checks that predicate with a DuckDB connection the job
thread opens as it builds the job; the thread freed it only in its own teardown, which raced with
interpreter exit, and the process aborted there ("terminate called after throwing an instance of
''", exit code 134) after printing the right rows.
"""

import os
import subprocess
import sys

import pytest

TABLES = """
CREATE TABLE l (id INT, k STRING, v INT) WITH ('connector'='filesystem','path'='l.json','format'='json');
CREATE TABLE r (k STRING, c STRING) WITH ('connector'='filesystem','path'='r.json','format'='json');
CREATE TABLE p (id INT, c STRING) WITH ('connector'='print');
"""
EMBEDDED = """
from streamsql import StreamEnvironment
env = StreamEnvironment()
for statement in open("s.sql").read().split(";"):
    if statement.strip():
        result = env.execute_sql(statement)
result.job.wait()
"""


def _run(tmp_path, join: str, *command: str) -> subprocess.CompletedProcess:
    (tmp_path / "l.json").write_text('{"id":1,"k":"a","v":10}\n{"id":2,"k":"b","v":1}\n')
    (tmp_path / "r.json").write_text('{"k":"a","c":"FR"}\n')
    (tmp_path / "s.sql").write_text(TABLES + f"INSERT INTO p SELECT l.id, r.c FROM {join};\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, *command], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.parametrize("join", [
    "l LEFT JOIN r ON l.k = r.k AND l.v > 3",
    "l RIGHT JOIN r ON l.k = r.k AND r.c <> 'x'",
    "l FULL JOIN r ON l.k = r.k AND l.v > 3",
])
def test_run_of_an_outer_join_with_a_one_sided_predicate_exits_cleanly(tmp_path, join):
    """``streamsql run`` prints the join's rows, says FINISHED and exits with code 0."""
    proc = _run(tmp_path, join, "-m", "streamsql", "run", "s.sql")
    assert "terminate called" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert "FINISHED" in proc.stderr
    assert "+I[1, FR]" in proc.stdout


def test_embedded_wait_on_an_outer_join_exits_cleanly(tmp_path):
    """A script that waits on the job through the embedding API exits with code 0 after it."""
    proc = _run(tmp_path, "l LEFT JOIN r ON l.k = r.k AND l.v > 3", "-c", EMBEDDED)
    assert "terminate called" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert "+I[1, FR]" in proc.stdout
