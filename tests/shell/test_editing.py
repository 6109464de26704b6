"""Editing at the prompt: Ctrl-R history search and what Enter does to indentation."""

from __future__ import annotations

import re

HISTORY = "\n# 2024-01-01 00:00:00\n+SHOW JOBS;\n\n# 2024-01-01 00:00:01\n+HELP datagen;\n"


def test_ctrl_r_finds_an_older_entry_and_enter_runs_it(shell, workdir):
    (workdir / "history").write_text(HISTORY)
    sh = shell()
    m = sh.mark()
    sh.send("\x12")  # Ctrl-R
    sh.expect(r"reverse-i-search", after=m)
    sh.send("SHOW")  # matches the older entry, not the newest one
    sh.expect(r"SHOW JOBS;", after=m)
    sh.send("\n")  # takes the match and runs it, as readline does
    sh.expect(r"Empty set\nstreamsql> ", after=m)
    assert "Unhandled exception" not in sh.screen()

    m = sh.mark()
    sh.send("\x12")
    sh.expect(r"reverse-i-search", after=m)
    sh.send("SHO")
    sh.expect(r"SHOW JOBS;", after=m)
    sh.send("\x07")  # Ctrl-G abandons the search
    sh.send("\x03")  # Ctrl-C clears the line
    sh.send_expect("SHOW TABLES;\n", r"Empty set\nstreamsql> ")
    assert "Unhandled exception" not in sh.screen()


def test_ctrl_r_inside_an_unfinished_statement(shell, workdir):
    (workdir / "history").write_text(HISTORY)
    sh = shell()
    m = sh.mark()
    sh.send("SELECT\n")  # the prompt is now multi-line: the search shows in a toolbar
    sh.expect(r"-> ", after=m)
    sh.send("\x12SHOW")
    sh.expect(r"SHOW JOBS;", after=m)
    sh.send("\n")
    sh.expect(r"Empty set\nstreamsql> ", after=m)
    assert "Unhandled exception" not in sh.screen()
    sh.send("QUIT\n")
    assert sh.wait() == 0


def test_enter_does_not_add_indentation_to_what_is_typed(shell, workdir):
    sh = shell()
    # ran (as typed, indentation and all)
    sh.send_expect("SELECT\n  1 AS a,\n  2 AS b,\n    3 AS c\nFROM nowhere;\n",
                   r"\[ERROR\] Table or view 'nowhere'")
    sh.send("QUIT\n")
    assert sh.wait() == 0
    text = (workdir / "history").read_text()
    assert "+SELECT\n+  1 AS a,\n+  2 AS b,\n+    3 AS c\n+FROM nowhere;\n" in text, text
    assert not re.search(r"^\+ {5,}", text, re.M), text
