"""The ``streamsql shell`` console script in a pseudo-terminal: real keys, real signals."""

from __future__ import annotations

import re
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


def test_rows_a_background_insert_prints_come_above_the_prompt_which_is_redrawn(workdir):
    """A print sink's rows while the user types: the prompt is erased, the row printed, then the
    prompt drawn again with the typed text (before shell/stdout.py each row was written after the
    prompt, which was gone until a key was pressed).

    Checked on the bytes the terminal gets: between the prompt last drawn and each row, the cursor
    goes back to the prompt's start and erases down (``ESC[<n>D ESC[J``); after the last row comes
    ``streamsql> `` with the typed ``SHOW JO``.
    """
    sh = PtyShell(env={"STREAMSQL_HISTORY": str(workdir / "history")}, cwd=str(workdir))
    try:
        sh.expect(r"streamsql> ", 20)
        sh.send_expect("CREATE TABLE ticks (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '4', "
                       "'number-of-rows' = '3', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                       "'fields.id.end' = '3');\r", r"succeeded.*streamsql> ")
        sh.send_expect("CREATE TABLE shown (id INT) WITH ('connector' = 'print');\r",
                       r"succeeded.*streamsql> ")
        sh.send("INSERT INTO shown SELECT id FROM ticks;\r")
        sh.expect(r"Job ID: \w+\n")
        sh.send("SHOW JO")  # typed, not run, while the job prints
        sh.expect(r"\+I\[3\]\n.*streamsql> SHOW JO", 20)
        with sh._lock:
            raw = sh.raw.decode()
        raw = raw[raw.index("Job ID: "):]
        for row in ("+I[1]\r\n", "+I[2]\r\n", "+I[3]\r\n"):
            at = raw.index(row)
            since_prompt = raw[raw.rindex("streamsql> ", 0, at):at]
            assert re.search(r"\x1b\[\d+D\x1b\[J", since_prompt), f"{row!r} written after the prompt: {raw!r}"
        typed = r"streamsql> (\x1b\[[0-9;]*m)*SHOW(\x1b\[[0-9;]*m)* JO"  # colours between the words
        assert re.search(typed, raw[raw.index("+I[3]"):]), raw
        sh.send("\x03QUIT\r")
        assert sh.wait(15) == 0
    finally:
        sh.close()
