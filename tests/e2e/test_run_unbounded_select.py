"""An unbounded SELECT in ``streamsql run`` (and ``shell -f``) shows its rows when Ctrl-C ends it.

A newcomer's report (session 33): ``streamsql run`` of a script whose SELECT reads an unbounded
source printed nothing at all, neither while it ran nor when Ctrl-C ended it (exit 130): the rows
were collected for the table and dropped with the interrupt, where the piped shell shows them and
says ``Query terminated, received a total of N rows``. Since session 34 the rows are printed as
they arrive, as Flink's SQL client ``-f`` (``tests/shell/test_script_query.py``); without a
terminal the Ctrl-C ends the run (130), as it ends Flink's client.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

SCRIPT = """CREATE TABLE ticks (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '20',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000');
SELECT id FROM ticks;
"""


@pytest.mark.parametrize("args", [["run", "s.sql"], ["shell", "-f", "s.sql"]], ids=["run", "shell -f"])
def test_ctrl_c_prints_the_rows_an_unbounded_select_received(tmp_path, args):
    (tmp_path / "s.sql").write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(tmp_path / "h")}
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", *args], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = proc.stdout.readline()
        while first and not first.startswith("| +I |"):  # the query runs (not the imports: exit 130)
            first = proc.stdout.readline()
        time.sleep(3)  # ~20 rows a second for a few seconds
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        out = first + out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, out + err
    assert "Traceback" not in out + err
    ended = re.search(r"\nQuery terminated, received a total of (\d+) rows?( \(\d+\.\d+ seconds\))?\n", out)
    assert ended, out + err
    ids = [int(m) for m in re.findall(r"^\| \+I \| +(\d+) \|$", out, re.M)]
    # the sequence from its start, every row received, in order
    assert len(ids) == int(ended.group(1)) > 0 and ids == list(range(1, len(ids) + 1)), out
