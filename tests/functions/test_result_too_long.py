"""A string result past Java's longest String fails the job with a message, as Flink's fails it.

Flink 2.3 runs REPEAT('ab', 2147483647) into an OutOfMemoryError and fails the job; DuckDB would
build the string and this process took 22 GB before the kernel killed it (funcsweep24). The job
runs in a process limited to 3 GB of address space, so a regression fails here, not the machine.
"""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

_SCRIPT = """
CREATE TABLE src (s STRING, n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
  'fields.s.length' = '2', 'fields.n.min' = '2147483647', 'fields.n.max' = '2147483647');
CREATE TABLE snk (l BIGINT) WITH ('connector' = 'print');
INSERT INTO snk SELECT CHAR_LENGTH({call}) FROM src;
"""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


@pytest.mark.parametrize(("call", "message"), [
    ("REPEAT(s, n)", "REPEAT: the result would be longer than 1,073,741,823 characters "
                     "(2 characters repeated 2147483647 times)"),
    ("LPAD(s, n, s)", "LPAD: the result would be longer than 1,073,741,823 characters (length 2147483647)"),
    ("RPAD(s, n, s)", "RPAD: the result would be longer than 1,073,741,823 characters (length 2147483647)"),
])
def test_a_result_longer_than_a_java_string_fails_the_job(tmp_path, call, message):
    (tmp_path / "s.sql").write_text(_SCRIPT.format(call=call))
    proc = subprocess.run([sys.executable, "-m", "streamsql", "run", "s.sql"], cwd=tmp_path,
                          capture_output=True,
                          text=True, timeout=120, preexec_fn=_limited)
    assert proc.returncode != 0
    assert f"FAILED: {message}" in proc.stdout + proc.stderr
    assert "Out of Memory" not in proc.stdout + proc.stderr
