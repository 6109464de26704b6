"""Finding 3 of issue 12: failures are always reported.

In ``streamsql run`` a job that failed after an unbounded job was started printed nothing (the
script ran on; Ctrl-C said only ``Interrupted``); in the shell a background INSERT that failed
gave no notice, and SHOW JOBS said ``FAILED`` with no way to see why.
"""

import os
import re
import signal
import subprocess
import sys

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import BadRecordError

ENDLESS = "CREATE TABLE ticks (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');"
BAD_SOURCE = ("CREATE TABLE src (id INT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
              "'format' = 'json');")


def _run(tmp_path, script: str):
    (tmp_path / "s.sql").write_text(script)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # Without the fix the run never ends (the unbounded job keeps it waiting): the timeout fails it.
    # SIGINT ignored, as in a script's background job or a pytest-xdist worker: the run must not
    # rely on SIGINT to stop waiting (it hung there when it did).
    return subprocess.run([sys.executable, "-m", "streamsql", "run", "s.sql"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))


def test_finding_3_run_reports_a_failure_while_an_unbounded_job_runs(tmp_path, bad_json):
    """Finding 3: the failure is reported with its cause, job name and record position, exit 1."""
    proc = _run(tmp_path, "\n".join([
        ENDLESS, "CREATE TABLE bh (id INT) WITH ('connector' = 'blackhole');",
        "INSERT INTO bh SELECT id FROM ticks;",
        BAD_SOURCE.format(path=bad_json), "CREATE TABLE `out` (id INT) WITH ('connector' = 'blackhole');",
        "INSERT INTO `out` SELECT id FROM src;"]))
    assert proc.returncode == 1, proc.stderr
    m = re.search(r"\[ERROR\] Job '(insert-into_out-[0-9a-f]{8})' \(id \w+\) FAILED: (.*)", proc.stderr)
    assert m, proc.stderr
    assert f"{bad_json}:2" in m.group(2) and "cannot convert 'x' to INT" in m.group(2)
    assert proc.stderr.count("FAILED:") == 1  # once, not again as a second error
    assert "Interrupted" not in proc.stderr


def test_finding_3_run_reports_a_failure_while_a_query_shows_rows(tmp_path, bad_json):
    """Finding 3: an INSERT failing while the script is busy in an unbounded SELECT ends the run."""
    proc = _run(tmp_path, "\n".join([
        BAD_SOURCE.format(path=bad_json), "CREATE TABLE `out` (id INT) WITH ('connector' = 'blackhole');",
        "INSERT INTO `out` SELECT id FROM src;", ENDLESS, "SELECT id FROM ticks;"]))
    assert proc.returncode == 1, proc.stderr
    assert re.search(r"Job 'insert-into_out-[0-9a-f]{8}' \(id \w+\) FAILED: .*bad.json:2", proc.stderr)


def test_finding_3_wait_all_raises_the_failure_while_another_job_runs(tmp_path, bad_json):
    """Finding 3: the embedding API's wait_all raises the first failure, not after the unbounded job."""
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")}) as env:
        env.execute_sql(ENDLESS.rstrip(";"))
        env.execute_sql("CREATE TABLE bh (id INT) WITH ('connector' = 'blackhole')")
        endless = env.execute_sql("INSERT INTO bh SELECT id FROM ticks").job
        env.execute_sql(BAD_SOURCE.format(path=bad_json).rstrip(";"))
        env.execute_sql("CREATE TABLE `out` (id INT) WITH ('connector' = 'blackhole')")
        failing = env.execute_sql("INSERT INTO `out` SELECT id FROM src").job
        with pytest.raises(BadRecordError) as e:
            env.wait_all()
        assert e.value is failing.error
        assert not endless.done
        rows = env.execute_sql("SHOW JOBS").rows
        by_id = {r[0]: r for r in rows}
        assert by_id[failing.job_id][2] == "FAILED"
        assert by_id[failing.job_id][-1].startswith("Cannot decode json record at ")
        assert by_id[endless.job_id][2] == "RUNNING" and by_id[endless.job_id][-1] is None
        text = env.execute_sql(f"DESCRIBE JOB '{failing.job_id}'").message
        assert f"Name:            {failing.name}" in text and "Status:          FAILED" in text
        assert str(failing.error).splitlines()[0] in text
