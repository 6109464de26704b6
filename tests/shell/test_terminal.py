"""The ``streamsql shell`` console script in a pseudo-terminal: real keys, real signals."""

from __future__ import annotations

import sys

import pytest

from tests.shell.terminal import PtyShell

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


def test_console_script_ctrl_c_stops_query_and_quit_exits_0(workdir):
    sh = PtyShell(env={"STREAMSQL_HISTORY": str(workdir / "history")}, cwd=str(workdir))
    try:
        sh.expect(r"streamsql> ", 20)
        sh.send("CREATE TABLE ticks (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');\r")
        sh.expect(r"succeeded")
        m = sh.mark()
        sh.send("SELECT id FROM ticks;\r")
        sh.expect(r"\|\s+\+I \|", after=m)
        sh.send("\x03")  # Ctrl-C: the query's job is cancelled, the shell stays
        sh.expect(r"Query terminated, received a total of \d+ rows?.*streamsql> ", after=m)
        # the query's job is listed, as in Flink's SQL client, and nothing is left running
        shown = sh.send_expect("SHOW JOBS;\r", r"\| CANCELED \|.*rows? in set")
        assert "RUNNING" not in shown.group(0)
        sh.send("\x03")  # Ctrl-C at the prompt only clears the input
        sh.send("QUIT\r")
        assert sh.wait(15) == 0
        assert "Goodbye!" in sh.screen()
    finally:
        sh.close()
